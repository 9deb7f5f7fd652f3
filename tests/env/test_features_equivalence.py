"""observe() against a slow reference: the features must not change, only their cost.

The reference below is the straightforward implementation the shipped weights were
trained with (``SPEC_VERSION`` 1), kept here verbatim: per-job tables of Python-computed
stats, a Python loop per spread placement, concatenations. :func:`engine.env.features.observe`
is an optimised rewrite; every decision point met by the ``drl`` policy in the simulator
and in the gym environment, on several cluster sizes and loads, and on random hand-made
states, must give the same observation, mask and action meanings. The pre-optimisation
forward pass and choice are kept too: the policy must make the same decisions, with the
same explanations, as the reference policy on 200-job workloads.
"""

from __future__ import annotations

import heapq
import math
import random
from bisect import bisect_left
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from math import log, log2

import numpy as np
import pytest
from factories import make_job

import engine.env.moldable_env as moldable_env
import engine.env.planning as planning
from engine.cluster import Cluster, pack, packed_nodes
from engine.drl.pretrained import shipped_policy
from engine.env.features import DecisionPoint, observe
from engine.env.spec import (
    JOB_FEATURES,
    LEVEL_FEATURES,
    LEVEL_GPUS,
    LEVELS,
    OBS_BOUND,
    PER_JOB,
    WAIT,
    WINDOW,
)
from engine.job import Job
from engine.policies.drl import TOP, DrlPolicy
from engine.protocol import RunningJob
from engine.simulator import simulate
from engine.speedup import Amdahl
from engine.workload import GeneratorConfig, generate, to_jobs

# --- the reference: the pre-optimisation observe(), verbatim -------------------------

_LOG2_MAX = 8.0  # log2(256): the largest level
_HORIZONS = (1 / 16, 1 / 4, 1.0)  # in units of tau: "GPUs freed soon" features


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
    for level, g in _levels(job.min_gpus, job.max_gpus, total_gpus):
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


def reference_observe(
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


# --- comparison ---------------------------------------------------------------------

RTOL, ATOL = 1e-6, 1e-7


def assert_same_point(new: DecisionPoint, ref: DecisionPoint) -> None:
    assert new.obs.dtype == ref.obs.dtype == np.float32 and new.obs.shape == ref.obs.shape
    np.testing.assert_allclose(new.obs, ref.obs, rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(new.mask, ref.mask)
    assert new.mask.dtype == ref.mask.dtype
    np.testing.assert_array_equal(new.gpus, ref.gpus)
    np.testing.assert_array_equal(new.valid, ref.valid)
    assert new.efficiency.dtype == np.float32
    np.testing.assert_allclose(new.efficiency, ref.efficiency, rtol=RTOL, atol=ATOL)
    assert [j.index for j in new.jobs] == [j.index for j in ref.jobs]
    assert (new.free, new.waiting) == (ref.free, ref.waiting)


class _Checked:
    """observe() that also runs the reference on the same state and compares."""

    def __init__(self) -> None:
        self.points = 0

    def __call__(self, now, cluster, waiting, running, free_per_node) -> DecisionPoint:
        waiting, running, free_per_node = list(waiting), list(running), list(free_per_node)
        ref = reference_observe(now, cluster, waiting, running, free_per_node)
        new = observe(now, cluster, waiting, running, free_per_node)
        assert_same_point(new, ref)
        self.points += 1
        return new


SETUPS = [  # (nodes, GPUs per node, load, jobs, seed)
    (1, 8, 1.0, 60, 4),
    (2, 8, 1.2, 120, 2),
    (8, 4, 0.85, 200, 3),
    (16, 4, 1.0, 200, 5),
    (32, 8, 0.7, 150, 9),
    (64, 4, 0.9, 200, 11),
]


def _workload(nodes, per_node, load, n, seed):
    cluster = Cluster(nodes, per_node)
    jobs = to_jobs(generate(GeneratorConfig(jobs=n, load=load, seed=seed), cluster), cluster)
    return jobs, cluster


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: f"{s[0]}x{s[1]}-load{s[2]}")
def test_simulator_decision_points_match_the_reference(setup, monkeypatch):
    jobs, cluster = _workload(*setup)
    checked = _Checked()
    monkeypatch.setattr(planning, "observe", checked)
    assert simulate(jobs, cluster, DrlPolicy()).summary.completed == len(jobs)
    assert checked.points >= len(jobs)


@pytest.mark.parametrize("setup", SETUPS[:4], ids=lambda s: f"{s[0]}x{s[1]}-load{s[2]}")
def test_env_decision_points_match_the_reference(setup, monkeypatch):
    jobs, cluster = _workload(*setup)
    checked = _Checked()
    monkeypatch.setattr(moldable_env, "observe", checked)
    env = moldable_env.MoldableEnv(jobs=jobs, cluster=cluster)
    env.reset(seed=0)
    policy, rng, done, steps = DrlPolicy(), random.Random(setup[-1]), False, 0
    while not done and steps < 400:
        point = env.decision
        if rng.random() < 0.3:  # off the greedy path too: random valid actions
            action = rng.choice(np.flatnonzero(point.mask).tolist())
        else:
            action, _ = policy.choose(point)
        _, _, done, _, _ = env.step(action)
        steps += 1
    assert checked.points > 100


def _random_state(rng: random.Random):
    nodes, per_node = rng.choice([(1, 8), (2, 4), (4, 2), (3, 4), (8, 4), (16, 8), (64, 4)])
    cluster = Cluster(nodes, per_node)
    models = [Amdahl(serial_fraction=s) for s in (0.0, 0.05, 0.3)]
    jobs = []
    for i in range(rng.randint(0, 30)):
        lo = rng.choice([1, 1, 2, 3, 4, 8, 16, 64, 300])
        hi = lo + rng.choice([0, 1, 5, 12, 64, 500])
        jobs.append(make_job(i, rng.uniform(0, 500), rng.uniform(1, 5e4), requested=lo,
                             min_gpus=lo, max_gpus=hi, model=rng.choice(models)))
    free = [per_node] * nodes
    running = []
    now = rng.uniform(500, 1000)
    for job in jobs[: rng.randint(0, len(jobs))]:
        if rng.random() < 0.5:
            gpus = rng.randint(1, per_node * 2)
            placement = pack(free, gpus)
            if placement is None:
                continue
            for node, count in placement:
                free[node] -= count
            running.append(RunningJob(job, gpus, placement, now - 10, now + rng.uniform(0, 9e4)))
    started = {run.job.index for run in running}
    waiting = [job for job in jobs if job.index not in started]
    return now, cluster, waiting, running, free


@pytest.mark.parametrize("seed", range(300))
def test_random_states_match_the_reference(seed):
    now, cluster, waiting, running, free = _random_state(random.Random(seed))
    ref = reference_observe(now, cluster, waiting, running, free)
    assert_same_point(observe(now, cluster, waiting, running, free), ref)
    # a second call on the same state (warm caches) gives the same again
    assert_same_point(observe(now, cluster, waiting, running, free), ref)
    # free counts as a numpy array, and a node claiming more free GPUs than it holds
    assert_same_point(observe(now, cluster, waiting, running, np.array(free)), ref)
    odd = [free[0] * 2 + 1, *free[1:]]
    assert_same_point(observe(now, cluster, waiting, running, odd),
                      reference_observe(now, cluster, waiting, running, odd))


# --- the reference policy: the pre-optimisation forward pass and choice ---------------


class ReferenceActor:
    """The pre-optimisation NumpyActor's weights, laid out as it laid them out."""

    def __init__(self, state_dict) -> None:
        p = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in state_dict.items()}
        first = p["encoder.0.weight"].T
        self._job_in, self._cluster_in = first[:PER_JOB], first[PER_JOB:]
        self._bias_in = p["encoder.0.bias"]
        self._hidden = (p["encoder.2.weight"].T, p["encoder.2.bias"])
        self._levels = (p["levels.weight"].T, p["levels.bias"])
        self._trunk = (p["trunk.0.weight"].T, p["trunk.0.bias"])
        self._wait = (p["wait.weight"].T, p["wait.bias"])


