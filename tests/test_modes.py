"""engine.modes: jobs in each mode, each mode's candidates, its best policy and restarts."""

from __future__ import annotations

import pandas as pd
import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.compare import resolve_workloads
from engine.drl.pretrained import shipped_policy
from engine.errors import UnknownName
from engine.job import MODES
from engine.modes import (
    MODE_POLICIES,
    check_mode,
    in_mode,
    mode_candidates,
    mode_runs,
    summarize_modes,
)
from engine.parallel import Executor
from engine.paths import PRETRAINED_ENV
from engine.policies import ELASTIC_POLICIES, POLICIES
from engine.workload import GeneratorConfig

SMALL = Cluster(2, 4)


def test_every_policy_is_a_candidate_of_exactly_one_mode():
    listed = [name for names in MODE_POLICIES.values() for name in names]
    assert sorted(listed) == sorted([*POLICIES, *ELASTIC_POLICIES])
    assert set(MODE_POLICIES) == set(MODES)
    assert "drl" in MODE_POLICIES["moldable"] and "tiresias" in MODE_POLICIES["rigid"]


def test_rigid_jobs_accept_only_their_request_and_others_keep_their_range():
    jobs = [make_job(0, 0, 100, requested=2, max_gpus=8)]
    (rigid,) = in_mode(jobs, "rigid")
    (malleable,) = in_mode(jobs, "malleable")
    assert (rigid.mode, rigid.min_gpus, rigid.max_gpus) == ("rigid", 2, 2)
    assert (malleable.mode, malleable.min_gpus, malleable.max_gpus) == ("malleable", 1, 8)


def test_an_unknown_mode_names_the_known_ones():
    with pytest.raises(UnknownName, match="'elastic'; known: rigid, moldable, malleable"):
        check_mode("elastic")


def test_two_one_gpu_requests_on_four_gpus_take_400_s_rigid_and_less_moldable():
    """By hand: rigid, both jobs run on their 1 GPU side by side (400 s each, whatever the
    rule); moldable, splitting the 4 GPUs 2 + 2 already halves that."""
    cluster = Cluster(1, 4)
    jobs = [make_job(i, 0, 400, requested=1, max_gpus=4) for i in range(2)]
    plan = {"rigid": MODE_POLICIES["rigid"], "moldable": ["elastic-fifo", "sjf-knee"]}
    table = mode_runs(plan, {0: jobs}, cluster, executor=Executor("serial"))
    rigid = table[table["mode"] == "rigid"]
    assert (rigid["avg_jct"] == 400).all()
    best = summarize_modes(table).set_index("mode")
    assert best.loc["rigid", "avg_jct_mean"] == 400
    assert best.loc["moldable", "avg_jct_mean"] <= 200
    assert list(best.index) == ["rigid", "moldable"]


@pytest.fixture(scope="module")
def workloads() -> dict:
    return dict(resolve_workloads([0, 1], SMALL, GeneratorConfig(jobs=30, load=1.2)))


PLAN = {"rigid": ["fifo-request", "tiresias"], "moldable": ["sjf-knee", "threshold-optimal"],
        "malleable": list(MODE_POLICIES["malleable"])}


def test_each_mode_reports_its_best_policy_with_an_interval_and_restarts(workloads):
    table = mode_runs(PLAN, workloads, SMALL, executor=Executor("serial"))
    assert len(table) == 2 * sum(map(len, PLAN.values()))
    assert (table["restarts"] == table["resizes"] + table["preemptions"]).all()
    moldable = table[table["mode"] == "moldable"]
    assert (moldable[["resizes", "preemptions"]] == 0).all().all()
    assert table.loc[table["mode"] == "malleable", "resizes"].sum() > 0
    best = summarize_modes(table)
    assert list(best["mode"]) == list(MODES)
    for row in best.to_dict("records"):
        mine = table[table["mode"] == row["mode"]].groupby("policy")["avg_jct"].mean()
        assert row["policy"] == mine.idxmin() and row["avg_jct_mean"] == mine.min()
        assert row["avg_jct_ci95"] > 0 and row["runs"] == 2
        assert row["candidates"] == len(PLAN[row["mode"]])


def test_worker_processes_give_the_serial_table(workloads):
    serial = mode_runs(PLAN, workloads, SMALL, executor=Executor("serial"))
    with Executor("local", workers=2) as pool:
        assert not pool.in_process(len(serial))
        spread = mode_runs(PLAN, workloads, SMALL, executor=pool)
    pd.testing.assert_frame_equal(serial, spread)


def test_a_policy_that_cannot_run_is_skipped_with_its_reason(tmp_path, monkeypatch):
    monkeypatch.setenv(PRETRAINED_ENV, str(tmp_path))
    shipped_policy.cache_clear()
    try:
        names, skipped = mode_candidates("moldable", SMALL)
    finally:
        shipped_policy.cache_clear()
    assert "drl" not in names and "model card missing" in skipped["drl"]
    assert names == [n for n in MODE_POLICIES["moldable"] if n != "drl"]
    assert mode_candidates("malleable", SMALL) == (list(MODE_POLICIES["malleable"]), {})
