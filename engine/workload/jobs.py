"""Handing a workload to the simulator as ``Job`` objects."""

from __future__ import annotations

import numpy as np

from engine.cluster import Cluster
from engine.job import Job, with_mode
from engine.workload.bulk import collector_paused
from engine.workload.errors import WorkloadError
from engine.workload.models import speedup_models
from engine.workload.validate import cluster_problems
from engine.workload.workload import Workload


def to_jobs(workload: Workload, cluster: Cluster, mode: str | None = None) -> list[Job]:
    """The workload's jobs in frame order (``Job.index`` = row), fitted to ``cluster``.

    ``mode`` (rigid, moldable, malleable; see ``engine.job.MODES``) sets every job's
    mode; ``None`` keeps each row's ``mode`` column. All-moldable jobs are built exactly
    as before modes existed (one vectorised check), so their runs are unchanged.

    ``max_gpus`` is clipped to the cluster. A workload loaded for a bigger cluster may
    hold jobs that cannot run on this one at all; those raise a WorkloadError naming
    them rather than becoming jobs that never start.
    """
    frame = workload.frame
    problems = cluster_problems(frame, cluster)
    if problems:
        raise WorkloadError(problems)
    models, codes = speedup_models(frame)
    max_gpus = np.minimum(frame["max_gpus"].to_numpy(), cluster.total_gpus)
    with collector_paused():
        jobs = [
            Job(index, *fields)
            for index, fields in enumerate(
                zip(
                    frame["job_id"].tolist(),
                    frame["submit_time"].tolist(),
                    frame["runtime_1gpu"].tolist(),
                    frame["model"].tolist(),
                    [models[code] for code in codes.tolist()],
                    frame["requested_gpus"].tolist(),
                    frame["min_gpus"].tolist(),
                    max_gpus.tolist(),
                    strict=True,
                )
            )
        ]
    if mode is not None:
        return [with_mode(job, mode) for job in jobs]
    modes = frame["mode"].to_numpy()
    if (modes == "moldable").all():
        return jobs
    return [job if m == "moldable" else with_mode(job, m)
            for job, m in zip(jobs, modes, strict=True)]
