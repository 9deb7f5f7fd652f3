"""AFS-L re-solved at every arrival and completion (Hwang et al., NSDI'21), malleable.

The paper's AFS-L reallocates the whole cluster whenever a job arrives or ends; this is
that rule over running and waiting jobs alike, each duel judging a job by its
*remaining* time (``afs_l`` judges waiting jobs by their whole run time, at start
only). Running malleable jobs are resized to their new share (each change a restart),
jobs left without GPUs are suspended, and jobs that are not malleable keep the size
they started with. Placement is the simulator's packing, smallest job first. Reads
run times (the remaining work, as the paper's known-length variant does).
"""

from __future__ import annotations

from engine.job import Job
from engine.policies.afs_l import AfsL
from engine.policies.emptiest import relayout
from engine.protocol import Allocation, SchedulerView


class AfsElastic(AfsL):
    name = "afs-elastic"
    preemptive = True
    resizes = True

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        assert view.remaining_work is not None, "afs-elastic runs on the elastic simulator"
        total = view.cluster.total_gpus
        fixed = {run.job: run.gpus for run in view.running if run.job.mode != "malleable"}
        pool = [*view.waiting, *(run.job for run in view.running if run.job not in fixed)]
        left = self._left = {job: view.remaining_work(job) for job in pool}
        runtime = self._sizing.runtime

        def remaining_time(job: Job) -> tuple[float, int]:
            return left[job] * runtime(job, job.min_gpus) / job.runtime_1gpu, job.index

        shares = self._share(sorted(pool, key=remaining_time), total - sum(fixed.values()), total)
        sizes = {**fixed, **{job: shares.get(job, 0) for job in pool}}
        return relayout(view, sizes, "AFS-L: every GPU re-dealt as a job arrived or ended",
                        place=None)

    def _throughput(self, job: Job, gpus: int) -> float:
        """``W`` of a partly run job: 1 / its remaining time on ``gpus`` GPUs."""
        return super()._throughput(job, gpus) * job.runtime_1gpu / self._left[job]
