"""Hand-computed scenarios for FIFO with EASY backfilling."""

from __future__ import annotations

from factories import make_job

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.simulator import simulate


def _starts_ends(jobs, cluster):
    table = simulate(jobs, cluster, make_policy("fifo-backfill")).jobs.set_index("job_id")
    return table["start"].to_dict(), table["end"].to_dict()


def test_short_job_backfills_before_the_reservation_and_long_one_does_not():
    # 4 GPUs, linear speedup.
    # j0: 100 s of work on its 2 GPUs -> 0..50.
    # j1 (t=1) wants 4: only 2 free, so it is the blocked head; shadow time 50 (j0 ends),
    #     when 4 are free: extra = 4 - 4 = 0.
    # j2 (t=2) wants 2, 60 s of work -> 30 s, ends 32 <= 50: backfilled at t=2.
    # j3 (t=3) wants 1, 100 s -> would end at 132 > 50 and 1 > extra 0: waits, also at
    #     t=32 when j2 frees 2 GPUs. j1 keeps its reservation: 50..60; j3 then 60..160.
    jobs = [
        make_job(0, 0, 100, requested=2),
        make_job(1, 1, 40, requested=4),
        make_job(2, 2, 60, requested=2),
        make_job(3, 3, 100, requested=1),
    ]
    starts, ends = _starts_ends(jobs, Cluster(1, 4))
    assert starts == {"j0": 0, "j1": 50, "j2": 2, "j3": 60}
    assert ends == {"j0": 50, "j1": 60, "j2": 32, "j3": 160}


def test_long_job_backfills_on_the_extra_gpus():
    # 8 GPUs on 2 nodes, linear speedup.
    # j0: 600 s on 6 GPUs -> 0..100; 2 free.
    # j1 (t=1) wants 4: blocked head, shadow 100, when 8 are free: extra = 8 - 4 = 4.
    # j2 (t=2) wants 2 for 500 s (ends 502, long after the shadow) but 2 <= extra 4:
    #     it starts at once and still leaves j1 its 4 GPUs at t=100 (100..110).
    jobs = [
        make_job(0, 0, 600, requested=6),
        make_job(1, 1, 40, requested=4),
        make_job(2, 2, 1000, requested=2),
    ]
    starts, ends = _starts_ends(jobs, Cluster(2, 4))
    assert starts == {"j0": 0, "j1": 100, "j2": 2}
    assert ends["j1"] == 110


def test_without_a_blocked_head_it_is_plain_fifo():
    # Everything fits in arrival order: same as fifo-request.
    jobs = [make_job(i, i, 40, requested=1) for i in range(4)]
    backfill = simulate(jobs, Cluster(1, 4), make_policy("fifo-backfill")).jobs
    fifo = simulate(jobs, Cluster(1, 4), make_policy("fifo-request")).jobs
    assert backfill[["start", "end", "gpus"]].equals(fifo[["start", "end", "gpus"]])
