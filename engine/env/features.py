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
from itertools import accumulate
from typing import TYPE_CHECKING

import numpy as np

from engine.cluster import Cluster, packed_nodes
from engine.env.spec import (
    JOB_FEATURES,
    LEVEL_FEATURES,
    LEVEL_GPUS,
    LEVELS,
    N_ACTIONS,
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


def level_gpus(job: Job, total_gpus: int) -> list[int]:
    """GPU count of each level for ``job`` (0 where a lower level already gives it)."""
    high = min(job.max_gpus, total_gpus)
    out: list[int] = []
    previous = 0
    for size in LEVEL_GPUS:
        gpus = min(max(size, job.min_gpus), high)
        out.append(gpus if gpus != previous and gpus >= job.min_gpus else 0)
        previous = gpus
    return out


def window(waiting: Collection[Job]) -> list[Job]:
    """The ``WINDOW`` waiting jobs with the shortest run-time estimates, shortest first."""
    return heapq.nsmallest(WINDOW, waiting, key=lambda j: (j.runtime_1gpu, j.index))


def _log_ratio(x: float, scale: float, spread: float = 3.0) -> float:
    return math.log(max(x, 1e-9) / scale) / spread


def observe(
    now: float,
    cluster: Cluster,
    waiting: Collection[Job],
    running: Collection[RunningJob],
    free_per_node: Sequence[int],
) -> DecisionPoint:
    """Features, mask and action meanings at this decision point."""
    total = cluster.total_gpus
    gpn = cluster.gpus_per_node
    free = sum(free_per_node)
    jobs = window(waiting)
    tau = sum(j.runtime_1gpu for j in jobs) / len(jobs) if jobs else 1.0
    # nodes(g) of the simulator's packing: one node if one holds g, else the emptiest first
    max_free = max(free_per_node)
    cumulative = list(accumulate(sorted(free_per_node, reverse=True)))

    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    gpus = np.zeros((WINDOW, LEVELS), dtype=np.int64)
    valid = np.zeros((WINDOW, LEVELS), dtype=bool)
    efficiency = np.zeros((WINDOW, LEVELS), dtype=np.float32)
    first_startable = True
    for slot, job in enumerate(jobs):
        base = slot * PER_JOB
        r1 = job.runtime_1gpu
        high = min(job.max_gpus, total)
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
            math.log2(high) / _LOG2_MAX,
            min(job.requested_gpus / max(free, 1), 4.0) / 4.0,
        )
        first_startable = first_startable and not startable
        knees = np.zeros(LEVELS)
        for level, g in enumerate(level_gpus(job, total)):
            if not g:
                continue
            fits = g <= free
            nodes = (
                (1 if g <= max_free else bisect_left(cumulative, g) + 1)
                if fits
                else packed_nodes(g, gpn)
            )
            runtime = job.runtime(g, nodes)
            speedup = r1 / runtime
            eff = speedup / g
            gpus[slot, level] = g
            valid[slot, level] = fits
            efficiency[slot, level] = eff
            at = base + JOB_FEATURES + level * LEVEL_FEATURES
            obs[at : at + LEVEL_FEATURES] = (
                float(fits),
                1.0,
                eff,
                math.log2(max(speedup, 1e-9)) / _LOG2_MAX,
                g / total,
                min(g / max(free, 1), 2.0) / 2.0,
                _log_ratio(runtime, tau),
                0.0,  # knee score relative to the job's best that fits: filled below
            )
            knees[level] = speedup * eff
        best_knee = max(knees[valid[slot]], default=0.0)
        if best_knee > 0:
            at = base + JOB_FEATURES + LEVEL_FEATURES - 1
            obs[at : at + LEVELS * LEVEL_FEATURES : LEVEL_FEATURES] = knees / best_knee

    busy_until = sorted((r.end, r.gpus) for r in running)
    freed = [
        sum(g for end, g in busy_until if end - now <= h * tau) / total for h in _HORIZONS
    ]
    next_end = busy_until[0][0] - now if busy_until else tau
    left_work = sum((end - now) * g for end, g in busy_until)
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
    np.clip(obs, -OBS_BOUND, OBS_BOUND, out=obs)

    mask = np.zeros(N_ACTIONS, dtype=bool)
    mask[:WAIT] = valid.reshape(-1)
    # waiting on an idle cluster while something could start would stall the run
    mask[WAIT] = bool(running) or not mask[:WAIT].any()
    return DecisionPoint(obs, mask, tuple(jobs), gpus, valid, efficiency, free, n_waiting)
