"""The optional ``mode`` column: rigid, moldable or malleable jobs."""

from __future__ import annotations

import pytest

from engine.cluster import Cluster
from engine.workload import WorkloadError, load_workload, to_csv_bytes, to_jobs

CLUSTER = Cluster(2, 4)
TEXT = (
    "submit_time,runtime_1gpu,requested_gpus,min_gpus,max_gpus,mode\n"
    "0,100,4,1,8,rigid\n"
    "0,100,4,1,8,\n"
    "0,100,4,1,8,Malleable\n"
)


def test_modes_are_read_per_row_with_moldable_the_default():
    jobs = to_jobs(load_workload(TEXT), CLUSTER)
    assert [j.mode for j in jobs] == ["rigid", "moldable", "malleable"]
    assert (jobs[0].min_gpus, jobs[0].max_gpus) == (4, 4)  # rigid: exactly its request
    assert (jobs[2].min_gpus, jobs[2].max_gpus) == (1, 8)


def test_a_workload_level_mode_overrides_every_row():
    jobs = to_jobs(load_workload(TEXT), CLUSTER, mode="malleable")
    assert {j.mode for j in jobs} == {"malleable"}


def test_an_unknown_mode_is_reported_by_row_and_column():
    with pytest.raises(WorkloadError) as error:
        load_workload(TEXT.replace("rigid", "elastic"))
    assert "row 2, column 'mode': got 'elastic', expected one of rigid, moldable, malleable" in str(
        error.value
    )


def test_saving_keeps_modes_and_leaves_all_moldable_files_as_before():
    mixed = load_workload(TEXT)
    assert [j.mode for j in to_jobs(load_workload(to_csv_bytes(mixed)), CLUSTER)] == [
        "rigid", "moldable", "malleable"]
    plain = load_workload("submit_time,runtime_1gpu\n0,100\n")
    assert "mode" not in to_csv_bytes(plain).decode().splitlines()[0].split(",")
