"""Home: named scenarios over seeds, and the user's workload read the same way."""

from __future__ import annotations

import threading

import pytest
from apptest_helpers import open_app, texts, weights_from

from lab import line, scenarios, state
from lab.line import Line
from lab.plain import plain

GOOD = b"submit_time,runtime_1gpu,model,requested_gpus\n0,3600,bert,2\n60,7200,ncf,4\n"


def your_reading(at) -> str:
    (reading,) = [c.value for c in at.caption if c.value.startswith("Your workload:")]
    return reading


def test_home_explains_moldable_scheduling() -> None:
    at = open_app()
    assert not at.exception
    assert "moldable" in texts(at)
    assert not at.get("plotly_chart")


def test_one_click_reads_your_workload_like_a_scenario() -> None:
    at = open_app()
    at.button(key="home_run").click().run()
    assert not at.exception
    cards = [(m.label, m.value) for m in at.metric]
    drl = [value for label, value in cards if label == "average JCT, deep-RL"]
    assert len(drl) == len(scenarios.SCENARIOS) + 1 and "±" in drl[-1]  # seeds: an interval
    for rival in ("Slurm FIFO", "Hindsight-tuned threshold"):
        words = [value for label, value in cards if label == f"vs {rival}"][-1]
        assert words == "ties" or words.endswith((" faster", " slower"))  # fits a card
    reading = your_reading(at)
    assert "Slurm FIFO (fifo-request)" in reading and "threshold" in reading
    assert "40 generated jobs" in texts(at) and f"seeds 0–{scenarios.SEEDS - 1}" in texts(at)
    assert len(at.get("plotly_chart")) == 1


def test_your_workload_is_computed_once_per_settings_for_every_session(monkeypatch) -> None:
    calls: list[scenarios.Scenario] = []
    compute = scenarios.compute

    def counted(scenario, progress=None, budget=None):
        if scenario.title == "Your workload":  # not the named ones, if not yet computed
            calls.append(scenario)
        return compute(scenario, progress, budget)

    monkeypatch.setattr(scenarios, "compute", counted)
    for _ in range(2):  # two students with the same settings
        at = open_app(seed=4321)
        at.button(key="home_run").click().run()
        assert not at.exception and len(at.get("plotly_chart")) == 1
    assert len(calls) == 1
    at = open_app(seed=4321, mode="rigid")  # the job mode is part of the key
    at.button(key="home_run").click().run()
    assert not at.exception
    assert len(calls) == 2 and calls[1].mode == "rigid"
    assert "every job rigid" in texts(at)
    assert "so they run as moldable" in texts(open_app(mode="malleable"))


def test_your_workload_waits_its_turn_in_the_shared_line(monkeypatch) -> None:
    shared = Line(1)
    positions: list[int] = []
    turn = shared.turn

    def told(waiting, *args):
        def record(position: int) -> None:
            positions.append(position)
            waiting(position)
            release.set()  # the other student finishes once this one has been told
        return turn(record, *args)

    monkeypatch.setattr(shared, "turn", told)
    monkeypatch.setattr(line, "compare_line", lambda: shared)
    holding, release = threading.Event(), threading.Event()

    def other_student() -> None:
        with turn(lambda p: None):
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=other_student)
    thread.start()
    holding.wait(5)
    at = open_app(seed=4322)
    at.button(key="home_run").click().run()
    thread.join(5)
    assert not at.exception
    assert positions and set(positions) == {1}  # told it was next while the other ran
    assert len(at.get("plotly_chart")) == 1


def test_an_uploaded_workload_is_one_run_said_plainly() -> None:
    at = open_app("workload")
    at.file_uploader(key="upload_csv").set_value(("mine.csv", GOOD, "text/csv")).run()
    at.switch_page("app_pages/home.py").run()
    assert plain("uploaded mine.csv") + ", 2 jobs on 16x4 (64 GPUs): one fixed set of jobs, " \
        "so one run" in texts(at)
    at.button(key="home_run").click().run()
    assert not at.exception
    assert "95% CI" not in your_reading(at)
    assert "±" not in [m.value for m in at.metric if m.label == "average JCT, deep-RL"][-1]


def test_sidebar_cluster_changes_the_run() -> None:
    at = open_app()
    at.button(key="home_run").click().run()
    before = at.get("plotly_chart")[0].proto.spec
    at.number_input(key="w_nodes").set_value(8).run()
    assert not at.exception
    assert "8x4 (32 GPUs)" in texts(at)
    assert at.get("plotly_chart")[0].proto.spec != before
    assert at.query_params["nodes"] == "8"


def test_missing_weights_name_the_file_without_a_traceback(tmp_path, monkeypatch) -> None:
    with weights_from(tmp_path, monkeypatch):
        at = open_app(seed=4323)
        at.button(key="home_run").click().run()
        assert not at.exception
        assert "drl_policy.json: model card missing" in "\n".join(e.value for e in at.error)


