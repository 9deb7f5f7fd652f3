"""threshold-optimal: the best threshold setting on the workload itself."""

from __future__ import annotations

import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.policies.threshold import Threshold
from engine.run import run_policy
from engine.simulator import simulate
from engine.speedup import Amdahl
from engine.workload import GeneratorConfig, generate, to_jobs


def test_a_lone_job_is_best_run_large():
    # One job, 400 s of work, linear speedup, asks for 1 of 4 GPUs. Large (all 4) gives
    # JCT 100, small (1) gives 400. free T=0.00 already picks large, so it wins the
    # tie with every other large-giving setting by coming first in the grid.
    result = run_policy("threshold-optimal", [make_job(0, 0, 400, max_gpus=4)], Cluster(1, 4))
    sweep = result.extras["threshold_sweep"]
    assert result.policy == "threshold-optimal"
    assert result.summary.avg_jct == 100
    assert sweep.loc[sweep["best"], ["signal", "T", "avg_jct"]].values.tolist() == [
        ["free", 0.0, 100.0]
    ]
    # queue T=0 never goes large: 400.
    assert sweep.query("signal == 'queue' and T == 0")["avg_jct"].tolist() == [400]


def test_the_grid_covers_both_signals():
    sweep = run_policy("threshold-optimal", [make_job(0, 0, 10)], Cluster(1, 2)).extras[
        "threshold_sweep"
    ]
    assert list(sweep.columns) == ["signal", "T", "avg_jct", "best"]
    free = sweep[sweep["signal"] == "free"]["T"].tolist()
    assert free == pytest.approx([0.05 * i for i in range(21)])
    assert sweep[sweep["signal"] == "queue"]["T"].tolist() == list(range(17))
    assert sweep["best"].sum() == 1


@pytest.mark.parametrize("seed", [0, 1])
def test_never_worse_than_any_setting_in_its_grid(seed):
    cluster = Cluster(2, 4)
    jobs = to_jobs(generate(GeneratorConfig(jobs=60, seed=seed), cluster), cluster)
    best = run_policy("threshold-optimal", jobs, cluster, seed).summary.avg_jct
    for candidate in make_policy("threshold-optimal").candidates():
        alone = simulate(jobs, cluster, candidate.policy, seed).summary.avg_jct
        assert best <= alone, candidate.label


def test_the_winner_is_the_same_run_as_its_threshold_alone():
    jobs = [
        make_job(i, 5.0 * i, 100 + 30 * i, requested=2, model=Amdahl(serial_fraction=0.1))
        for i in range(10)
    ]
    result = run_policy("threshold-optimal", jobs, Cluster(2, 2))
    sweep = result.extras["threshold_sweep"]
    signal, t = sweep.loc[sweep["best"], ["signal", "T"]].values[0]
    alone = simulate(jobs, Cluster(2, 2), Threshold(signal, t))
    assert result.jobs.equals(alone.jobs)


def test_simulate_refuses_it_untuned():
    with pytest.raises(RuntimeError, match=r"run it with engine\.compare\.run_policy"):
        simulate([make_job(0, 0, 10)], Cluster(1, 2), make_policy("threshold-optimal"))
