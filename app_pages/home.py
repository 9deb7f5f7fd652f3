"""Home: what the lab finds, in named scenarios, then one click on the user's workload."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from engine.policies import display_name
from lab import figures, runs, scenarios, state, ui

st.title("Moldable Lab")
st.markdown(
    "A **moldable** deep-learning job can train on any number of GPUs within a range, "
    "but the number is fixed when it starts. Schedulers such as Slurm, Kubernetes and "
    "Mesos leave that number to users, who cannot see the cluster's state, so jobs "
    "either queue for a big allocation or hold GPUs they barely use. A scheduler that "
    "picks both *which* job runs next and *on how many GPUs* shortens job completion "
    "times; here a deep-RL scheduler learns that choice from experience."
)

st.subheader("What the lab finds")
st.caption(f"Generated scenarios over {scenarios.SEEDS} seeds, with 95% confidence intervals. "
           "Slurm FIFO is what clusters do today: arrival order, the GPUs the user asked "
           "for. The tuned threshold tries every setting on the very workload and keeps "
           "the best, which no real scheduler can: a tie with it is a good result.")
findings = st.container()  # filled last: the page is usable while they compute

st.subheader("Your workload")
workload = state.workload()
st.caption(f"Workload **{workload.name}** ({len(workload)} job{'s' if len(workload) != 1 else ''}) "
           f"on **{state.cluster()}**; change them on the Workload page and in the sidebar.")
if st.button("Run the demo", type="primary", key="home_run"):
    st.session_state["home_ran"] = True

if st.session_state.get("home_ran"):
    with ui.inline_errors():
        seed = state.seed()
        results, skipped = runs.compare_runs(
            ["drl", *runs.baseline_names()], seed, 1, ui.progress_bar("Scheduling…")
        )
        ui.skipped_note(skipped)
        results = results[seed]
        best = results.get("drl") or min(results.values(), key=lambda r: r.summary.avg_jct)
        st.markdown(f"**{display_name(best.policy)}** on this workload, seed {seed}:")
        ui.summary_cards(best.summary, {name: results[name].summary.avg_jct
                                        for name in scenarios.RIVALS if name in results})
        means = pd.Series({name: r.summary.avg_jct for name, r in results.items()})
        ui.chart(figures.jct_bar_figure(means, lower_bound=best.summary.lower_bound_avg_jct),
                 key="home_chart")
        st.caption("Average job completion time per policy (lower is better); the dashed "
                   "line is the no-contention lower bound. Watch one run on the Live "
                   "simulation page, or compare many seeds on Compare.")

with findings, ui.inline_errors():
    for index, scenario in enumerate(scenarios.SCENARIOS):
        result = scenarios.outcome(index)
        st.markdown(f"**{scenario.title}**: {scenario.story}")
        ui.metric_cards([
            ("drl average JCT", figures.duration(result.drl_jct)
             + (f" ± {figures.duration(result.drl_half)}" if math.isfinite(result.drl_half)
                else ""), None),
            *((f"vs {figures.label(c.rival)}", c.headline(), None) for c in result.changes),
        ])
        st.caption(result.reading())
