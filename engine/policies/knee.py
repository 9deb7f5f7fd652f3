"""FIFO, each job on its knee: the size maximizing speedup x efficiency.

Eager, Zahorjan and Lazowska ("Speedup versus efficiency in parallel systems", IEEE TC
1989) define the knee of a job's execution-time/efficiency profile as the processor
count maximizing efficiency / execution time, i.e. speedup x efficiency, and show that
allocating it keeps both the job's speed and the system's efficiency high. Jobs start in
arrival order on their knee among the sizes that fit now; the head blocks the queue when
not even its minimum fits. Reads no run times, only the speedup curve.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.cluster import Cluster
from engine.job import Job
from engine.policies.sizing import Sizing
from engine.protocol import Allocation, Policy, SchedulerView


class Knee(Policy):
    name = "knee"

    def reset(self, cluster: Cluster, seed: int) -> None:
        self._sizing = Sizing(cluster)

    def order(self, view: SchedulerView) -> Iterable[Job]:
        """The order jobs are started in (FIFO here)."""
        return view.waiting

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        free = view.free_gpus
        starts: list[Allocation] = []
        for job in self.order(view):
            gpus = self._sizing.knee(job, free)
            if gpus is None:
                break
            free -= gpus
            starts.append(Allocation(job, gpus, {"rule": "knee", "free": free + gpus}))
        return starts
