"""Hand-computed Pollux-like rounds on 1 node x 4 GPUs (linear speedup, malleable jobs)."""

from __future__ import annotations

import numpy as np
import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.job import with_mode
from engine.policies import make_policy
from engine.policies.pollux_like import _improve
from engine.simulator import simulate

ONE_NODE = Cluster(1, 4)


def malleable(*jobs):
    return [with_mode(job, "malleable") for job in jobs]


def test_a_lone_job_doubles_its_gpus_each_round_and_jumps_over_a_worse_step():
    # 1200 s of work. Round 0: at most 1 GPU (never profiled). Round 60: at most 2; the
    # restart penalty is (60 - 0) / (60 + 30) = 2/3 and 2 x 2/3 > 1, so it grows (ready
    # at 90; 1140 left). Round 120: penalty (120 - 30) / 150 = 0.6: 3 GPUs (1.8) would be
    # worse than keeping 2, 4 GPUs (2.4) better, so it jumps to 4 (ready 150; 1080 left,
    # 270 s on 4): done at 420, after 2 resizes.
    result = simulate(malleable(make_job(0, 0, 1200)), ONE_NODE, make_policy("pollux-like"))
    assert result.jobs["jct"].tolist() == pytest.approx([420])
    assert result.jobs["resizes"].tolist() == [2]


def test_two_jobs_share_the_node_evenly_and_are_not_reshuffled_for_nothing():
    # Both start on 1 GPU at 0, grow to 2 each at 60 (ready 90, 1140 left, 570 s on 2).
    # At 120 moving a GPU from one to the other would restart both for a worse mean.
    jobs = malleable(make_job(0, 0, 1200), make_job(1, 0, 1200))
    result = simulate(jobs, ONE_NODE, make_policy("pollux-like"))
    assert result.jobs["jct"].tolist() == pytest.approx([660, 660])
    assert result.jobs["resizes"].tolist() == [1, 1]


def test_a_newcomer_gets_a_gpu_from_a_job_that_holds_all_of_them():
    # A holds 4 GPUs when B arrives: with the power mean at p = -1 a job on no GPU
    # outweighs any gain from a fourth GPU, so B is given one at the next round.
    jobs = malleable(make_job(0, 0, 10_000), make_job(1, 330, 1200))
    result = simulate(jobs, ONE_NODE, make_policy("pollux-like"))
    first_b = result.decisions[result.decisions["job_id"] == "j1"].iloc[0]
    assert first_b["time"] == 360 and first_b["gpus"] >= 1


def test_moves_only_lower_the_summed_cost():
    # Costs of two jobs on 0..3 GPUs. From nothing: a GPU each (the largest falls per
    # GPU), then job 1's second (-3), then job 0's second (-0.5 beats job 1's -0.1):
    # 3.5 + 2.0, the least sum. From (3, 1) one GPU moves (-3 + 0.1), then none pays.
    costs = [np.array([9.0, 4.0, 3.5, 3.4]), np.array([9.0, 5.0, 2.0, 1.9])]
    assert _improve([0, 0], costs, 4) == [2, 2]
    assert _improve([3, 1], costs, 4) == [2, 2]


def test_jobs_that_are_not_malleable_keep_the_size_they_start_with():
    # A moldable job alone may start on all 4 GPUs (it could never grow later); a rigid
    # one runs its request. Neither is resized when the other arrives.
    jobs = [make_job(0, 0, 1200), with_mode(make_job(1, 90, 1200, requested=2), "rigid")]
    result = simulate(jobs, ONE_NODE, make_policy("pollux-like"))
    assert result.jobs["gpus"].tolist() == [4, 2]
    assert result.jobs["resizes"].sum() == 0
    assert result.jobs["jct"].tolist() == pytest.approx([300, 600 + 210])
