"""Hand-computed scenarios for elastic FIFO: minimums first, then round-robin."""

from __future__ import annotations

from factories import make_job

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.simulator import simulate


def _table(jobs, cluster):
    return simulate(jobs, cluster, make_policy("elastic-fifo")).jobs.set_index("job_id")


def test_round_robin_until_each_reaches_its_max():
    # 8 GPUs, linear. Minimums: j0 1, j1 1 -> 6 spare. Round 1: j0 2, j1 2; j0 is at its
    # max (2), so j1 takes the other 4: j1 on 6. j0: 200/2 = 100 s; j1: 800/6 s.
    jobs = [make_job(0, 0, 200, max_gpus=2), make_job(1, 0, 800, max_gpus=8)]
    table = _table(jobs, Cluster(1, 8))
    assert table["gpus"].to_dict() == {"j0": 2, "j1": 6}
    assert table.loc["j1", "end"] == 800 / 6


def test_minimums_go_fifo_and_the_first_misfit_blocks():
    # 8 GPUs. Minimums j0 1, j1 2, j2 4 -> 1 spare; j3 (min 2) does not fit and waits.
    # The spare GPU goes to the first job below its max: j0 -> 2.
    jobs = [
        make_job(0, 0, 300, min_gpus=1, max_gpus=3),
        make_job(1, 0, 600, min_gpus=2, max_gpus=8),
        make_job(2, 0, 100, min_gpus=4, max_gpus=4),
        make_job(3, 0, 100, min_gpus=2, max_gpus=2),
    ]
    table = _table(jobs, Cluster(1, 8))
    assert table["gpus"].to_dict() == {"j0": 2, "j1": 2, "j2": 4, "j3": 2}
    # j2 ends at 25 and frees 4: j3 starts then, on its max 2.
    assert table.loc["j3", "start"] == 25
