"""Train: a tiny PPO run in the background, its curve, and its use on other pages."""

from __future__ import annotations

import time
from types import SimpleNamespace

from apptest_helpers import open_app, texts

from engine.drl.ppo_config import PPOConfig

TINY = {"tr_iterations": 1, "tr_envs": 1, "tr_steps": 16, "tr_bc": 1, "tr_val": 1}


def test_train_page_renders_the_form() -> None:
    at = open_app("train")
    assert not at.exception
    assert "start training" in texts(at).lower()


def start_tiny(at: object, **settings: int) -> None:
    """Start a run of the tiny settings (with ``settings`` over them) on one 8-GPU node."""
    for key, value in {**TINY, **settings}.items():
        at.number_input(key=key).set_value(value)
    at.multiselect(key="tr_sizes").set_value([8])
    at.slider(key="tr_jobs").set_value((20, 30))
    at.button(key="FormSubmitter:train_form-Start training").click().run()


def test_tiny_training_run_is_kept_and_usable() -> None:
    at = open_app("train")
    start_tiny(at)
    assert not at.exception
    run = at.session_state["training"]
    run.thread.join(120)
    assert run.error is None and run.result is not None
    at.run()
    assert not at.exception
    assert "trained-1" in texts(at)
    (curve,) = at.get("plotly_chart")  # the learning curve, its lines named in words
    assert "drl on the validation workloads" in curve.proto.spec
    assert "jct_over_bound" not in curve.proto.spec.replace("_jct_over_bound\"", "")
    assert at.get("download_button")
    at.switch_page("app_pages/live.py").run()
    at.selectbox(key="w_policy").set_value("trained-1").run()
    at.button(key="live_step").click().run()
    assert not at.exception
    assert len(at.table[0].value) > 0


def test_the_relabelling_count_reaches_the_run() -> None:
    at = open_app("train")
    assert at.number_input(key="tr_segments").value == PPOConfig.bc_segments  # as shipped
    start_tiny(at, tr_segments=0)
    run = at.session_state["training"]
    run.thread.join(120)
    assert run.error is None and run.config.bc_segments == 0


def test_stop_ends_training_early() -> None:
    at = open_app("train")
    start_tiny(at, tr_iterations=50)
    run = at.session_state["training"]
    while run.warming_up and run.running:  # a stop after the warm start ends it cleanly
        time.sleep(0.1)
    run.request_stop()  # what the Stop button does
    run.thread.join(120)
    assert run.result is not None and run.result.stopped
    at.run()
    assert "Stopped" in texts(at)


def _start_a_long_warm_start():
    at = open_app("train")
    at.number_input(key="tr_bc").set_value(400)  # a warm start of minutes
    at.button(key="FormSubmitter:train_form-Start training").click().run()
    run = at.session_state["training"]
    assert at.button(key="FormSubmitter:train_form-Start training").disabled
    deadline = time.monotonic() + 120
    while run.warm is None and run.running and time.monotonic() < deadline:
        time.sleep(0.2)
    assert run.running and run.warming_up and run.warm is not None
    return at, run


def test_the_warm_start_shows_its_progress_and_stop_keeps_its_weights() -> None:
    at, run = _start_a_long_warm_start()
    at.run()
    bar = at.get("progress")[0].proto
    assert bar.text.startswith("Warm start: imitating the teacher, who plays episode ")
    rounds = PPOConfig().dagger_rounds + 1  # plain cloning, then each DAgger round
    assert f"of 400 (round 1 of {rounds}); " in bar.text and 0 < run.fraction < 1
    run.request_stop()  # what the Stop button does
    run.thread.join(60)  # generous: the stop is polled well under a second apart
    assert not run.running and not run.halted  # it stopped by itself, not ended from outside
    assert run.result is not None and run.result.stopped and run.result.iterations == 0
    assert set(run.result.best_state) == set(run.result.model.state_dict())
    at.run()
    assert not at.exception
    assert "Stopped during the warm start" in texts(at) and "trained-1" in texts(at)
    assert at.get("download_button")
    assert not at.button(key="FormSubmitter:train_form-Start training").disabled


def test_a_child_that_does_not_stop_in_time_is_ended(monkeypatch) -> None:
    import lab.training

    monkeypatch.setattr(lab.training, "STOP_GRACE_S", 0.5)
    at, run = _start_a_long_warm_start()
    run.stop_asked = time.monotonic()  # Stop asked, but the child is never told: it goes on
    run.thread.join(60)
    assert not run.running and run.result is None and run.error is None
    assert "it was ended: nothing was kept" in run.halted
    at.run()
    assert not at.exception and "nothing was kept" in texts(at)


def test_the_page_says_where_training_runs() -> None:
    from engine.parallel import describe_backend

    at = open_app("train")
    assert f"Training's episodes run on {describe_backend()}." in texts(at)


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


def test_the_ending_says_which_weights_a_stop_kept() -> None:
    from lab.line import Line
    from lab.training import TrainingRun, ending

    run = TrainingRun(Line(1), PPOConfig(dagger_rounds=2))
    run.result = SimpleNamespace(stopped=True, iterations=0, seconds=12.0,
                                 history=({"phase": "bc"},))
    assert ending(run) == ("Stopped during the warm start in 12 s, after 1 of 3 cloning "
                           "rounds: kept the best cloned weights so far.")
    run.result.history = ()
    assert "before the first cloning round ended" in ending(run)
    run.result.iterations = 4
    assert ending(run) == "Stopped after 4 PPO iterations in 12 s."
    run.result.stopped = False
    assert ending(run) == "Finished after 4 PPO iterations in 12 s."


def test_the_cloning_loss_and_trace_shaped_share_reach_the_run() -> None:
    at = open_app("train")
    assert at.selectbox(key="tr_loss").value == PPOConfig.bc_loss  # as shipped
    at.selectbox(key="tr_loss").set_value("expected-regret")
    at.slider(key="tr_trace_shaped").set_value(0.5)
    start_tiny(at)
    run = at.session_state["training"]
    run.thread.join(120)
    assert run.error is None and run.config.bc_loss == "expected-regret"
    assert run.config.curriculum.trace_shaped == 0.5


def test_the_trace_shaped_preset_fills_in_its_models() -> None:
    at = open_app("train")
    at.selectbox(key="tr_preset").set_value("trace-shaped").run()
    assert not at.exception
    assert at.multiselect(key="tr_models").value == ["amdahl"]
    assert at.slider(key="tr_loads").value == (1.0, 5.0)
