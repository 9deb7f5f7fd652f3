"""Hand-computed elastic AFS-L on 1 node x 4 GPUs (linear speedup, malleable jobs)."""

from __future__ import annotations

import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.job import with_mode
from engine.policies import make_policy
from engine.simulator import simulate

ONE_NODE = Cluster(1, 4)


def test_the_cluster_is_re_shared_at_each_arrival_and_completion():
    # A (400 s) alone takes 4 GPUs. At B's arrival (t=40, 800 s) A has 240 left and the
    # cluster is re-shared from scratch: A is shrunk to k GPUs (a restart: ready at 70)
    # and B starts on the other 4 - k. (With linear speedup AFS-L's duels tie, so k is
    # read from the run; the timing around it is exact.) When A ends, B takes all 4.
    jobs = [with_mode(make_job(i, t, w), "malleable") for i, (t, w) in enumerate(((0, 400),
                                                                                 (40, 800)))]
    result = simulate(jobs, ONE_NODE, make_policy("afs-elastic"))
    log = result.decisions
    k = int(log[(log["job_id"] == "j0") & (log["time"] == 40)]["gpus"].iloc[0])
    assert 1 <= k <= 3
    assert int(log[(log["job_id"] == "j1") & (log["time"] == 40)]["gpus"].iloc[0]) == 4 - k
    a_end = 70 + 240 / k
    b_left = 800 - (a_end - 40) * (4 - k)
    assert result.jobs["jct"].tolist() == pytest.approx([a_end, a_end + 30 + b_left / 4 - 40])
    assert result.jobs["resizes"].tolist() == [1, 1]


def test_moldable_jobs_keep_their_size():
    jobs = [make_job(i, t, 400) for i, t in enumerate((0, 40))]
    result = simulate(jobs, ONE_NODE, make_policy("afs-elastic"))
    # A keeps 4 GPUs to 100; B waits (no GPU left for it), then starts alone on 4.
    assert result.jobs["jct"].tolist() == pytest.approx([100, 160])
    assert result.jobs["resizes"].sum() == 0
