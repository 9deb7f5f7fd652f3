"""``reproduce`` from the command line: where the Pollux traces come from, and one-seed tables.

The real table takes minutes, so these shrink it to one small generated cell.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main, reproduce
from engine.cluster import Cluster
from engine.paths import pollux_workloads

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


def test_the_default_folder_is_the_eight_workloads_shipped_with_the_engine(monkeypatch):
    seen = []
    monkeypatch.setattr(reproduce, "pollux_traces", lambda folder: seen.append(folder) or [])
    monkeypatch.setattr(reproduce, "evaluate", lambda *a, **k: {"cells": []})
    monkeypatch.setattr(reproduce, "format_report", lambda report: "")
    assert main(["reproduce", "--seeds", "1", "--workers", "1"]) == 0
    assert seen == [pollux_workloads()]
    assert sorted(p.name for p in pollux_workloads().glob("workload-*.csv")) == [
        f"workload-{n}.csv" for n in range(1, 9)]
    assert "Apache" in (pollux_workloads() / "NOTICE.md").read_text()


def test_one_seed_prints_no_interval_and_json_null(one_small_cell, monkeypatch, capsys):
    monkeypatch.setattr(reproduce, "pollux_traces", lambda folder: [])
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
