"""Properties of every elastic run, whatever the workload and the policy (hypothesis).

Capacity never exceeded on any node, work conserved (each job's segments add up to its
1-GPU work), no progress while a segment restarts, every job finishes exactly once,
deterministic, and a moldable policy on the elastic simulator gives the moldable run.
"""

from __future__ import annotations

import random

import pytest
from factories import make_job
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster import Cluster
from engine.job import MODES, with_mode
from engine.policies import make_policy
from engine.protocol import Allocation, Policy, SchedulerView
from engine.simulator import Simulator
from engine.simulator.elastic import ElasticSimulator
from engine.speedup import Amdahl

job_specs = st.lists(
    st.tuples(
        st.floats(0, 500, allow_nan=False),  # submit
        st.floats(1, 300, allow_nan=False),  # 1-GPU run time
        st.integers(1, 8),  # requested GPUs
        st.sampled_from(MODES),
    ),
    min_size=1,
    max_size=25,
)
clusters = st.sampled_from([Cluster(1, 8), Cluster(2, 4), Cluster(4, 2), Cluster(3, 4)])
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Chaos(Policy):
    """Preempts, resizes and starts at random (seeded): the simulator must hold anyway."""

    name = "chaos"
    preemptive = True
    resizes = True
    interval = 7.0

    def reset(self, cluster: Cluster, seed: int) -> None:
        self._rng = random.Random(seed)

    def schedule(self, view: SchedulerView) -> list[Allocation]:
        rng, out = self._rng, []
        free, busy = view.free_gpus, len(view.running)
        for run in view.running:
            if rng.random() < 0.2:
                out.append(Allocation(run.job, 0))
                free += run.gpus
                busy -= 1
            elif run.job.mode == "malleable" and rng.random() < 0.3:
                free += run.gpus
                low = run.job.min_gpus
                gpus = rng.randint(low, max(low, min(run.job.max_gpus, free)))
                out.append(Allocation(run.job, gpus))
                free -= gpus
        for job in view.waiting:
            if job.min_gpus <= free and rng.random() < 0.7:
                gpus = rng.randint(job.min_gpus, min(job.max_gpus, free))
                out.append(Allocation(job, gpus))
                free -= gpus
                busy += 1
        if not busy and view.running:  # never leave the cluster idle: that is a stall
            return [a for a in out if a.gpus]
        if not busy and view.waiting:
            job = min(view.waiting, key=lambda j: j.min_gpus)
            out.append(Allocation(job, job.min_gpus))
        return out


def _jobs(specs, cluster):
    return [
        with_mode(make_job(i, submit, runtime, requested=min(req, cluster.total_gpus),
                           max_gpus=cluster.total_gpus, model=Amdahl(serial_fraction=0.1)), mode)
        for i, (submit, runtime, req, mode) in enumerate(specs)
    ]


def _run(jobs, cluster, policy, delay):
    sim = ElasticSimulator(jobs, cluster, policy, 1, restart_delay=delay, start_delay=delay / 2)
    while sim.step():
        assert all(0 <= free <= cluster.gpus_per_node for free in sim.free_per_node)
        assert sim.busy_gpus == sum(run.gpus for run in sim.running.values())
    return sim


@pytest.mark.parametrize("name", ["chaos", "tiresias", "optimus-elastic", "afs-elastic"])
@SETTINGS
@given(specs=job_specs, cluster=clusters, delay=st.sampled_from([0.0, 30.0]))
def test_elastic_runs_conserve_work_and_capacity(name, specs, cluster, delay):
    jobs = _jobs(specs, cluster)
    policy = Chaos() if name == "chaos" else make_policy(name)
    sim = _run(jobs, cluster, policy, delay)
    assert sim.done and not sim.running
    assert sorted(run.job.index for run in sim.finished) == list(range(len(jobs)))
    work = dict.fromkeys(range(len(jobs)), 0.0)
    for job, gpus, nodes, start, ready, end, done in sim.segments:
        assert start <= ready and start <= end and job.min_gpus <= gpus <= job.max_gpus
        # progress only after the restart delay, at the placement's speed
        speed = job.runtime_1gpu / job.runtime(gpus, nodes)
        assert done == pytest.approx(max(0.0, end - ready) * speed, rel=1e-9, abs=1e-6)
        work[job.index] += done
    for job in jobs:
        assert work[job.index] == pytest.approx(job.runtime_1gpu, rel=1e-9)
    instants = {seg[3] for seg in sim.segments}
    for t in instants:
        assert sum(seg[1] for seg in sim.segments if seg[3] <= t < seg[5]) <= cluster.total_gpus
    result = sim.result()
    assert result.jobs["end"].notna().all()
    again = _run(_jobs(specs, cluster), cluster, Chaos() if name == "chaos" else make_policy(name),
                 delay).result()
    assert result.jobs.equals(again.jobs)


@SETTINGS
@given(specs=job_specs, cluster=clusters)
def test_a_moldable_policy_runs_the_same_on_the_elastic_simulator(specs, cluster):
    jobs = _jobs([(s, r, q, "moldable") for s, r, q, _ in specs], cluster)
    moldable = Simulator(jobs, cluster, make_policy("knee")).run().jobs
    elastic = ElasticSimulator(jobs, cluster, make_policy("knee")).run().jobs
    assert elastic["gpus"].tolist() == moldable["gpus"].tolist()
    assert elastic["start"].tolist() == pytest.approx(moldable["start"].tolist())
    assert elastic["end"].tolist() == pytest.approx(moldable["end"].tolist())
    assert elastic["resizes"].sum() == elastic["preemptions"].sum() == 0
