"""Train: a tiny PPO run in the background, its curve, and its use on other pages."""

from __future__ import annotations

from apptest_helpers import open_app, texts

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
    run.stop.set()  # what the Stop button does
    run.thread.join(120)
    assert run.result is not None and run.result.stopped
    at.run()
    assert "Stopped" in texts(at)
