"""Shift search: valid schedules, never worse than their start, reproducible."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cluster import Cluster
from engine.drl.expert import ExpertPolicy, expert_action
from engine.drl.shift_search import ShiftedPolicy, local_search, shift_action
from engine.env.features import observe
from engine.env.spec import LEVELS, WAIT, decode
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs
from tests.factories import make_job

CLUSTER = Cluster(4, 4)


def _teacher(point):
    return expert_action(point), None


def _jobs(n: int = 24, seed: int = 3, load: float = 0.9):
    return to_jobs(generate(GeneratorConfig(jobs=n, load=load, seed=seed), CLUSTER), CLUSTER)


def test_a_shift_moves_by_allowed_levels_and_stops_at_the_ends():
    job = make_job(0, 0.0, 100.0, max_gpus=16)
    point = observe(0.0, CLUSTER, [job], [], [4, 4, 4, 0])  # 12 GPUs free
    valid = np.flatnonzero(point.valid[0])
    one_gpu = 0 * LEVELS + int(valid[0])
    assert decode(shift_action(point, one_gpu, 1))[1] == valid[1]
    assert decode(shift_action(point, one_gpu, -3))[1] == valid[0]
    assert decode(shift_action(point, one_gpu, 99))[1] == valid[-1]
    assert point.gpus[0, valid[-1]] <= 12  # the top valid level fits the free GPUs
    assert shift_action(point, WAIT, 2) == WAIT
    assert shift_action(point, one_gpu, 0) == one_gpu


def test_no_shifts_is_the_chooser_itself():
    jobs = _jobs()
    base = simulate(jobs, CLUSTER, ShiftedPolicy(_teacher, {}), 0)
    assert base.jobs.equals(simulate(jobs, CLUSTER, ExpertPolicy(), 0).jobs)


@settings(max_examples=15, deadline=None)
@given(st.dictionaries(st.integers(0, 23), st.integers(-4, 4), max_size=24))
def test_any_shifts_give_a_valid_schedule_that_runs_every_job_once(shifts):
    jobs = _jobs()
    table = simulate(jobs, CLUSTER, ShiftedPolicy(_teacher, shifts), 0).jobs
    assert sorted(table.job_id) == sorted(j.job_id for j in jobs)
    assert (table.gpus <= CLUSTER.total_gpus).all()


def test_search_never_ends_worse_and_its_shifts_reproduce_its_result():
    jobs = _jobs()
    result = local_search(jobs, CLUSTER, _teacher, passes=2)
    assert result.avg_jct <= result.base_avg_jct
    assert result.headroom == 1.0 - result.avg_jct / result.base_avg_jct >= 0.0
    assert list(result.per_pass) == sorted(result.per_pass, reverse=True)
    replay = simulate(jobs, CLUSTER, ShiftedPolicy(_teacher, result.shifts), 0)
    assert replay.summary.avg_jct == result.avg_jct
    assert local_search(jobs, CLUSTER, _teacher, passes=2) == result


def test_search_finds_the_obvious_move():
    # one linear-speedup job alone: all 16 GPUs is best, and the teacher already takes
    # them, so start two levels narrower (8 GPUs); each pass keeps the first move that
    # helps, one level up, so two passes climb back to 16
    jobs = [make_job(0, 0.0, 1_000.0, max_gpus=16)]
    narrow = ShiftedPolicy(_teacher, {0: -2})
    result = local_search(jobs, CLUSTER, narrow.choose, passes=3, moves=(1,))
    assert result.base_avg_jct == 1_000.0 / 8
    assert result.per_pass == (1_000.0 / 12, 1_000.0 / 16, 1_000.0 / 16)
    assert result.shifts == {0: 2}
