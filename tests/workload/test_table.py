"""The shared CSV reader: line numbers and header diagnostics."""

from __future__ import annotations

from engine.workload.table import header_problems, read_table


def test_rows_are_file_lines_skipping_blank_and_empty_spreadsheet_rows() -> None:
    table = read_table("a,b\n1,2\n\n,\n3,4\n", max_rows=10)
    assert table.rows.tolist() == [2, 5]
    assert table.columns == {"a": ("1", "3"), "b": ("2", "4")}
    assert table.problems == ()


def test_quoted_fields_and_padding() -> None:
    table = read_table('name, note\n"a, b", "say ""hi"""\n', max_rows=10)
    assert table.columns == {"name": ("a, b",), "note": ('say "hi"',)}


def test_header_problems_ignore_unrelated_columns() -> None:
    found, ignored = header_problems(
        ["submit_time", "user", "jobid", "num_gpus"], ["submit_time", "job_id", "min_gpus"], []
    )
    assert ignored == ("user", "num_gpus")
    assert [(p.column, p.message) for p in found] == [
        ("jobid", "not a known column; did you mean 'job_id'?")
    ]
