"""The native CSV: defaults, every validation error (all reported at once), round trips."""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.cluster import Cluster
from engine.errors import describe
from engine.speedup import MODEL_NAMES
from engine.workload import (
    GeneratorConfig,
    WorkloadError,
    generate,
    load_workload,
    save_csv,
    template_csv,
    to_csv_bytes,
)

HEADER = "submit_time,runtime_1gpu,model,requested_gpus,min_gpus,max_gpus,job_id\n"


def problems(text: str, **kwargs) -> WorkloadError:
    with pytest.raises(WorkloadError) as caught:
        load_workload(text, fmt="csv", **kwargs)
    return caught.value


def assert_reported(err: WorkloadError, row: int | None, column: str | None, *words: str) -> None:
    """One problem at ``row``/``column`` mentions all ``words``, in str(err) too."""
    for problem in err.problems:
        if (problem.row, problem.column) == (row, column) and all(w in str(problem) for w in words):
            assert str(problem) in str(err)
            if row is not None:
                assert f"row {row}" in str(problem)
            if column is not None:
                assert repr(column) in str(problem)
            return
    raise AssertionError(f"no problem at row {row}, column {column} with {words}:\n{err}")


def test_minimal_file_gets_the_defaults() -> None:
    workload = load_workload("submit_time,runtime_1gpu\n10,100\n0,50\n", name="tiny")
    frame = workload.frame
    assert workload.name == "tiny"
    assert frame["submit_time"].tolist() == [0.0, 10.0]  # sorted by submit time
    assert frame["job_id"].tolist() == ["3", "2"]  # default id: the spreadsheet row
    assert frame["model"].tolist() == ["amdahl", "amdahl"]
    assert frame["requested_gpus"].tolist() == [1, 1]
    assert frame["min_gpus"].tolist() == [1, 1]
    assert frame["max_gpus"].tolist() == [64, 64]  # the default cluster's size
    assert frame["serial_fraction"].isna().all()
    assert list(frame.index) == [0, 1]


def test_max_gpus_defaults_to_the_cluster_given() -> None:
    workload = load_workload("submit_time,runtime_1gpu\n0,1\n", cluster=Cluster(2, 8))
    assert workload.frame["max_gpus"].tolist() == [16]


def test_equal_submit_times_keep_file_order() -> None:
    text = "submit_time,runtime_1gpu,job_id\n5,1,b\n0,1,z\n5,1,a\n"
    assert load_workload(text).frame["job_id"].tolist() == ["z", "b", "a"]


def test_empty_optional_cells_take_defaults_and_text_is_tidied() -> None:
    text = HEADER + "0, 100 ,BERT,,,,\n"
    row = load_workload(text).frame.iloc[0]
    assert (row["model"], row["requested_gpus"], row["max_gpus"], row["job_id"]) == (
        "bert",
        1,
        64,
        "2",
    )


def test_whole_numbers_written_as_floats_are_accepted() -> None:
    row = load_workload(HEADER + "0,100,bert,4.0,2,8,a\n").frame.iloc[0]
    assert row["requested_gpus"] == 4


def test_unknown_columns_are_kept_and_reported_as_ignored() -> None:
    text = "submit_time,runtime_1gpu,user,notes\n0,100,ann,first\n"
    workload = load_workload(text)
    assert workload.ignored_columns == ("user", "notes")
    assert workload.frame["user"].tolist() == ["ann"]


def test_missing_required_column() -> None:
    err = problems("submit_time,model\n0,bert\n")
    assert_reported(err, None, "runtime_1gpu", "required column is missing")


def test_missing_required_column_suggests_a_similar_one() -> None:
    err = problems("submit_time,runtime\n0,100\n")
    assert_reported(err, None, "runtime_1gpu", "missing", "'runtime'")


