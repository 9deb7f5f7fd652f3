"""What a run produces: per-job table, timeline, decision log and summary metrics.

The summary carries the no-contention lower bound on average JCT (each job alone on the
empty cluster, on its best allowed allocation) so any policy reads as a ratio to ideal.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from engine.cluster import Cluster, packed_nodes
from engine.job import Job
from engine.protocol import RunningJob


class Decision(NamedTuple):
    """One scaling decision: at ``time`` job got ``gpus`` on ``nodes`` with ``free`` free.

    A named tuple, like :class:`RunningJob`: one is logged per start.
    """

    time: float
    job: Job
    gpus: int
    nodes: int
    free: int
    info: Mapping[str, Any] | None = None


METRIC_DEFINITIONS: dict[str, str] = {
    "jobs": "jobs in the workload",
    "completed": "jobs that ended",
    "avg_jct": "mean job completion time (JCT): end minus submit, queueing + running",
    "p50_jct": "median JCT",
    "p95_jct": "95th percentile of the JCTs: the tail",
    "makespan": "last job end minus first submit",
    "utilization": "GPU-seconds the jobs held, GPUs x (end - start), over\n"
                   "total GPUs x makespan",
    "avg_wait": "mean queueing time, start minus submit",
    "avg_slowdown": "mean of each job's JCT over its ideal run time (1 = no slowdown)",
    "lower_bound_avg_jct": "mean ideal run time: each job alone on the empty cluster\n"
                           "on its best allowed allocation; no schedule's avg_jct is lower",
    "jct_over_bound": "avg_jct / lower_bound_avg_jct (1 = ideal)",
}
"""What each summary metric means, in the words the CLI's help and the docs use."""
TIME_METRICS: frozenset[str] = frozenset(
    {"avg_jct", "p50_jct", "p95_jct", "makespan", "avg_wait", "lower_bound_avg_jct"})
"""The summary metrics that are durations in seconds (the others are counts or ratios)."""


@dataclass(frozen=True)
class Summary:
    """Headline metrics of one run, as :data:`METRIC_DEFINITIONS` defines them.

    Each is over the *completed* jobs (all of them once a run ends; fewer in a run cut
    short, e.g. one the app is animating); with none completed every metric but ``jobs``,
    ``completed`` and ``lower_bound_avg_jct`` is NaN (``lower_bound_avg_jct`` is then
    over every job). Percentiles interpolate linearly (``numpy.percentile``).
    """

    jobs: int
    completed: int
    avg_jct: float
    p50_jct: float
    p95_jct: float
    makespan: float
    utilization: float
    avg_wait: float
    avg_slowdown: float
    lower_bound_avg_jct: float

    @property
    def jct_over_bound(self) -> float:
        """Average JCT as a multiple of the no-contention ideal (1.0 = ideal)."""
        return self.avg_jct / self.lower_bound_avg_jct if self.lower_bound_avg_jct else np.nan

    def as_dict(self) -> dict[str, float | int]:
        return {**asdict(self), "jct_over_bound": self.jct_over_bound}


@dataclass(frozen=True)
class SimulationResult:
    """Everything one run produced; ``extras`` holds policy-specific tables (e.g. a sweep)."""

    policy: str
    cluster: Cluster
    summary: Summary
    jobs: pd.DataFrame
    timeline: pd.DataFrame
    decisions: pd.DataFrame
    extras: Mapping[str, Any] = field(default_factory=dict)


def best_alone_runtime(job: Job, cluster: Cluster, _cache: dict | None = None) -> float:
    """The job's run time alone on the empty cluster, on its best allowed allocation."""
    cache = {} if _cache is None else _cache
    key = (id(job.speedup_model), job.min_gpus, job.max_gpus)
    best = cache.get(key)
    if best is None:
        best = max(
            job.speedup_model.speedup(k, packed_nodes(k, cluster.gpus_per_node))
            for k in job.allowed_gpus(cluster.total_gpus)
        )
        cache[key] = best
    return job.runtime_1gpu / best


