"""SWF, Philly and Pollux importers: small inline samples and the real shared files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.cluster import Cluster
from engine.speedup import MEASURED_MODELS, Amdahl
from engine.speedup.measured import pollux_runtime_1gpu
from engine.workload import (
    TRACE_SERIAL_FRACTION,
    WorkloadError,
    load_note,
    load_workload,
    to_jobs,
)

SWF = """; Version: 2
; MaxNodes: 256
1    5094 -1   12072  16 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1
2    5170 -1       2   1 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1
3    5200 -1      -1   4 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1
4    5300 -1     100  -1 -1 -1  8 -1 -1 1 -1 -1 -1 0 -1 -1 -1
5    5400 -1     100 128 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1
6    5500 -1     100  -1 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1
"""

PHILLY = """timestamp,duration,num_gpus,gpu_time,cluster
2017-10-09 07:01:55,66.0,1,66.0,11cb48
2017-10-09 06:13:03,2951.0,4,11804.0,6214e9
2017-10-09 06:20:00,0.0,1,0.0,6214e9
2017-10-09 06:30:00,10.0,128,1280.0,6214e9
"""

POLLUX = """name,time,application,num_replicas,batch_size
cifar10-0,53,cifar10,6,2048
ncf-1,154,ncf,1,32768
bert-2,326,bert,2,384
"""


def test_swf_sample() -> None:
    workload = load_workload(SWF, cluster=Cluster(16, 4), name="lublin")
    frame = workload.frame
    assert frame["job_id"].tolist() == ["1", "2", "4", "5"]
    assert frame["submit_time"].tolist() == [5094, 5170, 5300, 5400]
    # field 8 stands in when field 5 is unknown;
    # Replaying each job at the size it ran at gives back the recorded run time.
    # Job 5 ran on 128 processors: clipped to 64, with the work that takes 100 s there.
    assert frame["runtime_1gpu"].tolist() == pytest.approx(
        [_work(12072, 16), _work(2, 1), _work(100, 8), _work(100, 64)]
    )
    assert frame["requested_gpus"].tolist() == [16, 1, 8, 64]  # 128 clipped to the cluster
    assert set(frame["model"]) == {"amdahl"}
    assert (frame["serial_fraction"] == TRACE_SERIAL_FRACTION).all()
    assert workload.clipped_jobs == 1
    assert workload.notes == (
        "skipped 2 of 6 jobs with unknown or zero run time or processors",
        "clipped 1 of 4 jobs to the cluster's 64 GPUs (they ran on up to 128); "
        "each keeps its recorded run time on 64",
    )


def test_swf_serial_fraction_is_a_parameter() -> None:
    workload = load_workload(SWF, trace_serial_fraction=0.2)
    assert (workload.frame["serial_fraction"] == 0.2).all()


def test_swf_bad_lines_are_all_reported() -> None:
    text = SWF + "7 5600 -1 100\n8 x -1 100 1 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n"
    with pytest.raises(WorkloadError) as caught:
        load_workload(text)
    messages = str(caught.value)
    assert "row 9: got 4 fields, expected 18 whitespace-separated SWF fields" in messages
    assert "row 10, column 'field 2 (submit time)': got 'x', expected a number" in messages


def _work(run_time: float, gpus: int) -> float:
    """1-GPU work of a trace job under the importers' Amdahl assumption (4-GPU nodes)."""
    return run_time * Amdahl(serial_fraction=0.05).speedup(gpus, -(-gpus // 4))


def test_swf_row_limit_counts_every_job_line() -> None:
    with pytest.raises(WorkloadError) as caught:
        load_workload(SWF, max_rows=3, row_limit_hint="use --max-rows N")
    assert str(caught.value) == (
        "the file has 6 job rows, more than the limit of 3 (use --max-rows N)"
    )
    assert len(load_workload(SWF, max_rows=6)) == 4


def test_swf_real_file(shared_data: Path) -> None:
    workload = load_workload(shared_data / "swf" / "lublin_256.swf")
    frame = workload.frame
    assert len(workload) == 10_000
    assert frame["requested_gpus"].max() == 64  # a 256-processor machine, clipped
    assert (frame["runtime_1gpu"] > 0).all()
    assert frame["submit_time"].is_monotonic_increasing


def test_philly_sample() -> None:
    workload = load_workload(PHILLY)
    frame = workload.frame
    assert frame["submit_time"].tolist() == [0.0, 1017.0, 2932.0]  # from 06:13:03
    assert frame["runtime_1gpu"].tolist() == pytest.approx([_work(2951, 4), _work(10, 64), 66.0])
    assert frame["requested_gpus"].tolist() == [4, 64, 1]
    assert workload.clipped_jobs == 1
    assert workload.notes == (
        "skipped 1 of 4 jobs with duration <= 0",
        "clipped 1 of 3 jobs to the cluster's 64 GPUs (they ran on up to 128); "
        "each keeps its recorded run time on 64",
    )


def test_philly_bad_cells_and_missing_column() -> None:
    bad = PHILLY + "yesterday,abc,1,0,x\n"
    with pytest.raises(WorkloadError) as caught:
        load_workload(bad)
    assert "row 6, column 'timestamp': got 'yesterday'" in str(caught.value)
    assert "row 6, column 'duration': got 'abc', expected a number" in str(caught.value)
    with pytest.raises(WorkloadError, match="column 'num_gpus': required column is missing"):
        load_workload("timestamp,duration,gpus\n2017-10-09 07:01:55,1,1\n", fmt="philly")


def test_philly_real_file(shared_data: Path) -> None:
    workload = load_workload(shared_data / "philly.csv", cluster=Cluster(640, 4))
    frame = workload.frame
    assert len(workload) == 82_247
    assert frame["submit_time"].iloc[0] == 0.0
    assert frame["requested_gpus"].max() == 128  # nothing clipped on 2,560 GPUs


def test_pollux_sample() -> None:
    frame = load_workload(POLLUX).frame
    assert frame["job_id"].tolist() == ["cifar10-0", "ncf-1", "bert-2"]
    assert frame["model"].tolist() == ["cifar10", "ncf", "bert"]
    assert frame["requested_gpus"].tolist() == [6, 1, 2]
    assert frame["runtime_1gpu"].tolist() == [
        pollux_runtime_1gpu("cifar10", 2048),
        pollux_runtime_1gpu("ncf", 32768),
        pollux_runtime_1gpu("bert", 384),
    ]


def test_pollux_bad_rows_are_all_reported() -> None:
    text = POLLUX + (
        "gpt-3,400,gpt,2,64\n"
        "bert-4,x,bert,2,384\n"
        "bert-5,500,bert,2,12.5\n"
        "bert-6,600,bert,2,100000\n"
    )
    with pytest.raises(WorkloadError) as caught:
        load_workload(text)
    messages = str(caught.value)
    known = ", ".join(MEASURED_MODELS)
    assert (
        f"row 5, column 'application': got 'gpt', expected one of the measured models {known}"
        in (messages)
    )
    assert "row 6, column 'time': got 'x'" in messages  # the file's column, not submit_time
    assert "row 7, column 'batch_size': got '12.5', expected a whole number" in messages
    assert "row 8, column 'batch_size': no run time for bert at batch size 100000" in messages
    assert len(caught.value.problems) == 4


def test_pollux_real_workloads(shared_data: Path) -> None:
    for path in sorted((shared_data / "pollux" / "workloads").glob("workload-*.csv")):
        workload = load_workload(path)
        assert len(workload) == 160, path.name
        assert set(workload.frame["model"]) <= set(MEASURED_MODELS)
        assert np.isfinite(workload.frame["runtime_1gpu"]).all()


@pytest.mark.parametrize("cell", ["0", "-2", "1.5", "many"])
def test_philly_gpu_count_must_be_whole_and_positive(cell: str) -> None:
    text = f"timestamp,duration,num_gpus\n2017-10-09 07:01:55,66,1\n2017-10-09 07:03:55,50,{cell}\n"
    with pytest.raises(WorkloadError) as caught:
        load_workload(text)
    (problem,) = caught.value.problems
    assert (problem.row, problem.column) == (3, "num_gpus")
    assert str(problem) == f"row 3, column 'num_gpus': got '{cell}', expected a whole number >= 1"


def test_swf_unknown_or_zero_processors_are_skipped_and_fractions_refused() -> None:
    lines = [
        "1 0 -1 100  0 -1 -1  0 -1 -1 1 -1 -1 -1 0 -1 -1 -1",  # zero processors
        "2 5 -1 100 -1 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1",  # unknown
        "3 9 -1 100  0 -1 -1  4 -1 -1 1 -1 -1 -1 0 -1 -1 -1",  # zero allocated: the request
    ]
    workload = load_workload("\n".join(lines) + "\n", fmt="swf")
    assert workload.frame["requested_gpus"].tolist() == [4]
    assert workload.notes == ("skipped 2 of 3 jobs with unknown or zero run time or processors",)
    with pytest.raises(WorkloadError) as caught:
        load_workload(lines[0].replace(" 0 -1 -1  0", " 2.5 -1 -1 0") + "\n", fmt="swf")
    assert str(caught.value) == (
        "row 1, column 'field 5 (allocated processors)': got '2.5', expected a whole number"
    )


def test_a_clipped_trace_job_runs_for_its_recorded_time_on_the_cluster() -> None:
    cluster = Cluster(16, 4)
    swf = "1 0 -1 50 1000 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n"
    philly = "timestamp,duration,num_gpus\n2017-10-09 07:01:55,50,1000\n"
    for text in (swf, philly):
        workload = load_workload(text, cluster=cluster)
        (job,) = to_jobs(workload, cluster)
        assert job.requested_gpus == 64
        assert job.runtime(64, 16) == pytest.approx(50.0)  # not 50 x speedup(64)/speedup(1000)
        assert workload.clipped_jobs == 1
        assert workload.notes == (
            "clipped 1 of 1 jobs to the cluster's 64 GPUs (they ran on up to 1,000); "
            "each keeps its recorded run time on 64",
        )


def test_trace_problems_name_the_traces_own_columns() -> None:
    swf = SWF + "1 -5 -1 100 1 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n"
    with pytest.raises(WorkloadError) as caught:
        load_workload(swf)
    assert {str(p) for p in caught.value.problems} == {
        "row 9, column 'field 2 (submit time)': got -5, expected a number of seconds in "
        "[0, 10,000,000,000]",
        "row 9, column 'field 1 (job number)': got '1', already used on row 3, "
        "expected a job id no other row uses",
    }
    pollux = POLLUX + "ncf-1,160,ncf,0,32768\nbert-9,170,bert,x,384\n"
    with pytest.raises(WorkloadError) as caught:
        load_workload(pollux)
    assert [str(p) for p in caught.value.problems] == [
        "row 5, column 'num_replicas': got '0', expected a whole number of GPUs >= 1",
        "row 5, column 'name': got 'ncf-1', already used on row 3, "
        "expected a job id no other row uses",
        "row 6, column 'num_replicas': got 'x', expected a whole number of GPUs >= 1",
    ]


def test_pollux_requests_above_the_cluster_are_clipped_like_every_trace() -> None:
    text = POLLUX + "imagenet-3,90000,imagenet,128,12800\n"
    workload = load_workload(text, cluster=Cluster(16, 4))
    frame = workload.frame
    assert frame["requested_gpus"].tolist() == [6, 1, 2, 64]
    assert frame["runtime_1gpu"].iloc[-1] == pollux_runtime_1gpu("imagenet", 12800)
    assert workload.clipped_jobs == 1
    assert workload.notes == (
        "clipped 1 of 4 jobs to the cluster's 64 GPUs (they asked for up to 128)",
    )
    assert load_workload(text, cluster=Cluster(32, 4)).frame["requested_gpus"].iloc[-1] == 128


def test_pollux_workloads_are_never_clipped_on_the_testbed(shared_data: Path) -> None:
    """The headline table's 8 traces on 16x4 GPUs: clipping must not touch them."""
    for path in sorted((shared_data / "pollux" / "workloads").glob("workload-*.csv")):
        workload = load_workload(path, cluster=Cluster(16, 4))
        assert workload.frame["requested_gpus"].max() <= 64, path.name
        assert (workload.clipped_jobs, workload.notes) == (0, ()), path.name


def test_an_overloaded_workload_loads_with_a_note() -> None:
    """Overloaded is not wrong: real traces often are, and the queue growing is the study."""
    text = "submit_time,runtime_1gpu\n" + "".join(f"{t},3600\n" for t in range(0, 100, 10))
    small, large = Cluster(1, 4), Cluster(64, 8)
    workload = load_workload(text, cluster=small)
    assert len(workload) == 10 and workload.notes == ()
    note = load_note(workload, small)
    assert note is not None and note.startswith("offered load 90.00 on 1x4")
    assert "queue grows" in note
    assert load_note(workload, large) is None


def test_run_times_in_milliseconds_are_refused_with_what_to_do() -> None:
    text = "submit_time,runtime_1gpu\n" + "".join(f"{t},3600000\n" for t in range(0, 100, 10))
    with pytest.raises(WorkloadError) as caught:
        load_workload(text)
    (problem,) = caught.value.problems
    assert (problem.row, problem.column) == (None, "runtime_1gpu")
    assert "milliseconds" in problem.message and "divide the column by 1,000" in problem.expected


def test_every_window_of_the_philly_trace_loads(shared_data: Path) -> None:
    """Real windows are overloaded on a small cluster (the issue's offered loads 4-15)."""
    frame = load_workload(shared_data / "philly.csv", cluster=Cluster(640, 4)).frame
    cluster = Cluster(8, 4)
    for start in (0, 20_000, 60_000):
        window = frame.iloc[start:start + 800]
        text = window.to_csv(index=False)
        workload = load_workload(text, cluster=cluster)
        assert len(workload) == 800
