"""Properties every run must have, whatever the workload (hypothesis)."""

from __future__ import annotations

from collections import defaultdict

import pytest
from factories import make_job
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.simulator import Simulator
from engine.speedup import Amdahl

job_specs = st.lists(
    st.tuples(
        st.floats(0, 500, allow_nan=False),  # submit
        st.floats(1, 300, allow_nan=False),  # 1-GPU run time
        st.integers(1, 8),  # requested GPUs
        st.sampled_from([0.0, 0.05, 0.3]),  # serial fraction
    ),
    min_size=1,
    max_size=40,
)
clusters = st.sampled_from([Cluster(1, 8), Cluster(2, 4), Cluster(4, 2), Cluster(3, 4)])


def _jobs(specs):
    return [
        make_job(i, submit, runtime, requested=req, model=Amdahl(serial_fraction=s))
        for i, (submit, runtime, req, s) in enumerate(specs)
    ]


def _run(specs, cluster):
    sim = Simulator(_jobs(specs), cluster, make_policy("fifo-request"))
    per_node_peaks: list[list[int]] = []
    while sim.step():
        used = [cluster.gpus_per_node - free for free in sim.free_per_node]
        per_node_peaks.append(used)
        assert all(0 <= free <= cluster.gpus_per_node for free in sim.free_per_node)
    return sim, per_node_peaks


@settings(max_examples=60, deadline=None)
@given(job_specs, clusters)
def test_capacity_is_never_exceeded_on_any_node(specs, cluster):
    sim, _ = _run(specs, cluster)
    # Rebuild per-node occupancy from the runs and check it at every start instant.
    runs = sim.finished
    for probe in {r.start for r in runs}:
        used = defaultdict(int)
        for r in runs:
            if r.start <= probe < r.end:
                for node, count in r.placement:
                    used[node] += count
        assert all(v <= cluster.gpus_per_node for v in used.values())


@settings(max_examples=60, deadline=None)
@given(job_specs, clusters)
def test_every_job_runs_exactly_once_for_its_model_time(specs, cluster):
    sim, _ = _run(specs, cluster)
    assert sim.done
    assert sorted(r.job.index for r in sim.finished) == list(range(len(specs)))
    assert len(sim.decisions) == len(specs)
    for r in sim.finished:
        assert r.end >= r.start >= r.job.submit_time
        assert r.end - r.start == pytest.approx(r.job.runtime(r.gpus, r.nodes))
        assert sum(count for _, count in r.placement) == r.gpus


@settings(max_examples=30, deadline=None)
@given(job_specs, clusters)
def test_same_input_gives_identical_results(specs, cluster):
    first, _ = _run(specs, cluster)
    second, _ = _run(specs, cluster)
    assert first.result().jobs.equals(second.result().jobs)
    assert first.result().timeline.equals(second.result().timeline)
