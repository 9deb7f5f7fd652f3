"""Files built to break the loader: each ends in one message naming row and column."""

from __future__ import annotations

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
