"""Live simulation: the simulator advances in place; controls change what is drawn."""

from __future__ import annotations

import pytest
from apptest_helpers import open_app, weights_from


def live_duration(seconds: float) -> str:
    from lab.figures import duration

    return duration(seconds)


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
    assert len(at.table[0].value) == len(sim.decisions) > 0


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
    assert "T=" in at.table[0].value["why"].iloc[0]


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
    why = at.table[0].value["why"].iloc[0]
    assert "%" in why and "wait" in why


def test_drl_without_its_weights_is_one_message_naming_the_file(tmp_path, monkeypatch) -> None:
    with weights_from(tmp_path, monkeypatch):
        at = open_app("live", policy="drl")
        assert not at.exception
        assert any("drl_policy.json: model card missing" in e.value for e in at.error)


def test_the_clock_follows_wall_time_not_frames() -> None:
    """Slow frames must not slow the clock: it moves by wall time x speed."""
    from lab.live import MAX_GAP_S, LiveRun

    at = open_app("live", policy="sjf-knee")
    run: LiveRun = at.session_state["live"]
    run.play()
    start = run.wall
    run.tick(3600, now=start + 0.7)  # one frame that took 0.7 s at 1 h/s
    run.commit()
    assert run.clock == pytest.approx(0.7 * 3600)
    run.tick(3600, now=start + 0.7 + 30)  # a stall is not caught up in one jump
    run.commit()
    assert run.clock == pytest.approx((0.7 + MAX_GAP_S) * 3600)


def test_pause_stops_the_clock_and_a_late_frame_does_not_move_it() -> None:
    at = open_app("live", policy="sjf-knee")
    at.button(key="live_play").click().run()
    run = at.session_state["live"]
    run.tick(3600, now=run.wall + 0.2)
    run.commit()
    clock = run.clock
    run.tick(3600, now=run.wall + 0.4)  # the frame the click interrupts, never sent
    at.button(key="live_pause").click().run()
    assert not run.playing
    assert run.clock == clock
    assert card(at, "simulated time") == live_duration(clock)
    run.tick(3600, now=run.wall + 5)  # a frame already on its way after the click
    run.commit()
    at.run()
    assert run.clock == clock
    assert at.button(key="live_play").label == "Play"


def test_a_finished_run_says_so_with_its_final_metrics() -> None:
    at = open_app("live", policy="sjf-knee")
    at.button(key="live_play").click().run()
    run = at.session_state["live"]
    run.tick(3600, now=run.wall + 0.2)
    run.commit()
    run.advance(10**9)
    run.tick(3600)
    at.run()
    assert not at.exception
    assert not run.playing
    finished = " ".join(s.value for s in at.success)
    assert "Finished" in finished and "40 jobs" in finished and "Average JCT" in finished
    assert at.button(key="live_finished").disabled


def test_decision_log_is_a_table_read_whole_in_one_time_unit() -> None:
    """A table (``st.table``) wraps *why* where ``st.dataframe`` cut it at a column width."""
    at = open_app("live", policy="sjf-knee")
    for _ in range(3):
        at.button(key="live_step").click().run()
    assert not at.dataframe
    log = at.table[0].value
    assert list(log.columns)[-1] == "why" and "GPUs chosen" in log.columns
    assert log["time"].str.contains(" s| min| h").all()
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


def test_elastic_policies_are_offered_after_the_moldable_ones_and_preempt_on_the_chart() -> None:
    from engine.policies import ELASTIC_POLICIES
    from engine.simulator import ElasticSimulator

    at = open_app("live", policy="sjf-knee", jobs=200)  # busy enough for tiresias to preempt
    options = at.selectbox(key="w_policy").options
    elastic = [f"{entry.title} ({name})" for name, entry in ELASTIC_POLICIES.items()]
    assert options[-len(elastic):] == elastic
    at.selectbox(key="w_policy").set_value("tiresias").run()
    assert not at.exception
    run = at.session_state["live"]
    assert isinstance(run.sim, ElasticSimulator)
    step_until(run, "preempt")
    at.run()
    assert not at.exception
    log = at.table[0].value
    assert "preempt" in set(log["action"]) and "GPUs before" in log.columns
    assert "restarting" not in at.get("plotly_chart")[0].proto.spec
    step_until(run, "resume")
    run.advance(run.clock + 10)  # within the 30 s restart
    at.run()
    assert "restarting" in at.get("plotly_chart")[0].proto.spec


def step_until(run, action: str) -> None:
    """Step the live run until one of its latest decisions is ``action``."""
    for _ in range(10_000):
        run.step()
        if any((d.info or {}).get("action") == action for d in run.sim.decisions[-5:]):
            return
    raise AssertionError(f"no {action} in the run")


def test_a_resizing_policy_on_malleable_jobs_logs_its_resizes() -> None:
    at = open_app("live", policy="sjf-knee", mode="malleable")
    at.selectbox(key="w_policy").set_value("afs-elastic").run()
    at.session_state["live"].advance(10**9)
    at.run()
    assert not at.exception
    resized = at.table[0].value.query("action == 'resize'")
    assert len(resized) and (resized["GPUs before"] != resized["GPUs chosen"]).all()


def test_a_resizing_policy_says_when_no_job_can_resize() -> None:
    at = open_app("live", policy="sjf-knee")  # a generated workload: every job moldable
    at.selectbox(key="w_policy").set_value("optimus-elastic").run()
    assert any("malleable" in i.value for i in at.info)


def test_speed_is_in_the_link_both_ways() -> None:
    at = open_app("live", policy="sjf-knee", speed="6 h/s")
    assert at.select_slider(key="w_speed").value == "6 h/s"
    at.select_slider(key="w_speed").set_value("1 day/s").run()
    assert at.query_params["speed"] == "1 day/s"


def test_a_frame_never_builds_the_full_result(monkeypatch) -> None:
    """The cards come from counters: sim.result() is O(jobs), too slow per frame at 20,000."""
    at = open_app("live", policy="sjf-knee")
    run = at.session_state["live"]
    run.advance(3_000)

    def refuse():
        raise AssertionError("sim.result() called by a frame")

    monkeypatch.setattr(run.sim, "result", refuse)
    at.button(key="live_play").click().run()
    run.tick(3600, now=run.wall + 0.3)
    at.run()
    assert not at.exception
    done = len(run.sim.finished)
    assert card(at, "jobs done") == f"{done} / 40" and done > 0
    monkeypatch.undo()
    assert card(at, "average JCT so far") == live_duration(run.sim.result().summary.avg_jct)


def test_a_tuned_policy_says_what_its_wait_is_for(monkeypatch) -> None:
    import streamlit as st

    said: list[str] = []
    spinner = st.spinner

    def recording(text: str = "", **kwargs):
        said.append(text)
        return spinner(text, **kwargs)

    monkeypatch.setattr(st, "spinner", recording)
    open_app("live", policy="threshold-optimal")
    assert any("trying its 38 settings" in text and "hindsight" in text for text in said)


def test_an_elastic_policy_is_kept_in_the_link() -> None:
    at = open_app("live", policy="tiresias")
    assert at.selectbox(key="w_policy").value == "tiresias"
    assert not [w for w in at.warning if "policy" in w.value]
