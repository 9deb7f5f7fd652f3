"""Optimus re-solved every round over running and waiting jobs (Peng et al., EuroSys'18).

Optimus gives each job one GPU (arrival order, while GPUs last; the rest are
suspended), then hands out the others one at a time to the job whose remaining time
drops most from one more, up to each job's maximum. The allocation is solved again
every 60 s round, so running malleable jobs grow and shrink (each change a restart)
and jobs beyond the cluster's GPU count are preempted; a job that is not malleable
keeps the size it started with. Jobs whose size changed are placed smallest first on
the emptiest nodes.

Reference behaviour: the Pollux artifact's ``OptimusPolicy`` (Optimus+Oracle: remaining
work known exactly, here the simulator's ``remaining_work``), with its 60 s rounds.
Start-time Optimus, without resizing, is ``optimus``. Reads run times.
"""

from __future__ import annotations

from engine.cluster import Cluster
from engine.job import Job
from engine.policies.emptiest import relayout
from engine.policies.growth import grow_greedily, largest
from engine.policies.sizing import Sizing
from engine.protocol import Allocation, Policy, SchedulerView


class OptimusElastic(Policy):
    name = "optimus-elastic"
    uses_runtimes = True
    preemptive = True
    resizes = True
    interval = 60.0
    on_events = False

    def reset(self, cluster: Cluster, seed: int) -> None:
        self._sizing = Sizing(cluster)

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        assert view.remaining_work is not None, "optimus-elastic runs on the elastic simulator"
        total = view.cluster.total_gpus
        running = {run.job.index: run for run in view.running}
        jobs = sorted([*view.waiting, *(run.job for run in view.running)], key=_index)
        spare = total
        sizes: dict[Job, int] = {}
        for job in jobs:  # fixed-size running jobs keep their GPUs
            run = running.get(job.index)
            if run is not None and job.mode != "malleable":
                sizes[job] = run.gpus
                spare -= run.gpus
        for job in jobs:
            if job not in sizes:
                sizes[job] = job.min_gpus if job.min_gpus <= spare else 0
                spare -= sizes[job]
        left = {job: view.remaining_work(job) for job in jobs}
        runtime = self._sizing.runtime

        def gain(job: Job, gpus: int) -> float:
            growable = job.mode == "malleable" or job.index not in running
            if not (growable and 0 < gpus < largest(job, total)):
                return 0.0
            return left[job] * (runtime(job, gpus) - runtime(job, gpus + 1)) / job.runtime_1gpu

        grow_greedily(sizes, jobs, spare, gain)
        return relayout(view, sizes, "optimus: largest time drop")


def _index(job: Job) -> int:
    return job.index
