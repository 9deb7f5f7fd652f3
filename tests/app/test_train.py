"""Train: a tiny PPO run in the background, its curve, and its use on other pages."""

from __future__ import annotations

import time
from types import SimpleNamespace

from apptest_helpers import open_app, texts

from engine.drl.ppo import PPOConfig

TINY = {"tr_iterations": 1, "tr_envs": 1, "tr_steps": 16, "tr_bc": 1, "tr_val": 1}


def test_train_page_renders_the_form() -> None:
    at = open_app("train")
    assert not at.exception
    assert "start training" in texts(at).lower()


def test_tiny_training_run_is_kept_and_usable() -> None:
    at = open_app("train")
    for key, value in TINY.items():
        at.number_input(key=key).set_value(value)
    at.multiselect(key="tr_sizes").set_value([8])
    at.slider(key="tr_jobs").set_value((20, 30))
    at.button(key="FormSubmitter:train_form-Start training").click().run()
    assert not at.exception
    run = at.session_state["training"]
    run.thread.join(120)
    assert run.error is None and run.result is not None
    at.run()
    assert not at.exception
    assert "trained-1" in texts(at)
    assert at.get("plotly_chart")  # the learning curve
    assert at.get("download_button")
    at.switch_page("app_pages/live.py").run()
    at.selectbox(key="w_policy").set_value("trained-1").run()
    at.button(key="live_step").click().run()
    assert not at.exception
    assert len(at.dataframe[0].value) > 0


def test_stop_ends_training_early() -> None:
    at = open_app("train")
    for key, value in {**TINY, "tr_iterations": 50}.items():
        at.number_input(key=key).set_value(value)
    at.multiselect(key="tr_sizes").set_value([8])
    at.slider(key="tr_jobs").set_value((20, 30))
    at.button(key="FormSubmitter:train_form-Start training").click().run()
    run = at.session_state["training"]
    while run.warming_up and run.running:  # a stop after the warm start ends it cleanly
        time.sleep(0.1)
    run.request_stop()  # what the Stop button does
    run.thread.join(120)
    assert run.result is not None and run.result.stopped
    at.run()
    assert "Stopped" in texts(at)


def test_stop_during_the_warm_start_ends_it_within_two_seconds() -> None:
    at = open_app("train")
    at.number_input(key="tr_bc").set_value(400)  # a warm start of minutes
    at.button(key="FormSubmitter:train_form-Start training").click().run()
    run = at.session_state["training"]
    assert at.button(key="FormSubmitter:train_form-Start training").disabled
    assert "Warm start" in at.get("progress")[0].proto.text
    time.sleep(3)
    assert run.running and run.warming_up
    asked = time.monotonic()
    run.request_stop()
    run.thread.join(5)
    assert not run.running and time.monotonic() - asked < 2
    at.run()
    assert not at.exception
    assert "Stopped during the warm start" in texts(at)
    assert not at.button(key="FormSubmitter:train_form-Start training").disabled


def test_the_verdict_says_worse_when_the_student_loses_to_its_teacher() -> None:
    from lab.line import Line
    from lab.training import TrainingRun, verdict

    run = TrainingRun(Line(1), PPOConfig())
    run.result = SimpleNamespace(best_score=6.15, teacher_score=3.26)
    run.drl_score = 3.0
    better, text = verdict(run)
    assert not better
    assert "89% worse than its teacher (3.26)" in text and "worse than the shipped" in text
    run.result = SimpleNamespace(best_score=2.9, teacher_score=3.26)
    better, text = verdict(run)
    assert better and "better than its teacher" in text