def test_misspelt_column_suggests_the_closest_name_once() -> None:
    err = problems("submit_tim,runtime_1gpu,Max_GPUs\n0,100,4\n")
    assert_reported(err, None, "submit_tim", "not a known column", "did you mean 'submit_time'?")
    assert_reported(err, None, "Max_GPUs", "did you mean 'max_gpus'?")
    assert len(err.problems) == 2  # the misspelling explains the missing column


def test_a_near_copy_of_a_present_column_is_just_ignored() -> None:
    workload = load_workload("submit_time,runtime_1gpu,submit_tim\n0,100,x\n")
    assert workload.ignored_columns == ("submit_tim",)


def test_empty_file() -> None:
    for text in (b"", b"\n\n  \n"):
        err = problems(text)
        assert_reported(err, None, None, "the file is empty")


def test_header_only_file() -> None:
    assert_reported(problems(HEADER), None, None, "header but no job rows")


@pytest.mark.parametrize(
    ("cell", "column"),
    [
        ("abc", "runtime_1gpu"),
        ("nan", "runtime_1gpu"),
        ("inf", "runtime_1gpu"),
        ("-5", "runtime_1gpu"),
        ("0", "runtime_1gpu"),
        ("", "runtime_1gpu"),
        ("-1", "submit_time"),
        ("soon", "submit_time"),
    ],
)
def test_bad_numbers(cell: str, column: str) -> None:
    cells = {"submit_time": "0", "runtime_1gpu": "100"} | {column: cell}
    text = f"submit_time,runtime_1gpu\n0,100\n{cells['submit_time']},{cells['runtime_1gpu']}\n"
    err = problems(text)
    assert len(err.problems) == 1
    got = f"'{cell}'" if cell else "an empty cell"
    assert_reported(err, 3, column, f"got {got}", "expected a number of seconds")


@pytest.mark.parametrize("cell", ["2.5", "0", "-1", "two", "1e30"])
def test_gpu_counts_must_be_whole_and_positive(cell: str) -> None:
    err = problems(HEADER + f"0,100,bert,{cell},1,8,a\n")
    assert_reported(err, 2, "requested_gpus", f"got '{cell}'", "a whole number of GPUs >= 1")


def test_min_gpus_above_max_gpus() -> None:
    err = problems(HEADER + "0,100,bert,4,8,4,a\n")
    assert_reported(err, 2, "min_gpus", "min_gpus 8 is more than max_gpus 4")
    assert len(err.problems) == 1  # the request is not judged against a broken range


def test_requested_outside_min_max() -> None:
    err = problems(HEADER + "0,100,bert,2,4,8,a\n0,100,bert,16,4,8,b\n")
    assert_reported(err, 2, "requested_gpus", "got 2", "between min_gpus 4 and max_gpus 8")
    assert_reported(err, 3, "requested_gpus", "got 16", "between min_gpus 4 and max_gpus 8")


def test_min_gpus_and_request_above_the_cluster() -> None:
    err = problems(HEADER + "0,100,bert,128,128,256,a\n", cluster=Cluster(16, 4))
    assert_reported(err, 2, "min_gpus", "got 128, more than the 64 GPUs of the 16x4 cluster")
    assert_reported(err, 2, "requested_gpus", "got 128, more than the 64 GPUs")


def test_max_gpus_above_the_cluster_is_allowed() -> None:
    workload = load_workload(HEADER + "0,100,bert,4,1,1000,a\n")
    assert workload.frame["max_gpus"].tolist() == [1000]  # to_jobs clips it


def test_unknown_model_lists_the_known_ones() -> None:
    err = problems(HEADER + "0,100,resnet,1,1,1,a\n")
    assert_reported(err, 2, "model", "got 'resnet'", ", ".join(MODEL_NAMES))


def test_duplicate_job_ids_point_at_the_first_use() -> None:
    err = problems(HEADER + "0,1,bert,1,1,1,a\n0,1,bert,1,1,1,b\n0,1,bert,1,1,1,a\n")
    assert_reported(err, 4, "job_id", "got 'a'", "already used on row 2")
    assert len(err.problems) == 1


