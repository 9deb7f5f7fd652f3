"""Live simulation: watch one policy schedule the workload, event by event.

The Simulator lives in the session and only moves forward (``run_until``/``step``);
each frame redraws from its state, so a frame costs the events since the last one plus
the drawing, never a re-run from the start.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from engine.simulator import Simulator
from lab import figures, runs, state, ui

FRAME_S = 0.2
"""Seconds between frames while playing: 5 updates per second."""
SPEEDS = {"1 min/s": 60, "10 min/s": 600, "1 h/s": 3600, "6 h/s": 21600, "1 day/s": 86400}


@dataclass
class LiveRun:
    """A simulation being watched: the simulator, its drawing state and the clock shown."""

    key: tuple
    sim: Simulator
    rows: figures.GpuRows
    clock: float = 0.0
    error: Exception | None = field(default=None)

    def advance(self, until: float) -> None:
        """Process every event up to ``until`` and move the clock there."""
        try:
            self.sim.run_until(until)
        except ui.USER_ERRORS as error:
            self.error = error
        self.clock = until if not self.sim.done else max(self.clock, self.sim.now)
        self.sync()

    def step(self) -> None:
        """One event (and the starts the policy makes there)."""
        try:
            self.sim.step()
        except ui.USER_ERRORS as error:
            self.error = error
        self.clock = max(self.clock, self.sim.now)
        self.sync()

    def sync(self) -> None:
        self.rows.add([*self.sim.finished, *self.sim.running.values()])


def live_run(policy: str) -> LiveRun:
    """The session's simulation of ``policy`` on the active workload, new if they changed."""
    ss = st.session_state
    key = (policy, state.workload_key())
    live = ss.get("live")
    if live is None or live.key != key:
        cluster = state.cluster()
        sim = Simulator(state.jobs(), cluster, runs.make(policy), state.seed())
        live = LiveRun(key, sim, figures.GpuRows(cluster))
        ss["live"] = live
        ss["playing"] = False
    return live


def restart() -> None:
    st.session_state.pop("live", None)
    st.session_state["playing"] = False


def toggle() -> None:
    st.session_state["playing"] = not st.session_state.get("playing", False)


st.title("Live simulation")
names = runs.policy_names()
if state.get("policy") not in names:
    state.put("policy", "drl")
top = st.columns([2, 2, 2, 1, 1, 1])
policy = top[0].selectbox("policy", names, **state.bind("policy"))
colour_by = top[1].radio("colour by", ("model", "job"), horizontal=True, key="live_colour")
speed = top[2].select_slider("speed (simulated time per second)", list(SPEEDS), value="1 h/s",
                             key="live_speed")

with ui.inline_errors():
    live = live_run(policy)
    playing = bool(st.session_state.get("playing")) and not live.sim.done
    top[3].button("Pause" if playing else "Play", on_click=toggle, type="primary",
                  disabled=live.sim.done, key="live_play")
    if top[4].button("Step", disabled=live.sim.done or playing, key="live_step"):
        live.step()
    top[5].button("Reset", on_click=restart, key="live_reset")

    @st.fragment(run_every=FRAME_S if playing else None)
    def frame() -> None:
        """One frame: advance the clock (when playing) and redraw from the simulator."""
        live = st.session_state["live"]
        if st.session_state.get("playing") and not live.sim.done:
            live.advance(live.clock + SPEEDS[speed] * FRAME_S)
            if live.sim.done or live.error is not None:
                st.session_state["playing"] = False
                st.rerun()
        if live.error is not None:
            ui.show_error(live.error)
        sim = live.sim
        summary = sim.result().summary
        ui.metric_cards([
            ("simulated time", figures.duration(live.clock), None),
            ("jobs done", f"{summary.completed} / {summary.jobs}", None),
            ("running / waiting", f"{len(sim.running)} / {len(sim.waiting)}", None),
            ("GPUs busy", f"{sim.busy_gpus} / {sim.cluster.total_gpus}", None),
            ("average JCT so far", figures.duration(summary.avg_jct), None),
        ])
        ui.chart(figures.gantt_figure(live.rows, live.clock, colour_by), key="live_gantt")
        left, right = st.columns([1, 1])
        timeline = pd.DataFrame(sim.timeline, columns=["time", "busy_gpus", "queue", "running"])
        with left:
            ui.chart(figures.timeline_figure({policy: timeline}, sim.cluster.total_gpus),
                     key="live_timeline")
        with right:
            st.subheader("Decision log")
            st.caption("Each start: the GPUs chosen, what was free, and for `drl` its most "
                       "likely actions (job×GPUs) and the chance it would rather wait.")
            st.dataframe(figures.decision_log(sim.decisions), hide_index=True, height=360)

    frame()
