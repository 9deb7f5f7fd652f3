"""Handing a workload to the simulator as ``Job`` objects."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.cluster import Cluster
from engine.job import Job, with_mode
from engine.speedup.measured import AdaptiveBatchJob, FixedBatchJob
from engine.workload.bulk import collector_paused
from engine.workload.errors import WorkloadError
from engine.workload.models import speedup_models
from engine.workload.validate import cluster_problems
from engine.workload.workload import Workload

BATCH_KINDS: tuple[str, ...] = ("fixed", "adaptive")
"""How measured DL jobs treat their global batch: ``fixed`` (every run's default: the
row's ``batch_size``) or ``adaptive`` (Pollux's jobs, which retune it every epoch for
their allocation; ``engine.speedup.measured.AdaptiveBatchJob``), chosen explicitly."""


def to_jobs(
    workload: Workload, cluster: Cluster, mode: str | None = None, batch: str = "fixed"
) -> list[Job]:
    """The workload's jobs in frame order (``Job.index`` = row), fitted to ``cluster``.

    ``mode`` (rigid, moldable, malleable; see ``engine.job.MODES``) sets every job's
    mode; ``None`` keeps each row's ``mode`` column. All-moldable jobs are built exactly
    as before modes existed (one vectorised check), so their runs are unchanged.

    ``batch`` is one of :data:`BATCH_KINDS`. ``max_gpus`` is clipped to the cluster and
    to what a measured job's batch can use (``FixedBatchJob.max_gpus``). A workload
    loaded for a bigger cluster may hold jobs that cannot run on this one at all; those
    raise a WorkloadError naming them rather than becoming jobs that never start.
    """
    frame = workload.frame
    problems = cluster_problems(frame, cluster)
    if problems:
        raise WorkloadError(problems)
    models, codes = speedup_models(frame)
    limits = np.array([getattr(m, "max_gpus", cluster.total_gpus) for m in models], dtype=np.int64)
    max_gpus = np.minimum(frame["max_gpus"].to_numpy(), cluster.total_gpus)
    max_gpus = np.minimum(max_gpus, limits[codes])
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
    if batch not in BATCH_KINDS:
        raise ValueError(f"unknown batch kind {batch!r}; known: {', '.join(BATCH_KINDS)}")
    if batch == "adaptive":
        jobs = [adaptive(job, int(limit)) for job, limit in zip(
            jobs, np.minimum(frame["max_gpus"].to_numpy(), cluster.total_gpus), strict=True)]
    if mode is not None:
        return [with_mode(job, mode) for job in jobs]
    modes = frame["mode"].to_numpy()
    if (modes == "moldable").all():
        return jobs
    return [job if m == "moldable" else with_mode(job, m)
            for job, m in zip(jobs, modes, strict=True)]


def adaptive(job: Job, max_gpus: int) -> Job:
    """``job`` as a batch-adaptive Pollux job, if it is a measured DL job.

    It does the same training: its one-GPU run time scales by the adaptive job's over
    the fixed-batch job's, and it may use as many GPUs (up to ``max_gpus``) as the
    model's largest validated batch allows.
    """
    fixed = job.speedup_model
    if not isinstance(fixed, FixedBatchJob):
        return job
    model = AdaptiveBatchJob(fixed.name)
    runtime = job.runtime_1gpu * model.duration(1, 1) / fixed.duration(1, 1)
    return replace(job, runtime_1gpu=runtime, speedup_model=model,
                   max_gpus=min(max_gpus, model.max_gpus), _cache={})
