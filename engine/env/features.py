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
    OBS_SIZE,
    PER_JOB,
    WAIT,
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


@lru_cache(maxsize=16384)
def _packed_levels(job: Job, total_gpus: int, per_node: int) -> tuple[tuple[int, int, float], ...]:
    """(level, GPU count, run time on the packed placement): what does not change per event."""
    return tuple(
        (level, g, job.runtime(g, packed_nodes(g, per_node)))
        for level, g in level_gpus(job, total_gpus)
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

    Built in a Python list and converted once: per-element numpy writes would cost
    several times more, and this runs at every decision of the deployed policy.
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

    obs = [0.0] * OBS_SIZE
    gpus = [0] * (WINDOW * LEVELS)
    valid = [False] * (WINDOW * LEVELS)
    efficiency = [0.0] * (WINDOW * LEVELS)
    first_startable = True
    for slot, job in enumerate(jobs):
        base = slot * PER_JOB
        r1 = job.runtime_1gpu
        startable = job.min_gpus <= free
        obs[base : base + JOB_FEATURES] = (
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
        knees = []
        for level, g, packed_runtime in _packed_levels(job, total, gpn):
            fits = g <= free
            if not fits:
                runtime = packed_runtime
            elif g <= max_free:
                runtime = job.runtime(g, 1)
            else:
                runtime = job.runtime(g, bisect_left(cumulative, g) + 1)
            speedup = r1 / runtime
            eff = speedup / g
            action = slot * LEVELS + level
            gpus[action], valid[action], efficiency[action] = g, fits, eff
            at = base + JOB_FEATURES + level * LEVEL_FEATURES
            obs[at : at + LEVEL_FEATURES - 1] = (
                float(fits),
                1.0,
                eff,
                log2(speedup) / _LOG2_MAX,
                g / total,
                min(g / wide, 2.0) / 2.0,
                (log(runtime) - log_tau) / 3.0,
            )  # the last feature, the knee score relative to the job's best that fits, below
            knees.append((at + LEVEL_FEATURES - 1, speedup * eff, fits))
        best_knee = max((k for _, k, fits in knees if fits), default=0.0)
        if best_knee > 0:
            for at, knee, _ in knees:
                obs[at] = knee / best_knee

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
    obs[WINDOW * PER_JOB :] = (
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
    array = np.clip(np.array(obs, dtype=np.float32), -OBS_BOUND, OBS_BOUND)

    any_start = any(valid)
    # waiting on an idle cluster while something could start would stall the run
    mask = np.array([*valid, bool(running) or not any_start])
    return DecisionPoint(
        array,
        mask,
        tuple(jobs),
        np.array(gpus, dtype=np.int64).reshape(WINDOW, LEVELS),
        mask[:WAIT].reshape(WINDOW, LEVELS),
        np.array(efficiency, dtype=np.float32).reshape(WINDOW, LEVELS),
        free,
        n_waiting,
    )