def test_explicit_id_colliding_with_a_default_row_id() -> None:
    err = problems("submit_time,runtime_1gpu,job_id\n0,1,3\n0,1,\n")
    assert_reported(err, 3, "job_id", "got '3'", "already used on row 2")


def test_parameters_checked_and_only_for_their_model() -> None:
    text = (
        "submit_time,runtime_1gpu,model,serial_fraction,downey_A,downey_sigma\n"
        "0,1,amdahl,1.5,,\n"
        "0,1,downey,,0.5,-1\n"
        "0,1,bert,0.1,,\n"
        "0,1,amdahl,0.1,,\n"
    )
    err = problems(text)
    assert_reported(err, 2, "serial_fraction", "got '1.5'", "in [0, 1)")
    assert_reported(err, 3, "downey_A", "got '0.5'", "in [1, 1,000,000]")
    assert_reported(err, 3, "downey_sigma", "got '-1'", "in [0, 1,000,000]")
    assert_reported(err, 4, "serial_fraction", "for model 'bert'", "only applies to model 'amdahl'")
    assert len(err.problems) == 4


def test_wrong_field_count() -> None:
    err = problems("submit_time,runtime_1gpu\n0,1\n0\n0,1,2\n")
    assert_reported(err, 3, None, "got 1 fields", "expected 2")
    assert_reported(err, 4, None, "got 3 fields", "expected 2")


def test_header_without_names_or_with_repeats() -> None:
    err = problems("submit_time,runtime_1gpu,,runtime_1gpu\n0,1,,1\n")
    assert_reported(err, 1, None, "header column 3 has no name")
    assert_reported(err, 1, "runtime_1gpu", "appears twice", "columns 2 and 4")


def test_row_limit_names_the_count_and_the_callers_hint() -> None:
    text = "submit_time,runtime_1gpu\n" + "0,1\n" * 11 + "0\n"  # 12 job rows, one bad
    err = problems(text, max_rows=10)
    assert str(err) == "the file has 12 job rows, more than the limit of 10"
    err = problems(text, max_rows=10, row_limit_hint="the app's limit; use the CLI")
    assert str(err) == (
        "the file has 12 job rows, more than the limit of 10 (the app's limit; use the CLI)"
    )
    assert len(load_workload("submit_time,runtime_1gpu\n" + "0,1\n" * 12, max_rows=12)) == 12
    quoted = "submit_time,runtime_1gpu\n" + '"0",1\n' * 11
    assert str(problems(quoted, max_rows=10)).startswith("the file has 11 job rows")


def test_every_problem_is_reported_at_once() -> None:
    text = (
        "submit_time,runtime_1gpu,model,requested_gpus,min_gpus,max_gpus,job_id,serial_fractoin\n"
        "0,100,bert,4,1,8,a,\n"  # row 2: fine
        "0,abc,bert,4,1,8,b,\n"  # row 3: runtime
        "-3,100,bert,4,1,8,c,\n"  # row 4: submit
        "0,100,gpt,4,1,8,d,\n"  # row 5: model
        "0,100,bert,2.5,1,8,e,\n"  # row 6: fractional request
        "0,100,bert,4,9,8,f,\n"  # row 7: min > max
        "0,100,bert,4,1,8,a,\n"  # row 8: duplicate id
        "0,100,bert,4\n"  # row 9: short line
    )
    err = problems(text)
    assert_reported(err, None, "serial_fractoin", "did you mean 'serial_fraction'?")
    assert_reported(err, 3, "runtime_1gpu", "'abc'")
    assert_reported(err, 4, "submit_time", "'-3'")
    assert_reported(err, 5, "model", "'gpt'")
    assert_reported(err, 6, "requested_gpus", "'2.5'")
    assert_reported(err, 7, "min_gpus", "more than max_gpus")
    assert_reported(err, 8, "job_id", "already used on row 2")
    assert_reported(err, 9, None, "got 4 fields")
    assert len(err.problems) == 8
    assert len(str(err).splitlines()) == 8


