"""Problem and WorkloadError: how problems read, and that every one is reported."""

from __future__ import annotations

import pickle

from engine.workload.errors import MAX_LISTED, Problem, WorkloadError


def test_problem_reads_as_row_column_got_expected() -> None:
    problem = Problem(3, "runtime_1gpu", "got 'abc'", "a positive number of seconds")
    assert str(problem) == (
        "row 3, column 'runtime_1gpu': got 'abc', expected a positive number of seconds"
    )


def test_problem_without_location_or_expectation() -> None:
    assert str(Problem(None, None, "the file is empty")) == "the file is empty"
    assert str(Problem(None, "x", "odd")) == "column 'x': odd"
    assert str(Problem(7, None, "got 3 fields", "10")) == "row 7: got 3 fields, expected 10"


def test_error_is_a_value_error_listing_file_level_problems_first_then_rows() -> None:
    err = WorkloadError(
        [Problem(5, "a", "late"), Problem(None, None, "file"), Problem(2, "b", "early")]
    )
    assert isinstance(err, ValueError)
    assert [p.row for p in err.problems] == [None, 2, 5]
    assert str(err).splitlines() == ["file", "row 2, column 'b': early", "row 5, column 'a': late"]


def test_listing_is_capped_but_problems_are_all_kept() -> None:
    err = WorkloadError(Problem(row, "c", "bad") for row in range(1, MAX_LISTED + 8))
    lines = str(err).splitlines()
    assert len(err.problems) == MAX_LISTED + 7
    assert len(lines) == MAX_LISTED + 1
    assert lines[-1] == "... and 7 more problems"


def test_a_workload_error_pickles_as_itself() -> None:
    """It crosses from the worker process a server reads uploads in with its problems."""
    error = WorkloadError([Problem(3, "runtime_1gpu", "got -5"), Problem(None, None, "x")])
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is WorkloadError
    assert copy.problems == error.problems and str(copy) == str(error)
