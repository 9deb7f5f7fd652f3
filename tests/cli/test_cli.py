"""The CLI: JSON summaries, written workloads, and readable errors with exit status 2."""

from __future__ import annotations

import errno
import json
import os
import re
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
        (["simulate", "--workload", "/no/such/file.csv"], "/no/such/file.csv: no such file"),
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


@pytest.mark.parametrize("damage", ["missing", "corrupt card", "tampered weights"])
def test_a_bad_pretrained_folder_is_one_message_and_exit_2(tmp_path, monkeypatch, capsys, damage):
    import shutil

    from engine.drl.pretrained import shipped_policy
    from engine.paths import PRETRAINED_ENV, pretrained_dir

    folder = tmp_path / "weights"
    if damage != "missing":
        shutil.copytree(pretrained_dir(), folder)
    if damage == "corrupt card":
        (folder / "drl_policy.json").write_text("{")
    if damage == "tampered weights":
        (folder / "drl_policy.npz").write_bytes(b"not the weights")
    monkeypatch.setenv(PRETRAINED_ENV, str(folder))
    shipped_policy.cache_clear()
    try:
        assert main(["simulate", "--jobs", "5", "--policy", "drl"]) == 2
    finally:
        shipped_policy.cache_clear()
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    expected = {"missing": "drl_policy.json: model card missing",
                "corrupt card": "drl_policy.json: not valid JSON",
                "tampered weights": "drl_policy.npz: sha256"}[damage]
    assert expected in err


def test_a_missing_workload_file_is_named_plainly(tmp_path, capsys):
    assert main(["simulate", "--workload", str(tmp_path / "nope.csv")]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'nope.csv'}: no such file\n"


def test_only_the_chosen_command_is_imported():
    code = ("import sys; from engine.cli import main; main(['speedup', '--max-gpus', '2']); "
            "print(sorted(m for m in sys.modules if m.startswith(('torch', 'engine.cli.'))), "
            "file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.strip() == "['engine.cli.common', 'engine.cli.speedup']"


def test_every_summary_metric_is_defined_for_users(capsys):
    from engine.simulator.results import METRIC_DEFINITIONS

    assert main(["simulate", "--jobs", "5", "--json"]) == 0
    printed = set(json.loads(capsys.readouterr().out)) - {"policy", "cluster"}
    assert printed == set(METRIC_DEFINITIONS)


@pytest.mark.parametrize("command", sorted(__import__("engine.cli").cli.COMMANDS))
def test_every_command_loads_and_has_help(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: python -m engine {command}")


def test_max_rows_refuses_a_bigger_file_and_says_how_to_raise_it(tmp_path, capsys):
    target = tmp_path / "w.csv"
    assert main(["workload", "--jobs", "30", "-o", str(target)]) == 0
    assert main(["simulate", "--workload", str(target), "--max-rows", "20"]) == 2
    err = capsys.readouterr().err
    assert "30 job rows, more than the limit of 20" in err and "--max-rows N" in err
    assert main(["simulate", "--workload", str(target), "--json"]) == 0  # no limit by default


def test_too_many_generated_jobs_is_refused_before_any_work(capsys):
    assert main(["simulate", "--jobs", "10000000"]) == 2
    assert "1,000,000" in capsys.readouterr().err


def test_ignored_columns_and_clipping_are_reported_on_stderr(tmp_path, capsys):
    target = tmp_path / "extra.csv"
    target.write_text("submit_time,runtime_1gpu,owner\n0,60,ana\n5,90,bo\n")
    assert main(["simulate", "--workload", str(target), "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["jobs"] == 2
    assert "note:" in out.err and "owner" in out.err


def test_a_philly_row_with_no_gpus_is_a_row_error(tmp_path, capsys):
    trace = tmp_path / "ph0.csv"
    trace.write_text("timestamp,duration,num_gpus\n2017-10-09 07:01:55,66,1\n"
                     "2017-10-09 07:03:55,50,0\n")
    for command in ("simulate", "compare", "workload"):
        assert main([command, "--workload", str(trace)]) == 2
        err = capsys.readouterr().err
        assert "row 3, column 'num_gpus'" in err and "Traceback" not in err


@pytest.mark.parametrize(("argv0", "shown"), [
    ("/venv/bin/moldable-lab", "moldable-lab"),
    ("/src/engine/__main__.py", "python -m engine"),
])
def test_the_usage_line_names_the_command_the_user_typed(argv0, shown, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [argv0, "simulate", "--help"])
    with pytest.raises(SystemExit):
        main()
    assert capsys.readouterr().out.startswith(f"usage: {shown} simulate")


def test_simulate_prints_times_with_their_units(capsys):
    assert main(["simulate", "--jobs", "40", "--seed", "3"]) == 0
    lines = dict(line.strip().split(": ", 1) for line in capsys.readouterr().out.splitlines()[1:])
    assert re.fullmatch(r"[\d,]+ s \([\d.]+ (min|h)\)", lines["avg_jct"]), lines["avg_jct"]
    assert re.fullmatch(r"[\d,]+ s( \([\d.]+ (min|h|days)\))?", lines["makespan"])
    assert re.fullmatch(r"\d\.\d{3}", lines["utilization"])  # a ratio keeps its digits


NOT_WRITTEN = "not written (No space left on device); it is as it was before"


def _full_disk(_table, file, **_kwargs):
    file.write("submit_time,runtime_1gpu\n0,36")
    file.flush()
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_leaves_the_output_file_as_it_was(tmp_path, capsys, monkeypatch):
    target = tmp_path / "w.csv"
    target.write_text("the earlier file\n")
    monkeypatch.setattr("engine.cli.workload.save_csv", _full_disk)
    assert main(["workload", "--jobs", "5", "-o", str(target)]) == 2
    assert target.read_text() == "the earlier file\n"
    assert capsys.readouterr().err == f"error: {target}: {NOT_WRITTEN}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["w.csv"]  # no temporary file left


def test_simulate_prints_its_summary_even_when_the_jobs_csv_cannot_be_written(
    tmp_path, capsys, monkeypatch
):
    target = tmp_path / "jobs.csv"
    monkeypatch.setattr("pandas.DataFrame.to_csv", _full_disk)
    assert main(["simulate", "--jobs", "5", "--json", "--jobs-csv", str(target)]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out)["jobs"] == 5
    assert err == f"error: {target}: {NOT_WRITTEN}\n"
    assert not target.exists() and not list(tmp_path.iterdir())


def test_an_output_file_gets_the_usual_permissions(tmp_path):
    target = tmp_path / "w.csv"
    mask = os.umask(0o022)
    try:
        assert main(["workload", "--jobs", "5", "-o", str(target)]) == 0
    finally:
        os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o644


def test_with_json_nothing_but_the_document_reaches_stdout(tmp_path):
    # Ray's driver threads and workers write "worker died" lines straight to the
    # process's stdout; here a child process stands in for them.
    script = (
        "import os, subprocess, sys\n"
        "import engine.cli.simulate as simulate\n"
        "real = simulate.run_policy\n"
        "def noisy(*args, **kwargs):\n"
        "    os.write(1, b'(raylet) A worker died\\n')\n"
        "    subprocess.run([sys.executable, '-c', 'print(\"child line\")'], check=True)\n"
        "    return real(*args, **kwargs)\n"
        "simulate.run_policy = noisy\n"
        "from engine.cli import main\n"
        "sys.exit(main(['simulate', '--jobs', '5', '--json']))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["jobs"] == 5
    assert "A worker died" in done.stderr and "child line" in done.stderr
