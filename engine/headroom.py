"""How much better could a schedule be? Clairvoyant searches over its GPU counts.

A diagnostic, not a scheduler: it knows the whole workload in advance, which no online
policy does. Starting from a policy that starts one job at a time (``drl``, the teacher
``drl-expert``), it tries moving each job's GPU count up or down by whole levels, keeps a
move whenever the workload's average JCT drops, and sweeps the jobs for a few passes.
The drop it finds is a floor on what a perfect-foresight scheduler could still gain near
that schedule, so it tells how much room a learned policy has left, and its improved
decisions can serve as labels for the policy (expert iteration).

:func:`bias_search` is the coarse, cheap search: one sizing bias for the whole workload
(every decision leaning towards fewer or more GPUs), a handful of runs instead of
thousands. That the best bias differs from workload to workload (smaller at high load)
shows what the network has not yet learnt to read from the state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.cluster import Cluster
from engine.drl.actor import NumpyActor
from engine.drl.expert import expert_action
from engine.env.features import DecisionPoint
from engine.env.planning import Chooser, plan_starts
from engine.env.spec import LEVELS, WAIT, WINDOW, decode
from engine.job import Job
from engine.policies.base import Allocation, Policy, SchedulerView
from engine.policies.drl import DrlPolicy
from engine.simulator import simulate

MOVES: tuple[int, ...] = (-1, 1, 2)
"""Level shifts tried per job, in order (the first that helps is kept)."""

SIZING_BIASES: tuple[float, ...] = (-1.5, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5)
"""Biases :func:`bias_search` tries: per GPU-count level, added to the log-probability."""
_LEVEL_INDEX = np.tile(np.arange(LEVELS, dtype=float), WINDOW)

SEARCHABLE: tuple[str, ...] = ("drl", "drl-expert")
"""Policies local search can start from: the ones that start one job at a time."""

Progress = Callable[[int, int], None]


def chooser(name: str) -> Chooser:
    """The one-start-at-a-time chooser of policy ``name`` (one of ``SEARCHABLE``)."""
    if name == "drl":
        return DrlPolicy().choose
    if name == "drl-expert":
        return lambda point: (expert_action(point), None)
    raise ValueError(f"local search needs one of {', '.join(SEARCHABLE)}, not {name!r}")


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
class SearchResult:
    """Where local search ended, from where it started."""

    base_avg_jct: float
    avg_jct: float
    shifts: Mapping[int, int]
    """Job index -> level shift that the improved schedule applies (non-zero only)."""
    per_pass: tuple[float, ...]
    """Average JCT after each pass."""
    simulations: int

    @property
    def headroom(self) -> float:
        """Fraction of the base average JCT the search removed."""
        return 1.0 - self.avg_jct / self.base_avg_jct


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


def biased_chooser(actor: NumpyActor, bias: float) -> Chooser:
    """Greedy on log-probability + ``bias`` x level index: below 0 it leans to fewer GPUs.

    Each level step multiplies an action's odds by ``exp(bias)``, so the order among the
    jobs at one GPU count is the network's own.
    """

    def choose(point: DecisionPoint) -> tuple[int, None]:
        with np.errstate(divide="ignore"):  # masked actions: log 0 = -inf, never chosen
            score = np.log(actor.probabilities(point.obs, point.mask))
        score[:WAIT] += bias * _LEVEL_INDEX
        return int(score.argmax()), None

    return choose


@dataclass(frozen=True)
class BiasResult:
    """The best sizing bias for one workload, and every bias's average JCT."""

    bias: float
    base_avg_jct: float
    """Average JCT at bias 0: the network's own greedy schedule."""
    avg_jct: float
    tried: Mapping[float, float]

    @property
    def headroom(self) -> float:
        """Fraction of the base average JCT the best bias removed."""
        return 1.0 - self.avg_jct / self.base_avg_jct


def bias_search(
    jobs: Sequence[Job], cluster: Cluster, actor: NumpyActor,
    biases: Sequence[float] = SIZING_BIASES,
) -> BiasResult:
    """Run the workload once per bias (and at 0); the bias with the lowest average JCT."""
    tried = {b: simulate(jobs, cluster, ShiftedPolicy(biased_chooser(actor, b), {}), 0)
             .summary.avg_jct for b in sorted({0.0, *biases})}
    best = min(tried, key=lambda b: (tried[b], abs(b)))  # ties: the smaller change
    return BiasResult(best, tried[0.0], tried[best], tried)
