"""Hand-computed Tiresias runs on 1 node x 4 GPUs: queue order, demotion, preemption."""

from __future__ import annotations

import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.simulator import simulate

ONE_NODE = Cluster(1, 4)


def _jcts(jobs):
    return simulate(jobs, ONE_NODE, make_policy("tiresias")).jobs["jct"].tolist()


def test_a_newcomer_preempts_a_job_demoted_past_16_gpu_hours():
    # A (4 GPUs, 20,000 s) has 14,400 s x 4 = 16 GPU-hours at the 14,400 s round and drops
    # to the low queue. B (4 GPUs, 600 s) arrives at 15,000, a round's instant: it goes
    # first and A is preempted with 60,000 of its 80,000 s of work done. B ends at
    # 15,600; A resumes that round, pays the 30 s restart, and needs 5,000 s more.
    jobs = [make_job(0, 0, 80_000, requested=4), make_job(1, 15_000, 2_400, requested=4)]
    result = simulate(jobs, ONE_NODE, make_policy("tiresias"))
    assert result.jobs["jct"].tolist() == pytest.approx([20_630, 600])
    assert result.jobs["preemptions"].tolist() == [1, 0]


def test_within_the_high_queue_jobs_keep_arrival_order():
    # A (10,000 s on 4 GPUs) never reaches 16 GPU-hours: both stay in the high queue, A
    # first, so B waits for A's end at 10,000 and starts at the next round, 10,020 (rounds
    # are on multiples of 60 s), and runs 600 s.
    jobs = [make_job(0, 0, 40_000, requested=4), make_job(1, 1_000, 2_400, requested=4)]
    assert _jcts(jobs) == pytest.approx([10_000, 9_620])


def test_decisions_wait_for_the_next_round():
    # Arrivals at 10 and 70 start at the 60 and 120 rounds; one 2-GPU job each.
    jobs = [make_job(0, 10, 200, requested=2), make_job(1, 70, 200, requested=2)]
    assert _jcts(jobs) == pytest.approx([150, 150])


def test_a_job_that_does_not_fit_does_not_block_smaller_ones_behind_it():
    # A holds 3 GPUs; B wants 4 (does not fit), C wants 1 and starts in the same round.
    jobs = [make_job(0, 0, 300, requested=3), make_job(1, 0, 400, requested=4),
            make_job(2, 0, 100, requested=1)]
    # A ends at 100, C at 100; B starts at the 120 round and ends at 220.
    assert _jcts(jobs) == pytest.approx([100, 220, 100])
