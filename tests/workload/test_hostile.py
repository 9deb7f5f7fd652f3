"""Files built to break the loader: each ends in one message naming row and column."""

from __future__ import annotations

import math
import time

import pytest

from engine.workload import WorkloadError, load_workload


def test_a_submit_time_beyond_the_clocks_resolution_is_refused() -> None:
    # A Unix time in nanoseconds: a float there cannot tell 100 s apart, so a tick
    # loop never ended and fifo-request reported a 100 s job as done in 0 s.
    with pytest.raises(WorkloadError) as caught:
        load_workload("submit_time,runtime_1gpu\n1700000000000000000,100\n")
    assert str(caught.value) == (
        "row 2, column 'submit_time': got '1700000000000000000', expected a number of "
        "seconds in [0, 10,000,000,000]"
    )


def test_a_unix_time_in_seconds_still_loads() -> None:
    assert load_workload("submit_time,runtime_1gpu\n1700000000,100\n").frame.shape[0] == 1


def test_a_pollux_request_of_infinite_gpus_is_refused_not_clipped() -> None:
    # fuzz case #4562: inf passed as a request past the cluster, to be clipped, and
    # the clipping note's int(inf) raised OverflowError (a traceback, exit 1)
    with pytest.raises(WorkloadError) as caught:
        load_workload("name,time,application,num_replicas,batch_size\n"
                      "a,0,cifar10,2,2048\nb,60,deepspeech2,inf,320\n")
    assert str(caught.value) == (
        "row 3, column 'num_replicas': got 'inf', expected a whole number of GPUs >= 1")


def test_old_mac_line_endings_load_like_any_other() -> None:
    # Excel's "CSV (Macintosh)" ends lines with a lone \r: csv raised _csv.Error.
    unix = load_workload("submit_time,runtime_1gpu\n0,100\n5,200\n")
    mac = load_workload(b"submit_time,runtime_1gpu\r0,100\r5,200\r")
    assert mac.frame.equals(unix.frame)


def test_a_header_cell_over_the_csv_field_limit_is_one_problem() -> None:
    text = "submit_time,runtime_1gpu," + "x" * 140_000 + "\n0,100,1\n"
    with pytest.raises(WorkloadError) as caught:
        load_workload(text)
    assert str(caught.value) == (
        "row 1: unreadable header (field larger than field limit (131072)), "
        "expected a CSV header line"
    )


@pytest.mark.parametrize(
    ("cells", "column", "expected"),
    [
        # a run time that underflows to 0 s on many GPUs (malleable: ZeroDivisionError)
        ("5e-324,amdahl,,", "runtime_1gpu", "in [0.001, 31,536,000]"),
        # A x n overflows: the job ran in 0 s, or vanished from "completed"
        ("100,downey,1e308,0", "downey_A", "in [1, 1,000,000]"),
        ("100,downey,4,1e308", "downey_sigma", "in [0, 1,000,000]"),
    ],
)
def test_numbers_that_would_make_a_job_vanish_are_refused(
    cells: str, column: str, expected: str
) -> None:
    text = f"submit_time,runtime_1gpu,model,downey_A,downey_sigma\n0,{cells}\n"
    with pytest.raises(WorkloadError) as caught:
        load_workload(text)
    (problem,) = caught.value.problems
    assert (problem.row, problem.column) == (2, column)
    assert expected in str(problem)


def test_philly_times_with_and_without_a_utc_offset_name_the_rows() -> None:
    text = (
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "2017-10-09 07:01:55+00:00,100,1,100,a\n"
        "2017-10-09 07:02:55,100,1,100,a\n"
        "2017-10-09 07:03:55Z,100,1,100,a\n"
    )
    with pytest.raises(WorkloadError) as caught:
        load_workload(text)
    assert str(caught.value) == (
        "row 3, column 'timestamp': got '2017-10-09 07:02:55', but row 2 has a UTC offset, "
        "expected every timestamp with a UTC offset (like +00:00), or none"
    )


def test_philly_times_in_different_offsets_share_one_clock() -> None:
    text = (
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "2017-10-09 08:00:00+01:00,100,1,100,a\n"
        "2017-10-09 07:01:00+00:00,100,1,100,a\n"
    )
    assert load_workload(text).frame["submit_time"].tolist() == [0.0, 60.0]


def _load_seconds(columns: int) -> float:
    header = "submit_time,runtime_1gpu," + ",".join(f"extra{i}" for i in range(columns))
    text = f"{header}\n0,100{',1' * columns}\n"
    best = math.inf
    for _ in range(3):
        started = time.perf_counter()
        load_workload(text)
        best = min(best, time.perf_counter() - started)
    return best


def test_loading_grows_linearly_with_the_column_count() -> None:
    # 8x the columns: linear is ~8x the time, quadratic (a column inserted at a time,
    # 4,000 columns took 11.8 s) ~64x. The bound leaves room for a noisy machine.
    assert _load_seconds(2400) < 25 * _load_seconds(300)
