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
from lab import figures, runs, state, ui

st.title("Compare policies")
names = runs.policy_names()
chosen = st.multiselect("policies", names, default=names, key="cmp_policies")
left, right = st.columns([3, 1])
seeds = left.slider("seeds (workloads)", 1, 10, 3, key="cmp_seeds",
                    help="A generated workload is redrawn with each seed; a loaded one is "
                    "replayed, and only the policies' seeds change.")
first = state.seed()
st.caption(f"Seeds {first}…{first + seeds - 1} of the active workload settings on "
           f"{state.cluster()}. `python -m engine compare` gives the same table.")
if right.button("Run comparison", type="primary", key="cmp_run", disabled=not chosen):
    with ui.inline_errors():
        results, skipped = runs.compare_runs(chosen, first, seeds,
                                             ui.progress_bar("Simulating…"))
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
        st.caption(f"`{HELD_OUT}`: with the setting best on the *other* seeds instead of its "
                   f"own, the threshold rule averages {held_out:,.0f} s rather than "
                   f"{oracle:,.0f} s; the gap is what tuning on the workload itself is worth.",
                   help="python -m engine compare prints the same figure.")
    st.subheader("Results")
    st.dataframe(summary, hide_index=True)
    with st.expander("every run"):
        st.dataframe(table, hide_index=True)
    ui.downloads("comparison", table, {"summary": summary})
