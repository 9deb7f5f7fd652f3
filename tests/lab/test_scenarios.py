"""lab.scenarios: Home's readings, computed through engine.compare like the CLI's."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from engine.cluster import Cluster
from engine.compare import compare
from engine.workload import GeneratorConfig, generate, to_jobs
from lab.scenarios import POLICIES, Change, Scenario, compute

SMALL = Cluster(2, 4)
CONFIG = GeneratorConfig(jobs=20, load=0.9)


@pytest.mark.parametrize("mean, half, words", [
    (-0.38, 0.08, "38% faster (95% CI 30%–46%)"),
    (0.12, math.nan, "12% slower"),
    (-0.01, 0.005, "ties (within ±2%)"),
    (-0.05, 0.07, "ties (within ±12%)"),  # the interval crosses zero
])
def test_changes_read_faster_slower_or_ties(mean: float, half: float, words: str) -> None:
    change = Change("fifo-request", mean, half)
    assert change.words() == words
    assert change.headline() == words.split(" (")[0]


def test_generated_scenario_is_engine_compare_over_its_seeds() -> None:
    scenario = Scenario("t", "s", CONFIG, cluster=SMALL, seed=3, seeds=2)
    outcome = compute(scenario)
    workloads = {seed: to_jobs(generate(replace(CONFIG, seed=seed), SMALL), SMALL)
                 for seed in (3, 4)}
    table = compare(POLICIES, workloads, SMALL)
    jct = table.pivot(index="seed", columns="policy", values="avg_jct")
    assert outcome.drl_jct == pytest.approx(jct["drl"].mean())
    assert math.isfinite(outcome.drl_half)
    fifo = (jct["drl"] / jct["fifo-request"] - 1).mean()
    assert outcome.changes[0].rival == "fifo-request"
    assert outcome.changes[0].mean == pytest.approx(fifo)
    assert set(outcome.summary["runs"]) == {2}


def test_a_fixed_workload_is_one_run_in_its_mode_with_no_interval() -> None:
    workload = generate(CONFIG, SMALL)
    rigid = compute(Scenario("t", "s", workload=workload, cluster=SMALL, mode="rigid", seed=7))
    assert set(rigid.summary["runs"]) == {1} and math.isnan(rigid.drl_half)
    table = compare(POLICIES, {7: to_jobs(workload, SMALL, "rigid")}, SMALL)
    assert rigid.drl_jct == pytest.approx(float(table.set_index("policy").loc["drl", "avg_jct"]))
