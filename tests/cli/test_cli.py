"""The CLI: JSON summaries, written workloads, and readable errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.cli import main
from engine.workload import load_workload

SUMMARY_KEYS = {"avg_jct", "p50_jct", "p95_jct", "makespan", "utilization", "avg_wait", "jobs"}


def test_simulate_prints_the_summary_as_json(capsys):
    assert main(["simulate", "--jobs", "40", "--seed", "3", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary.keys() >= SUMMARY_KEYS
    assert summary["jobs"] == 40
    assert summary["avg_jct"] >= summary["lower_bound_avg_jct"] > 0


def test_simulate_is_deterministic_for_a_seed(capsys):
    main(["simulate", "--jobs", "30", "--seed", "5", "--json", "--policy", "knee"])
    first = capsys.readouterr().out
    main(["simulate", "--jobs", "30", "--seed", "5", "--json", "--policy", "knee"])
    assert capsys.readouterr().out == first


def test_workload_writes_a_csv_that_loads_back(tmp_path, capsys):
    target = tmp_path / "w.csv"
    assert main(["workload", "--jobs", "25", "--seed", "2", "-o", str(target)]) == 0
    assert len(load_workload(target)) == 25
    assert main(["simulate", "--workload", str(target), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["jobs"] == 25


def test_speedup_table(capsys):
    assert main(["speedup", "--models", "bert,linear", "--max-gpus", "8", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 16
    assert rows[0]["model"] == "bert"
    assert rows[0]["speedup"] == pytest.approx(1.0)
    assert rows[-1] == {"model": "linear", "gpus": 8, "nodes": 2, "speedup": 8.0, "efficiency": 1.0}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "--policy", "nope"], "unknown policy 'nope'"),
        (["simulate", "--workload", "/no/such/file.csv"], "No such file"),
        (["speedup", "--models", "bert,foo"], "unknown speedup model 'foo'"),
    ],
)
def test_bad_input_exits_2_with_one_readable_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_a_bad_csv_reports_every_problem_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("submit_time,runtime_1gpu,modle\n1,abc,bert\n-5,10,bert\n")
    done = subprocess.run(
        [sys.executable, "-m", "engine", "simulate", "--workload", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "did you mean 'model'" in done.stderr
    assert "row 2, column 'runtime_1gpu'" in done.stderr
    assert "row 3, column 'submit_time'" in done.stderr


def test_headroom_list_search_starts_from_any_policy(capsys):
    argv = ["headroom", "--search", "list", "--policy", "knee", "--trials", "40", "--jobs",
            "16", "--nodes", "2", "--load", "0.9", "--json"]
    assert main(argv) == 0
    (row,) = json.loads(capsys.readouterr().out)["workloads"]
    assert row["searched_avg_jct"] <= row["replayed_avg_jct"]
    assert row["simulations"] == 41


def test_headroom_shifts_need_a_one_start_at_a_time_policy(capsys):
    assert main(["headroom", "--policy", "knee", "--jobs", "8", "--nodes", "2"]) == 2
    assert "use --search list" in capsys.readouterr().err


def test_headroom_reports_a_search_that_never_ends_worse(capsys):
    argv = ["headroom", "--jobs", "16", "--nodes", "2", "--load", "0.9", "--seeds", "2",
            "--passes", "1", "--policy", "drl-expert", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["seed"] for row in report["workloads"]] == [0, 1]
    for row in report["workloads"]:
        assert row["searched_avg_jct"] <= row["drl-expert_avg_jct"]
        assert row["searched_vs_reference"] >= row["drl-expert_vs_reference"]
