"""Properties every registered policy must have on any workload (hypothesis).

Never over-allocate a node, never start a job outside [min_gpus, max_gpus], start every
job exactly once for its model run time, give identical results on identical input, and
never stall (the simulator raises SimulationStalled if jobs wait on an idle cluster).
A policy that cannot run here at all (e.g. trained weights not shipped) is skipped,
visibly, with the reason.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache

import numpy as np
import pytest
from factories import make_job
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster import Cluster
from engine.compare import runnable_policies
from engine.policies import POLICIES, make_policy
from engine.policies.tuned import TunedPolicy
from engine.run import run_policy
from engine.simulator import Simulator
from engine.speedup import Amdahl, Downey, Linear

MODELS = (Amdahl(serial_fraction=0.0), Amdahl(serial_fraction=0.3), Downey(A=6.0), Linear())
job_specs = st.lists(
    st.tuples(
        st.floats(0, 500, allow_nan=False),  # submit
        st.floats(1, 300, allow_nan=False),  # 1-GPU run time
        st.lists(st.integers(1, 8), min_size=3, max_size=3).map(sorted),  # min <= req <= max
        st.sampled_from(range(len(MODELS))),  # speedup model (= Mesos framework)
    ),
    min_size=1,
    max_size=30,
)
clusters = st.sampled_from([Cluster(1, 8), Cluster(2, 4), Cluster(4, 2), Cluster(3, 4)])
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def _cannot_run() -> dict[str, str]:
    return runnable_policies(Cluster(1, 2))[1]


def _jobs(specs):
    jobs = []
    for i, (submit, runtime, (low, req, high), model) in enumerate(sorted(specs)):
        jobs.append(
            make_job(i, submit, runtime, req, min_gpus=low, max_gpus=high, model=MODELS[model])
        )
    return jobs


def _policy_or_skip(name):
    if name in _cannot_run():
        pytest.skip(f"{name} cannot run here: {_cannot_run()[name]}")
    return make_policy(name)


def _check_table(jobs, cluster, table):
    """Bounds, one run each, model run times, and GPUs in use never above the cluster."""
    assert table["end"].notna().all()
    for job, row in zip(jobs, table.itertuples(), strict=True):
        assert job.min_gpus <= row.gpus <= min(job.max_gpus, cluster.total_gpus)
        assert row.start >= job.submit_time
        assert row.end - row.start == pytest.approx(job.runtime(row.gpus, row.nodes))
    for probe in table["start"].unique():
        running = (table["start"] <= probe) & (probe < table["end"])
        assert table.loc[running, "gpus"].sum() <= cluster.total_gpus


@pytest.mark.parametrize("name", list(POLICIES))
@SETTINGS
@given(specs=job_specs, cluster=clusters)
def test_valid_complete_runs(name, specs, cluster):
    policy = _policy_or_skip(name)
    jobs = _jobs(specs)
    if isinstance(policy, TunedPolicy):
        _check_table(jobs, cluster, run_policy(name, jobs, cluster).jobs)
        return
    sim = Simulator(jobs, cluster, policy)
    while sim.step():
        assert all(0 <= free <= cluster.gpus_per_node for free in sim.free_per_node)
    assert sim.done
    assert sorted(r.job.index for r in sim.finished) == list(range(len(jobs)))
    _check_table(jobs, cluster, sim.result().jobs)
    for probe in {r.start for r in sim.finished}:
        used = defaultdict(int)
        for r in sim.finished:
            if r.start <= probe < r.end:
                for node, count in r.placement:
                    used[node] += count
        assert max(used.values()) <= cluster.gpus_per_node


@pytest.mark.parametrize("name", list(POLICIES))
@settings(max_examples=10, deadline=None)
@given(specs=job_specs, cluster=clusters)
def test_same_input_same_result(name, specs, cluster):
    _policy_or_skip(name)
    first = run_policy(name, _jobs(specs), cluster, seed=3)
    second = run_policy(name, _jobs(specs), cluster, seed=3)
    assert first.jobs.equals(second.jobs)
    assert first.timeline.equals(second.timeline)
    assert np.array_equal(first.decisions["gpus"], second.decisions["gpus"])
