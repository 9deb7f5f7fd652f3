"""The Live page's simulation: a Simulator kept in the session and moved by a wall clock.

The simulated clock advances by the *wall* time since the last frame times the chosen
speed, not by a fixed step per frame: frames take longer on a loaded server or a slow
browser, and a fixed step would then run the clock slower than its label says. Play and
Pause set the state explicitly (never toggle it) and only for the state they were drawn
in: Streamlit may deliver one click's callback twice, or replay it after the next script
run, and a stale Pause must not stop the playing that a later Play started.

A frame's clock counts as shown only once its chart has been sent (:meth:`LiveRun.tick`
then :meth:`LiveRun.commit`). A Pause click interrupts the frame fragment that is running
(a full-app rerun preempts a fragment at its next Streamlit call); had that frame already
moved the clock, the paused page would draw one step further than the browser ever saw,
one more chart update after the click. Uncommitted, the paused page redraws the clock
last sent. A paused frame never moves the clock.

The browser pulls the frames: each one ends in :func:`next_frame`, a script that asks for
the next frame (a rerun of the fragment) only once this one has been painted. With
``run_every`` the browser's timer asked regardless, and a frame could be sent while the
last was still being drawn: two were in flight when a Pause came, and both were drawn
after the click. Now at most the one requested can be, however slowly the browser draws.
A click that comes as the next frame is requested may be folded by Streamlit into that
fragment's run: its callback runs there, and the fragment, finding the run no longer in
the state the page was drawn in, reruns the whole page (else Pause stayed on screen).

The simulator is stepped one event at a time so that every segment of an elastic job
(each resize or resume) is seen, with its GPUs, before a later event replaces it; the
cards are kept from counters updated per event, so a frame costs the same at 200 jobs
as at 20,000.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import streamlit as st

from engine.errors import USER_ERRORS
from engine.policies import ELASTIC_POLICIES, Policy, display_name, make_policy, policy_entry
from engine.policies.tuned import TunedPolicy
from engine.simulator import ElasticSimulator, Simulator, make_simulator
from lab import figures, runs, state

FRAME_S = 0.12
"""The least time between a frame's arrival in the browser and its request for the next.
The browser asks for each frame only once it has drawn the last (:func:`next_frame`), so
a big chart simply comes less often; this only keeps a small one from costing the server
a frame per screen refresh (about 6 frames a second)."""
LOG_S = 1.0
"""Seconds between refreshes of the utilization chart and the decision log while playing:
a log that scrolls five times a second cannot be read."""
MAX_GAP_S = 1.5
"""The most wall time one frame may catch up on, so a stalled server does not jump hours
(a browser drawing thousands of bars takes about a second a frame and keeps its speed)."""
SPEEDS = state.SPEEDS
KEYS = {"play": "Space", "step": "Right"}
"""Keyboard shortcuts of the Live controls: a lecturer at a projector (or holding a
presenter remote, whose buttons send keys) plays, pauses and steps without the mouse."""
KEYS_TEXT = ("Keys: **Space** plays or pauses, **→** steps one event (when paused). Click "
             "the page once first if the keys do nothing.")
BUDGET = replace(runs.RUN_BUDGET, wall_s=None, memory_mb=None)
"""A watched run's budget: the app's event times and simulated span. Not its wall time (a
run lasts as long as it is watched) nor its memory (it steps in the server's process,
whose memory is every session's)."""


def policy_names() -> list[str]:
    """What Live can play: the moldable policies, then the elastic ones (which preempt or
    resize running jobs, so the Gantt chart shows it)."""
    return [*runs.policy_names(), *ELASTIC_POLICIES]


@dataclass
class LiveRun:
    """A simulation being watched: the simulator, its drawing state and the clock shown."""

    key: tuple
    sim: Simulator
    rows: figures.GpuRows
    clock: float = 0.0
    """The simulated time of the last frame sent to the browser."""
    playing: bool = False
    wall: float = 0.0
    """``time.monotonic()`` of the last frame that moved the clock (or of Play)."""
    frames: int = 0
    """Frames sent while playing, so each frame's request for the next is its own."""
    version: int = 0
    """Counts Play and Pause presses; a button's callback carries the version it was drawn at."""
    error: Exception | None = field(default=None)
    horizon: float = 0.0
    """The last arrival: the Gantt chart picks its time unit from it (set once, at start)."""
    pending: tuple[float, float] | None = None
    """``(clock, wall)`` of the frame being drawn, until :meth:`commit`."""
    before: list[int] = field(default_factory=list)
    """Per decision, the GPUs its job held just before it (the decision log's *from*)."""
    jct_total: float = 0.0
    """Sum of the finished jobs' completion times, for the average-JCT card."""
    actions: dict[str, int] = field(default_factory=dict)
    """How many decisions of each elastic kind (resize, preempt, resume) were made."""
    _held: dict[int, int] = field(default_factory=dict)
    _closed: int = 0
    _finished: int = 0

    @property
    def finished(self) -> bool:
        return self.sim.done

    @property
    def elastic(self) -> bool:
        return isinstance(self.sim, ElasticSimulator)

    @property
    def avg_jct(self) -> float:
        """Average JCT of the jobs finished so far (NaN before the first)."""
        done = len(self.sim.finished)
        return self.jct_total / done if done else math.nan

    @property
    def last_end(self) -> float:
        """When the last job ended. Not ``sim.now`` at the end: an elastic run's superseded
        completion events still come up (and are skipped) after it."""
        return max((run.end for run in self.sim.finished), default=0.0)

    def play(self, seen: int | None = None) -> None:
        """Start playing, unless the Play pressed was drawn before the latest press."""
        if not self.finished and seen in (None, self.version):
            self.playing, self.wall, self.version = True, time.monotonic(), self.version + 1
            self.pending = None

    def pause(self, seen: int | None = None) -> None:
        """Stop playing, unless the Pause pressed was drawn before the latest press.

        The frame the click interrupted is dropped: the clock stays at the last one sent.
        """
        if seen in (None, self.version):
            self.playing, self.version, self.pending = False, self.version + 1, None

    def tick(self, speed: float, now: float | None = None) -> float:
        """The clock this frame draws: while playing, the events up to the last frame's
        clock + wall time since it x ``speed`` are processed; :meth:`commit` once sent."""
        self.pending = None
        if not self.playing:
            return self.clock
        now = time.monotonic() if now is None else now
        elapsed = min(max(now - self.wall, 0.0), MAX_GAP_S)
        until = self.clock + speed * elapsed
        self._run_until(until)
        clock = until if not self.sim.done else max(self.clock, self.last_end)
        if self.finished or self.error is not None:
            self.playing, self.clock = False, clock  # the app reruns to draw the end
            return clock
        self.pending = (clock, now)
        return clock

    def commit(self) -> None:
        """The frame from :meth:`tick` was sent: its clock is now the one shown."""
        if self.pending is not None:
            (self.clock, self.wall), self.pending = self.pending, None
            self.frames += 1

    def advance(self, until: float) -> None:
        """Process every event up to ``until`` and move the clock there."""
        self._run_until(until)
        self.clock = until if not self.sim.done else max(self.clock, self.last_end)

    def step(self) -> None:
        """One event (and the starts the policy makes there)."""
        self._guarded(self.sim.step)
        self.clock = max(self.clock, self.sim.now)

    def _run_until(self, until: float) -> None:
        while (due := next_event(self.sim)) is not None and due <= until and self.error is None:
            self._guarded(self.sim.step)

    def _guarded(self, move: Callable[[], object]) -> None:
        try:
            move()
        except USER_ERRORS as error:
            self.error = error
        self.sync()

    def sync(self) -> None:
        """Bring the Gantt rows and the counters up to the simulator, after one event.

        Segments that ended are cut before new ones start, so a resized job can take its
        own GPUs back at the same instant.
        """
        sim, rows = self.sim, self.rows
        if isinstance(sim, ElasticSimulator):
            for job, *_, end, _work in sim.segments[self._closed:]:
                rows.cut(job.index, end)
            self._closed = len(sim.segments)
            delays = (sim.start_delay, sim.restart_delay)
        else:
            for run in sim.finished[self._closed:]:
                rows.cut(run.job.index, run.end)
            self._closed = len(sim.finished)
            delays = (0.0, 0.0)
        for decision in sim.decisions[len(self.before):]:
            i = decision.job.index
            self.before.append(self._held.get(i, 0))
            self._held[i] = decision.gpus
            action = (decision.info or {}).get("action")
            if action is not None:
                self.actions[action] = self.actions.get(action, 0) + 1
            run = sim.running.get(i)
            if decision.gpus and run is not None and run.start == decision.time:
                rows.start(run, run.start + delays[i in rows.runs])
        for run in sim.finished[self._finished:]:
            self.jct_total += run.end - run.job.submit_time
        self._finished = len(sim.finished)

    def cards(self, clock: float) -> list[tuple[str, str, str | None]]:
        """The metric cards at ``clock``, from counters (never ``sim.result()``)."""
        sim = self.sim
        cards: list[tuple[str, str, str | None]] = [
            ("simulated time", figures.duration(clock), None),
            ("jobs done", f"{len(sim.finished)} / {len(sim.jobs)}", None),
            ("running / waiting", f"{len(sim.running)} / {len(sim.waiting)}", None),
            ("GPUs busy", f"{sim.busy_gpus} / {sim.cluster.total_gpus}", None),
            ("average JCT" if self.finished else "average JCT so far",
             figures.duration(self.avg_jct), None),
        ]
        if self.elastic:
            count = self.actions.get
            cards.append(("resizes / preemptions",
                          f"{count('resize', 0)} / {count('preempt', 0)}", None))
        return cards


def next_event(sim: Simulator) -> float | None:
    """When ``sim``'s next event is due (``None``: no event left).

    The engine's ``Simulator`` has no public accessor for it; its own ``run_until``
    reads the event heap the same way.
    """
    return sim._events.peek_time()


def live_run(policy: str) -> LiveRun:
    """The session's simulation of ``policy`` on the active workload, new if they changed."""
    ss = st.session_state
    key = (policy, state.workload_key())
    live = ss.get("live")
    if live is None or live.key != key:
        cluster = state.cluster()
        jobs = state.jobs()
        sim = make_simulator(jobs, cluster, policy_object(policy), state.seed(), BUDGET)
        last = max((job.submit_time for job in sim.jobs), default=0.0)
        live = LiveRun(key, sim, figures.GpuRows(cluster), horizon=last)
        ss["live"] = live
    return live


def policy_object(name: str) -> Policy:
    """The policy to play; a tuned one is its chosen candidate (see :func:`runs.make`).

    Choosing it runs every candidate on the workload first (cached for every session,
    and usually already done by Home or Compare), so the wait says what it is for.
    """
    if name in ELASTIC_POLICIES:
        return make_policy(name)
    entry = policy_entry(name)
    tuned = entry is not None and issubclass(entry.load(), TunedPolicy)
    what = (f"Tuning {display_name(name)}: trying its {len(entry().candidates())} settings "
            "on this workload to play the one hindsight picks (once for every session)…"
            if tuned else f"Preparing {display_name(name)}…")
    with st.spinner(what):
        return runs.make(name)


NEXT_FRAME_JS = """
let latest = null;  // the frame drawn last: only its request goes out
export default function ({ data, setTriggerValue }) {
  latest = data.frame;
  if (data.frame === null) return;  // paused or finished: ask for nothing
  const arrived = performance.now();
  // Its paint follows this callback at once, before any later message is handled.
  requestAnimationFrame(() => {
    const wait = Math.max(0, data.after_ms - (performance.now() - arrived));
    setTimeout(() => { if (latest === data.frame) setTriggerValue("drawn", data.frame); }, wait);
  });
}
"""
"""Runs in the page each time a frame arrives; its trigger reruns the enclosing fragment.
A newer frame (or a paused page) supersedes a request not yet sent, so a rerun of the
whole page while playing never starts a second stream of frames."""
_next_frame = st.components.v2.component("live_next_frame", js=NEXT_FRAME_JS)


def next_frame(run: LiveRun) -> None:
    """Ask the browser for the next frame once it has drawn this one (while playing); call
    it last in the frame fragment, after the chart."""
    _next_frame(key="live_next_frame", height=0,
                data={"frame": run.frames if run.playing else None, "after_ms": FRAME_S * 1000})


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
            f"{figures.duration(live.last_end)} of simulated time. Average JCT "
            f"{figures.duration(summary.avg_jct)}, p95 JCT {figures.duration(summary.p95_jct)}, "
            f"utilization {summary.utilization:.0%}. Press Reset to watch it again.")

