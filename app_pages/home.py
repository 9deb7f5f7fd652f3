"""Home: what the lab finds, in named scenarios, then the same reading of the user's workload."""

from __future__ import annotations

import math

import streamlit as st

from engine.units import TimeUnit, unit_for
from lab import app, figures, line, scenarios, state, tour, ui

st.title("Moldable Lab")
tour.show(app.pages_dir())
st.markdown(
    "A **moldable** deep-learning job can train on any number of GPUs within a range, "
    "but the number is fixed when it starts. Schedulers such as Slurm, Kubernetes and "
    "Mesos leave that number to users, who cannot see the cluster's state, so jobs "
    "either queue for a big allocation or hold GPUs they barely use. A scheduler that "
    "picks both *which* job runs next and *on how many GPUs* shortens job completion "
    "times; here a deep-RL scheduler learns that choice from experience."
)


def show(result: scenarios.Outcome, unit: TimeUnit, story: bool = True) -> None:
    """A scenario as its story, drl's average JCT and its change against each rival."""
    if story:
        st.markdown(f"**{result.scenario.title}**: {result.scenario.story}")
    half = (f" ± {unit.format(result.drl_half)}" if math.isfinite(result.drl_half)
            else "")
    ui.metric_cards([
        ("average JCT, deep-RL", unit.format(result.drl_jct) + half, None),
        *((f"vs {figures.label(c.rival)}", c.headline(), None) for c in result.changes),
    ])
    st.caption(result.reading())


st.subheader("What the lab finds")
st.caption(f"Generated scenarios over {scenarios.SEEDS} seeds, with 95% confidence intervals. "
           "Slurm FIFO is what clusters do today: arrival order, the GPUs the user asked "
           "for. The tuned threshold tries every setting on the very workload and keeps "
           "the best, which no real scheduler can: a tie with it is a good result. A *tie* "
           "means no clear difference: the 95% confidence interval of the change includes "
           f"zero (or the change is under {scenarios.TIE:.0%}).")
findings = st.container()  # filled last: the page is usable while they compute

st.subheader("Your workload")
scenario, key = scenarios.yours()
where = ("the cluster and seed after leaving presentation mode" if state.presenting()
         else "the cluster and seed in the sidebar")
st.caption(f"{scenario.story} Change the workload and its job mode on the Workload page, "
           f"{where}.")
if st.button("Run the demo", type="primary", key="home_run"):
    st.session_state["home_ran"] = True
yours = st.container()

# Every time on the page in one unit, picked from the largest one shown: so the named
# scenarios come first (computed once per server), then the user's own.
named: list[scenarios.Outcome] = []
with findings, ui.inline_errors():
    named = [scenarios.outcome(index) for index in range(len(scenarios.SCENARIOS))]
result = None
if st.session_state.get("home_ran"):
    with yours, ui.inline_errors():
        result = scenarios.known(key)
        if result is None:  # nobody on this server has computed these settings yet
            result = ui.queued(
                line.compare_line(), "Scheduling your workload…",
                lambda progress, budget: scenarios.known(key) or scenarios.keep(
                    key, scenarios.compute(scenario, progress, budget)))
by_policy = None if result is None else result.summary.set_index("policy")
shown = [o.drl_jct for o in named] + (
    [] if by_policy is None else by_policy["avg_jct_mean"].tolist())
unit = unit_for(max((t for t in shown if math.isfinite(t)), default=0.0))

with findings:
    for outcome in named:
        show(outcome, unit)
    if (missing := scenarios.missing_trace()) is not None:
        st.info(missing)
if result is not None and by_policy is not None:
    with yours:
        show(result, unit, story=False)
        ui.chart(figures.jct_bar_figure(by_policy["avg_jct_mean"], by_policy["avg_jct_ci95"],
                                        by_policy["lower_bound_avg_jct_mean"].mean(),
                                        unit=unit),
                 key="home_chart")
        st.caption("Average job completion time per policy (lower is better), with 95% "
                   "confidence intervals over the seeds; the dashed line is the "
                   "no-contention lower bound. Watch one run on the Live simulation page, "
                   "or compare more policies on Compare.")
if state.is_default():  # the same default demo for the whole class: ready before asked
    with ui.inline_errors():
        scenarios.warm(key, scenario)
