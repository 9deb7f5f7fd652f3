"""to_jobs: what the simulator receives, shared models, clipping and speed."""

from __future__ import annotations

import time

import pytest

from engine.cluster import Cluster
from engine.speedup import Amdahl
from engine.workload import GeneratorConfig, WorkloadError, generate, load_workload, to_jobs

TEXT = (
    "submit_time,runtime_1gpu,model,requested_gpus,min_gpus,max_gpus,job_id,serial_fraction\n"
    "30,100,amdahl,4,2,200,late,0.1\n"
    "0,50,bert,2,1,8,early,\n"
)


def test_jobs_follow_the_frame() -> None:
    early, late = to_jobs(load_workload(TEXT), Cluster(16, 4))
    assert (early.index, early.job_id, early.submit_time, early.runtime_1gpu) == (
        0,
        "early",
        0.0,
        50.0,
    )
    assert (late.index, late.model, late.requested_gpus, late.min_gpus) == (1, "amdahl", 4, 2)
    assert late.max_gpus == 64  # clipped to the cluster
    assert late.speedup_model == Amdahl(0.1)
    assert late.runtime(4, 1) == pytest.approx(100 / Amdahl(0.1).speedup(4, 1))
    assert all(type(v) is int for v in (late.requested_gpus, late.min_gpus, late.max_gpus))


def test_jobs_too_big_for_a_smaller_cluster_are_named() -> None:
    workload = load_workload(TEXT)
    with pytest.raises(WorkloadError) as caught:
        to_jobs(workload, Cluster(1, 2))
    assert "column 'min_gpus': job 'late' has 2" not in str(caught.value)
    assert "column 'requested_gpus': job 'late' has 4, more than the 2 GPUs of the 1x2" in str(
        caught.value
    )
    assert len(to_jobs(workload, Cluster(1, 4))) == 2


def test_100k_jobs_share_models_and_build_quickly() -> None:
    cluster = Cluster(16, 4)
    started = time.perf_counter()
    workload = generate(GeneratorConfig(jobs=100_000, seed=1), cluster)
    generated = time.perf_counter()
    jobs = to_jobs(workload, cluster)
    built = time.perf_counter()
    print(f"generate 100k: {generated - started:.3f} s, to_jobs 100k: {built - generated:.3f} s")
    assert len(jobs) == 100_000
    pairs = workload.frame.groupby(["model", "batch_size"], dropna=False).ngroups
    assert pairs <= 30  # six models, a few batches each
    assert len({id(job.speedup_model) for job in jobs}) == pairs
    assert [job.index for job in jobs[:3]] == [0, 1, 2]
    assert built - generated < 5.0
    assert generated - started < 5.0
