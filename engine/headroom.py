"""How much better could a schedule be? Clairvoyant searches over its GPU counts.

A diagnostic, not a scheduler: it knows the whole workload in advance, which no online
policy does. Starting from a policy that starts one job at a time (``drl``, the teacher
``drl-expert``), it tries moving each job's GPU count up or down by whole levels, keeps a
move whenever the workload's average JCT drops, and sweeps the jobs for a few passes.
The drop it finds is a floor on what a perfect-foresight scheduler could still gain near
that schedule, so it tells how much room a learned policy has left, and its improved
decisions can serve as labels for the policy (expert iteration).

:func:`list_search` is the wide one, tied to no policy's decisions: each job gets a GPU
count and a place in a priority order, a plain list scheduler (:class:`ListSchedule`, fast
enough for tens of thousands of runs) starts them, and simulated annealing moves one
job's count or place at a time. Started from any policy's schedule, it tells how far
foresight can get from there.

:func:`bias_search` is the coarse, cheap search: one sizing bias for the whole workload
(every decision leaning towards fewer or more GPUs), a handful of runs instead of
thousands. That the best bias differs from workload to workload (smaller at high load)
shows what the network has not yet learnt to read from the state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.cluster import Cluster
from engine.drl.actor import NumpyActor
from engine.drl.expert import expert_action
from engine.env.features import DecisionPoint
from engine.env.planning import Chooser, plan_starts
from engine.env.spec import LEVEL_GPUS, LEVELS, WAIT, WINDOW, decode
from engine.job import Job
from engine.policies.drl import DrlPolicy
from engine.protocol import Allocation, FreeGpus, Policy, SchedulerView
from engine.simulator import SimulationResult, simulate

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
class BiasResult(Improvement):
    """The best sizing bias for one workload, and every bias's average JCT.

    ``base_avg_jct`` is the JCT at bias 0: the network's own greedy schedule.
    """

    bias: float
    tried: Mapping[float, float]


def bias_search(
    jobs: Sequence[Job], cluster: Cluster, actor: NumpyActor,
    biases: Sequence[float] = SIZING_BIASES,
) -> BiasResult:
    """Run the workload once per bias (and at 0); the bias with the lowest average JCT."""
    tried = {b: simulate(jobs, cluster, ShiftedPolicy(biased_chooser(actor, b), {}), 0)
             .summary.avg_jct for b in sorted({0.0, *biases})}
    best = min(tried, key=lambda b: (tried[b], abs(b)))  # ties: the smaller change
    return BiasResult(tried[0.0], tried[best], bias=best, tried=tried)


START_TEMPERATURE = 5e-4
""":func:`list_search`'s first temperature, as a fraction of the start's average JCT: a
move 0.05% worse is then kept with odds 1/e."""
END_TEMPERATURE = 1e-6
"""Its last temperature (the same fraction), reached geometrically: nearly greedy."""
REORDER_REACH = 8
"""A priority move puts a job at most this many places earlier or later in the order."""
COUNT_MOVE_SHARE = 0.6
"""Share of :func:`list_search`'s moves that change a GPU count (the rest reorder)."""


class ListSchedule(Policy):
    """Starts waiting jobs in a fixed priority order at fixed GPU counts.

    At each event it walks the waiting jobs by priority and starts every one whose count
    fits, skipping those that do not (greedy backfilling). It never idles on purpose, and
    it is plain enough to run thousands of times per workload.
    """

    name = "list-schedule"
    uses_runtimes = True

    def __init__(self, gpus: Sequence[int], order: Sequence[int]) -> None:
        self.gpus = gpus
        self._rank = {index: place for place, index in enumerate(order)}

    def schedule(self, view: SchedulerView) -> Sequence[Allocation]:
        free = FreeGpus(view.free_per_node, view.free_gpus)
        starts = []
        for job in sorted(view.waiting, key=lambda job: self._rank[job.index]):
            if free.total == 0:
                break
            if free.take(self.gpus[job.index]) is not None:
                starts.append(Allocation(job, self.gpus[job.index]))
        return starts


@dataclass(frozen=True)
class ListSearchResult(Improvement):
    """The best list schedule found; ``base_avg_jct`` is the start replayed as one."""

    gpus: tuple[int, ...]
    """GPU count per job index."""
    order: tuple[int, ...]
    """Job indices, highest priority first."""
    trials: int


def count_options(job: Job, total_gpus: int) -> list[int]:
    """The GPU counts a count move steps through: the action levels the job allows, and its ends."""
    allowed = job.allowed_gpus(total_gpus)
    levels = {g for g in LEVEL_GPUS if g in allowed}
    return sorted(levels | {allowed.start, allowed.stop - 1})


def list_search(
    jobs: Sequence[Job],
    cluster: Cluster,
    start: SimulationResult,
    trials: int,
    seed: int = 0,
    progress: Progress | None = None,
) -> ListSearchResult:
    """Simulated annealing over each job's GPU count and priority, from ``start``.

    ``start``'s counts, and its start times as the order, seed the search. Each trial
    moves one random job's count one option up or down (:func:`count_options`), or its
    place in the order by up to ``REORDER_REACH``, and simulates the whole workload. A
    move that does not raise the average JCT is kept; a worse one with the Metropolis
    odds at a temperature cooling from ``START_TEMPERATURE`` to ``END_TEMPERATURE``
    (plain hill climbing ended 1.5 points of JCT behind it, on average, in our runs).
    The best schedule seen is returned. Deterministic for ``seed``.
    """
    rng = np.random.default_rng(seed)
    options = [count_options(job, cluster.total_gpus) for job in jobs]
    gpus = [int(g) for g in start.jobs["gpus"]]
    order = [int(i) for i in np.argsort(start.jobs["start"].to_numpy(), kind="stable")]

    def avg_jct(gpus: list[int], order: list[int]) -> float:
        return simulate(jobs, cluster, ListSchedule(gpus, order), 0).summary.avg_jct

    base = current = best_jct = avg_jct(gpus, order)
    best = (gpus, order)
    for trial in range(1, trials + 1):
        temperature = base * START_TEMPERATURE * (
            END_TEMPERATURE / START_TEMPERATURE) ** (trial / trials)
        job = int(rng.integers(len(jobs)))
        new_gpus, new_order = gpus, order
        if rng.random() < COUNT_MOVE_SHARE:
            choices = options[job]
            step = int(np.searchsorted(choices, gpus[job])) + int(rng.choice((-1, 1)))
            count = choices[min(max(step, 0), len(choices) - 1)]
            moved = count != gpus[job]
            if moved:
                new_gpus = [*gpus]
                new_gpus[job] = count
        else:
            place = order.index(job)
            target = min(max(place + int(rng.integers(-REORDER_REACH, REORDER_REACH + 1)), 0),
                         len(order) - 1)
            moved = target != place
            if moved:
                new_order = [*order]
                new_order.insert(target, new_order.pop(place))
        if moved:
            value = avg_jct(new_gpus, new_order)
            if value <= current or rng.random() < math.exp((current - value) / temperature):
                gpus, order, current = new_gpus, new_order, value
                if value < best_jct:
                    best_jct, best = value, (gpus, order)
        if progress is not None and (trial % 100 == 0 or trial == trials):
            progress(trial, trials)
    return ListSearchResult(base, best_jct, gpus=tuple(best[0]), order=tuple(best[1]),
                            trials=trials)
