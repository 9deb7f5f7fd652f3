"""Hand-computed scenarios for Mesos-style offers: DRF order, refuse filters, no stall."""

from __future__ import annotations

from factories import make_job

from engine.cluster import Cluster, pack
from engine.policies import SchedulerView, make_policy
from engine.policies.mesos_offer import MesosOffer
from engine.simulator import simulate
from engine.speedup import Amdahl, Linear

# Two frameworks (one per model); both scale perfectly on one node.
A = Linear()  # framework "linear"
B = Amdahl(serial_fraction=0.0, cross_node_penalty=0.0)  # framework "amdahl"


def _table(jobs, cluster, policy=None):
    policy = make_policy("mesos-offer") if policy is None else policy
    return simulate(jobs, cluster, policy).jobs.set_index("job_id")


def test_drf_offers_to_the_framework_holding_less():
    # 4 GPUs. a0 (A, 2 GPUs, 1000 s) runs 0..500 and a1 (A, 2 GPUs) 1..51: A holds 4.
    # a2 (A, t=2) and b0 (B, t=3) both wait for 2 GPUs. At t=51 a1 ends; A still holds 2
    # (a0), B holds 0, so B is offered first although a2 arrived earlier: b0 51..101, then
    # a2 101..151. (FIFO would start a2 at 51.)
    jobs = [
        make_job(0, 0, 1000, requested=2, model=A),
        make_job(1, 1, 100, requested=2, model=A),
        make_job(2, 2, 100, requested=2, model=A),
        make_job(3, 3, 100, requested=2, model=B),
    ]
    starts = _table(jobs, Cluster(1, 4))["start"]
    assert starts.to_dict() == {"j0": 0, "j1": 1, "j2": 101, "j3": 51}


def _filter_scenario():
    # 4 GPUs. t=0: frameworks tie at share 0; g0 arrived first, so A launches g0 (2 GPUs,
    # 2 s of work -> 0..1) and g1 (1 GPU, 1000 s). B is offered the 1 GPU left, f0 needs 2:
    # B declines and the node is filtered for B until t=5.
    # t=1: g0 ends (3 free) and g2 (A, 2 GPUs, 40 s of work) arrives. B holds 0, A holds 1, so
    # DRF would offer B first, but B's filter hides the node: A launches g2 (1..21).
    # B gets the last GPU in the filters-waived round, declines again (filter until 6).
    # t=21: g2 ends, B's filter is over: f0 runs 21..121.
    return [
        make_job(0, 0, 2, requested=2, model=A),
        make_job(1, 0, 1000, requested=1, model=A),
        make_job(2, 0, 200, requested=2, model=B),
        make_job(3, 1, 40, requested=2, model=A),
    ]


def test_declined_offers_are_filtered_for_refuse_seconds():
    starts = _table(_filter_scenario(), Cluster(1, 4))["start"]
    assert starts.to_dict() == {"j0": 0, "j1": 0, "j2": 21, "j3": 1}


def test_without_filters_drf_order_decides():
    # refuse_seconds = 0: at t=1 B is offered first and f0 starts (1..101); g2 needs 2 of
    # the 1 left and waits for f0: 101..121.
    starts = _table(_filter_scenario(), Cluster(1, 4), MesosOffer(refuse_seconds=0))["start"]
    assert starts.to_dict() == {"j0": 0, "j1": 0, "j2": 1, "j3": 101}


def test_filters_never_idle_the_cluster():
    # 2 nodes x 2 GPUs. g0 (A, 2 GPUs, 2 s of work) runs on node 0, 0..1. f0 (B, t=0.5) wants all
    # 4: offered node 1, declines, node 1 is filtered for B until 5.5. At t=1 the cluster
    # is idle with no event left; B's first round still hides node 1, but the round with
    # filters waived offers both nodes and f0 starts at 1 instead of stalling.
    jobs = [
        make_job(0, 0, 2, requested=2, model=A),
        make_job(1, 0.5, 400, requested=4, model=B),
    ]
    table = _table(jobs, Cluster(2, 2))
    assert table.loc["j1", ["start", "end"]].tolist() == [1, 101]


def test_filters_are_cleared_between_runs():
    policy = MesosOffer()
    first = simulate(_filter_scenario(), Cluster(1, 4), policy).jobs
    second = simulate(_filter_scenario(), Cluster(1, 4), policy).jobs
    assert first.equals(second)


def test_a_framework_places_its_job_on_the_agents_it_was_offered():
    # 2 nodes x 2 GPUs. t=0: only node 1 has a free GPU; b0 needs 2, so B declines and
    # node 1 is filtered for B until 5. t=1: node 0 (2 free) and node 1 (1 free); B's
    # 1-GPU job b1 gets offered node 0 only, so it is pinned there, although the cluster's
    # own best fit would have been node 1.
    cluster = Cluster(2, 2)
    policy = MesosOffer()
    policy.reset(cluster, 0)
    b0 = make_job(0, 0, 100, requested=2, model=B)
    b1 = make_job(1, 1, 100, requested=1, model=B)
    assert policy.schedule(SchedulerView(0.0, cluster, [b0], [], [0, 1], 1)) == []
    (start,) = policy.schedule(SchedulerView(1.0, cluster, [b1], [], [2, 1], 3))
    assert (start.job, start.gpus, start.placement) == (b1, 1, ((0, 1),))
    assert pack([2, 1], 1) == ((1, 1),)
