"""Hand-computed elastic Optimus on 1 node x 4 GPUs (linear speedup, malleable jobs)."""

from __future__ import annotations

import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.job import with_mode
from engine.policies import make_policy
from engine.simulator import simulate

ONE_NODE = Cluster(1, 4)


def test_running_jobs_shrink_for_a_newcomer_and_grow_back():
    # Round 0: A (400 s) alone gets all 4 GPUs. B (400 s) arrives at 30 and waits for the
    # 60 round: A has 160 left. One GPU each, then the two spare ones by time saved:
    # B (400 x 1/2) > A (160 x 1/2) > B (400 x 1/6): 2 and 2. A restarts on 2 (ready 90,
    # 160 / 2 -> ends 170); B starts on 2 and has 160 left at the 180 round, where it
    # takes all 4: ready 210, 160 / 4 -> ends 250.
    jobs = [with_mode(make_job(i, t, 400), "malleable") for i, t in enumerate((0, 30))]
    result = simulate(jobs, ONE_NODE, make_policy("optimus-elastic"))
    assert result.jobs["jct"].tolist() == pytest.approx([170, 220])
    assert result.jobs["resizes"].tolist() == [1, 1]


def test_jobs_beyond_the_gpu_count_are_suspended_and_moldable_ones_keep_their_size():
    # Five moldable jobs on 4 GPUs: one GPU each in arrival order, the fifth gets none.
    # The four run on their one GPU to 100 (moldable: never resized); at the 120 round
    # the fifth is alone and starts on all 4: 25 s.
    jobs = [make_job(i, 0, 100) for i in range(5)]
    result = simulate(jobs, ONE_NODE, make_policy("optimus-elastic"))
    assert result.jobs["gpus"].tolist() == [1, 1, 1, 1, 4]
    assert result.jobs["jct"].tolist() == pytest.approx([100, 100, 100, 100, 145])
    assert result.jobs["resizes"].sum() == 0
