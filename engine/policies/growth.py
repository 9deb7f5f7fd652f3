"""Start-time elasticity: admit jobs on their minimum, then grow them with spare GPUs.

Without preemption a job's size is fixed when it starts, so rules that in their papers
resize running jobs (Optimus, elastic FIFO) are applied to the jobs starting at this
decision. Admission goes in arrival order on each job's minimum and stops at the first
job that does not fit, so wide jobs are not starved by narrow ones queued behind them;
the GPUs left over then go out one at a time by the policy's own rule.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence

from engine.job import Job
from engine.protocol import Allocation, SchedulerView


def admit_fifo(view: SchedulerView) -> tuple[dict[Job, int], int]:
    """Each job's minimum, FIFO while they fit, and the GPUs left over."""
    spare = view.free_gpus
    sizes: dict[Job, int] = {}
    for job in view.waiting:
        if job.min_gpus > spare:
            break
        sizes[job] = job.min_gpus
        spare -= job.min_gpus
    return sizes, spare


def largest(job: Job, total_gpus: int) -> int:
    """The most GPUs ``job`` accepts on a cluster of ``total_gpus``."""
    return min(job.max_gpus, total_gpus)


def allocations(sizes: Mapping[Job, int], rule: str) -> list[Allocation]:
    """Start every sized job, noting the rule that sized it for the decision log."""
    return [Allocation(job, gpus, {"rule": rule}) for job, gpus in sizes.items()]


def grow_greedily(
    sizes: dict[Job, int], jobs: Sequence[Job], spare: int, gain: Callable[[Job, int], float]
) -> None:
    """Hand ``spare`` GPUs out one at a time, each to the job of ``jobs`` whose
    ``gain(job, its GPUs)`` is largest (ties: the earlier job), while some gain is positive.

    Optimus's marginal-gain rule, shared by its start-time and re-solved versions.
    """
    heap: list[tuple[float, int]] = []

    def offer(order: int) -> None:
        job = jobs[order]
        value = gain(job, sizes[job])
        if value > 0:
            heapq.heappush(heap, (-value, order))

    for order in range(len(jobs)):
        offer(order)
    while spare and heap:
        _, order = heapq.heappop(heap)
        sizes[jobs[order]] += 1
        spare -= 1
        offer(order)
