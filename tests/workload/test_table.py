"""The shared CSV reader: line numbers, header diagnostics, and its two readers agreeing."""

from __future__ import annotations

import numpy as np
import pytest

from engine.workload.errors import WorkloadError
from engine.workload.table import (
    RowLimit,
    _plain_records,
    _quoted_records,
    header_problems,
    read_table,
)


def test_rows_are_file_lines_skipping_blank_and_empty_spreadsheet_rows() -> None:
    table = read_table("a,b\n1,2\n\n,\n3,4\n")
    assert table.rows.tolist() == [2, 5]
    assert table.columns == {"a": ("1", "3"), "b": ("2", "4")}
    assert table.problems == ()


def test_quoted_fields_and_padding() -> None:
    table = read_table('name, note\n"a, b", "say ""hi"""\n')
    assert table.columns == {"name": ("a, b",), "note": ('say "hi"',)}


def test_header_problems_ignore_unrelated_columns() -> None:
    found, ignored = header_problems(
        ["submit_time", "user", "jobid", "num_gpus"], ["submit_time", "job_id", "min_gpus"], []
    )
    assert ignored == ("user", "num_gpus")
    assert [(p.column, p.message) for p in found] == [
        ("jobid", "not a known column; did you mean 'job_id'?")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "a,b\n1,2\n3,4\n",
        "a,b\r\n1,2\r\n3,4",
        "\n\n a , b \n  1,  2 \n\t,\n,\n 3 ,4\n5\n6,7,8\n\n",
        "a,b,c\n,,\n1,,3\n  ,x,\n",
        "a\n1\n \n2\n",
        "a,a,b\n1,2,3\n",
        "a,b\n1,\u00a02\u3000\n",
    ],
)
def test_the_fast_reader_reads_exactly_what_the_csv_module_does(text: str) -> None:
    plain = _plain_records(text, RowLimit())
    assert plain is not None
    assert plain.cells == _quoted_records(text, RowLimit()).cells
    for field in ("header_line", "names", "rows", "problems", "job_rows"):
        assert getattr(plain, field) == getattr(_quoted_records(text, RowLimit()), field), field


@pytest.mark.parametrize(
    "text", ['a,b\n"1",2\n', "a,b\n1\r2,3\n", "a,b\n" + "x" * 200_000 + ",1\n"]
)
def test_quotes_lone_carriage_returns_and_huge_cells_go_to_the_csv_module(text: str) -> None:
    assert _plain_records(text, RowLimit()) is None


def test_numeric_columns_come_parsed_with_nan_for_empty_or_bad_cells() -> None:
    for text in ("a,b,c\n1,x,2.5\n,y,1e3\nz,w,7\n", 'a,b,c\n1,"x",2.5\n,y,1e3\nz,w,7\n'):
        table = read_table(text, numeric=["a", "c", "missing"])
        assert set(table.numbers) == {"a", "c"}
        np.testing.assert_array_equal(table.numbers["a"], [1.0, np.nan, np.nan])
        np.testing.assert_array_equal(table.numbers["c"], [2.5, 1000.0, 7.0])


def test_row_limit_counts_rows_before_reading_them() -> None:
    with pytest.raises(WorkloadError) as caught:
        read_table("a\n1\n2\n\n3\n", RowLimit(2))
    assert str(caught.value) == "the file has 3 job rows, more than the limit of 2"
    assert len(read_table("a\n1\n2\n\n3\n", RowLimit(3)).rows) == 3
