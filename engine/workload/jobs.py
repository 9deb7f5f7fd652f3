"""Handing a workload to the simulator as ``Job`` objects."""

from __future__ import annotations

import numpy as np

from engine.cluster import Cluster
from engine.job import Job
from engine.workload.bulk import collector_paused
from engine.workload.errors import WorkloadError
from engine.workload.models import speedup_models
from engine.workload.validate import cluster_problems
from engine.workload.workload import Workload


def to_jobs(workload: Workload, cluster: Cluster) -> list[Job]:
    """The workload's jobs in frame order (``Job.index`` = row), fitted to ``cluster``.

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
        return [
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
