"""Hand-computed scenarios for Optimus's greedy marginal gain at start time."""

from __future__ import annotations

from factories import make_job

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.simulator import simulate
from engine.speedup import Amdahl


def test_gpus_go_to_the_largest_drop_in_run_time():
    # 8 GPUs, linear speedup; j0 has 120 s of work, j1 60 s. Each starts on its minimum
    # (1), then one GPU at a time to the largest drop W/k - W/(k+1):
    #   j0 1->2: 60, j1 1->2: 30       -> j0 (2)
    #   j0 2->3: 20, j1 30             -> j1 (2)
    #   j0 20                          -> j0 (3); j0 3->4: 10 ties j1 2->3: 10, the
    #   earlier job wins               -> j0 (4); j0 4->5: 6, j1 10 -> j1 (3)
    #   j0 6, j1 3->4: 5               -> j0 (5). 8 GPUs used: j0 on 5 (24 s), j1 on 3 (20 s).
    jobs = [make_job(0, 0, 120), make_job(1, 0, 60)]
    table = simulate(jobs, Cluster(1, 8), make_policy("optimus")).jobs.set_index("job_id")
    assert table["gpus"].to_dict() == {"j0": 5, "j1": 3}
    assert table["end"].to_dict() == {"j0": 24, "j1": 20}


def test_no_gpu_is_given_where_it_does_not_shorten_the_job():
    # A fully serial job gains nothing from a second GPU, so it stays on its minimum.
    serial = Amdahl(serial_fraction=1.0, cross_node_penalty=0.0)
    jobs = [make_job(0, 0, 100, model=serial)]
    table = simulate(jobs, Cluster(1, 4), make_policy("optimus")).jobs
    assert table["gpus"].tolist() == [1]


def test_admission_is_fifo_on_minimums():
    # j0 takes its minimum 3 of 4 GPUs; j1's minimum 2 does not fit, so it waits for j0
    # and j2 (1 GPU), queued behind it, waits too; the last free GPU grows j0 to 4.
    jobs = [
        make_job(0, 0, 400, min_gpus=3, max_gpus=4),
        make_job(1, 0, 100, min_gpus=2, max_gpus=2),
        make_job(2, 0, 100, min_gpus=1, max_gpus=1),
    ]
    table = simulate(jobs, Cluster(1, 4), make_policy("optimus")).jobs.set_index("job_id")
    assert table.loc["j0", ["gpus", "end"]].tolist() == [4, 100]
    assert table["start"].to_dict() == {"j0": 0, "j1": 100, "j2": 100}