def test_round_trip_of_a_generated_workload(tmp_path: Path) -> None:
    workload = generate(GeneratorConfig(jobs=300, seed=3), Cluster())
    again = load_workload(to_csv_bytes(workload))
    pd.testing.assert_frame_equal(again.frame, workload.frame)
    path = tmp_path / "mine.csv"
    save_csv(workload, path)
    from_file = load_workload(path)
    assert from_file.name == "mine"
    pd.testing.assert_frame_equal(from_file.frame, workload.frame)


def test_round_trip_keeps_parameters_and_ignored_columns() -> None:
    last = template_csv().partition("\n")[0].rsplit(",", 1)[1]
    text = template_csv().replace("\n", ",x\n").replace(f"{last},x", f"{last},note", 1)
    workload = load_workload(text)
    assert workload.ignored_columns == ("note",)
    again = load_workload(to_csv_bytes(workload))
    pd.testing.assert_frame_equal(again.frame, workload.frame)
    assert again.ignored_columns == ("note",)


def test_float_times_survive_exactly() -> None:
    times = np.array([0.1, 1 / 3, 12345.678901234567])
    text = "submit_time,runtime_1gpu\n" + "".join(f"{t!r},{t + 1!r}\n" for t in times.tolist())
    workload = load_workload(to_csv_bytes(load_workload(text)))
    assert workload.frame["submit_time"].tolist() == times.tolist()


def test_sources_path_bytes_text_and_file_objects(tmp_path: Path) -> None:
    text = "submit_time,runtime_1gpu\n0,1\n"
    path = tmp_path / "jobs.csv"
    path.write_text(text)
    upload = io.BytesIO(text.encode())
    upload.name = "upload.csv"
    for source, name in [
        (path, "jobs"),
        (str(path), "jobs"),
        (text.encode(), "workload"),
        (text, "workload"),
        (upload, "upload"),
        (io.StringIO(text), "workload"),
    ]:
        workload = load_workload(source)
        assert (len(workload), workload.name) == (1, name)


def test_byte_order_mark_and_windows_line_ends() -> None:
    data = "\ufeffsubmit_time,runtime_1gpu\r\n0,1\r\n5,2\r\n".encode()
    workload = load_workload(data)
    assert workload.frame.columns[0] == "submit_time"
    assert workload.frame["runtime_1gpu"].tolist() == [1.0, 2.0]


def test_unknown_format_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown format 'xls'"):
        load_workload("a\n", fmt="xls")


def test_gpu_counts_above_the_cluster_name_the_cluster_not_an_unset_max() -> None:
    cluster = Cluster(1, 4)
    err = problems("submit_time,runtime_1gpu,min_gpus\n0,100,8\n", cluster=cluster)
    assert str(err) == "row 2, column 'min_gpus': got 8, more than the 4 GPUs of the 1x4 cluster"
    err = problems("submit_time,runtime_1gpu,requested_gpus\n0,100,8\n", cluster=cluster)
    assert str(err) == (
        "row 2, column 'requested_gpus': got 8, more than the 4 GPUs of the 1x4 cluster"
    )
    err = problems("submit_time,runtime_1gpu,requested_gpus,min_gpus\n0,100,1,2\n")
    assert str(err) == "row 2, column 'requested_gpus': got 1, expected at least min_gpus 2"


@pytest.mark.parametrize(("separator", "called"), [(";", "';'"), ("\t", "tab")])
def test_a_file_with_another_separator_says_so(separator: str, called: str) -> None:
    text = f"submit_time{separator}runtime_1gpu\n0{separator}100\n"
    err = problems(text)
    header = f"submit_time{separator}runtime_1gpu"
    assert str(err) == (
        f"row 1: the header is one column, {header!r}: the file looks {called}-separated, "
        "expected columns separated by commas (',')"
    )
    assert len(err.problems) == 1


