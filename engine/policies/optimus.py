"""Optimus's greedy marginal gain (Peng et al., EuroSys'18), applied at start time.

Optimus hands out resources one unit at a time to the job whose remaining time drops
most from one more unit. Here the units are GPUs, the jobs are the ones that can start at
this decision (each admitted on its minimum, FIFO; see ``growth``), and a job stops
growing when one more GPU no longer shortens it (or at its maximum). Reads run times
(Optimus fits them online from training progress; here they are exact).
"""

from __future__ import annotations

import heapq

from engine.cluster import Cluster
from engine.policies.growth import admit_fifo, allocations, largest
from engine.policies.sizing import Sizing
from engine.protocol import Allocation, Policy, SchedulerView


class Optimus(Policy):
    name = "optimus"
    uses_runtimes = True

    def reset(self, cluster: Cluster, seed: int) -> None:
        self._sizing = Sizing(cluster)

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        sizes, spare = admit_fifo(view)
        total = view.cluster.total_gpus
        runtime = self._sizing.runtime
        gains: list[tuple[float, int]] = []
        jobs = list(sizes)

        def offer(order: int) -> None:
            job = jobs[order]
            gpus = sizes[job]
            if gpus < largest(job, total):
                gain = runtime(job, gpus) - runtime(job, gpus + 1)
                if gain > 0:
                    heapq.heappush(gains, (-gain, order))

        for order in range(len(jobs)):
            offer(order)
        while spare and gains:
            _, order = heapq.heappop(gains)
            sizes[jobs[order]] += 1
            spare -= 1
            offer(order)
        return allocations(sizes, "min, then largest drop in run time")
