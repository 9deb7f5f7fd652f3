"""``compare`` from the command line: a file is one workload, and the metrics it defines."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from engine.cli import main
from engine.modes import MODE_POLICIES

POLICIES = ["--policies", "fifo-request,sjf-knee", "--nodes", "2"]


@pytest.fixture
def workload_file(tmp_path, capsys) -> str:
    path = tmp_path / "w.csv"
    assert main(["workload", "--jobs", "12", "--seed", "1", "--nodes", "2", "-o", str(path)]) == 0
    capsys.readouterr()
    return str(path)


def test_a_file_runs_once_whatever_the_seeds(workload_file, capsys):
    assert main(["compare", "--workload", workload_file, "--seeds", "3", *POLICIES, "--json"]) == 0
    out, err = capsys.readouterr()
    assert [(r["policy"], r["seed"]) for r in json.loads(out)] == [
        ("fifo-request", 0),
        ("sjf-knee", 0),
    ]
    (note,) = err.splitlines()
    assert note.startswith("note: --seeds applies to generated workloads only")
    assert workload_file in note


def test_a_file_without_seeds_needs_no_note(workload_file, capsys):
    assert main(["compare", "--workload", workload_file, *POLICIES, "--json"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("source", [["--jobs", "12"], ["--workload", "FILE", "--seeds", "3"]])
def test_one_workload_shows_means_without_an_interval(source, workload_file, capsys):
    source = [workload_file if arg == "FILE" else arg for arg in source]
    assert main(["compare", *source, *POLICIES]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert ": 1 workload (" in lines[0] and "one run each, so no interval" in lines[0]
    assert lines[1].split()[0] == "policy"
    for row in lines[2:4]:
        assert "±" not in row and "nan" not in row


def test_several_workloads_show_the_interval(capsys):
    assert main(["compare", "--jobs", "12", "--seeds", "2", *POLICIES]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "2 workloads" in lines[0] and "mean ± 95% CI" in lines[0]
    assert "±" in lines[2]


def test_help_defines_every_metric_it_shows(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    out = capsys.readouterr().out
    for key in ("avg_jct", "p95_jct", "makespan", "utilization"):
        assert f"\n  {key} " in out
    assert "last job end minus first submit" in out


def test_the_documented_definitions_are_what_the_engine_computes(tmp_path, capsys):
    """The help and the Summary docstrings define each metric; check each from the job table."""
    jobs_csv = tmp_path / "jobs.csv"
    argv = ["simulate", "--jobs", "30", "--load", "1.2", "--nodes", "2", "--policy", "sjf-knee"]
    assert main([*argv, "--json", "--jobs-csv", str(jobs_csv)]) == 0
    summary = json.loads(capsys.readouterr().out)
    jobs = pd.read_csv(jobs_csv)
    jct = jobs["end"] - jobs["submit"]
    makespan = jobs["end"].max() - jobs["submit"].min()
    held = (jobs["gpus"] * (jobs["end"] - jobs["start"])).sum()
    assert summary["avg_jct"] == pytest.approx(jct.mean())
    assert summary["p50_jct"] == pytest.approx(np.percentile(jct, 50))
    assert summary["p95_jct"] == pytest.approx(np.percentile(jct, 95))
    assert summary["makespan"] == pytest.approx(makespan)
    assert summary["utilization"] == pytest.approx(held / (2 * 4 * makespan))
    assert summary["avg_wait"] == pytest.approx((jobs["start"] - jobs["submit"]).mean())
    assert summary["avg_slowdown"] == pytest.approx(jobs["slowdown"].mean())
    assert summary["avg_slowdown"] >= 1
    assert summary["lower_bound_avg_jct"] == pytest.approx((jct / jobs["slowdown"]).mean())
    assert summary["jct_over_bound"] == pytest.approx(
        summary["avg_jct"] / summary["lower_bound_avg_jct"]
    )


def test_mode_all_prints_one_row_per_mode_with_its_best_policy(capsys):
    argv = ["compare", "--mode", "all", "--jobs", "12", "--seeds", "2", "--nodes", "2"]
    assert main([*argv, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["mode"] for r in rows] == ["rigid", "moldable", "malleable"]
    assert rows[0]["policy"] in MODE_POLICIES["rigid"]
    assert all(r["runs"] == 2 and r["avg_jct_ci95"] is not None for r in rows)
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:3] == ["mode", "policy", "avg"] and "restarts" in lines[1]
    assert [line.split()[0] for line in lines[2:5]] == ["rigid", "moldable", "malleable"]


def test_one_mode_compares_its_own_candidates_on_jobs_in_that_mode(capsys):
    argv = ["compare", "--mode", "malleable", "--jobs", "12", "--nodes", "2", "--json"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in rows] == list(MODE_POLICIES["malleable"])
    assert all(r["mode"] == "malleable" and r["restarts"] == r["resizes"] + r["preemptions"]
               for r in rows)
    assert main(["compare", "--mode", "rigid", *POLICIES]) == 0
    out = capsys.readouterr().out
    assert "(rigid jobs)" in out.splitlines()[0] and "restarts" in out


def test_mode_all_refuses_a_policy_list(capsys):
    assert main(["compare", "--mode", "all", *POLICIES]) == 2
    assert "leave --policies out" in capsys.readouterr().err
