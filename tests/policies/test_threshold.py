"""Hand-computed scenarios for threshold-based scaling (both signals)."""

from __future__ import annotations

import pytest
from factories import make_job

from engine.cluster import Cluster
from engine.policies import make_policy
from engine.policies.threshold import Threshold
from engine.simulator import simulate
from engine.speedup import Amdahl


def _three_jobs():
    # Linear speedup (100% efficient, so large = as many GPUs as free, up to the max),
    # each job accepts 1..4 GPUs and asks for 1; all arrive at t=0.
    return [
        make_job(0, 0, 400, requested=1, max_gpus=4),
        make_job(1, 0, 400, requested=1, max_gpus=4),
        make_job(2, 0, 100, requested=1, max_gpus=4),
    ]


def _sizes(policy, jobs):
    table = simulate(jobs, Cluster(1, 8), policy).jobs.set_index("job_id")
    return table["gpus"].to_dict(), table["end"].to_dict()


def test_free_signal_goes_small_once_the_cluster_fills():
    # T = 0.75 on 8 GPUs. j0: 8/8 free >= 0.75 -> large = its max, 4 (0..100).
    # j1: 4/8 = 0.5 < 0.75 -> small = its request, 1 (0..400).
    # j2: 3/8 < 0.75 -> small, 1 (0..100).
    gpus, ends = _sizes(Threshold("free", 0.75), _three_jobs())
    assert gpus == {"j0": 4, "j1": 1, "j2": 1}
    assert ends == {"j0": 100, "j1": 400, "j2": 100}


def test_queue_signal_goes_large_once_the_queue_is_short():
    # T = 1. j0 sees 3 waiting (itself included) > 1 -> small, 1 (0..400); j1 sees 2 -> 1.
    # j2 sees 1 <= 1 -> large: 6 free, capped by its max 4 -> 0..25.
    gpus, ends = _sizes(Threshold("queue", 1), _three_jobs())
    assert gpus == {"j0": 1, "j1": 1, "j2": 4}
    assert ends == {"j0": 400, "j1": 400, "j2": 25}


def test_busy_head_waits_for_its_request_and_blocks_the_queue():
    # T = 1.0 (large only on an idle cluster), 4 GPUs, linear speedup.
    # j0 (max 2): idle cluster -> large = its max, 2 GPUs, 200 s of work -> 0..100.
    # j1 (t=10) asks for 3: 2/4 free < 1.0 -> small = 3, which does not fit: it waits, and
    #     j2 (t=20, 1 GPU) waits behind it although a GPU is free.
    # t=100: idle again, so j1 now gets large = all 4 (300 s of work -> 100..175); j2 then
    #     finds nothing free until 175 and gets all 4 (20 s of work -> 175..180).
    jobs = [
        make_job(0, 0, 200, max_gpus=2),
        make_job(1, 10, 300, requested=3),
        make_job(2, 20, 20, requested=1),
    ]
    table = simulate(jobs, Cluster(1, 4), Threshold("free", 1.0)).jobs.set_index("job_id")
    assert table[["start", "gpus", "end"]].values.tolist() == [
        [0, 2, 100],
        [100, 4, 175],
        [175, 4, 180],
    ]


def test_large_stops_where_efficiency_falls_below_half():
    # Amdahl, serial fraction 0.2: efficiency S(k)/k = 1 / (0.2 k + 0.8) >= 0.5 up to
    # k = 6, so on an idle 8-GPU node large is 6 although 8 would be faster still.
    job = make_job(0, 0, 100, model=Amdahl(serial_fraction=0.2, cross_node_penalty=0.0))
    table = simulate([job], Cluster(1, 8), Threshold("free", 0.5)).jobs
    assert table["gpus"].tolist() == [6]


def test_queue_threshold_zero_is_fifo_request():
    jobs = [make_job(i, 3 * i, 50 + 17 * i, requested=1 + i % 4) for i in range(12)]
    never_large = simulate(jobs, Cluster(2, 2), Threshold("queue", 0)).jobs
    fifo = simulate(jobs, Cluster(2, 2), make_policy("fifo-request")).jobs
    assert never_large.equals(fifo)


def test_registered_defaults_and_bad_signal():
    assert repr(make_policy("threshold-free")) == "Threshold('free', 0.5)"
    assert repr(make_policy("threshold-queue")) == "Threshold('queue', 4)"
    with pytest.raises(ValueError, match="unknown threshold signal 'load'"):
        Threshold("load", 0.5)
