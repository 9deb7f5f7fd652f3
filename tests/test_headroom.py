"""The headroom diagnostic: its choosers, and list search (valid, never worse, reproducible)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cli import main
from engine.cluster import Cluster
from engine.drl.expert import ExpertPolicy
from engine.drl.shift_search import ShiftedPolicy
from engine.headroom import ListSchedule, chooser, count_options, list_search
from engine.policies.drl import DrlPolicy
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs
from tests.factories import make_job

CLUSTER = Cluster(4, 4)


def _jobs(n: int = 24, seed: int = 3, load: float = 0.9):
    return to_jobs(generate(GeneratorConfig(jobs=n, load=load, seed=seed), CLUSTER), CLUSTER)


@pytest.mark.parametrize(("name", "policy"), [("drl", DrlPolicy), ("drl-expert", ExpertPolicy)])
def test_a_chooser_schedules_as_its_policy(name, policy):
    jobs = _jobs()
    searched = simulate(jobs, CLUSTER, ShiftedPolicy(chooser(name), {}), 0)
    assert searched.jobs.equals(simulate(jobs, CLUSTER, policy(), 0).jobs)


def test_a_policy_that_starts_several_jobs_at_once_has_no_chooser():
    with pytest.raises(ValueError, match="local search needs one of drl, drl-expert"):
        chooser("knee")


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
        5, 6, 7, 8, 12, 16, 24, 32]


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


def test_the_headroom_command_gives_the_same_rows_in_workers(capsys):
    argv = ["headroom", "--search", "list", "--policy", "knee", "--trials", "30", "--jobs", "12",
            "--nodes", "2", "--seeds", "2", "--json"]
    assert main([*argv, "--backend", "serial"]) == 0
    alone = capsys.readouterr().out
    assert main([*argv, "--workers", "2"]) == 0  # a worker count: workers even for tiny work
    assert capsys.readouterr().out == alone
    assert [row["seed"] for row in json.loads(alone)["workloads"]] == [0, 1]
