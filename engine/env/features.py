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
from operator import attrgetter
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
    from engine.protocol import RunningJob
    from engine.speedup.base import SpeedupModel

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


def _stats(job: Job, gpus: int, nodes: int) -> tuple[float, float, float, float]:
    """(efficiency, log2(speedup) / 8, log(run time), speedup x efficiency) of a placement."""
    runtime = job.runtime(gpus, nodes)
    speedup = job.runtime_1gpu / runtime
    eff = speedup / gpus
    return eff, log2(speedup) / _LOG2_MAX, log(runtime), speedup * eff


# rows of a job's level table, each over all LEVELS (zeros where a level is not allowed)
_REACH, _GPUS, _ALLOWED, _LOG_RUNTIME, _KNEE = range(5)
_ROWS = 5
_EMPTY_ROWS = np.zeros((_ROWS, LEVELS))
_EMPTY_ROWS[_REACH] = np.inf  # an empty slot: nothing fits


def _level_planes(row: np.ndarray) -> np.ndarray:
    """The (LEVELS, LEVEL_FEATURES) view of a slot's (or, 2-d, every slot's) level features."""
    return row[..., JOB_FEATURES:].reshape(*row.shape[:-1], LEVELS, LEVEL_FEATURES)


@dataclass(frozen=True, eq=False)
class _Shape:
    """What a job's levels share with every job of the same speedup model and GPU range.

    ``speedups`` are on the packed placement of each distinct level (``index``, GPU
    counts ``gpus``); ``rows`` is the level table without the job's stats, ``row`` the
    observation row with the features that depend on nothing else.
    """

    index: slice | np.ndarray
    gpus: np.ndarray
    speedups: np.ndarray
    rows: np.ndarray
    row: np.ndarray


def _make_shape(
    model: SpeedupModel, min_gpus: int, max_gpus: int, total_gpus: int, per_node: int
) -> _Shape:
    levels = _levels(min_gpus, max_gpus, total_gpus)
    allowed = [level for level, _ in levels]
    index: slice | np.ndarray = np.array(allowed, dtype=np.intp)
    if allowed and allowed[-1] - allowed[0] == len(allowed) - 1:
        index = slice(allowed[0], allowed[-1] + 1)  # consecutive levels: cheaper to write
    gpus = np.array([g for _, g in levels], dtype=np.float64)
    speedups = np.array([model.speedup(g, packed_nodes(g, per_node)) for _, g in levels])
    rows = _EMPTY_ROWS.copy()
    rows[_REACH, index] = gpus
    rows[_GPUS, index] = gpus
    rows[_ALLOWED, index] = 1.0
    row = np.zeros(PER_JOB)
    row[0] = 1.0  # present
    row[7] = math.log2(min_gpus) / _LOG2_MAX
    row[8] = math.log2(min(max_gpus, total_gpus)) / _LOG2_MAX
    planes = _level_planes(row)
    planes[index, 1] = 1.0  # allowed
    planes[index, 4] = gpus / total_gpus
    return _Shape(index, gpus, speedups, rows, row)


_SHAPES: dict[tuple[int, int, int, int, int], tuple[SpeedupModel, _Shape]] = {}
_MAX_SHAPES = 4096


def _shape(job: Job, total_gpus: int, per_node: int) -> _Shape:
    """The job's :class:`_Shape`, cached per speedup-model object (workloads share few).

    Keyed on the model's identity (hashing a profile's fields would cost more than the
    lookup saves; any model works, hashable or not); the entry keeps the model alive,
    so its id is not reused while cached.
    """
    model = job.speedup_model
    key = (id(model), job.min_gpus, job.max_gpus, total_gpus, per_node)
    entry = _SHAPES.get(key)
    if entry is None or entry[0] is not model:
        if len(_SHAPES) >= _MAX_SHAPES:
            _SHAPES.clear()
        entry = _SHAPES[key] = (model, _make_shape(model, *key[1:]))
    return entry[1]


