"""A server-wide line for heavy work (Compare sweeps, Home's "Your workload", training
runs), shared fairly between sessions.

One server serves a whole class on two cores. If thirty students press Run comparison
together, thirty sweeps share the CPU and every page, light ones included, waits for
all of them. Heavy work therefore takes a place in a line with a few slots: at most
``slots`` run at once, the others wait their turn and are told their position, and the
light pages keep a core to themselves.

First come, first served alone lets one session's long presses (valid uploads that run
for minutes within their budget, pressed again and again) hold everyone behind them. So
the line shares itself by session, by the line time each has held over the last
:data:`WINDOW_S`: a free slot goes to the waiting session that has held it least (first
come, first served among equals), and a running press whose session is :data:`TURN_S`
ahead of a waiting one gives way. Its runs stop at their next budget check
(``engine.budget.Yielded``, through the turn's ``give_way`` file), what it finished is
kept, and it waits again, allowed twice the lead at its next turn so that a heavy press
still ends. Sessions that share the line evenly (a class pressing Run comparison
together) keep first come, first served, since giving way costs a press a restart.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import tempfile
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from typing import TypeVar

import streamlit as st

from engine.budget import RunBudget, Yielded

COMPARE_SLOTS = 1
TRAIN_SLOTS = 1
POLL_S = 0.5
TURN_S = 5.0
"""Seconds of line time a session may be ahead of one waiting behind it before its press
gives way, doubled at each of that press's later turns: a student's comparison (5
policies x 3 seeds) takes about 0.7 s, 3 s on a machine busy with other work, so a
class's presses do not interrupt each other, while a session that has pressed heavy runs
again and again gives way at once."""
WINDOW_S = 60.0
"""How far back a session's line time counts: long enough to span a heavy session's
presses and uploads, short enough that a student who ran something big a while ago is
not held back."""

T = TypeVar("T")
_turns = itertools.count()


@dataclass(frozen=True)
class Turn:
    """One turn of a press at the line: whose it is, how far ahead of a waiting session
    it may be before it gives way, the file that asks its runs to, and the seconds its
    press's earlier turns held the line."""

    who: Hashable
    """The session it is for."""
    started: float
    """The line's clock when the turn began."""
    turn_s: float
    give_way: str
    used: float = 0.0

    def budget(self, base: RunBudget) -> RunBudget:
        """``base`` for this turn's runs, started: they give way when the line asks, and its
        wall clock counts the press's earlier turns too (the budget is per press)."""
        return replace(base, give_way=self.give_way).start(self.used)


