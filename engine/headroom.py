"""Research diagnostic: how much better could a schedule be, with the future known?

Not used by the product (the app, the policies, training): only the ``headroom`` command
runs it, to measure how much room a learned policy has left. Both searches know the
whole workload in advance, which no online policy does, so what they find is a floor on
what a perfect-foresight scheduler could still gain from a start, not a schedule to ship.

``headroom --search shifts`` runs :func:`engine.drl.shift_search.local_search` (expert
iteration's teacher) around :func:`chooser`'s decisions. :func:`list_search` is the wide
one, tied to no policy's decisions: each job gets a GPU count and a place in a priority
order, a plain list scheduler (:class:`ListSchedule`, fast enough for tens of thousands
of runs) starts them, and simulated annealing moves one job's count or place at a time.
Started from any policy's schedule, it tells how far foresight can get from there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.cluster import Cluster
from engine.drl.expert import expert_action
from engine.drl.shift_search import Improvement
from engine.env.planning import Chooser
from engine.env.spec import LEVEL_GPUS
from engine.job import Job
from engine.parallel import Progress
from engine.policies.drl import DrlPolicy
from engine.protocol import Allocation, FreeGpus, Policy, SchedulerView
from engine.simulator import SimulationResult, simulate

SEARCHABLE: tuple[str, ...] = ("drl", "drl-expert")
"""Policies local search can start from: the ones that start one job at a time."""


def chooser(name: str) -> Chooser:
    """The one-start-at-a-time chooser of policy ``name`` (one of ``SEARCHABLE``)."""
    if name == "drl":
        return DrlPolicy().choose
    if name == "drl-expert":
        return lambda point: (expert_action(point), None)
    raise ValueError(f"local search needs one of {', '.join(SEARCHABLE)}, not {name!r}")


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
