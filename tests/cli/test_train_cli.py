"""`python -m engine train`: its cloning loss and curriculum options reach the run and its card."""

from __future__ import annotations

import json

import pytest

from engine.cli import main


def test_the_loss_and_trace_shaped_share_are_recorded_in_the_card(tmp_path, capsys):
    assert main(["train", "--iterations", "1", "--envs", "1", "--steps", "16",
                 "--bc-episodes", "2", "--bc-epochs", "1", "--dagger-rounds", "0",
                 "--val-episodes", "1", "--workers", "1", "--bc-loss", "expected-regret",
                 "--trace-shaped", "0.5", "--out", str(tmp_path / "run"),
                 "--export", str(tmp_path / "pre")]) == 0
    card = json.loads((tmp_path / "pre" / "drl_policy.json").read_text())
    settings = card["hyperparameters"]
    assert settings["bc_loss"] == "expected-regret"
    assert settings["curriculum"]["trace_shaped"] == 0.5
    assert "expected regret" in card["method"]


@pytest.mark.parametrize("flag, value", [("--trace-shaped", "1.5"), ("--bc-loss", "hinge")])
def test_a_bad_setting_is_refused_before_training(flag, value, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["train", flag, value])
    assert exit_.value.code == 2
    assert flag in capsys.readouterr().err
