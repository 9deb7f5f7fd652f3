"""Live simulation: watch one policy schedule the workload, event by event.

The Simulator lives in the session and only moves forward (``lab.live``). Two fragments
redraw it while playing: the cards and the Gantt chart as fast as the browser draws them
(up to about six times a second), the utilization chart and the decision log once a
second, so each frame sends less. The elastic policies (preemption, resizing) play here
too, on the elastic simulator.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.policies import display_name
from lab import figures, live, state, ui

st.title("Live simulation")
names = live.policy_names()
if state.get("policy") not in names:
    state.put("policy", "drl")
top = st.columns([3, 2, 2, 1.5, 1.2, 1])  # room for the keys shown on Play and Step
policy = top[0].selectbox("policy", names, format_func=display_name, **state.bind("policy"))
colour_by = top[1].radio("colour by", ("model", "job"), horizontal=True, key="live_colour")
speed = top[2].select_slider("speed (simulated time per second)", list(live.SPEEDS),
                             **state.bind("speed"))

with ui.inline_errors():
    run = live.live_run(policy)
    if run.sim.policy.resizes and not any(job.mode == "malleable" for job in run.sim.jobs):
        st.info(f"{display_name(policy)} resizes only malleable jobs, and none of these is: "
                "choose job mode *malleable* on the Workload page to watch jobs grow and "
                "shrink.")
    if run.finished:
        top[3].button("Finished", disabled=True, key="live_finished")
    elif run.playing:  # its own key: a click on Play can never reach Pause, nor the reverse
        top[3].button("Pause", on_click=live.pause, args=(run.version,), type="primary",
                      key="live_pause", shortcut=live.KEYS["play"])
    else:
        top[3].button("Play", on_click=live.play, args=(run.version,), type="primary",
                      key="live_play", shortcut=live.KEYS["play"])
    if top[4].button("Step", disabled=run.finished or run.playing, key="live_step",
                     shortcut=live.KEYS["step"]):
        run.step()
    top[5].button("Reset", on_click=live.restart, key="live_reset")
    st.caption(live.KEYS_TEXT)
    if run.finished:
        st.success(live.finished_text(run))
    playing = run.playing

    @st.fragment
    def frame() -> None:
        """Move the clock (when playing), then the cards and the Gantt chart; the browser
        asks for the next frame once it has drawn this one (``live.next_frame``), so it
        never falls behind, however big the chart grows."""
        run = live.current()
        clock = run.tick(live.SPEEDS[speed])
        if run.playing != playing:  # finished, failed, or a Play or Pause that Streamlit
            st.rerun(scope="app")  # handed to this fragment's run: redraw the controls
        if run.error is not None:
            ui.show_error(run.error)
        # a Pause keeps the clock the browser shows: the frame counts as sent with its
        # first card (the clock's), not after the chart, which a click may cut off
        ui.metric_cards(run.cards(clock), shown=run.commit)
        ui.chart(figures.gantt_figure(run.rows, clock, colour_by, run.horizon),
                 key="live_gantt")
        live.next_frame(run)

    @st.fragment(run_every=live.LOG_S if playing else None)
    def log() -> None:
        """The utilization and queue chart and the decision log, refreshed less often."""
        run = live.current()
        sim = run.sim
        timeline = pd.DataFrame(sim.timeline, columns=["time", "busy_gpus", "queue", "running"])
        ui.chart(figures.timeline_figure({policy: timeline}, sim.cluster.total_gpus),
                 key="live_timeline")
        st.subheader("Decision log")
        if run.elastic:
            st.caption("Each start, resume, resize and preemption, newest first: the GPUs "
                       "the job held before and the GPUs it holds now (0: preempted), what "
                       "was free, and why. A resized or resumed job restores its checkpoint "
                       "first (the hatched grey bars on the chart).")
        else:
            st.caption("Each start, newest first: the GPUs the user requested and the GPUs "
                       "the policy chose, what was free, and why. For the deep-RL scheduler, "
                       "*why* lists its most likely choices (job×GPUs) and its chance of "
                       "waiting.")
        before = run.before if run.elastic else None
        ui.table(figures.decision_log(sim.decisions, before=before), height=360)

    frame()
    log()
