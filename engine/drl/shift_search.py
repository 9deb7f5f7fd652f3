"""Clairvoyant local search over per-job GPU-count shifts: expert iteration's teacher.

It knows the whole workload in advance, which no online policy does. Starting from a
chooser that starts one job at a time (the network's greedy decisions, or the teacher's),
it tries moving each job's GPU count up or down by whole levels, keeps a move whenever
the workload's average JCT drops, and sweeps the jobs for a few passes. The simulator is
deterministic for a workload, so the improved schedule replays exactly: its decisions
are the labels :mod:`engine.drl.expert_iteration` clones the network onto. The same
search measures how much room a policy has left near its own schedule (the research
diagnostic :mod:`engine.headroom`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.cluster import Cluster
from engine.env.features import DecisionPoint
from engine.env.planning import Chooser, plan_starts
from engine.env.spec import LEVELS, WAIT, decode
from engine.job import Job
from engine.parallel import Progress
from engine.protocol import Allocation, Policy, SchedulerView
from engine.simulator import simulate

MOVES: tuple[int, ...] = (-1, 1, 2)
"""Level shifts tried per job, in order (the first that helps is kept)."""


def shift_action(point: DecisionPoint, action: int, shift: int) -> int:
    """``action`` with its GPU count moved ``shift`` allowed levels (clamped to the valid)."""
    if action == WAIT or shift == 0:
        return action
    slot, level = decode(action)
    valid = np.flatnonzero(point.valid[slot])
    position = int(np.searchsorted(valid, level)) + shift
    return slot * LEVELS + int(valid[min(max(position, 0), valid.size - 1)])


class ShiftedPolicy(Policy):
    """A chooser whose GPU count for some jobs is moved by whole levels."""

    name = "shifted"
    uses_runtimes = True

    def __init__(self, choose: Chooser, shifts: Mapping[int, int]) -> None:
        self._choose = choose
        self.shifts = shifts

    def schedule(self, view: SchedulerView) -> Sequence[Allocation]:
        return plan_starts(view, self.choose)

    def choose(self, point: DecisionPoint) -> tuple[int, Mapping[str, Any] | None]:
        action, info = self._choose(point)
        if action == WAIT:
            return action, info
        shift = self.shifts.get(point.jobs[decode(action)[0]].index, 0)
        return shift_action(point, action, shift), info


@dataclass(frozen=True)
class Improvement:
    """A searched schedule's average JCT against its start's."""

    base_avg_jct: float
    avg_jct: float

    @property
    def headroom(self) -> float:
        """Fraction of the base average JCT the search removed."""
        return 1.0 - self.avg_jct / self.base_avg_jct


@dataclass(frozen=True)
class SearchResult(Improvement):
    """Where local search ended, from where it started."""

    shifts: Mapping[int, int]
    """Job index -> level shift that the improved schedule applies (non-zero only)."""
    per_pass: tuple[float, ...]
    """Average JCT after each pass."""
    simulations: int


def local_search(
    jobs: Sequence[Job],
    cluster: Cluster,
    choose: Chooser,
    passes: int = 2,
    moves: Sequence[int] = MOVES,
    progress: Progress | None = None,
) -> SearchResult:
    """First-improvement search over per-job level shifts of ``choose``'s schedule.

    Each trial simulates the whole workload, so a pass costs up to ``len(jobs) x
    len(moves)`` runs; a pass that keeps nothing ends the search early.
    """

    def avg_jct(shifts: Mapping[int, int]) -> float:
        return simulate(jobs, cluster, ShiftedPolicy(choose, shifts), 0).summary.avg_jct

    best = base = avg_jct({})
    shifts: dict[int, int] = {}
    per_pass: list[float] = []
    runs, total = 1, passes * len(jobs)
    for done_passes in range(passes):
        improved = False
        for n, job in enumerate(jobs, 1):
            for move in moves:
                trial = {**shifts, job.index: shifts.get(job.index, 0) + move}
                value = avg_jct(trial)
                runs += 1
                if value < best - 1e-9:
                    best, shifts, improved = value, trial, True
                    break
            if progress is not None:
                progress(done_passes * len(jobs) + n, total)
        per_pass.append(best)
        if not improved:
            break
    kept = {index: s for index, s in shifts.items() if s}
    return SearchResult(base, best, kept, tuple(per_pass), runs)
