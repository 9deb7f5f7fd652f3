"""Budgets for the runs a shared server starts: event times, simulated span, wall time, memory.

A workload can be valid and still take hours: thousands of year-long jobs on a few GPUs
under a policy that reschedules every 60 s. The CLI runs whatever it is asked (its user
waits for their own run), but a server shared by a class cannot: one run holds the line
every session's comparisons wait in. So the app hands each run a :class:`RunBudget`; the
simulator checks it every :data:`CHECK_EVERY` event times (a few microseconds per check,
nothing per event) and ends the run with :class:`BudgetExceeded`, one message naming the
limit, its value and what to do instead.

A server's line can also take a turn back: a budget may name a :attr:`RunBudget.give_way`
file, and once that file exists every run under the budget stops at its next check with
:class:`Yielded`, in whichever process it runs, so the press behind it can go first.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, replace

from engine.errors import LabError
from engine.units import unit_for

CHECK_EVERY = 4096
"""The most event times between checks: rare enough to cost nothing measurable on a fast
run (4,096 event times of ``fifo-request`` take about 0.1 s)."""
FIRST_CHECK = 16
"""Event times to the first check, which times them and paces the next ones."""
CHECK_S = 0.25
"""Wall seconds aimed at between checks: a run whose event times are slow (``drl`` with
20,000 jobs waiting takes ~7 ms each) is checked more often, so it overshoots its wall
budget by about this much, not by 4,096 slow event times (half a minute)."""


class BudgetExceeded(LabError):
    """A run went past its :class:`RunBudget`; the message says which limit and what to do."""


class Yielded(BudgetExceeded):
    """A run gave way: its :attr:`RunBudget.give_way` file appeared (others are waiting for
    the machine). A budget stop, so it ends the whole press like one; whoever made the
    file runs the press again at its next turn."""


@dataclass(frozen=True)
class RunBudget:
    """What one run may use; ``None`` leaves that dimension unlimited.

    ``wall_s`` counts from :attr:`started`, when set (by :meth:`start`), else from the
    run's own start: runs started under one :meth:`start` share one clock, so once a
    comparison is over its time its remaining runs stop at once and the line is free.
    """

    events: int | None = None
    """Event times (instants at which something happens) one run may step through."""
    span: float | None = None
    """Simulated seconds one run may reach."""
    wall_s: float | None = None
    """Wall-clock seconds, from :attr:`started` or the run's start."""
    memory_mb: float | None = None
    """Resident memory (MB) one run may add to its process."""
    advice: str = "use fewer or shorter jobs, or a bigger cluster"
    """What to do instead, ending the message."""
    started: float | None = None
    """``time.time()`` of :meth:`start`: an epoch, so worker processes read the same clock."""
    give_way: str | None = None
    """A file whose existence stops every run under this budget with :class:`Yielded`: a
    path rather than an event, so that it reaches worker processes with the budget and
    costs a ``stat`` per check."""

    def __post_init__(self) -> None:
        for name in ("events", "span", "wall_s", "memory_mb"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"a run budget's {name} must be positive, got {value}")

    def start(self, used: float = 0.0) -> RunBudget:
        """This budget with its wall clock started now, for every run made under it;
        ``used`` seconds are already spent (a press's earlier turns at a shared line)."""
        return replace(self, started=time.time() - used)

    def meter(self, policy: str) -> Meter:
        """A fresh account of one run of ``policy`` against this budget."""
        return Meter(self, policy)


class Meter:
    """One run's use of a :class:`RunBudget`: its wall deadline and memory baseline.

    Made when the run starts; a run whose shared clock is already spent (the rest of a
    comparison over its time) stops right there.
    """

    __slots__ = ("base_mb", "budget", "checked", "deadline", "every", "policy")

    def __init__(self, budget: RunBudget, policy: str) -> None:
        self.budget = budget
        self.policy = policy
        start = budget.started if budget.started is not None else time.time()
        self.deadline = math.inf if budget.wall_s is None else start + budget.wall_s
        if time.time() > self.deadline:
            self._stop(f"{budget.wall_s:g} s of computing")
        self._give_way()
        self.base_mb = resident_mb() if budget.memory_mb is not None else 0.0
        # event times to the next check: fewer for a budget of fewer events
        self.every = min(FIRST_CHECK, budget.events or FIRST_CHECK)
        self.checked = time.monotonic()

    def check(self, events: int, now: float) -> None:
        """Raise :class:`BudgetExceeded` if the run, at ``events`` event times and simulated
        time ``now``, is past any limit; else set :attr:`every` so that the next check
        comes about :data:`CHECK_S` from now."""
        budget = self.budget
        if budget.events is not None and events >= budget.events:
            self._stop(f"{budget.events:,} simulator events per run")
        if budget.span is not None and now > budget.span:
            self._stop(f"{unit_for(budget.span).format(budget.span, 0)} of simulated time")
        if time.time() > self.deadline:
            self._stop(f"{budget.wall_s:g} s of computing")
        if budget.memory_mb is not None and resident_mb() - self.base_mb > budget.memory_mb:
            self._stop(f"{budget.memory_mb:,.0f} MB of memory per run")
        self._give_way()
        clock = time.monotonic()
        took, self.checked = clock - self.checked, clock
        pace = self.every * CHECK_S / took if took > 0 else CHECK_EVERY
        self.every = max(1, min(CHECK_EVERY, int(pace)))
        if budget.events is not None:  # never step past the event budget between checks
            self.every = min(self.every, max(1, budget.events - events))

    def _give_way(self) -> None:
        if self.budget.give_way is not None and os.path.exists(self.budget.give_way):
            raise Yielded(f"the run of {self.policy} gave way to other sessions' runs waiting "
                          "at this server; it goes on at its next turn")

    def _stop(self, limit: str) -> None:
        raise BudgetExceeded(
            f"the run of {self.policy} was stopped at this server's budget of {limit}; "
            f"{self.budget.advice}"
        )


_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 0.0


def resident_mb() -> float:
    """This process's resident memory now (Linux), else its peak so far (MB).

    ``/proc/self/statm`` costs a few microseconds; elsewhere the peak (``ru_maxrss``) is
    the cheap measure, and it only ever overstates what a run added.
    """
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_MB
    except OSError:
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 2**10
