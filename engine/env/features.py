"""From the scheduler's state to the agent's observation and action mask.

The environment (training) and the ``drl`` policy (deployment) both call
:func:`observe`, so the network sees exactly the same features in both places.

Every feature is a ratio or a logarithm of one, normalised by the cluster's size and by
``tau``, the mean one-GPU run time of the jobs in the window; that is what lets one
policy run on 8 to 256 GPUs, at any load and for jobs of any length. Run-time estimates
are the jobs' own ``runtime_1gpu`` (the simulator's jobs are exact, as for the other
run-time-aware baselines).
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from math import log, log2
from typing import TYPE_CHECKING

import numpy as np

from engine.cluster import Cluster, packed_nodes
from engine.env.spec import (
    JOB_FEATURES,
    LEVEL_FEATURES,
    LEVEL_GPUS,
    LEVELS,
    OBS_BOUND,
    WINDOW,
)
from engine.job import Job

if TYPE_CHECKING:
    from engine.policies.base import RunningJob

_LOG2_MAX = 8.0  # log2(256): the largest level
_HORIZONS = (1 / 16, 1 / 4, 1.0)  # in units of tau: "GPUs freed soon" features


@dataclass(frozen=True, eq=False)
class DecisionPoint:
    """One observation with what is needed to act on it.

    ``gpus[slot, level]`` is the GPU count the action means (0 where the level is not
    allowed: a duplicate of a lower level after clipping to the job's range), ``valid``
    is the action mask without the wait action, ``efficiency`` the speedup per GPU on the
    placement the job would get now (or its packed placement when it does not fit).
    """

    obs: np.ndarray
    mask: np.ndarray
    jobs: tuple[Job, ...]
    gpus: np.ndarray
    valid: np.ndarray
    efficiency: np.ndarray
    free: int
    waiting: int


@lru_cache(maxsize=4096)
def _levels(min_gpus: int, max_gpus: int, total_gpus: int) -> tuple[tuple[int, int], ...]:
    sizes = []
    high = min(max_gpus, total_gpus)
    previous = 0
    for level, size in enumerate(LEVEL_GPUS):
        gpus = min(max(size, min_gpus), high)
        if gpus != previous and gpus >= min_gpus:
            sizes.append((level, gpus))
        previous = gpus
    return tuple(sizes)


def level_gpus(job: Job, total_gpus: int) -> tuple[tuple[int, int], ...]:
    """(level, GPU count) of each of ``job``'s distinct levels on ``total_gpus``.

    Level sizes are clipped to the job's range; a level clipped onto a lower level's
    count is left out (so no two actions mean the same start).
    """
    return _levels(job.min_gpus, job.max_gpus, total_gpus)


def _stats(job: Job, gpus: int, nodes: int) -> tuple[float, float, float, float]:
    """(efficiency, log2(speedup) / 8, log(run time), speedup x efficiency) of a placement."""
    runtime = job.runtime(gpus, nodes)
    speedup = job.runtime_1gpu / runtime
    eff = speedup / gpus
    return eff, log2(speedup) / _LOG2_MAX, log(runtime), speedup * eff


@dataclass(frozen=True, eq=False)
class _LevelTable:
    """A job's levels as arrays over all ``LEVELS`` (zeros where a level is not allowed).

    What does not change from one event to the next, worked out once per job: the GPU
    counts and the stats (rows of :func:`_stats`) on the packed placement and on one
    node (used only when the count fits on one node, where they are exact).
    """

    gpus: np.ndarray
    allowed: np.ndarray
    packed: np.ndarray  # (4, LEVELS)
    single: np.ndarray  # (4, LEVELS)


@lru_cache(maxsize=16384)
def _level_table(job: Job, total_gpus: int, per_node: int) -> _LevelTable:
    gpus = np.zeros(LEVELS, dtype=np.int64)
    packed = np.zeros((4, LEVELS))
    single = np.zeros((4, LEVELS))
    for level, g in level_gpus(job, total_gpus):
        gpus[level] = g
        packed[:, level] = _stats(job, g, packed_nodes(g, per_node))
        single[:, level] = _stats(job, g, 1)
    return _LevelTable(gpus, gpus > 0, packed, single)


_EMPTY = _LevelTable(
    np.zeros(LEVELS, dtype=np.int64), np.zeros(LEVELS, dtype=bool),
    np.zeros((4, LEVELS)), np.zeros((4, LEVELS)),
)


def window(waiting: Collection[Job]) -> list[Job]:
    """The ``WINDOW`` waiting jobs with the shortest run-time estimates, shortest first."""
    return heapq.nsmallest(WINDOW, waiting, key=_work)


def _work(job: Job) -> tuple[float, int]:
    return job.runtime_1gpu, job.index


def _log_ratio(x: float, scale: float, spread: float = 3.0) -> float:
    return math.log(max(x, 1e-9) / scale) / spread


def observe(
    now: float,
    cluster: Cluster,
    waiting: Collection[Job],
    running: Collection[RunningJob],
    free_per_node: Sequence[int],
) -> DecisionPoint:
    """Features, mask and action meanings at this decision point.

    The (job, level) features are computed as arrays over the whole window, from
    per-job tables cached across events: this runs at every decision of the deployed
    policy, which has 0.2 ms for it.
    """
    total = cluster.total_gpus
    gpn = cluster.gpus_per_node
    free = sum(free_per_node)
    jobs = window(waiting)
    tau = sum(j.runtime_1gpu for j in jobs) / len(jobs) if jobs else 1.0
    # nodes(g) of the simulator's packing: one node if one holds g, else the emptiest first
    max_free = max(free_per_node)
    cumulative = list(accumulate(sorted(free_per_node, reverse=True)))
    wide = max(free, 1)
    log_tau = log(tau)

    job_obs = [0.0] * (WINDOW * JOB_FEATURES)
    first_startable = True
    for slot, job in enumerate(jobs):
        r1 = job.runtime_1gpu
        startable = job.min_gpus <= free
        job_obs[slot * JOB_FEATURES : (slot + 1) * JOB_FEATURES] = (
            1.0,
            slot / WINDOW,
            float(startable and first_startable),
            math.log1p(max(now - job.submit_time, 0.0) / tau),
            _log_ratio(r1, tau),
            _log_ratio(r1, 3600.0, 2.0 * math.log(10.0)),
            math.log2(job.requested_gpus) / _LOG2_MAX,
            math.log2(job.min_gpus) / _LOG2_MAX,
            math.log2(min(job.max_gpus, total)) / _LOG2_MAX,
            min(job.requested_gpus / wide, 4.0) / 4.0,
        )
        first_startable = first_startable and not startable

    # the (job, level) features, as (WINDOW, LEVELS) arrays
    tables = [_level_table(job, total, gpn) for job in jobs]
    tables += [_EMPTY] * (WINDOW - len(tables))
    gpus = np.array([t.gpus for t in tables])  # np.array: 3x cheaper than np.stack here
    allowed = np.array([t.allowed for t in tables])
    valid = allowed & (gpus <= free)
    on_one_node = valid & (gpus <= max_free)
    stats = np.where(on_one_node[:, None, :], np.array([t.single for t in tables]),
                     np.array([t.packed for t in tables]))
    for slot, level in zip(*np.nonzero(valid & ~on_one_node), strict=True):
        g = int(gpus[slot, level])  # spread over nodes: placement-dependent
        stats[slot, :, level] = _stats(jobs[slot], g, bisect_left(cumulative, g) + 1)
    eff, log_speedup, log_runtime, knee = stats.transpose(1, 0, 2)
    best_knee = np.where(valid, knee, 0.0).max(axis=1, keepdims=True)
    relative_knee = np.divide(knee, best_knee, out=np.zeros_like(knee), where=best_knee > 0)
    level_obs = np.array(
        [
            valid,
            allowed,
            eff,
            log_speedup,
            gpus / total,
            np.minimum(gpus / wide, 2.0) / 2.0,
            np.where(allowed, (log_runtime - log_tau) / 3.0, 0.0),
            np.where(allowed, relative_knee, 0.0),
        ],
        dtype=np.float64,
    ).transpose(1, 2, 0)  # (WINDOW, LEVELS, LEVEL_FEATURES)

    horizons = [h * tau for h in _HORIZONS]
    freed = [0.0] * len(horizons)
    next_end, left_work = math.inf, 0.0
    for run in running:
        left = run.end - now
        next_end = min(next_end, left)
        left_work += left * run.gpus
        for i, horizon in enumerate(horizons):
            if left <= horizon:
                freed[i] += run.gpus / total
    if not running:
        next_end = tau
    n_waiting = len(waiting)
    cluster_obs = (
        free / total,
        math.log2(total) / _LOG2_MAX,
        math.log2(gpn) / 3.0,
        sum(1 for f in free_per_node if f == gpn) / cluster.nodes,
        max_free / gpn,
        min(n_waiting / total, 2.0) / 2.0,
        math.log1p(n_waiting) / 6.0,
        math.log1p(max(n_waiting - WINDOW, 0)) / 6.0,
        len(running) / total,
        *freed,
        _log_ratio(max(next_end, 1e-3 * tau), tau),
        math.log1p(left_work / (total * tau)),
    )
    obs = np.concatenate(
        [
            np.concatenate(
                [np.array(job_obs).reshape(WINDOW, JOB_FEATURES),
                 level_obs.reshape(WINDOW, LEVELS * LEVEL_FEATURES)],
                axis=1,
            ).reshape(-1),
            cluster_obs,
        ]
    ).astype(np.float32)
    np.clip(obs, -OBS_BOUND, OBS_BOUND, out=obs)
    # waiting on an idle cluster while something could start would stall the run
    any_start = bool(valid.any())
    mask = np.append(valid.reshape(-1), bool(running) or not any_start)
    return DecisionPoint(
        obs, mask, tuple(jobs), gpus, valid, eff.astype(np.float32), free, n_waiting
    )
