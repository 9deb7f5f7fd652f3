"""Placing a round's new layout: emptiest nodes first, the Pollux artifact's rule.

The artifact's Tiresias and Optimus take a job's GPUs one node at a time from the node
with the most free GPUs (``Counter.most_common``: the lower index on ties). Unlike the
simulator's best-fit packing, this leaves small holes for small jobs; the fidelity
comparison needs the same rule to place jobs where the artifact does. ``relayout``
turns a policy's new size per job into the allocations that change something.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.cluster import Placement
from engine.job import Job
from engine.protocol import Allocation, SchedulerView


def emptiest_first(free: list[int], gpus: int) -> Placement:
    """Take ``gpus`` from ``free`` (updated in place), emptiest nodes first."""
    if gpus > sum(free):
        raise ValueError(f"{gpus} GPUs do not fit in {sum(free)} free")
    placement: list[tuple[int, int]] = []
    while gpus:
        node = max(range(len(free)), key=lambda n: (free[n], -n))
        take = min(free[node], gpus)
        free[node] -= take
        gpus -= take
        placement.append((node, take))
    return tuple(placement)


def relayout(
    view: SchedulerView,
    sizes: Mapping[Job, int],
    rule: str,
    place: Callable[[list[int], int], Placement] | None = emptiest_first,
) -> list[Allocation]:
    """Allocations for the jobs whose size changed: suspensions, then smallest first.

    Every changed job's GPUs count as free before anything is placed (the elastic
    simulator releases them first); ``place=None`` leaves placement to the simulator.
    """
    running = {run.job.index: run for run in view.running}
    free = list(view.free_per_node)
    changed = [job for job, gpus in sizes.items()
               if gpus != (running[job.index].gpus if job.index in running else 0)]
    for job in changed:
        if job.index in running:
            for node, count in running[job.index].placement:
                free[node] += count
    out = [Allocation(job, 0, {"rule": f"{rule}: no GPU left"})
           for job in changed if sizes[job] == 0]
    for job in sorted((j for j in changed if sizes[j]), key=lambda j: (sizes[j], j.index)):
        placement = None if place is None else place(free, sizes[job])
        out.append(Allocation(job, sizes[job], {"rule": rule}, placement))
    return out
