"""A server-wide line for heavy work (Compare sweeps, Home's "Your workload", training
runs): first come, first served, in turns.

One server serves a whole class on two cores. If thirty students press Run comparison
together, thirty sweeps share the CPU and every page, light ones included, waits for
all of them. Heavy work therefore takes a place in a line with a few slots: at most
``slots`` run at once, the others wait their turn and are told their position, and the
light pages keep a core to themselves.

First come, first served alone lets one long press (a valid upload that runs for
minutes within its budget) hold everyone behind it. So a press that has held the line
for its turn (:data:`TURN_S`) while others wait gives way: its runs stop at their next
budget check (``engine.budget.Yielded``, through the turn's ``give_way`` file), what it
finished is kept, and it rejoins the line at the back with a turn twice as long, so a
short press never waits long behind a heavy one and a heavy one still ends.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from typing import TypeVar

import streamlit as st

from engine.budget import RunBudget, Yielded

COMPARE_SLOTS = 1
TRAIN_SLOTS = 1
POLL_S = 0.5
TURN_S = 1.0
"""Seconds a press holds the line while others wait before it gives way, doubled at each
of its later turns. A student's comparison (5 policies x 3 seeds) takes about 0.7 s, so it
ends within its first turn; a press behind a heavy one waits about this long for it."""

T = TypeVar("T")
_turns = itertools.count()


@dataclass(frozen=True)
class Turn:
    """One turn of a press at the line: how long it may hold the line while others wait,
    the file that asks its runs to give way, and the seconds its earlier turns held it."""

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
    """First come, first served, ``slots`` at a time, in turns; thread-safe, shared by
    sessions. ``clock`` is for tests."""

    def __init__(self, slots: int, turn_s: float = TURN_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.slots = slots
        self.turn_s = turn_s
        self._clock = clock
        self._cond = threading.Condition()
        self._waiting: list[object] = []
        self._running: list[Turn] = []

    @property
    def busy(self) -> int:
        """Places taken: running plus waiting."""
        with self._cond:
            return len(self._running) + len(self._waiting)

    def run(self, work: Callable[[Turn], T], waiting: Callable[[int, bool], None]) -> T:
        """``work(turn)`` in turns until it ends without giving way (``Yielded``), and its
        result; ``waiting(position, resumed)`` is called as in :meth:`turn`, ``resumed``
        once the press has given way. Each turn rejoins the line at the back, twice as
        long as the last; ``work`` must keep what it finishes to go on where it stopped."""
        turn_s, used, resumed = self.turn_s, 0.0, False
        while True:
            told = functools.partial(_told, waiting, resumed)
            with self.turn(told, turn_s, used) as turn:
                try:
                    return work(turn)
                except Yielded:
                    used += self._clock() - turn.started
            turn_s, resumed = 2 * turn_s, True

    @contextmanager
    def turn(self, waiting: Callable[[int], None], turn_s: float | None = None,
             used: float = 0.0) -> Iterator[Turn]:
        """Wait for a slot, calling ``waiting(position)`` (1: next) every poll, then run.

        ``waiting`` may raise (a Streamlit rerun, a Stop): the place is given up. While it
        waits, a running turn past its ``turn_s`` is asked to give way.
        """
        ticket = object()
        with self._cond:
            self._waiting.append(ticket)
        try:
            while True:
                with self._cond:
                    if self._waiting[0] is ticket and len(self._running) < self.slots:
                        self._waiting.pop(0)
                        turn = Turn(self._clock(), turn_s or self.turn_s, _give_way_path(),
                                    used)
                        self._running.append(turn)
                        break
                    position = self._waiting.index(ticket) + 1
                    pause = self._hurry()
                waiting(position)
                with self._cond:
                    self._cond.wait(pause)
        except BaseException:
            with self._cond:
                if ticket in self._waiting:
                    self._waiting.remove(ticket)
                self._cond.notify_all()
            raise
        try:
            yield turn
        finally:
            with suppress(FileNotFoundError):
                os.unlink(turn.give_way)
            with self._cond:
                self._running.remove(turn)
                self._cond.notify_all()

    def _hurry(self) -> float:
        """Ask every running turn past its length to give way (someone is waiting: the
        caller); the seconds until the next one is due, at most :data:`POLL_S`."""
        now, pause = self._clock(), POLL_S
        for turn in self._running:
            left = turn.started + turn.turn_s - now
            if left <= 0:
                open(turn.give_way, "a").close()
            else:
                pause = min(pause, left)
        return max(pause, 0.01)


def _told(waiting: Callable[[int, bool], None], resumed: bool, position: int) -> None:
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
