"""Live simulation: the simulator advances in place; controls change what is drawn."""

from __future__ import annotations

import pytest
from apptest_helpers import open_app, weights_from


def card(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_live_page_draws_gantt_timeline_and_log() -> None:
    at = open_app("live", policy="sjf-knee")
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2
    assert card(at, "jobs done") == "0 / 40"


def test_step_advances_the_same_simulator() -> None:
    at = open_app("live", policy="sjf-knee")
    sim = at.session_state["live"].sim
    for _ in range(5):
        at.button(key="live_step").click().run()
    assert not at.exception
    assert at.session_state["live"].sim is sim  # advanced, never rebuilt
    assert sim.now > 0
    assert len(at.dataframe[0].value) == len(sim.decisions) > 0


def test_play_advances_and_policy_change_restarts() -> None:
    at = open_app("live", policy="sjf-knee")
    at.button(key="live_play").click().run()
    assert at.session_state["live"].playing
    at.session_state["live"].advance(50_000)
    at.run()
    assert card(at, "jobs done") != "0 / 40"
    at.selectbox(key="w_policy").set_value("fifo-request").run()
    assert not at.exception
    assert card(at, "jobs done") == "0 / 40"
    assert at.query_params["policy"] == "fifo-request"


def test_tuned_policy_runs_its_chosen_threshold() -> None:
    at = open_app("live", policy="threshold-optimal")
    at.button(key="live_step").click().run()
    assert not at.exception
    assert "T=" in at.dataframe[0].value["why"].iloc[0]


def test_colour_by_job_redraws_the_gantt() -> None:
    at = open_app("live", policy="sjf-knee")
    for _ in range(5):
        at.button(key="live_step").click().run()
    before = at.get("plotly_chart")[0].proto.spec
    assert '"data":[]' not in before
    at.radio(key="live_colour").set_value("job").run()
    assert at.get("plotly_chart")[0].proto.spec != before


def test_drl_decisions_show_action_probabilities() -> None:
    at = open_app("live")  # drl is the default policy
    at.button(key="live_step").click().run()
    assert not at.exception
    why = at.dataframe[0].value["why"].iloc[0]
    assert "%" in why and "wait" in why


def test_drl_without_its_weights_is_one_message_naming_the_file(tmp_path, monkeypatch) -> None:
    with weights_from(tmp_path, monkeypatch):
        at = open_app("live", policy="drl")
        assert not at.exception
        assert any("drl_policy.json: model card missing" in e.value for e in at.error)


def test_the_clock_follows_wall_time_not_frames() -> None:
    """Slow frames must not slow the clock: it moves by wall time x speed."""
    from lab.live import LiveRun

    at = open_app("live", policy="sjf-knee")
    run: LiveRun = at.session_state["live"]
    run.play()
    start = run.wall
    run.tick(3600, now=start + 0.7)  # one frame that took 0.7 s at 1 h/s
    assert run.clock == pytest.approx(0.7 * 3600)
    run.tick(3600, now=start + 0.7 + 30)  # a stall is not caught up in one jump
    assert run.clock == pytest.approx((0.7 + 1.0) * 3600)


def test_pause_stops_the_clock_and_a_late_frame_does_not_move_it() -> None:
    at = open_app("live", policy="sjf-knee")
    at.button(key="live_play").click().run()
    run = at.session_state["live"]
    run.tick(3600, now=run.wall + 0.2)
    at.button(key="live_pause").click().run()
    assert not run.playing
    clock = run.clock
    run.tick(3600, now=run.wall + 5)  # a frame already on its way after the click
    at.run()
    assert run.clock == clock
    assert at.button(key="live_play").label == "Play"


def test_a_finished_run_says_so_with_its_final_metrics() -> None:
    at = open_app("live", policy="sjf-knee")
    at.button(key="live_play").click().run()
    run = at.session_state["live"]
    run.tick(3600, now=run.wall + 0.2)
    run.advance(10**9)
    run.tick(3600)
    at.run()
    assert not at.exception
    assert not run.playing
    finished = " ".join(s.value for s in at.success)
    assert "Finished" in finished and "40 jobs" in finished and "Average JCT" in finished
    assert at.button(key="live_finished").disabled


def test_decision_log_gives_why_the_width_and_uses_one_time_unit() -> None:
    at = open_app("live", policy="sjf-knee")
    for _ in range(3):
        at.button(key="live_step").click().run()
    log = at.dataframe[0]
    assert '"why"' in log.proto.columns and "large" in log.proto.columns
    assert log.value["time"].str.contains(" s| min| h").all()
    spec = at.get("plotly_chart")[0].proto.spec
    assert "time (min)" in spec or "time (h)" in spec


def test_a_stale_or_repeated_press_cannot_undo_a_later_one() -> None:
    """Streamlit may run one click's callback twice or replay it after the next run."""
    from lab import live

    at = open_app("live", policy="sjf-knee")
    run = at.session_state["live"]
    drawn = run.version
    run.play(drawn)
    paused_at = run.version
    run.pause(paused_at)
    run.pause(paused_at)  # the same click delivered twice
    run.play(run.version)
    run.pause(paused_at)  # a stale Pause arriving after the next Play
    assert run.playing
    run.play(drawn)  # a stale Play after a Pause
    run.pause(run.version)
    run.play(drawn)
    assert not run.playing
    assert live.SPEEDS["1 h/s"] == 3600
