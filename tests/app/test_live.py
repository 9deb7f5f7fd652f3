"""Live simulation: the simulator advances in place; controls change what is drawn."""

from __future__ import annotations

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
    assert at.session_state["playing"]
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
