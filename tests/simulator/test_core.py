"""Hand-computed scenarios for the simulator."""

from __future__ import annotations

import math

import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.errors import LabError
from engine.policies import Allocation, Policy, make_policy
from engine.simulator import PolicyError, SimulationStalled, Simulator, simulate
from engine.speedup import Amdahl, Linear


def test_fifo_request_two_jobs_by_hand():
    # A: 100 s of 1-GPU work on its 4 requested GPUs -> 0..25.
    # B arrives at 10 asking for 2, waits for A, runs 40/2 = 20 s -> 25..45.
    jobs = [make_job(0, 0, 100, requested=4), make_job(1, 10, 40, requested=2)]
    result = simulate(jobs, Cluster(1, 4), make_policy("fifo-request"))
    table = result.jobs.set_index("job_id")
    assert table.loc["j0", ["start", "end", "gpus"]].tolist() == [0, 25, 4]
    assert table.loc["j1", ["start", "end", "gpus"]].tolist() == [25, 45, 2]
    assert table.loc["j1", "wait"] == 15
    assert result.summary.avg_jct == pytest.approx((25 + 35) / 2)
    assert result.summary.makespan == 45
    # busy GPU-seconds 4*25 + 2*20 = 140 over 4 GPUs x 45 s
    assert result.summary.utilization == pytest.approx(140 / 180)
    # alone, each job would take all 4 GPUs: 25 s and 10 s
    assert result.summary.lower_bound_avg_jct == pytest.approx((25 + 10) / 2)


def test_spanning_nodes_slows_a_job_down():
    slow_links = Amdahl(serial_fraction=0.0, cross_node_penalty=0.1)
    jobs = [make_job(0, 0, 360, requested=4, model=slow_links)]
    one_node = simulate(jobs, Cluster(1, 4), make_policy("fifo-request"))
    two_nodes = simulate(jobs, Cluster(2, 2), make_policy("fifo-request"))
    assert one_node.jobs["end"][0] == pytest.approx(90)
    assert two_nodes.jobs["nodes"][0] == 2
    assert two_nodes.jobs["end"][0] == pytest.approx(100)  # 360 / (4 * 0.9)


def test_head_of_line_blocking():
    # The 4-GPU head waits for j0; j2 (1 GPU) could fit but FIFO keeps it behind.
    jobs = [
        make_job(0, 0, 30, requested=2),
        make_job(1, 1, 40, requested=4),
        make_job(2, 2, 10, requested=1),
    ]
    result = simulate(jobs, Cluster(1, 4), make_policy("fifo-request"))
    starts = result.jobs.set_index("job_id")["start"]
    assert starts["j1"] == 15
    assert starts["j2"] == 25


class _Greedy(Policy):
    name = "greedy-bad"

    def __init__(self, gpus: int) -> None:
        self.gpus = gpus

    def schedule(self, view):
        return [Allocation(job, self.gpus) for job in view.waiting]


def test_over_allocation_is_refused():
    jobs = [make_job(0, 0, 10), make_job(1, 0, 10)]
    with pytest.raises(PolicyError, match=r"only [01] are free"):
        simulate(jobs, Cluster(1, 4), _Greedy(3))


def test_allocation_outside_bounds_is_refused():
    jobs = [make_job(0, 0, 10, max_gpus=2)]
    with pytest.raises(PolicyError, match=r"accepts 1\.\.2"):
        simulate(jobs, Cluster(1, 4), _Greedy(4))


class _Idle(Policy):
    name = "idle"

    def schedule(self, view):
        return []


def test_a_policy_that_never_starts_anything_is_reported():
    with pytest.raises(SimulationStalled, match="1 jobs waiting"):
        simulate([make_job(0, 0, 10)], Cluster(1, 4), _Idle())


def test_job_larger_than_the_cluster_is_reported():
    with pytest.raises(PolicyError, match="at least 8 GPUs"):
        Simulator([make_job(0, 0, 10, requested=8, min_gpus=8)], Cluster(1, 4), _Idle())


def test_incremental_stepping_matches_a_full_run():
    jobs = [make_job(i, i * 7.0, 50 + 13 * i, requested=1 + i % 3) for i in range(20)]
    whole = simulate(jobs, Cluster(2, 2), make_policy("fifo-request"))
    sim = Simulator(jobs, Cluster(2, 2), make_policy("fifo-request"))
    for t in range(0, 2000, 37):
        sim.run_until(t)
        partial = sim.result()
        assert partial.summary.completed == (partial.jobs["end"] <= t).sum()
    sim.run_until(float("inf"))
    assert sim.done
    assert sim.result().jobs.equals(whole.jobs)


def test_timeline_and_decision_log():
    jobs = [make_job(0, 0, 100, requested=4), make_job(1, 10, 40, requested=2)]
    result = simulate(jobs, Cluster(1, 4), make_policy("fifo-request"))
    assert result.timeline[["time", "busy_gpus", "queue"]].values.tolist() == [
        [0, 4, 0],
        [10, 4, 1],
        [25, 2, 0],
        [45, 0, 0],
    ]
    assert result.decisions[["time", "job_id", "gpus", "free_gpus"]].values.tolist() == [
        [0, "j0", 4, 4],
        [25, "j1", 2, 4],
    ]


class _Pinned(Policy):
    name = "pinned"

    def __init__(self, placement) -> None:
        self.placement = placement

    def schedule(self, view):
        job = next(iter(view.waiting))
        return [Allocation(job, 2, placement=self.placement)]


def test_a_pinned_placement_is_used_as_given():
    result = simulate([make_job(0, 0, 10, requested=2)], Cluster(2, 2), _Pinned(((0, 1), (1, 1))))
    assert result.jobs["nodes"][0] == 2


@pytest.mark.parametrize(
    "placement",
    [((0, 3),), ((0, 1), (0, 1)), ((5, 2),), ((0, 1),), ((0, 2), (1, 0))],
    ids=["over-node", "same-node-twice", "no-such-node", "too-few", "empty-share"],
)
def test_a_bad_pinned_placement_is_refused(placement):
    with pytest.raises(PolicyError, match="is not 2 free GPUs"):
        simulate([make_job(0, 0, 10, requested=2)], Cluster(2, 2), _Pinned(placement))


def test_a_speedup_that_overflows_is_an_error_not_a_vanished_job() -> None:
    class Infinite(Linear):
        def speedup(self, gpus: int, nodes: int) -> float:
            return math.inf

    job = make_job(0, 0, 100, model=Infinite())
    with pytest.raises(LabError, match="run time of 0 s on 1 GPUs"):
        simulate([job], Cluster(1, 4), make_policy("fifo-request"))
