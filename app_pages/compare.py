"""Compare: the chosen policies over several seeds, with confidence intervals."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.compare import (
    HELD_OUT,
    held_out_threshold,
    results_table,
    summarize_comparison,
    threshold_sweep,
)
from engine.policies import display_name
from lab import figures, line, runs, state, ui

st.title("Compare policies")
names = runs.policy_names()
if "cmp_policies" not in st.session_state:
    st.session_state["cmp_policies"] = runs.default_comparison()
pick, every = st.columns([5, 1], vertical_alignment="bottom")
chosen = pick.multiselect("policies", names, format_func=display_name, key="cmp_policies")
every.button("All policies", key="cmp_all", on_click=runs.choose_all, args=("cmp_policies",))
left, right = st.columns([3, 1])
first = state.seed()
if state.origin() == "generated":
    seeds = left.slider("seeds (workloads)", 1, 10, 3, key="cmp_seeds",
                        help="The generated workload is redrawn with each seed.")
    st.caption(f"Seeds {first}…{first + seeds - 1} of the active workload settings on "
               f"{state.cluster()}.")
else:  # replaying the same jobs gives the same numbers: no honest interval to draw
    seeds = 1
    st.caption(f"{state.origin()} on {state.cluster()}: one fixed set of jobs, so one run "
               "per policy and no confidence intervals (generate workloads to vary them).")
if right.button("Run comparison", type="primary", key="cmp_run", disabled=not chosen):
    with ui.inline_errors(), ui.queued(line.compare_line(), "Simulating…") as progress:
        results, skipped = runs.compare_runs(chosen, first, seeds, progress)
        st.session_state["comparison"] = (results, skipped)

done = st.session_state.get("comparison")
if done is not None:
    results, skipped = done
    ui.skipped_note(skipped)
    table = results_table(results)
    if table.empty:
        st.stop()
    summary = summarize_comparison(table)
    by_policy = summary.set_index("policy")
    pooled_jobs = {  # in the summary's order, so each policy has one colour on every chart
        name: pd.concat([r[name].jobs for r in results.values() if name in r])
        for name in by_policy.index
    }
    bound = float(table["lower_bound_avg_jct"].mean())
    ui.chart(figures.jct_bar_figure(by_policy["avg_jct_mean"], by_policy["avg_jct_ci95"], bound),
             key="cmp_jct")
    st.caption("Mean average JCT over the seeds with 95% confidence intervals; the dashed "
               "line is the mean no-contention lower bound.")
    left, right = st.columns(2)
    with left:
        ui.chart(figures.jct_cdf_figure(pooled_jobs), key="cmp_cdf")
    with right:
        ui.chart(figures.gpus_per_model_figure(pooled_jobs), key="cmp_gpus")
    first_runs = results[min(results)]
    timelines = {n: first_runs[n].timeline for n in by_policy.index if n in first_runs}
    ui.chart(figures.timeline_figure(timelines, state.cluster().total_gpus), key="cmp_timeline")
    st.caption(f"Utilization and queue over time on seed {min(results)}.")
    sweep = threshold_sweep(table)
    if not sweep.empty:
        ui.chart(figures.sweep_figure(sweep), key="cmp_sweep")
    held_out_jct = held_out_threshold(table)
    if held_out_jct is not None:
        held_out = held_out_jct.mean()
        oracle = float(by_policy.loc[runs.REFERENCE, "avg_jct_mean"])
        st.caption(f"`{HELD_OUT}`: a threshold tuned on the *other* seeds, as a real "
                   f"operator would have to tune it, averages {figures.duration(held_out)} "
                   f"rather than {figures.duration(oracle)} with hindsight on each seed.")
    st.subheader("Results")
    st.dataframe(figures.readable_summary(summary), hide_index=True)
    with st.expander("every run"):
        st.dataframe(table, hide_index=True)
    ui.downloads("comparison", table, {"summary": summary})
