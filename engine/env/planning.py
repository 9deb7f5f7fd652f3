"""Turn an action-at-a-time chooser into a policy's list of starts at one decision point.

The simulator asks a policy once per event for every job to start; the agent picks one
start at a time. :func:`plan_starts` replays the environment's inner loop on a scratch
copy of the state (same packing, same observation) so a chooser trained in the
environment acts identically inside the simulator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.env.features import DecisionPoint, observe
from engine.env.spec import WAIT, decode
from engine.protocol import Allocation, FreeGpus, RunningJob, SchedulerView

Chooser = Callable[[DecisionPoint], tuple[int, Mapping[str, Any] | None]]
"""Picks an action at a decision point, with an optional explanation for ``Allocation.info``."""


def plan_starts(view: SchedulerView, choose: Chooser) -> list[Allocation]:
    """Ask ``choose`` for starts until it waits or nothing more fits."""
    if not view.waiting:
        return []
    # Cheap exit first: most events find the cluster full or only wide jobs waiting. The
    # smallest minimum only grows as jobs start, so one computed now stays a safe bound;
    # once it is stale the mask below (nothing fits) ends the loop instead.
    smallest = min(job.min_gpus for job in view.waiting)
    if view.free_gpus < smallest:
        return []
    free = FreeGpus(view.free_per_node, view.free_gpus)
    waiting = {job.index: job for job in view.waiting}
    running = list(view.running)
    starts: list[Allocation] = []
    while waiting and free.total >= smallest:
        point = observe(view.time, view.cluster, waiting.values(), running, free.per_node)
        if not point.mask[:WAIT].any():
            break
        action, info = choose(point)
        if action == WAIT:
            break
        slot, level = decode(action)
        job, gpus = point.jobs[slot], int(point.gpus[slot, level])
        placement = free.take(gpus)
        end = view.time + job.runtime(gpus, len(placement))
        running.append(RunningJob(job, gpus, placement, view.time, end))
        del waiting[job.index]
        starts.append(Allocation(job, gpus, info))
    return starts
