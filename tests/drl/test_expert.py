"""The teachers: one GPU-count rule per sharpness, and the best of them per workload."""

from __future__ import annotations

import pytest

from engine.cluster import Cluster
from engine.drl.expert import KNEE, SHARPNESS, ExpertPolicy, teacher_returns
from engine.drl.rollout import greedy_return
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs


def _jobs(cluster: Cluster, load: float, seed: int = 1_000_001):
    return to_jobs(generate(GeneratorConfig(jobs=60, load=load, seed=seed), cluster), cluster)


def test_the_hindsight_teacher_is_the_one_with_the_highest_return():
    cluster = Cluster(4, 4)
    jobs = _jobs(cluster, 0.5)
    returns = teacher_returns(jobs, cluster)
    assert set(returns) == set(SHARPNESS)
    assert greedy_return(None, (jobs, cluster)) == max(returns.values())
    assert greedy_return(None, (jobs, cluster)) >= greedy_return(None, (jobs, cluster), KNEE)


def test_a_teacher_policy_schedules_as_its_return_says():
    """The env's return is -avg JCT / ideal; the simulator policy gives the same run."""
    cluster = Cluster(2, 4)
    jobs = _jobs(cluster, 1.0)
    for sharpness in (1.0, 3.0):
        result = simulate(jobs, cluster, ExpertPolicy(sharpness))
        assert -greedy_return(None, (jobs, cluster), sharpness) == pytest.approx(
            result.summary.jct_over_bound, rel=1e-6)


def test_lower_sharpness_never_gives_fewer_gpus_on_an_idle_cluster():
    cluster = Cluster(8, 4)
    job = _jobs(cluster, 0.3)[:1]
    gpus = [simulate(job, cluster, ExpertPolicy(s)).jobs["gpus"].iloc[0] for s in SHARPNESS]
    assert gpus == sorted(gpus, reverse=True)
