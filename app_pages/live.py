"""Live simulation: watch one policy schedule the workload, event by event.

The Simulator lives in the session and only moves forward (``lab.live``). Two fragments
redraw it while playing: the cards and the Gantt chart five times a second, the
utilization chart and the decision log once a second, so each frame sends less.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.policies import display_name
from lab import figures, live, runs, state, ui

st.title("Live simulation")
names = runs.policy_names()
if state.get("policy") not in names:
    state.put("policy", "drl")
top = st.columns([3, 2, 2, 1, 1, 1])
policy = top[0].selectbox("policy", names, format_func=display_name, **state.bind("policy"))
colour_by = top[1].radio("colour by", ("model", "job"), horizontal=True, key="live_colour")
speed = top[2].select_slider("speed (simulated time per second)", list(live.SPEEDS),
                             value="1 h/s", key="live_speed")

with ui.inline_errors():
    run = live.live_run(policy)
    if run.finished:
        top[3].button("Finished", disabled=True, key="live_finished")
    elif run.playing:  # its own key: a click on Play can never reach Pause, nor the reverse
        top[3].button("Pause", on_click=live.pause, args=(run.version,), type="primary",
                      key="live_pause")
    else:
        top[3].button("Play", on_click=live.play, args=(run.version,), type="primary",
                      key="live_play")
    if top[4].button("Step", disabled=run.finished or run.playing, key="live_step"):
        run.step()
    top[5].button("Reset", on_click=live.restart, key="live_reset")
    if run.finished:
        st.success(live.finished_text(run))
    playing = run.playing

    @st.fragment(run_every=live.FRAME_S if playing else None)
    def frame() -> None:
        """Move the clock (when playing), then the cards and the Gantt chart."""
        run = live.current()
        was_playing = run.playing
        run.tick(live.SPEEDS[speed])
        if was_playing and not run.playing:  # finished or failed: redraw the controls
            st.rerun(scope="app")
        if run.error is not None:
            ui.show_error(run.error)
        sim = run.sim
        summary = sim.result().summary
        ui.metric_cards([
            ("simulated time", figures.duration(run.clock), None),
            ("jobs done", f"{summary.completed} / {summary.jobs}", None),
            ("running / waiting", f"{len(sim.running)} / {len(sim.waiting)}", None),
            ("GPUs busy", f"{sim.busy_gpus} / {sim.cluster.total_gpus}", None),
            ("average JCT" if run.finished else "average JCT so far",
             figures.duration(summary.avg_jct), None),
        ])
        ui.chart(figures.gantt_figure(run.rows, run.clock, colour_by, run.horizon),
                 key="live_gantt")

    @st.fragment(run_every=live.LOG_S if playing else None)
    def log() -> None:
        """The utilization and queue chart and the decision log, refreshed less often."""
        sim = live.current().sim
        timeline = pd.DataFrame(sim.timeline, columns=["time", "busy_gpus", "queue", "running"])
        ui.chart(figures.timeline_figure({policy: timeline}, sim.cluster.total_gpus),
                 key="live_timeline")
        st.subheader("Decision log")
        st.caption("Each start, newest first: the GPUs the user requested and the GPUs the "
                   "policy chose, what was free, and why. For the deep-RL scheduler, *why* "
                   "lists its most likely choices (job×GPUs) and its chance of waiting.")
        st.dataframe(figures.decision_log(sim.decisions), hide_index=True, height=360,
                     column_config=ui.DECISION_COLUMNS, width="stretch")

    frame()
    log()
