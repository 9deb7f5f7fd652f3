"""Home: one click runs the DRL scheduler and every baseline on the active workload."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lab import figures, runs, state, ui

st.title("Moldable Lab")
st.markdown(
    "A **moldable** deep-learning job can train on any number of GPUs within a range, "
    "but the number is fixed when it starts. Schedulers such as Slurm, Kubernetes and "
    "Mesos leave that number to users, who cannot see the cluster's state, so jobs "
    "either queue for a big allocation or hold GPUs they barely use. A scheduler that "
    "picks both *which* job runs next and *on how many GPUs* shortens job completion "
    "times; here a deep-RL scheduler learns that choice from experience."
)

workload = state.workload()
st.caption(f"Workload **{workload.name}** ({len(workload)} jobs) on **{state.cluster()}**; "
           "change them on the Workload page and in the sidebar.")
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
        reference = results.get(runs.REFERENCE)
        st.subheader(f"`{best.policy}`")
        ui.summary_cards(best.summary, reference.summary.avg_jct if reference else None)
        means = pd.Series({name: r.summary.avg_jct for name, r in results.items()})
        ui.chart(figures.jct_bar_figure(means, lower_bound=best.summary.lower_bound_avg_jct),
                 key="home_chart")
        st.caption("Average job completion time per policy (lower is better); the dashed "
                   "line is the no-contention lower bound. Watch one run on the Live "
                   "simulation page, or compare many seeds on Compare.")