@dataclass(frozen=True, eq=False)
class _LevelTable:
    """A job's levels, worked out once per job (read-only arrays).

    ``rows`` (``(_ROWS, LEVELS)``): GPU count where allowed else +inf (so ``reach <=
    free`` is "fits now"), GPU count, allowed, and log(run time) and speedup x efficiency
    on the packed placement. ``row``: the job's observation row with every feature that
    does not depend on the decision point, efficiency and log2(speedup) / 8 on the
    packed placement included. The packed placement's stats are the placement's a job
    gets now whenever the count fits on one node (the packed placement of a count up to
    a node's size is one node); counts spread over more nodes are redone per point.
    """

    rows: np.ndarray
    row: np.ndarray


@lru_cache(maxsize=16384)
def _level_table(job: Job, total_gpus: int, per_node: int) -> _LevelTable:
    shape = _shape(job, total_gpus, per_node)
    index = shape.index
    r1 = job.runtime_1gpu
    # _stats' arithmetic on every level at once (IEEE division and product, math's logs)
    runtime = r1 / shape.speedups
    speedup = r1 / runtime
    eff = speedup / shape.gpus
    rows = shape.rows.copy()
    rows[_LOG_RUNTIME, index] = [log(x) for x in runtime.tolist()]
    rows[_KNEE, index] = speedup * eff
    row = shape.row.copy()
    row[5] = _log_ratio(r1, 3600.0, 2.0 * math.log(10.0))
    row[6] = math.log2(job.requested_gpus) / _LOG2_MAX
    planes = _level_planes(row)
    planes[index, 2] = eff
    planes[index, 3] = [log2(x) / _LOG2_MAX for x in speedup.tolist()]
    rows.setflags(write=False)
    row.setflags(write=False)
    return _LevelTable(rows, row)


def window(waiting: Collection[Job]) -> list[Job]:
    """The ``WINDOW`` waiting jobs with the shortest run-time estimates, shortest first."""
    return heapq.nsmallest(WINDOW, waiting, key=_work)


_work = attrgetter("runtime_1gpu", "index")
"""A job's sort key in the window: (run-time estimate, index), as a C-level getter."""


def _log_ratio(x: float, scale: float, spread: float = 3.0) -> float:
    return math.log(max(x, 1e-9) / scale) / spread


_LOW, _HIGH = np.float32(-OBS_BOUND), np.float32(OBS_BOUND)


def _restat(levels: np.ndarray, block: np.ndarray, slot, level, stats) -> None:
    """Put a placement's :func:`_stats` in for (slot, level)'s packed ones."""
    eff, log_speedup, log_runtime, knee = stats
    levels[slot, level, 2] = eff
    levels[slot, level, 3] = log_speedup
    block[_LOG_RUNTIME, slot, level] = log_runtime
    block[_KNEE, slot, level] = knee