def test_named_scenarios_over_seeds_read_faster_or_slower_with_intervals() -> None:
    at = open_app()
    readings = [c.value for c in at.caption if c.value.startswith(("A quiet", "A busy"))]
    assert len(readings) == 2
    busy = readings[1]
    assert "faster (95% CI" in busy and "than Slurm FIFO (fifo-request)" in busy
    assert any("±" in m.value for m in at.metric if m.label == "average JCT, deep-RL")


def test_named_scenarios_are_computed_once_per_server(monkeypatch) -> None:
    open_app()  # computes them (or finds them computed)

    def refuse(scenario, progress=None):
        raise AssertionError("a scenario was computed again")

    monkeypatch.setattr(scenarios, "compute", refuse)
    at = open_app()  # another session
    assert not at.exception
    assert [c for c in at.caption if c.value.startswith("A busy")]


def test_a_real_trace_is_a_scenario_when_the_reference_data_is_there() -> None:
    if not scenarios.POLLUX_TRACE.is_file():
        pytest.skip("../shared/data is not here")
    at = open_app()
    (reading,) = [c.value for c in at.caption if c.value.startswith("A real trace")]
    assert "than Slurm FIFO (fifo-request)" in reading and "95% CI" not in reading
    cards = [m.value for m in at.metric if m.label == "average JCT, deep-RL"]
    titles = [s.title for s in scenarios.SCENARIOS]
    assert len(cards) == len(titles)
    assert "±" not in cards[titles.index("A real trace")]  # one workload: no interval


def test_the_default_demo_is_ready_before_anyone_asks(monkeypatch) -> None:
    """Every student starts on the default settings: their first click finds it computed."""
    monkeypatch.setattr(state, "is_default", lambda: True)
    at = open_app(seed=4325)  # the first visit computes it, after the named scenarios

    def refuse(scenario, progress=None):
        raise AssertionError("the default demo was computed on the click")

    monkeypatch.setattr(scenarios, "compute", refuse)
    at.button(key="home_run").click().run()
    assert not at.exception and len(at.get("plotly_chart")) == 1


def test_without_the_real_trace_home_says_what_is_missing(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(scenarios, "POLLUX_TRACE", tmp_path / "workload-6.csv")
    at = open_app()
    assert not at.exception
    (note,) = [i.value for i in at.info if "real-trace scenario is missing" in i.value]
    assert str(tmp_path / "workload-6.csv") in note and "pip install ." in note


def test_every_time_on_home_is_in_one_unit() -> None:
    """The cards said 33.9 min over a chart in hours."""
    at = open_app()
    at.button(key="home_run").click().run()
    assert not at.exception
    units = {m.value.split(" ± ")[0].split()[-1] for m in at.metric
             if m.label == "average JCT, deep-RL"}
    (chart,) = at.get("plotly_chart")
    assert len(units) == 1 and f"average JCT ({units.pop()})" in chart.proto.spec


def test_the_guided_tour_steps_and_stays_closed_for_the_session() -> None:
    at = open_app()
    tour = [m.value for m in at.markdown if "Guided tour" in m.value]
    assert tour and "step 1 of 5" in tour[0]
    assert at.button(key="tour_back").disabled
    at.button(key="tour_next").click().run()
    assert any("step 2 of 5" in m.value for m in at.markdown)
    at.button(key="tour_close").click().run()
    assert not any("Guided tour" in m.value for m in at.markdown)
    at.switch_page("app_pages/about.py").run()
    at.switch_page("app_pages/home.py").run()
    assert not any("Guided tour" in m.value for m in at.markdown)
    at.button(key="tour_open").click().run()
    assert any("step 1 of 5" in m.value for m in at.markdown)


def test_presentation_mode_comes_from_the_link_and_is_left_with_a_button() -> None:
    at = open_app(present=1)
    assert not at.exception
    assert at.session_state["settings"]["present"] is True
    captions = " ".join(c.value for c in at.caption)
    assert "after leaving presentation mode" in captions and "in the sidebar" not in captions
    assert at.query_params["present"] == "1"
    # the glossary lives in the sidebar, which presenting hides: it is above the page then
    assert [e.label for e in at.main.expander][:1] == ["Glossary"]
    assert "JCT" in at.main.expander[0].markdown[0].value
    at.button(key="present_off").click().run()
    assert at.query_params["present"] == "0"
    assert "Glossary" not in [e.label for e in at.main.expander]
    assert "Glossary" in [e.label for e in at.sidebar.expander]
    assert at.sidebar.toggle(key="w_present").value is False
    refused = open_app(present="maybe")
    assert any("present=maybe" in w.value for w in refused.sidebar.warning)


@pytest.mark.parametrize("page", [None, "workload", "live", "compare", "train", "about"])
def test_presenting_no_page_points_at_the_hidden_sidebar(page) -> None:
    """Presentation mode hides the sidebar: no sentence on a page (nor a step of Home's
    tour) may send the audience to it."""
    at = open_app(page, present=1)
    shown = [texts(at.main)]
    while page is None and at.button(key="tour_next").label == "Next":
        at.button(key="tour_next").click().run()
        shown.append(texts(at.main))
    assert not at.exception
    assert not [text for text in shown if "sidebar" in text.lower()]
