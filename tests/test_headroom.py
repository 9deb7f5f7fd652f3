"""Clairvoyant searches: valid schedules, never worse than their start, reproducible."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cluster import Cluster
from engine.env.features import observe
from engine.env.spec import LEVELS, WAIT, decode
from engine.headroom import (
    ListSchedule,
    ShiftedPolicy,
    bias_search,
    biased_chooser,
    chooser,
    count_options,
    list_search,
    local_search,
    shift_action,
)
from engine.policies.drl import DrlPolicy
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs
from tests.factories import make_job

CLUSTER = Cluster(4, 4)


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


def test_no_shifts_is_the_policy_itself():
    jobs = _jobs()
    base = simulate(jobs, CLUSTER, ShiftedPolicy(chooser("drl-expert"), {}), 0)
    from engine.drl.expert import ExpertPolicy

    assert base.jobs.equals(simulate(jobs, CLUSTER, ExpertPolicy(), 0).jobs)


@settings(max_examples=15, deadline=None)
@given(st.dictionaries(st.integers(0, 23), st.integers(-4, 4), max_size=24))
def test_any_shifts_give_a_valid_schedule_that_runs_every_job_once(shifts):
    jobs = _jobs()
    result = simulate(jobs, CLUSTER, ShiftedPolicy(chooser("drl-expert"), shifts), 0)
    table = result.jobs
    assert sorted(table.job_id) == sorted(j.job_id for j in jobs)
    assert (table.gpus <= CLUSTER.total_gpus).all()


def test_search_never_ends_worse_and_its_shifts_reproduce_its_result():
    jobs = _jobs()
    choose = chooser("drl-expert")
    result = local_search(jobs, CLUSTER, choose, passes=2)
    assert result.avg_jct <= result.base_avg_jct
    assert list(result.per_pass) == sorted(result.per_pass, reverse=True)
    replay = simulate(jobs, CLUSTER, ShiftedPolicy(choose, result.shifts), 0)
    assert replay.summary.avg_jct == result.avg_jct
    assert local_search(jobs, CLUSTER, choose, passes=2) == result


def test_search_finds_the_obvious_move():
    # one linear-speedup job alone: all 16 GPUs is best, and the teacher already takes
    # them, so start two levels narrower (8 GPUs); each pass keeps the first move that
    # helps, one level up, so two passes climb back to 16
    jobs = [make_job(0, 0.0, 1_000.0, max_gpus=16)]
    narrow = ShiftedPolicy(chooser("drl-expert"), {0: -2})
    result = local_search(jobs, CLUSTER, narrow.choose, passes=3, moves=(1,))
    assert result.base_avg_jct == 1_000.0 / 8
    assert result.per_pass == (1_000.0 / 12, 1_000.0 / 16, 1_000.0 / 16)
    assert result.shifts == {0: 2}


def _drl_actor():
    return DrlPolicy().actor


def test_bias_zero_is_drl_itself():
    jobs = _jobs()
    biased = simulate(jobs, CLUSTER, ShiftedPolicy(biased_chooser(_drl_actor(), 0.0), {}), 0)
    assert biased.jobs.equals(simulate(jobs, CLUSTER, DrlPolicy(), 0).jobs)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=4, max_size=4), st.integers(1, 12))
def test_a_huge_negative_bias_picks_the_fewest_gpus_on_offer(free, waiting):
    jobs = [make_job(i, 0.0, 600.0 * (i + 1), max_gpus=16) for i in range(waiting)]
    point = observe(0.0, CLUSTER, jobs, [], free)
    action, _ = biased_chooser(_drl_actor(), -1e3)(point)
    starts = np.flatnonzero(point.mask[:WAIT])
    if starts.size == 0:
        assert action == WAIT
    elif action != WAIT:
        assert point.mask[action]
        assert decode(action)[1] == min(decode(a)[1] for a in starts)


def test_bias_search_keeps_the_best_bias_and_it_replays():
    jobs = _jobs()
    actor = _drl_actor()
    found = bias_search(jobs, CLUSTER, actor, biases=(-1.0, -0.5, 0.5))
    assert set(found.tried) == {-1.0, -0.5, 0.0, 0.5}
    assert found.avg_jct == min(found.tried.values()) <= found.base_avg_jct == found.tried[0.0]
    assert found.headroom >= 0.0
    replay = simulate(jobs, CLUSTER, ShiftedPolicy(biased_chooser(actor, found.bias), {}), 0)
    assert replay.summary.avg_jct == found.avg_jct


def test_a_list_schedule_starts_by_priority_and_backfills_what_fits():
    # 16 GPUs: b (first in the order) takes 4, a (16) does not fit and waits, c (8) fits
    # beside b and starts at once; a starts when both have ended
    jobs = [make_job(0, 0.0, 1_600.0), make_job(1, 0.0, 400.0), make_job(2, 0.0, 800.0)]
    table = simulate(jobs, CLUSTER, ListSchedule([16, 4, 8], [1, 0, 2]), 0).jobs
    assert table["start"].tolist() == [100.0, 0.0, 0.0]
    assert table["gpus"].tolist() == [16, 4, 8]


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_any_counts_and_order_run_every_job_once_at_its_count(data):
    jobs = _jobs(n=12)
    gpus = [data.draw(st.sampled_from(count_options(job, CLUSTER.total_gpus))) for job in jobs]
    order = data.draw(st.permutations(range(len(jobs))))
    table = simulate(jobs, CLUSTER, ListSchedule(gpus, order), 0).jobs
    assert sorted(table.job_id) == sorted(j.job_id for j in jobs)
    assert table["gpus"].tolist() == gpus


def test_count_options_are_the_allowed_levels_and_the_ends():
    assert count_options(make_job(0, 0.0, 1.0, min_gpus=5, max_gpus=40), 32) == [
        5, 6, 8, 12, 16, 24, 32]


def test_list_search_never_ends_worse_replays_and_is_deterministic():
    jobs = _jobs()
    start = simulate(jobs, CLUSTER, DrlPolicy(), 0)
    found = list_search(jobs, CLUSTER, start, trials=150, seed=4)
    assert found.avg_jct <= found.base_avg_jct
    replay = simulate(jobs, CLUSTER, ListSchedule(found.gpus, found.order), 0)
    assert replay.summary.avg_jct == found.avg_jct
    assert sorted(found.order) == list(range(len(jobs)))
    assert list_search(jobs, CLUSTER, start, trials=150, seed=4) == found


def test_list_search_finds_the_obvious_move():
    # one linear-speedup job alone, started on 8 of 16 GPUs: widening it is the only gain
    jobs = [make_job(0, 0.0, 1_000.0, max_gpus=16)]
    start = simulate(jobs, CLUSTER, ListSchedule([8], [0]), 0)
    found = list_search(jobs, CLUSTER, start, trials=60, seed=0)
    assert (found.base_avg_jct, found.avg_jct, found.gpus) == (1_000.0 / 8, 1_000.0 / 16, (16,))