def reference_probabilities(actor, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    jobs = obs[: WINDOW * PER_JOB].reshape(WINDOW, PER_JOB)
    cluster = obs[WINDOW * PER_JOB :]
    h = np.tanh(jobs @ actor._job_in + (cluster @ actor._cluster_in + actor._bias_in))
    h = np.tanh(h @ actor._hidden[0] + actor._hidden[1])
    present = jobs[:, :1]
    pooled_mean = (h * present).sum(0) / max(float(present.sum()), 1.0)
    pooled_max = (h * present - 2.0 * (1.0 - present)).max(0)
    z = np.tanh(np.concatenate([pooled_mean, pooled_max, cluster]) @ actor._trunk[0]
                + actor._trunk[1])
    logits = np.concatenate([(h @ actor._levels[0] + actor._levels[1]).reshape(-1),
                             z @ actor._wait[0] + actor._wait[1]])
    logits = np.where(mask, logits, -np.inf)
    e = np.exp(logits - logits.max())
    return e / e.sum()


class ReferenceDrl(DrlPolicy):
    """The ``drl`` policy as it was before the inference work: the same shipped weights."""

    reference = ReferenceActor(shipped_policy().state_dict)

    def choose(self, point):
        probs = reference_probabilities(self.reference, point.obs, point.mask)
        action = int(np.argmax(probs))
        candidates = np.argpartition(probs[:WAIT], -TOP)[-TOP:]
        top = [
            (point.jobs[a // LEVELS].job_id, int(point.gpus.flat[a]), round(float(probs[a]), 4))
            for a in sorted(candidates.tolist(), key=probs.__getitem__, reverse=True)
            if probs[a] > 0
        ]
        return action, {"probabilities": top, "wait": round(float(probs[WAIT]), 4)}


def _decisions(jobs, cluster, policy):
    result = simulate(jobs, cluster, policy)
    d = result.decisions
    return list(zip(d["time"], d["job_id"], d["gpus"], d["nodes"], d["info"], strict=True))


@pytest.mark.parametrize("setup", [(8, 4, 0.9, 200, 21), (16, 4, 1.0, 200, 22)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_drl_decisions_on_200_jobs_are_the_reference_ones(setup, monkeypatch):
    jobs, cluster = _workload(*setup)
    new = _decisions(jobs, cluster, DrlPolicy())
    monkeypatch.setattr(planning, "observe", reference_observe)
    ref = _decisions(jobs, cluster, ReferenceDrl())
    assert len(new) == len(ref) >= 200
    assert new == ref  # same (time, job, GPUs, nodes) and the same top probabilities


def test_forward_pass_matches_the_reference_one(monkeypatch):
    points = []
    checked = _Checked()

    def recording(*args):
        points.append(checked(*args))
        return points[-1]

    monkeypatch.setattr(planning, "observe", recording)
    jobs, cluster = _workload(16, 4, 1.0, 120, 23)
    simulate(jobs, cluster, DrlPolicy())
    actor, reference = DrlPolicy().actor, ReferenceDrl.reference
    for point in points:
        new = actor.probabilities(point.obs, point.mask)
        ref = reference_probabilities(reference, point.obs, point.mask)
        np.testing.assert_allclose(new, ref, rtol=RTOL, atol=ATOL)
        assert new.argmax() == ref.argmax()
    assert len(points) >= 120
