"""``simulate --mode`` and the elastic policies from the command line."""

from __future__ import annotations

import json

import pytest

from engine.cli import main


def _summary(capsys, *args):
    assert main(["simulate", "--jobs", "30", "--seed", "2", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_tiresias_preempts_rigid_jobs_and_counts_it(capsys):
    summary = _summary(capsys, "--policy", "tiresias", "--mode", "rigid")
    assert summary["completed"] == 30 and summary["resizes"] == 0


def test_the_restart_delay_only_slows_elastic_runs(capsys):
    slow = _summary(capsys, "--policy", "optimus-elastic", "--mode", "malleable")
    fast = _summary(capsys, "--policy", "optimus-elastic", "--mode", "malleable",
                    "--restart-delay", "0")
    assert slow["resizes"] > 0 and fast["avg_jct"] < slow["avg_jct"]


def test_moldable_mode_is_the_default_run(capsys):
    assert _summary(capsys, "--policy", "knee") == _summary(capsys, "--policy", "knee",
                                                            "--mode", "moldable")


def test_a_negative_delay_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--restart-delay", "-1"])
    assert exit_.value.code == 2
    assert "expected seconds >= 0" in capsys.readouterr().err