def observe(
    now: float,
    cluster: Cluster,
    waiting: Collection[Job],
    running: Collection[RunningJob],
    free_per_node: Sequence[int],
) -> DecisionPoint:
    """Features, mask and action meanings at this decision point.

    The (job, level) features are computed as arrays over the whole window, from per-job
    tables (built once per job from speedups cached per speedup model) and written
    straight into one observation buffer: this runs at every decision of the deployed
    policy, which has 0.2 ms for it. ``tests/env/test_features_equivalence.py`` keeps
    the plain loop version this must match.
    """
    total = cluster.total_gpus
    gpn = cluster.gpus_per_node
    free = sum(free_per_node)
    jobs = window(waiting)
    n_jobs = len(jobs)
    tau = sum(j.runtime_1gpu for j in jobs) / n_jobs if jobs else 1.0
    max_free = max(free_per_node)
    if isinstance(free_per_node, list | tuple):
        full_nodes = free_per_node.count(gpn)
    else:
        full_nodes = sum(1 for f in free_per_node if f == gpn)
    wide = max(free, 1)
    log_tau = log(tau)
    buffer = np.zeros(OBS_SIZE)
    job_block = buffer[: WINDOW * PER_JOB].reshape(WINDOW, PER_JOB)
    block = np.empty((_ROWS, WINDOW, LEVELS))  # the window's level tables, row-major
    first_startable = True
    for slot, job in enumerate(jobs):
        table = _level_table(job, total, gpn)
        block[:, slot] = table.rows
        row = job_block[slot]
        row[:] = table.row
        startable = job.min_gpus <= free
        row[1] = slot / WINDOW
        row[2] = float(startable and first_startable)
        row[3] = math.log1p(max(now - job.submit_time, 0.0) / tau)
        row[4] = _log_ratio(job.runtime_1gpu, tau)
        row[9] = min(job.requested_gpus / wide, 4.0) / 4.0
        first_startable = first_startable and not startable
    block[:, n_jobs:] = _EMPTY_ROWS[:, None, :]

    # the (job, level) features, as (WINDOW, LEVELS) arrays
    levels = _level_planes(job_block)  # (WINDOW, LEVELS, LEVEL_FEATURES)
    reach, gpus_float, allowed, log_runtime, knee = block
    gpus = gpus_float.astype(np.int64)
    allowed = allowed > 0.0
    valid = reach <= float(free)
    on_one_node = reach <= float(max_free)  # max_free <= free: a subset of valid
    if max_free > gpn:  # not a real cluster state (more free than a node holds): be exact
        for slot, level in zip(*np.nonzero(on_one_node & (gpus_float > gpn)), strict=True):
            _restat(levels, block, slot, level, _stats(jobs[slot], int(gpus[slot, level]), 1))
    # Counts over ``packed`` GPUs that fit may get more nodes than when packed: the
    # simulator's packing fills the emptiest nodes first, so up to the fully free nodes'
    # GPUs (or one node's free GPUs) the placement is the packed one.
    packed = max_free if max_free > gpn else max(max_free, full_nodes * gpn)
    if free > packed:
        spread = valid & (reach > packed)
        if spread.any():
            cumulative = list(accumulate(sorted(free_per_node, reverse=True)))
            for slot, level in zip(*np.nonzero(spread), strict=True):
                g = int(gpus[slot, level])
                nodes = bisect_left(cumulative, g) + 1  # nodes(g) of that packing
                if nodes != packed_nodes(g, gpn):
                    _restat(levels, block, slot, level, _stats(jobs[slot], g, nodes))
    best_knee = np.where(valid, knee, 0.0).max(axis=1, keepdims=True)
    levels[:, :, 0] = valid
    share_of_free = levels[:, :, 5]
    np.minimum(gpus_float / wide, 2.0, out=share_of_free)
    share_of_free /= 2.0
    levels[:, :, 6] = np.where(allowed, (log_runtime - log_tau) / 3.0, 0.0)
    # knee over the best knee that fits; 0 where nothing fits (knee / inf) or not allowed
    np.divide(knee, np.where(best_knee > 0, best_knee, np.inf), out=levels[:, :, 7])
    eff = levels[:, :, 2]

    h0, h1, h2 = (h * tau for h in _HORIZONS)
    freed0 = freed1 = freed2 = 0.0
    next_end, left_work = math.inf, 0.0
    for run in running:
        left = run.end - now
        if left < next_end:
            next_end = left
        left_work += left * run.gpus
        if left <= h2:
            share = run.gpus / total
            freed2 += share
            if left <= h1:
                freed1 += share
                if left <= h0:
                    freed0 += share
    if not running:
        next_end = tau
    n_waiting = len(waiting)
    buffer[WINDOW * PER_JOB :] = (
        free / total,
        math.log2(total) / _LOG2_MAX,
        math.log2(gpn) / 3.0,
        full_nodes / cluster.nodes,
        max_free / gpn,
        min(n_waiting / total, 2.0) / 2.0,
        math.log1p(n_waiting) / 6.0,
        math.log1p(max(n_waiting - WINDOW, 0)) / 6.0,
        len(running) / total,
        freed0,
        freed1,
        freed2,
        _log_ratio(max(next_end, 1e-3 * tau), tau),
        math.log1p(left_work / (total * tau)),
    )
    obs = buffer.astype(np.float32)
    np.maximum(obs, _LOW, out=obs)  # np.clip's arithmetic, without its wrapper
    np.minimum(obs, _HIGH, out=obs)
    # waiting on an idle cluster while something could start would stall the run
    mask = np.empty(N_ACTIONS, dtype=bool)
    mask[:WAIT] = valid.reshape(-1)
    mask[WAIT] = bool(running) or not mask[:WAIT].any()
    return DecisionPoint(
        obs, mask, tuple(jobs), gpus, valid, eff.astype(np.float32), free, n_waiting
    )
