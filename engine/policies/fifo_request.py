"""FIFO with the user's own request: what Slurm and Kubernetes do by default.

Jobs start strictly in arrival order, each on exactly ``requested_gpus``; the head of
the queue blocks everyone behind it until its request fits (head-of-line blocking).
Reads no run times.
"""

from __future__ import annotations

from engine.protocol import Allocation, FreeGpus, Policy, SchedulerView


class FifoRequest(Policy):
    name = "fifo-request"

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        head = next(iter(view.waiting))
        if head.requested_gpus > view.free_gpus:
            return []  # the usual case on a busy cluster: skip copying the free map
        free = FreeGpus(view.free_per_node, view.free_gpus)
        starts: list[Allocation] = []
        for job in view.waiting:
            placement = free.take(job.requested_gpus)
            if placement is None:
                break
            starts.append(Allocation(job, job.requested_gpus, placement=placement))
        return starts
