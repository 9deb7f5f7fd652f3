"""``reproduce`` from the command line: where the Pollux traces come from, and one-seed tables.

The real table takes minutes, so these shrink it to one small generated cell.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main, reproduce
from engine.cluster import Cluster
from engine.paths import DATA_ENV

TRACE = """\
name,time,application,num_replicas,batch_size
cifar10-0,107,cifar10,6,2048
deepspeech2-1,110,deepspeech2,6,320
cifar10-2,300,cifar10,2,128
"""


@pytest.fixture
def one_small_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reproduce, "CLUSTERS", (Cluster(2, 4),))
    monkeypatch.setattr(reproduce, "LOADS", (0.9,))


def _traces(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "workload-1.csv").write_text(TRACE)
    return folder


@pytest.mark.parametrize("make", [lambda tmp: tmp / "nope", lambda tmp: tmp])
def test_a_named_folder_without_traces_is_an_error_before_any_run(make, tmp_path, monkeypatch,
                                                                  capsys):
    monkeypatch.setattr(reproduce, "evaluate", lambda *a, **k: pytest.fail("ran anyway"))
    folder = make(tmp_path)
    assert main(["reproduce", "--pollux-dir", str(folder)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith(f"error: {folder}: ")
    assert "workload-*.csv" in line


def test_a_named_folder_with_traces_gets_the_pollux_cell(one_small_cell, tmp_path, capsys):
    folder = _traces(tmp_path / "traces")
    argv = ["reproduce", "--seeds", "1", "--workers", "1", "--json"]
    assert main([*argv, "--pollux-dir", str(folder)]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert [c["cell"] for c in report["cells"]][-1] == "Pollux traces (1), 64 GPUs"
    assert "pollux_left_out" not in report["setup"]
    assert err == ""


def test_the_default_folder_comes_from_the_reference_data(one_small_cell, tmp_path, monkeypatch,
                                                          capsys):
    _traces(tmp_path / "pollux" / "workloads")
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert main(["reproduce", "--seeds", "1", "--workers", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cells"][-1]["cell"].startswith("Pollux traces (1)")


def test_a_missing_default_folder_leaves_the_cell_out_and_says_so(one_small_cell, tmp_path,
                                                                  monkeypatch, capsys):
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert main(["reproduce", "--seeds", "1", "--workers", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    (note,) = err.splitlines()
    assert note.startswith(f"note: {tmp_path / 'pollux' / 'workloads'}: no such folder")
    assert "Pollux cell is left out" in note and "--pollux-dir" in note
    report = json.loads(out)
    assert [c["cell"] for c in report["cells"]] == ["8 GPUs, load 0.9"]
    assert report["setup"]["pollux_left_out"] == note.removeprefix("note: ")


def test_one_seed_prints_no_interval_and_json_null(one_small_cell, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert main(["reproduce", "--seeds", "1", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out and "+-" not in out
    assert "drl" in out and "(1 run)" in out
    assert main(["reproduce", "--seeds", "1", "--workers", "1", "--json"]) == 0
    (cell,) = json.loads(capsys.readouterr().out)["cells"]
    drl = cell["policies"]["drl"]
    assert drl["ci95"] is None and drl["runs"] == 1


def test_quick_and_a_pollux_folder_are_exclusive(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["reproduce", "--quick", "--pollux-dir", str(tmp_path)])
    assert exit_.value.code == 2
    assert "not allowed with argument --quick" in capsys.readouterr().err
