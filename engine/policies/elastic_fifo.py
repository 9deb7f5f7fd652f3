"""Elastic FIFO: every starting job gets its minimum first, then spare GPUs round-robin.

The simple elastic baseline of elastic-training systems (e.g. TorchElastic jobs on a
FIFO queue): admission in arrival order on each job's minimum (see ``growth``), then the
GPUs left over go one each, in arrival order and round after round, to the jobs starting
now until each reaches its maximum. Reads no run times.
"""

from __future__ import annotations

from engine.policies.growth import admit_fifo, allocations, largest
from engine.protocol import Allocation, Policy, SchedulerView


class ElasticFifo(Policy):
    name = "elastic-fifo"

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        sizes, spare = admit_fifo(view)
        total = view.cluster.total_gpus
        growing = [job for job in sizes if sizes[job] < largest(job, total)]
        while spare and growing:
            for job in growing[:spare]:
                sizes[job] += 1
            spare -= min(spare, len(growing))
            growing = [job for job in growing if sizes[job] < largest(job, total)]
        return allocations(sizes, "min, then round-robin")
