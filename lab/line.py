"""A server-wide first-come line for heavy work (Compare sweeps, Home's "Your workload",
training runs).

One server serves a whole class on two cores. If thirty students press Run comparison
together, thirty sweeps share the CPU and every page, light ones included, waits for
all of them. Heavy work therefore takes a place in a line with a few slots: at most
``slots`` run at once, the others wait their turn and are told their position, and the
light pages keep a core to themselves.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

COMPARE_SLOTS = 1
TRAIN_SLOTS = 1
POLL_S = 0.5


class Line:
    """First come, first served, ``slots`` at a time; thread-safe, shared by sessions."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._cond = threading.Condition()
        self._waiting: list[object] = []
        self._running = 0

    @property
    def busy(self) -> int:
        """Places taken: running plus waiting."""
        with self._cond:
            return self._running + len(self._waiting)

    @contextmanager
    def turn(self, waiting: Callable[[int], None]) -> Iterator[None]:
        """Wait for a slot, calling ``waiting(position)`` (1: next) every poll, then run.

        ``waiting`` may raise (a Streamlit rerun, a Stop): the place is given up.
        """
        ticket = object()
        with self._cond:
            self._waiting.append(ticket)
        try:
            while True:
                with self._cond:
                    if self._waiting[0] is ticket and self._running < self.slots:
                        self._waiting.pop(0)
                        self._running += 1
                        break
                    position = self._waiting.index(ticket) + 1
                waiting(position)
                with self._cond:
                    self._cond.wait(POLL_S)
        except BaseException:
            with self._cond:
                if ticket in self._waiting:
                    self._waiting.remove(ticket)
                self._cond.notify_all()
            raise
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()


@st.cache_resource
def compare_line() -> Line:
    """The line every session's comparisons and Home's "Your workload" runs join."""
    return Line(COMPARE_SLOTS)


@st.cache_resource
def train_line() -> Line:
    """The line every session's training runs join."""
    return Line(TRAIN_SLOTS)
