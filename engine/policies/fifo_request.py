"""FIFO with the user's own request: what Slurm and Kubernetes do by default.

Jobs start strictly in arrival order, each on exactly ``requested_gpus``; the head of
the queue blocks everyone behind it until its request fits (head-of-line blocking).
Reads no run times.
"""

from __future__ import annotations

from engine.policies.base import Allocation, FreeGpus, Policy, SchedulerView


class FifoRequest(Policy):
    name = "fifo-request"

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        free = FreeGpus(view.free_per_node, view.free_gpus)
        starts: list[Allocation] = []
        for job in view.waiting:
            if free.take(job.requested_gpus) is None:
                break
            starts.append(Allocation(job, job.requested_gpus))
        return starts