class Line:
    """``slots`` at a time, least line time first, then first come, first served; shared by
    session, thread-safe. ``clock`` is for tests."""

    def __init__(self, slots: int, turn_s: float = TURN_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.slots = slots
        self.turn_s = turn_s
        self._clock = clock
        self._cond = threading.Condition()
        self._waiting: list[tuple[object, Hashable]] = []
        self._running: list[Turn] = []
        self._held: list[tuple[Hashable, float, float]] = []
        """Ended turns within :data:`WINDOW_S`: who, start, end."""

    @property
    def busy(self) -> int:
        """Places taken: running plus waiting."""
        with self._cond:
            return len(self._running) + len(self._waiting)

    def run(self, work: Callable[[Turn], T], waiting: Callable[[int, bool], None],
            who: Hashable = None) -> T:
        """``work(turn)`` in turns until it ends without giving way (``Yielded``), and its
        result; ``waiting(position, resumed)`` is called as in :meth:`turn`, ``resumed``
        once the press has given way. Each turn rejoins the line with twice the lead of
        the last; ``work`` must keep what it finishes to go on where it stopped."""
        turn_s, used, resumed = self.turn_s, 0.0, False
        while True:
            told = functools.partial(_told, waiting, resumed)
            with self.turn(told, turn_s, used, who) as turn:
                try:
                    return work(turn)
                except Yielded:
                    used += self._clock() - turn.started
            turn_s, resumed = 2 * turn_s, True

    @contextmanager
    def turn(self, waiting: Callable[[int], None], turn_s: float | None = None,
             used: float = 0.0, who: Hashable = None) -> Iterator[Turn]:
        """Wait for a slot, calling ``waiting(position)`` (1: next) every poll, then run.

        The slot goes to the waiting session that has held the line least over the last
        :data:`WINDOW_S` (first come, first served among equals), so a press that gave way
        goes on before the heavier session it gave way to. ``waiting`` may raise (a
        Streamlit rerun, a Stop): the place is given up. While it waits, a running turn
        of a session ``turn_s`` ahead of ``who`` (the caller's session; ``None``: a session
        of its own) is asked to give way.
        """
        place = (object(), object() if who is None else who)
        with self._cond:
            self._waiting.append(place)
        try:
            while True:
                with self._cond:
                    now = self._clock()
                    self._forget(now)
                    order = sorted(self._waiting, key=lambda p: self._held_by(p[1], now))
                    if order[0] is place and len(self._running) < self.slots:
                        self._waiting.remove(place)
                        turn = Turn(place[1], now, turn_s or self.turn_s, _give_way_path(),
                                    used)
                        self._running.append(turn)
                        self._cond.notify_all()  # the others' next turn to hurry is this one
                        break
                    position = order.index(place) + 1
                    pause = self._hurry(place[1])
                waiting(position)
                with self._cond:
                    self._cond.wait(pause)
        except BaseException:
            with self._cond:
                if place in self._waiting:
                    self._waiting.remove(place)
                self._cond.notify_all()
            raise
        try:
            yield turn
        finally:
            with self._cond:  # once it is not running, no waiter creates its file again
                self._running.remove(turn)
                with suppress(FileNotFoundError):
                    os.unlink(turn.give_way)
                self._held.append((turn.who, turn.started, self._clock()))
                self._cond.notify_all()

    def _forget(self, now: float) -> None:
        """Drop the ended turns that are out of the window, once per look at the line."""
        self._held = [h for h in self._held if h[2] > now - WINDOW_S]

    def _held_by(self, who: Hashable, now: float) -> float:
        """Seconds ``who`` held the line within :data:`WINDOW_S` of ``now``."""
        since = now - WINDOW_S
        spans = [(start, end) for whom, start, end in self._held if whom == who]
        spans += [(t.started, now) for t in self._running if t.who == who]
        return sum(end - max(start, since) for start, end in spans)

    def _hurry(self, who: Hashable) -> float:
        """Ask every running turn ``turn_s`` ahead of ``who`` (waiting: the caller) to give
        way; the seconds until the next one would be due, at most :data:`POLL_S`."""
        now, pause = self._clock(), POLL_S
        self._forget(now)
        mine = self._held_by(who, now)
        for turn in self._running:
            left = turn.turn_s - (self._held_by(turn.who, now) - mine)
            if left <= 0:
                open(turn.give_way, "a").close()
            else:
                pause = min(pause, left)
        return max(pause, 0.01)


def _told(waiting: Callable[[int, bool], None], resumed: bool, position: int) -> None:
    """``waiting`` as :meth:`Line.turn` calls it, with whether this press has given way."""
    waiting(position, resumed)


def _give_way_path() -> str:
    """A fresh path (not created) for a turn's give-way file, unique in this process."""
    folder = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    return os.path.join(folder, f"moldable-lab-give-way-{os.getpid()}-{next(_turns)}")


@st.cache_resource
def compare_line() -> Line:
    """The line every session's comparisons and Home's "Your workload" runs join."""
    return Line(COMPARE_SLOTS)


@st.cache_resource
def train_line() -> Line:
    """The line every session's training runs join; a training run has no budget to give
    way through (its Stop button ends it), so its turn has no end."""
    return Line(TRAIN_SLOTS, turn_s=math.inf)

