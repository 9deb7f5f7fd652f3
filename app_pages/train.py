"""Train: run PPO with your own hyper-parameters and workloads, then use the result."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from engine.drl.bc import LOSSES
from engine.drl.ppo_config import PPOConfig
from engine.env.curriculum import CURRICULA
from engine.parallel import describe_backend
from lab import figures, line, runs, state, ui
from lab.plain import plain
from lab.training import TrainingRun, ending, verdict, weights_bytes

POLL_S = 1.0
CURVE = {
    "val_jct_over_bound": "drl on the validation workloads",
    "mean_episode_jct_over_bound": "drl on its training workloads",
    "teacher_val_jct_over_bound": "its best teacher per validation workload",
}
"""The learning curve's lines: history column -> what it measures, in words."""
CLUSTER_SIZES = (8, 16, 32, 64, 128, 256)


def training() -> TrainingRun | None:
    return st.session_state.get("training")


def start() -> None:
    """The form's submit callback: it runs before the page is drawn, so Start is drawn
    disabled for the whole run (a check in the script would come one run too late)."""
    ss = st.session_state
    ss.pop("train_eval", None)
    ss["train_refused"] = None
    if not ss["tr_sizes"] or not ss["tr_models"]:
        ss["train_refused"] = "Pick at least one cluster size and one model to train on."
        return
    bc_episodes = int(ss["tr_bc"])
    ss["training"] = TrainingRun(line.train_line(), PPOConfig(
        seed=int(ss["tr_seed"]), iterations=int(ss["tr_iterations"]), envs=int(ss["tr_envs"]),
        steps=int(ss["tr_steps"]), learning_rate=float(ss["tr_lr"]),
        clip_coef=float(ss["tr_clip"]), ent_coef=float(ss["tr_ent"]),
        gamma=float(ss["tr_gamma"]), hidden=int(ss["tr_hidden"]), bc_episodes=bc_episodes,
        dagger_episodes=bc_episodes,  # the warm start grows with the episodes asked for
        bc_segments=int(ss["tr_segments"]), bc_loss=ss["tr_loss"],
        val_episodes=int(ss["tr_val"]), eval_every=int(ss["tr_eval_every"]),
        curriculum=replace(CURRICULA[ss["tr_preset"]], cluster_gpus=tuple(ss["tr_sizes"]),
                           loads=ss["tr_loads"], jobs=ss["tr_jobs"],
                           models=tuple(ss["tr_models"]),
                           trace_shaped=float(ss["tr_trace_shaped"])),
    )).start()


def keep(run: TrainingRun) -> str:
    """Offer the run's best weights to the other pages, once, as ``trained-N``."""
    trained = runs.trained()
    for name, entry in trained.items():
        if entry["run"] is run:
            return name
    name = f"trained-{len(trained) + 1}"
    trained[name] = {"state": run.result.best_state, "run": run}
    return name


st.title("Train a scheduler")
st.markdown(
    "PPO fine-tunes a network that first imitates a heuristic teacher (behaviour "
    "cloning). Training workloads are drawn at random from the ranges below; the score "
    "is average JCT over its lower bound on fixed validation workloads (lower is "
    "better)."
)

def use_preset() -> None:
    """Put the chosen curriculum's clusters and loads into the form, to adjust."""
    ss = st.session_state
    preset = CURRICULA[ss["tr_preset"]]
    ss["tr_sizes"] = [g for g in preset.cluster_gpus if g in CLUSTER_SIZES]
    ss["tr_loads"] = preset.loads
    ss["tr_models"] = list(preset.models)
    ss["tr_trace_shaped"] = preset.trace_shaped


run = training()
busy = run is not None and run.running
st.selectbox("training workloads", list(CURRICULA), key="tr_preset", on_change=use_preset,
             help="broad: one 8-GPU node to 256 GPUs, loads 0.3-5, Poisson and bursty "
             "arrivals, users who ask for one GPU or any count (what the shipped drl "
             "learned on); moderate: loads 0.5-1, Poisson; small clusters; one node; or "
             "trace-shaped: every job Amdahl's, a heavy tail, bursty and busy, as an imported "
             "SWF or Philly trace is.")