def build_result(
    policy: str,
    cluster: Cluster,
    jobs: Sequence[Job],
    finished: Iterable[RunningJob],
    running: Iterable[RunningJob],
    decisions: Sequence[Decision],
    timeline: Sequence[tuple[float, int, int, int]],
    columns: Mapping[str, np.ndarray] | None = None,
    extras: Mapping[str, Any] | None = None,
) -> SimulationResult:
    """Assemble tables and metrics; a running job has a start but no end yet.

    ``columns`` are extra per-job columns (elastic runs: ``resizes``, ``preemptions``,
    ``gpu_seconds``; the last replaces ``gpus x (end - start)`` in the utilization).
    """
    n = len(jobs)
    submit = np.fromiter((j.submit_time for j in jobs), float, n)
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    gpus = np.zeros(n, dtype=np.int64)
    nodes = np.zeros(n, dtype=np.int64)
    finished = list(finished)
    if finished:
        # Runs are tuples: transposing them with zip is far cheaper than attribute loops.
        run_jobs, run_gpus, placements, run_starts, run_ends = zip(*finished, strict=True)
        index = np.fromiter((job.index for job in run_jobs), np.int64, len(finished))
        start[index] = run_starts
        end[index] = run_ends
        gpus[index] = run_gpus
        nodes[index] = list(map(len, placements))
    for run in running:
        i = run.job.index
        start[i], gpus[i], nodes[i] = run.start, run.gpus, run.nodes
    cache: dict = {}
    ideal = np.fromiter((best_alone_runtime(j, cluster, cache) for j in jobs), float, n)
    jct = end - submit
    table = pd.DataFrame(
        {
            "job_id": [j.job_id for j in jobs],
            "model": [j.model for j in jobs],
            "submit": submit,
            "start": start,
            "end": end,
            "gpus": gpus,
            "nodes": nodes,
            "requested_gpus": np.fromiter((j.requested_gpus for j in jobs), np.int64, n),
            "wait": start - submit,
            "jct": jct,
            "slowdown": jct / ideal,
            **(columns or {}),
        }
    )
    return SimulationResult(
        policy=policy,
        cluster=cluster,
        summary=summarize(table, ideal, cluster),
        jobs=table,
        timeline=_timeline_frame(timeline),
        decisions=decision_table(decisions),
        extras=extras or {},
    )


def decision_table(decisions: Sequence[Decision]) -> pd.DataFrame:
    """The decision log as a table, one row per start."""
    times, jobs, gpus, nodes, free, info = (
        zip(*decisions, strict=True) if decisions else ((),) * len(Decision._fields)
    )
    return pd.DataFrame(
        {
            "time": np.asarray(times, dtype=float),
            "job_id": [job.job_id for job in jobs],
            "model": [job.model for job in jobs],
            "requested_gpus": np.fromiter((job.requested_gpus for job in jobs), np.int64),
            "gpus": np.asarray(gpus, dtype=np.int64),
            "nodes": np.asarray(nodes, dtype=np.int64),
            "free_gpus": np.asarray(free, dtype=np.int64),
            "info": list(info),
        }
    )


def _timeline_frame(timeline: Sequence[tuple[float, int, int, int]]) -> pd.DataFrame:
    flat = itertools.chain.from_iterable(timeline)  # twice as fast as np.asarray(timeline)
    values = np.fromiter(flat, float, 4 * len(timeline)).reshape(-1, 4)
    return pd.DataFrame(
        {
            "time": values[:, 0],
            "busy_gpus": values[:, 1].astype(np.int64),
            "queue": values[:, 2].astype(np.int64),
            "running": values[:, 3].astype(np.int64),
        }
    )


def summarize(table: pd.DataFrame, ideal: np.ndarray, cluster: Cluster) -> Summary:
    """Headline metrics over the completed jobs of a per-job table."""
    done = table["end"].notna().to_numpy()
    jct = table["jct"].to_numpy()[done]
    if not done.any():
        nan = float("nan")
        return Summary(len(table), 0, nan, nan, nan, nan, nan, nan, nan, float(ideal.mean()))
    first_submit = float(table["submit"].min())
    makespan = float(table["end"].max()) - first_submit
    if "gpu_seconds" in table:
        busy = table["gpu_seconds"].to_numpy()[done]
    else:
        busy = table["gpus"].to_numpy()[done] * (table["end"] - table["start"]).to_numpy()[done]
    return Summary(
        jobs=len(table),
        completed=int(done.sum()),
        avg_jct=float(jct.mean()),
        p50_jct=float(np.percentile(jct, 50)),
        p95_jct=float(np.percentile(jct, 95)),
        makespan=makespan,
        utilization=float(busy.sum() / (cluster.total_gpus * makespan)) if makespan > 0 else 0.0,
        avg_wait=float(table["wait"].to_numpy()[done].mean()),
        avg_slowdown=float(table["slowdown"].to_numpy()[done].mean()),
        lower_bound_avg_jct=float(ideal[done].mean()),
    )
