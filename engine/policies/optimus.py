"""Optimus's greedy marginal gain (Peng et al., EuroSys'18), applied at start time.

Optimus hands out resources one unit at a time to the job whose remaining time drops
most from one more unit. Here the units are GPUs, the jobs are the ones that can start at
this decision (each admitted on its minimum, FIFO; see ``growth``), and a job stops
growing when one more GPU no longer shortens it (or at its maximum). Reads run times
(Optimus fits them online from training progress; here they are exact).
"""

from __future__ import annotations

from engine.cluster import Cluster
from engine.job import Job
from engine.policies.growth import admit_fifo, allocations, grow_greedily, largest
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

        def gain(job: Job, gpus: int) -> float:
            if gpus >= largest(job, total):
                return 0.0
            return runtime(job, gpus) - runtime(job, gpus + 1)

        grow_greedily(sizes, list(sizes), spare, gain)
        return allocations(sizes, "min, then largest drop in run time")