def test_a_missing_file_raises_file_not_found_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.csv"
    for source in (missing, str(missing)):
        with pytest.raises(FileNotFoundError) as caught:
            load_workload(source)
        assert caught.value.filename == str(missing)
        assert describe(caught.value) == f"{missing}: no such file"


def test_no_row_limit_by_default_and_a_limit_must_be_positive() -> None:
    text = "submit_time,runtime_1gpu\n" + "0,1\n" * 100_001
    assert len(load_workload(text)) == 100_001
    with pytest.raises(ValueError, match="max_rows must be at least 1, or None"):
        load_workload(text, max_rows=0)


def test_notes_name_the_ignored_columns() -> None:
    workload = load_workload("submit_time,runtime_1gpu,user,notes\n0,100,ann,first\n")
    assert workload.notes == ("ignored columns that are not workload columns: 'user', 'notes'",)
    assert load_workload("submit_time,runtime_1gpu\n0,1\n").notes == ()
    wide = load_workload("submit_time,runtime_1gpu," + ",".join(f"c{i}" for i in range(6000))
                         + "\n0,1" + "," * 6000 + "\n")
    assert len(wide.ignored_columns) == 6000  # all kept; the note names ten (fuzz case #961)
    assert wide.notes == ("ignored columns that are not workload columns: "
                          + ", ".join(f"'c{i}'" for i in range(10)) + " and 5,990 more",)


TRICKY_NUMBERS = [
    "0.1",
    "12345.678901234567",
    "0.30000000000000004",
    "1e5",
    "1E+05",
    "2.5e-3",
    "+7",
    " 8",
    "9 ",
    "\t10",
    "007",
    "-0",
    "1e400",
    "123456789012345678",
    "99999999999999999999",
    "nan",
    "NaN",
    "NA",
    "inf",
    "-inf",
    "Infinity",
    "0x10",
    "1_000",
    ".5",
    "5.",
    "1.2.3",
    "",
    "True",
    "\u00a05",
    "٣",
]


@pytest.mark.parametrize("cell", TRICKY_NUMBERS)
def test_unquoted_and_quoted_files_parse_numbers_identically(cell: str) -> None:
    """Files without quotes take a faster reader; it must agree bit for bit (or in the error)."""
    rows = [("1.5", "100"), (cell, cell), ("3", "300")]
    plain = "submit_time,runtime_1gpu\n" + "".join(f"{a},{b}\n" for a, b in rows)
    quoted = "submit_time,runtime_1gpu\n" + "".join(f'"{a}","{b}"\n' for a, b in rows)
    outcomes = []
    for text in (plain, quoted):
        try:
            frame = load_workload(text).frame
            outcomes.append(frame[["submit_time", "runtime_1gpu"]].to_numpy().tobytes())
        except WorkloadError as err:
            outcomes.append(str(err))
    assert outcomes[0] == outcomes[1]


def test_a_large_file_loads_fast(tmp_path: Path) -> None:
    cluster = Cluster(64, 4)
    path = tmp_path / "big.csv"
    save_csv(generate(GeneratorConfig(jobs=200_000, load=0.9, seed=0), cluster), path)
    started = time.perf_counter()
    workload = load_workload(path, cluster=cluster)
    print(f"load 200k rows: {time.perf_counter() - started:.3f} s")
    assert len(workload) == 200_000
    assert time.perf_counter() - started < 5.0  # 0.6 s on a free core; 1.9 s before the fast path


def test_a_run_time_beyond_a_year_is_a_unit_mistake() -> None:
    with pytest.raises(WorkloadError) as caught:
        load_workload("submit_time,runtime_1gpu\n0,60\n10,1e300\n")
    assert str(caught.value) == (
        "row 3, column 'runtime_1gpu': got '1e300', expected a number of seconds in "
        "[0.001, 31,536,000]"
    )
