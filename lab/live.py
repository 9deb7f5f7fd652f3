"""The Live page's simulation: a Simulator kept in the session and moved by a wall clock.

The simulated clock advances by the *wall* time since the last frame times the chosen
speed, not by a fixed step per frame: frames take longer on a loaded server or a slow
browser, and a fixed step would then run the clock slower than its label says. Play and
Pause set the state explicitly (never toggle it) and only for the state they were drawn
in: Streamlit may deliver one click's callback twice, or replay it after the next script
run, and a stale Pause must not stop the playing that a later Play started. A paused
frame never moves the clock.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import streamlit as st

from engine.errors import USER_ERRORS
from engine.policies import display_name
from engine.simulator import Simulator
from lab import figures, runs, state

FRAME_S = 0.12
"""The frame fragment's ``run_every``. The browser asks for the next frame this long after
the last one arrived, so with a frame's own round trip and drawing (50-100 ms on a busy
two-core server) the chart updates about 5 times a second."""
LOG_S = 1.0
"""Seconds between refreshes of the utilization chart and the decision log while playing:
a log that scrolls five times a second cannot be read."""
MAX_GAP_S = 1.0
"""The most wall time one frame may catch up on, so a stalled server does not jump hours."""
SPEEDS = state.SPEEDS


@dataclass
class LiveRun:
    """A simulation being watched: the simulator, its drawing state and the clock shown."""

    key: tuple
    sim: Simulator
    rows: figures.GpuRows
    clock: float = 0.0
    playing: bool = False
    wall: float = 0.0
    """``time.monotonic()`` of the last frame that moved the clock (or of Play)."""
    version: int = 0
    """Counts Play and Pause presses; a button's callback carries the version it was drawn at."""
    error: Exception | None = field(default=None)
    horizon: float = 0.0
    """The last arrival: the Gantt chart picks its time unit from it (set once, at start)."""

    @property
    def finished(self) -> bool:
        return self.sim.done

    def play(self, seen: int | None = None) -> None:
        """Start playing, unless the Play pressed was drawn before the latest press."""
        if not self.finished and seen in (None, self.version):
            self.playing, self.wall, self.version = True, time.monotonic(), self.version + 1

    def pause(self, seen: int | None = None) -> None:
        """Stop playing, unless the Pause pressed was drawn before the latest press."""
        if seen in (None, self.version):
            self.playing, self.version = False, self.version + 1

    def tick(self, speed: float, now: float | None = None) -> None:
        """While playing, move the clock by the wall time since the last tick x ``speed``."""
        if not self.playing:
            return
        now = time.monotonic() if now is None else now
        elapsed = min(max(now - self.wall, 0.0), MAX_GAP_S)
        self.wall = now
        self.advance(self.clock + speed * elapsed)
        if self.finished or self.error is not None:
            self.playing = False

    def advance(self, until: float) -> None:
        """Process every event up to ``until`` and move the clock there."""
        try:
            self.sim.run_until(until)
        except USER_ERRORS as error:
            self.error = error
        self.clock = until if not self.sim.done else max(self.clock, self.sim.now)
        self.sync()

    def step(self) -> None:
        """One event (and the starts the policy makes there)."""
        try:
            self.sim.step()
        except USER_ERRORS as error:
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
        with st.spinner(f"Preparing {display_name(policy)}…"):
            sim = Simulator(state.jobs(), cluster, runs.make(policy), state.seed())
        last = max((job.submit_time for job in sim.jobs), default=0.0)
        live = LiveRun(key, sim, figures.GpuRows(cluster), horizon=last)
        ss["live"] = live
    return live


def current() -> LiveRun:
    return st.session_state["live"]


def play(seen: int) -> None:
    current().play(seen)


def pause(seen: int) -> None:
    current().pause(seen)


def restart() -> None:
    st.session_state.pop("live", None)


def finished_text(live: LiveRun) -> str:
    """The closing line of a run: when it ended and how it did."""
    summary = live.sim.result().summary
    return (f"**Finished**: all {summary.jobs} jobs done after "
            f"{figures.duration(live.sim.now)} of simulated time. Average JCT "
            f"{figures.duration(summary.avg_jct)}, p95 JCT {figures.duration(summary.p95_jct)}, "
            f"utilization {summary.utilization:.0%}. Press Reset to watch it again.")