with st.form("train_form"):
    st.subheader("Hyper-parameters")
    a, b, c, d = st.columns(4)
    a.number_input("PPO iterations", 1, 500, 10, key="tr_iterations")
    b.number_input("environments", 1, 16, 4, key="tr_envs")
    c.number_input("steps per environment", 16, 2048, 128, step=16, key="tr_steps")
    d.selectbox("hidden width", (32, 64, 128), index=1, key="tr_hidden")
    a, b, c, d = st.columns(4)
    a.select_slider("learning rate", (1e-5, 3e-5, 1e-4, 3e-4, 1e-3), value=1e-4, key="tr_lr")
    b.slider("clip", 0.05, 0.5, 0.2, 0.05, key="tr_clip")
    c.slider("entropy bonus", 0.0, 0.05, 0.003, 0.001, format="%.3f", key="tr_ent")
    d.select_slider("discount γ", (0.99, 0.995, 0.999, 1.0), value=0.999, key="tr_gamma")
    a, b, c, d = st.columns(4)
    a.number_input("teacher episodes (0: no warm start)", 0, 500, 20, key="tr_bc")
    b.number_input("validation workloads", 1, 50, 4, key="tr_val")
    c.number_input("validate every", 1, 50, 2, key="tr_eval_every")
    d.number_input("training seed", 0, 10_000, 0, key="tr_seed")
    a.number_input("relabellings per episode", 0, 32, PPOConfig.bc_segments, key="tr_segments",
                   help="How often each warm-start episode is relabelled by the teacher that "
                   "plays the rest of it best (8: how the shipped drl learned; 0: once, by the "
                   "whole workload, about 40% faster).")
    b.selectbox("cloning loss", LOSSES, index=LOSSES.index(PPOConfig.bc_loss), key="tr_loss",
                help="cross-entropy on the teacher best from each labelling on; or the "
                "student's expected regret over the teachers' actions, which learns the "
                "action that costs least on average where states look alike.")
    st.subheader("Training workloads")
    a, b = st.columns(2)
    a.multiselect("cluster sizes (GPUs)", CLUSTER_SIZES, default=[16, 32, 64], key="tr_sizes",
                  wrap=True)
    b.slider("offered load", 0.2, 5.0, (0.5, 1.0), 0.05, key="tr_loads")
    a.slider("jobs per workload", 20, 400, (40, 80), 10, key="tr_jobs")
    b.multiselect("models", CURRICULA["broad"].models, default=list(CURRICULA["broad"].models),
                  key="tr_models", wrap=True, help="the six measured DL jobs, and Amdahl's law "
                  "(what jobs imported from SWF and Philly traces follow)")
    a.slider("trace-shaped episodes", 0.0, 1.0, CURRICULA["broad"].trace_shaped, 0.05,
             key="tr_trace_shaped", help="Share of training workloads shaped like an "
             "imported trace of rigid runs (all Amdahl, heavy-tailed, bursty, busy).")
    st.form_submit_button("Start training", type="primary", disabled=busy, on_click=start)

if st.session_state.get("train_refused"):
    st.error(st.session_state["train_refused"])


@st.fragment(run_every=POLL_S if busy else None)
def progress() -> None:
    """Poll the training thread: progress, learning curve, and Stop."""
    run = training()
    if run is None:
        st.info("Set the hyper-parameters and start training.")
        return
    if run.running:
        st.progress(run.fraction, text=run.status())
        st.button("Stop", key="train_stop", on_click=run.request_stop)
    elif st.session_state.get("train_was_running", False):
        st.session_state["train_was_running"] = False
        st.rerun()
    st.session_state["train_was_running"] = run.running
    if run.rows:
        history = pd.DataFrame(run.rows)
        present = {c: name for c, name in CURVE.items()
                   if c in history and history[c].notna().any()}
        ui.chart(figures.learning_curve_figure(history, "iteration", present), key="train_curve")


progress()

run = training()
if run is not None and not run.running:
    if run.error is not None:
        ui.show_error(run.error if isinstance(run.error, ui.USER_ERRORS)
                      else ValueError(f"training failed: {run.error}"))
    elif run.halted:
        st.info(run.halted)
    elif run.result is not None:
        name = keep(run)
        result = run.result
        better, reading = verdict(run)
        (st.success if better else st.warning)(
            f"{ending(run)} {reading} Saved as **{name}**: pick it on the Live simulation "
            "and Compare pages."
        )
        st.download_button("Download weights (.pt)", weights_bytes(result.best_state),
                           f"{name}.pt", "application/octet-stream", on_click="ignore")
        if st.button("Evaluate against the baselines on the active workload",
                     key="train_evaluate"):
            with ui.inline_errors():
                seed = state.seed()
                results, skipped = ui.queued(
                    line.compare_line(), "Evaluating…",
                    lambda progress, budget: runs.compare_runs(
                        [name, "drl", *runs.baseline_names()], seed, 1, progress, budget))
                st.session_state["train_eval"] = (
                    pd.Series({p: r.summary.avg_jct for p, r in results[seed].items()}),
                    skipped,
                )
        evaluated = st.session_state.get("train_eval")
        if evaluated is not None:
            means, skipped = evaluated
            ui.skipped_note(skipped)
            ui.chart(figures.jct_bar_figure(means, highlight=name), key="train_eval_chart")
st.caption(f"Active workload for evaluation: {plain(state.workload().name)} on {state.cluster()}. "
           f"Training's episodes run on {describe_backend()}.")
