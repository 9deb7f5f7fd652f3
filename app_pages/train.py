"""Train: run PPO with your own hyper-parameters and workloads, then use the result."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.drl.ppo import PPOConfig
from engine.env.curriculum import Curriculum
from engine.speedup import MEASURED_MODELS
from lab import figures, runs, state, ui
from lab.training import TrainingRun, weights_bytes

POLL_S = 1.0
CURVE = ("val_jct_over_bound", "mean_episode_jct_over_bound", "teacher_val_jct_over_bound")
CLUSTER_SIZES = (8, 16, 32, 64, 128, 256)


def training() -> TrainingRun | None:
    return st.session_state.get("training")


def start(config: PPOConfig) -> None:
    st.session_state["training"] = TrainingRun(config).start()
    st.session_state.pop("train_eval", None)


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
    "better). `python -m engine train` does the same from a terminal."
)

run = training()
busy = run is not None and run.running
with st.form("train_form"):
    st.subheader("Hyper-parameters")
    a, b, c, d = st.columns(4)
    iterations = a.number_input("PPO iterations", 1, 500, 10, key="tr_iterations")
    envs = b.number_input("environments", 1, 16, 4, key="tr_envs")
    steps = c.number_input("steps per environment", 16, 2048, 128, step=16, key="tr_steps")
    hidden = d.selectbox("hidden width", (32, 64, 128), index=1, key="tr_hidden")
    a, b, c, d = st.columns(4)
    learning_rate = a.select_slider("learning rate", (1e-5, 3e-5, 1e-4, 3e-4, 1e-3),
                                    value=1e-4, key="tr_lr")
    clip = b.slider("clip", 0.05, 0.5, 0.2, 0.05, key="tr_clip")
    entropy = c.slider("entropy bonus", 0.0, 0.05, 0.003, 0.001, format="%.3f", key="tr_ent")
    gamma = d.select_slider("discount γ", (0.99, 0.995, 0.999, 1.0), value=0.999,
                            key="tr_gamma")
    a, b, c, d = st.columns(4)
    bc_episodes = a.number_input("teacher episodes (0: no warm start)", 0, 500, 20,
                                 key="tr_bc")
    val_episodes = b.number_input("validation workloads", 1, 50, 4, key="tr_val")
    eval_every = c.number_input("validate every", 1, 50, 2, key="tr_eval_every")
    seed = d.number_input("training seed", 0, 10_000, 0, key="tr_seed")
    st.subheader("Training workloads")
    a, b = st.columns(2)
    sizes = a.multiselect("cluster sizes (GPUs)", CLUSTER_SIZES, default=[16, 32, 64],
                          key="tr_sizes")
    loads = b.slider("offered load", 0.2, 1.5, (0.5, 1.0), 0.05, key="tr_loads")
    jobs = a.slider("jobs per workload", 20, 400, (40, 80), 10, key="tr_jobs")
    models = b.multiselect("models", MEASURED_MODELS, default=list(MEASURED_MODELS),
                           key="tr_models")
    submitted = st.form_submit_button("Start training", type="primary", disabled=busy)

if submitted:
    with ui.inline_errors():
        if not sizes or not models:
            raise ValueError("pick at least one cluster size and one model to train on")
        curriculum = Curriculum(cluster_gpus=tuple(sizes), loads=loads, jobs=jobs,
                                models=tuple(models))
        start(PPOConfig(
            seed=int(seed), iterations=int(iterations), envs=int(envs), steps=int(steps),
            learning_rate=float(learning_rate), clip_coef=float(clip),
            ent_coef=float(entropy), gamma=float(gamma), hidden=int(hidden),
            bc_episodes=int(bc_episodes), val_episodes=int(val_episodes),
            eval_every=int(eval_every), curriculum=curriculum,
        ))
        busy = True


@st.fragment(run_every=POLL_S if busy else None)
def progress() -> None:
    """Poll the training thread: progress, learning curve, and Stop."""
    run = training()
    if run is None:
        st.info("Set the hyper-parameters and start training.")
        return
    if run.running:
        text = (f"Training… iteration {int(run.rows[-1].get('iteration', 0))} of "
                f"{run.config.iterations}" if run.rows
                else "Warm start: imitating the teacher and scoring it…")
        st.progress(run.fraction, text=text)
        if st.button("Stop", key="train_stop"):
            run.stop.set()
            st.toast("Stopping after the current iteration…")
    elif st.session_state.get("train_was_running", False):
        st.session_state["train_was_running"] = False
        st.rerun()
    st.session_state["train_was_running"] = run.running
    if run.rows:
        history = pd.DataFrame(run.rows)
        present = [c for c in CURVE if c in history and history[c].notna().any()]
        ui.chart(figures.learning_curve_figure(history, "iteration", present), key="train_curve")


progress()

run = training()
if run is not None and not run.running:
    if run.error is not None:
        ui.show_error(run.error if isinstance(run.error, ui.USER_ERRORS)
                      else ValueError(f"training failed: {run.error}"))
    elif run.result is not None:
        name = keep(run)
        result = run.result
        st.success(
            f"{'Stopped' if result.stopped else 'Finished'} after {result.iterations} "
            f"iterations in {result.seconds:.0f} s. Best validation score "
            f"{result.best_score:.3f} (teacher {result.teacher_score:.3f}). Saved as "
            f"**{name}**: pick it on the Live simulation and Compare pages."
        )
        st.download_button("Download weights (.pt)", weights_bytes(result.best_state),
                           f"{name}.pt", "application/octet-stream", on_click="ignore")
        if st.button("Evaluate against the baselines on the active workload",
                     key="train_evaluate"):
            with ui.inline_errors():
                seed = state.seed()
                results, skipped = runs.compare_runs(
                    [name, "drl", *runs.baseline_names()], seed, 1,
                    ui.progress_bar("Evaluating…"),
                )
                st.session_state["train_eval"] = (
                    pd.Series({p: r.summary.avg_jct for p, r in results[seed].items()}),
                    skipped,
                )
        evaluated = st.session_state.get("train_eval")
        if evaluated is not None:
            means, skipped = evaluated
            ui.skipped_note(skipped)
            ui.chart(figures.jct_bar_figure(means, highlight=name), key="train_eval_chart")
st.caption(f"Active workload for evaluation: {state.workload().name} on {state.cluster()}.")
