"""Run budgets (engine.budget): a run that would take hours stops with one message naming
the limit, its value and what to do; a run within its budget is unchanged."""

from __future__ import annotations

import time

import pytest
from factories import make_job

from engine import budget as budget_module
from engine.budget import CHECK_EVERY, BudgetExceeded, RunBudget, Yielded
from engine.cluster import Cluster
from engine.compare import compare
from engine.modes import mode_runs
from engine.parallel import Executor
from engine.policies import make_policy
from engine.run import run_pairs, run_policy
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs
from engine.workload.schema import YEAR

ONE_GPU = Cluster(1, 1)
ENDLESS = [make_job(i, 0.0, YEAR) for i in range(50)]
"""Fifty year-long jobs on one GPU under a 60 s round: about 26 million rounds, hours of
computing (the issue's "valid-looking file that never ends", within the input limits)."""


def test_an_endless_elastic_run_stops_at_its_event_budget_with_one_message():
    started = time.monotonic()
    with pytest.raises(BudgetExceeded) as stopped:
        run_policy("tiresias", ENDLESS, ONE_GPU, budget=RunBudget(events=10_000))
    assert time.monotonic() - started < 20
    assert str(stopped.value) == (
        "the run of tiresias was stopped at this server's budget of 10,000 simulator events "
        "per run; use fewer or shorter jobs, or a bigger cluster")


def test_wall_span_and_memory_limits_each_stop_the_run(monkeypatch):
    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match=r"budget of 0\.5 s of computing; do less"):
        run_policy("pollux-like", ENDLESS, ONE_GPU, budget=RunBudget(wall_s=0.5, advice="do less"))
    assert time.monotonic() - started < 5  # checked every few thousand events, not per run
    with pytest.raises(BudgetExceeded, match=r"budget of 24 h of simulated time"):
        run_policy("optimus-elastic", ENDLESS, ONE_GPU, budget=RunBudget(span=86_400))
    grown = iter(range(0, 10**9, 100))  # the process grows by 100 MB between looks
    monkeypatch.setattr(budget_module, "resident_mb", lambda: float(next(grown)))
    with pytest.raises(BudgetExceeded, match=r"budget of 1,000 MB of memory per run"):
        run_policy("tiresias", ENDLESS, ONE_GPU, budget=RunBudget(memory_mb=1_000))


def test_a_run_within_its_budget_is_unchanged_and_checked():
    cluster = Cluster(4, 4)
    jobs = to_jobs(generate(GeneratorConfig(jobs=3_000, load=0.9, seed=3), cluster), cluster)
    free = simulate(jobs, cluster, make_policy("fifo-request"))
    assert len(free.timeline) > CHECK_EVERY  # so the budget was checked along the way
    held = simulate(jobs, cluster, make_policy("fifo-request"),
                    budget=RunBudget(events=10**6, span=10 * YEAR, wall_s=600, memory_mb=500))
    assert held.summary == free.summary
    with pytest.raises(BudgetExceeded, match="1,000 simulator events"):
        simulate(jobs, cluster, make_policy("fifo-request"), budget=RunBudget(events=1_000))


class Slow(type(make_policy("fifo-request"))):
    """fifo-request taking 5 ms per decision, as ``drl`` does with 20,000 jobs waiting."""

    name = "slow"

    def schedule(self, view):
        time.sleep(0.005)
        return super().schedule(view)


def test_a_run_of_slow_events_is_checked_often_enough_to_stop_on_time():
    jobs = [make_job(i, 0.0, 1.0) for i in range(2_000)]  # 10 s of decisions
    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match=r"the run of slow was stopped .* 0\.5 s"):
        simulate(jobs, ONE_GPU, Slow(), budget=RunBudget(wall_s=0.5))
    assert time.monotonic() - started < 2.0  # not 4,096 events x 5 ms = 20 s


def test_runs_started_under_one_clock_stop_at_once_when_it_is_spent():
    shared = RunBudget(wall_s=0.2).start()
    time.sleep(0.3)
    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match=r"0\.2 s of computing"):
        run_policy("threshold-optimal", ENDLESS, ONE_GPU, budget=shared)
    assert time.monotonic() - started < 1


def test_a_budget_must_be_positive():
    with pytest.raises(ValueError, match="events must be positive"):
        RunBudget(events=0)


def test_a_comparison_past_its_budget_is_one_error_and_frees_the_workers():
    """As the app's executor: one worker process; the runs queued behind the stopped one
    are cancelled, so the next map does not wait for them."""
    workloads = {seed: ENDLESS for seed in range(4)}
    pairs = [(seed, name) for seed in workloads for name in ("tiresias", "pollux-like")]
    small = {0: ENDLESS[:2]}
    with Executor("local", workers=1, offload=True) as pool:
        with pytest.raises(BudgetExceeded, match="5,000 simulator events"):
            run_pairs(pairs, workloads, ONE_GPU, pool, budget=RunBudget(events=5_000))
        with pytest.raises(BudgetExceeded, match="5,000 simulator events"):
            compare(["tiresias", "fifo-request"], workloads, ONE_GPU, executor=pool,
                    budget=RunBudget(events=5_000))
        with pytest.raises(BudgetExceeded, match="5,000 simulator events"):
            mode_runs({"rigid": ["tiresias"]}, workloads, ONE_GPU, executor=pool,
                      budget=RunBudget(events=5_000))
        started = time.monotonic()
        (result,) = run_pairs([(0, "fifo-request")], small, ONE_GPU, pool)
        assert result.summary.completed == 2
        assert time.monotonic() - started < 10


def test_a_run_gives_way_once_its_give_way_file_appears(tmp_path):
    """How the server's line takes a long press's turn back: the file, not a limit."""
    flag = tmp_path / "give-way"
    within = RunBudget(events=10_000, give_way=str(flag))
    assert run_policy("fifo-request", ENDLESS[:2], ONE_GPU, budget=within).summary.completed == 2
    flag.touch()
    started = time.monotonic()
    with pytest.raises(Yielded) as stopped:
        run_policy("tiresias", ENDLESS, ONE_GPU, budget=within)
    assert time.monotonic() - started < 5
    assert isinstance(stopped.value, BudgetExceeded)  # it ends the whole press like one
    assert str(stopped.value) == ("the run of tiresias gave way to other sessions' runs "
                                  "waiting at this server; it goes on at its next turn")


def test_a_budget_started_with_time_used_counts_it():
    with pytest.raises(BudgetExceeded, match="10 s of computing"):
        run_policy("tiresias", ENDLESS, ONE_GPU, budget=RunBudget(wall_s=10).start(used=11))
