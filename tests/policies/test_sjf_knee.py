"""Hand-computed scenarios for shortest-job-first with knee allocations."""

from __future__ import annotations

from factories import make_job

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.simulator import simulate
from engine.speedup import Amdahl

KNEE_AT_4 = Amdahl(serial_fraction=0.2, cross_node_penalty=0.0)  # knee 4, S(4) = 2.5


def test_shortest_one_gpu_work_starts_first():
    # 4 GPUs, every knee is the whole cluster. Work 400, 100, 200 s arriving together:
    # j1 0..40, j2 40..120, j0 120..280 (FIFO knee would run j0 first).
    jobs = [make_job(i, 0, work, model=KNEE_AT_4) for i, work in enumerate((400, 100, 200))]
    table = simulate(jobs, Cluster(1, 4), make_policy("sjf-knee")).jobs.set_index("job_id")
    assert table["start"].to_dict() == {"j0": 120, "j1": 0, "j2": 40}
    assert table["end"].to_dict() == {"j0": 280, "j1": 40, "j2": 120}


def test_a_short_job_that_does_not_fit_blocks_longer_ones():
    # j0 (long, 1 GPU) holds 1 of 4 GPUs until 400. j1 (short, min 4) is first in SJF
    # order and does not fit, so j2 (longer than j1) waits behind it too.
    jobs = [
        make_job(0, 0, 400, max_gpus=1),
        make_job(1, 1, 40, min_gpus=4, model=KNEE_AT_4),
        make_job(2, 1, 300, model=KNEE_AT_4),
    ]
    table = simulate(jobs, Cluster(1, 4), make_policy("sjf-knee")).jobs.set_index("job_id")
    assert table["start"].to_dict() == {"j0": 0, "j1": 400, "j2": 416}
