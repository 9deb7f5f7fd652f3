"""Compare: the chosen policies over several seeds with confidence intervals, and the same
workloads as rigid, moldable and malleable jobs, each mode with its best policy."""

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
from engine.modes import MODE_POLICIES, summarize_modes
from engine.policies import display_name
from engine.units import TimeUnit, unit_for
from lab import figures, line, runs, state, ui
from lab.plain import plain

CI_NOTE = ("Each mean over the seeds is given ± the half-width of its 95% confidence "
           "interval; every number, makespans included, is in the downloads.")

st.title("Compare policies")
first = state.seed()
if state.origin() == "generated":
    seeds = st.slider("seeds (workloads)", 1, 10, help="The generated workload is redrawn "
                      "with each seed.", **state.bind("seeds"))
    st.caption(f"Seeds {first}…{first + seeds - 1} of the active workload settings on "
               f"{state.cluster()}.")
else:  # replaying the same jobs gives the same numbers: no honest interval to draw
    seeds = 1
    st.caption(f"{plain(state.origin())} on {state.cluster()}: one fixed set of jobs, so one run "
               "per policy and no confidence intervals (generate workloads to vary them).")
policies_tab, modes_tab = st.tabs(["Policies", "Job modes"])


def chosen_changed() -> None:
    runs.choose(st.session_state["cmp_policies"])


with policies_tab:
    names = runs.policy_names()
    st.session_state["cmp_policies"] = [n for n in runs.chosen() if n in names]
    pick, every, run = st.columns([5, 1, 1], vertical_alignment="bottom")
    chosen = pick.multiselect("policies", names, format_func=display_name, key="cmp_policies",
                              on_change=chosen_changed, wrap=True)
    every.button("All policies", key="cmp_all", on_click=runs.choose_all)
    if run.button("Run comparison", type="primary", key="cmp_run", disabled=not chosen):
        with ui.inline_errors():
            st.session_state["comparison"] = ui.queued(
                line.compare_line(), "Simulating…",
                lambda progress, budget: runs.compare_runs(chosen, first, seeds, progress, budget))

    done = st.session_state.get("comparison")
    if done is not None:
        results, skipped = done
        ui.skipped_note(skipped)
        table = results_table(results)
        if not table.empty:
            summary = summarize_comparison(table)
            by_policy = summary.set_index("policy")
            pooled_jobs = {  # in the summary's order: one colour per policy on every chart
                name: pd.concat([r[name].jobs for r in results.values() if name in r])
                for name in by_policy.index
            }
            bound = float(table["lower_bound_avg_jct"].mean())
            unit = unit_for(float(by_policy["avg_jct_mean"].max()))  # one for the whole tab
            ui.chart(figures.jct_bar_figure(by_policy["avg_jct_mean"],
                                            by_policy["avg_jct_ci95"], bound, unit=unit),
                     key="cmp_jct")
            st.caption("Mean average JCT over the seeds with 95% confidence intervals; the "
                       "dashed line is the mean no-contention lower bound.")
            left, right = ui.side_by_side(stacked=len(pooled_jobs) > figures.MAX_LINES)
            with left:
                ui.chart(figures.jct_cdf_figure(pooled_jobs, unit), key="cmp_cdf")
            with right:
                ui.chart(figures.gpus_per_model_figure(pooled_jobs), key="cmp_gpus")
            first_runs = results[min(results)]
            timelines = {n: first_runs[n].timeline for n in by_policy.index if n in first_runs}
            ui.chart(figures.timeline_figure(timelines, state.cluster().total_gpus),
                     key="cmp_timeline")
            st.caption(f"Utilization and queue over time on seed {min(results)}.")
            sweep = threshold_sweep(table)
            if not sweep.empty:
                ui.chart(figures.sweep_figure(sweep, unit), key="cmp_sweep")
            held_out_jct = held_out_threshold(table)
            if held_out_jct is not None:
                oracle = float(by_policy.loc[runs.REFERENCE, "avg_jct_mean"])
                st.caption(f"`{HELD_OUT}`: a threshold tuned on the *other* seeds, as a real "
                           "operator would have to tune it, averages "
                           f"{unit.format(held_out_jct.mean())} rather than "
                           f"{unit.format(oracle)} with hindsight on each seed.")
            st.subheader("Results")
            ui.table(figures.readable_summary(summary, unit))
            st.caption(CI_NOTE)
            with st.expander("every run"):
                st.dataframe(table, hide_index=True)
            ui.downloads("comparison", table, {"summary": summary})


def mode_reading(best: pd.DataFrame, unit: TimeUnit) -> str:
    """One sentence for the room: each mode's best average JCT, against rigid jobs'."""
    rigid = best.loc[best["mode"] == "rigid", "avg_jct_mean"]
    parts = []
    for row in best.to_dict("records"):
        text = (f"{row['mode']} jobs average {unit.format(row['avg_jct_mean'])} with "
                f"{figures.label(row['policy'])}")
        if row["mode"] != "rigid" and len(rigid):
            against = ui.reduction(row["avg_jct_mean"], float(rigid.iloc[0]))
            restarts = (f", {row['restarts_mean']:,.0f} restarts per workload"
                        if row["restarts_mean"] else "")
            text += f" ({against:+.0%} against rigid{restarts})"
        parts.append(text)
    return "Read it as: " + "; ".join(parts) + "."


with modes_tab:
    st.markdown(
        "The same workloads three times: every job **rigid** (exactly the GPUs its user "
        "asked for), **moldable** (a GPU count chosen when it starts) and **malleable** "
        "(resized while it runs, each resize a restart). Each mode is scored by its best "
        "policy, so the chart reads as *what elasticity buys*.")
    st.caption("Candidates. " + " ".join(
        f"{mode}: {', '.join(f'`{n}`' for n in names)}." for mode, names in MODE_POLICIES.items()))
    if st.button("Run job modes", type="primary", key="cmp_modes_run"):
        with ui.inline_errors():
            st.session_state["modes"] = ui.queued(
                line.compare_line(), "Simulating…",
                lambda progress, budget: runs.compare_modes(first, seeds, progress, budget))
    done_modes = st.session_state.get("modes")
    if done_modes is not None:
        mode_table, left_out = done_modes
        ui.skipped_note(left_out)
        best = summarize_modes(mode_table)
        unit = unit_for(float(best["avg_jct_mean"].max()))  # one for the whole tab
        ui.chart(figures.modes_bar_figure(best, unit), key="cmp_modes")
        st.caption(f"Mean average JCT over {int(best['runs'].max())} workload(s), 95% "
                   f"confidence intervals. {mode_reading(best, unit)}")
        readable = figures.readable_summary(best, unit)
        readable.insert(0, "mode", best["mode"])
        readable["restarts per workload"] = best["restarts_mean"].round(1)
        ui.table(readable)
        st.caption(CI_NOTE)
        ui.downloads("job_modes", mode_table, {"best": best})
