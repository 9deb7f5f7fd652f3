"""Reading sources: text must be UTF-8 and not binary, and the error says where."""

from __future__ import annotations

import pytest

from engine.workload import WorkloadError, load_workload
from engine.workload.source import read_source


def test_non_utf8_file_names_the_line_and_byte() -> None:
    data = b"submit_time,runtime_1gpu\n0,1\n" + "5,2 # café\n".encode("latin-1")
    with pytest.raises(WorkloadError) as caught:
        load_workload(data)
    (problem,) = caught.value.problems
    assert problem.row == 3
    assert "byte 0xe9 is not UTF-8" in str(problem)
    assert "CSV UTF-8" in str(problem)


@pytest.mark.parametrize("data", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"a,b\n\x00\x01\n"])
def test_binary_file(data: bytes) -> None:
    with pytest.raises(WorkloadError, match="looks binary"):
        load_workload(data)


def test_a_one_line_string_is_a_path_and_a_multi_line_one_is_text(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        read_source(str(tmp_path / "missing.csv"))
    assert read_source("a,b\n1,2\n") == ("a,b\n1,2\n", "workload")
