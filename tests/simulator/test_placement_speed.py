"""The simulator charges a job the speed measured on its exact placement."""

from __future__ import annotations

import pytest

from engine.cluster import Cluster
from engine.job import with_mode
from engine.run import run_policy
from engine.speedup.measured import measured_job
from tests.factories import make_job


def test_a_job_spread_over_nodes_runs_at_that_spreads_measured_speed():
    """On 3 x 4 GPUs a 2-GPU job takes half of node 0, so a 10-GPU cifar10 job spans
    nodes 1, 2 and the rest of node 0: spread (2, 4, 4) in node order."""
    cifar = measured_job("cifar10", 2048)
    blocker = with_mode(make_job(0, 0.0, 1e6, requested=2), "rigid")
    wide = with_mode(make_job(1, 1.0, 36_000.0, requested=10, model=cifar), "rigid")
    result = run_policy("fifo-request", [blocker, wide], Cluster(3, 4))
    jobs = result.jobs.set_index("job_id")
    assert jobs.loc["j1", "nodes"] == 3
    expected = 36_000.0 / cifar.speedup_on((2, 4, 4))
    assert jobs.loc["j1", "end"] - jobs.loc["j1", "start"] == pytest.approx(expected)
    assert expected != pytest.approx(36_000.0 / cifar.speedup(10, 3), rel=1e-3)


def test_a_model_without_placements_runs_at_its_shape_speed():
    job = make_job(0, 0.0, 100.0, requested=8)
    assert job.runtime_on(8, ((0, 4), (3, 4))) == job.runtime(8, 2) == pytest.approx(12.5)
