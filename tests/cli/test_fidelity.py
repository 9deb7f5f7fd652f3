"""``fidelity``: Pollux workloads against the artifact's published figures, through the
same loader and job model as plain ``simulate``."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.cli.fidelity import PUBLISHED, measure
from engine.paths import pollux_workloads


def test_tiresias_on_workload_6_is_near_the_artifacts_figure():
    (row,) = measure(["workload-6"], ("tiresias",))
    assert row.artifact == PUBLISHED["tiresias"]["workload-6"] == pytest.approx(3469.69, abs=0.01)
    assert abs(row.error) < 0.10  # measured: -2.5 %


@pytest.mark.parametrize(("policy", "ours", "mode"), [
    ("tiresias", "tiresias", "rigid"), ("optimus", "optimus-elastic", "malleable"),
])
def test_fidelity_prints_what_plain_simulate_prints(policy, ours, mode, capsys):
    (row,) = measure(["workload-3"], (policy,))
    path = pollux_workloads() / "workload-3.csv"
    assert main(["simulate", "--workload", str(path), "--policy", ours, "--mode", mode,
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["avg_jct"] == row.ours


def test_the_command_prints_json_rows(capsys):
    assert main(["fidelity", "--workloads", "workload-1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in rows] == ["tiresias", "optimus-elastic", "pollux-like"]
    assert all(abs(r["relative_error"]) < 0.2 for r in rows)
    ours = {r["policy"]: r["ours"] for r in rows}  # the artifact's order: Pollux first
    assert ours["pollux-like"] < ours["tiresias"] < ours["optimus-elastic"]


def test_an_unknown_workload_is_a_readable_error(capsys):
    assert main(["fidelity", "--workloads", "workload-9"]) == 2
    assert "unknown workload 'workload-9'" in capsys.readouterr().err
