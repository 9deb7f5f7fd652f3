"""FIFO with the user's own request: what Slurm and Kubernetes do by default.

Jobs start strictly in arrival order, each on exactly ``requested_gpus``; the head of
the queue blocks everyone behind it until its request fits (head-of-line blocking).
Reads no run times.
"""

from __future__ import annotations

from engine.protocol import Allocation, Policy, SchedulerView


class FifoRequest(Policy):
    name = "fifo-request"

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        # A request fits whenever that many GPUs are free, on however many nodes, so a
        # count is all the policy needs; the simulator packs each start as it comes.
        free = view.free_gpus
        starts: list[Allocation] = []
        for job in view.waiting:
            if job.requested_gpus > free:
                break
            free -= job.requested_gpus
            starts.append(Allocation(job, job.requested_gpus))
        return starts
