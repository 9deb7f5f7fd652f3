"""Home: one click schedules the workload with drl and the baselines."""

from __future__ import annotations

import pytest
from apptest_helpers import open_app, texts, weights_from


def test_home_explains_moldable_scheduling() -> None:
    at = open_app()
    assert not at.exception
    assert "moldable" in texts(at)
    assert not at.get("plotly_chart")


def test_one_click_shows_cards_and_a_chart() -> None:
    at = open_app()
    at.button(key="home_run").click().run()
    assert not at.exception
    cards = {m.label: m.value for m in at.metric}
    assert {"average JCT", "utilization"} <= set(cards)
    for rival in ("Slurm FIFO", "Tuned threshold (hindsight)"):
        words = cards[f"vs {rival}"]
        assert words == "ties" or words.endswith((" faster", " slower"))  # fits a card
    assert len(at.get("plotly_chart")) == 1


def test_sidebar_cluster_changes_the_run() -> None:
    at = open_app()
    at.button(key="home_run").click().run()
    before = at.get("plotly_chart")[0].proto.spec
    at.number_input(key="w_nodes").set_value(8).run()
    assert not at.exception
    assert "8x4 (32 GPUs)" in texts(at)
    assert at.get("plotly_chart")[0].proto.spec != before
    assert at.query_params["nodes"] == "8"


def test_missing_weights_name_the_file_and_the_baselines_still_run(tmp_path, monkeypatch) -> None:
    with weights_from(tmp_path, monkeypatch):
        at = open_app()
        at.button(key="home_run").click().run()
        assert not at.exception
        warnings = "\n".join(w.value for w in at.warning)
        assert "`drl` was left out" in warnings
        assert "drl_policy.json: model card missing" in warnings
        assert len(at.get("plotly_chart")) == 1


def test_named_scenarios_over_seeds_read_faster_or_slower_with_intervals() -> None:
    at = open_app()
    readings = [c.value for c in at.caption if c.value.startswith(("A quiet", "A busy"))]
    assert len(readings) == 2
    busy = readings[1]
    assert "faster (95% CI" in busy and "than Slurm FIFO (fifo-request)" in busy
    assert any("±" in m.value for m in at.metric if m.label == "drl average JCT")


def test_scenarios_are_computed_once_per_server_and_served_fast() -> None:
    import time

    open_app()  # computes them (or finds them computed)
    started = time.perf_counter()
    at = open_app()  # another session
    assert time.perf_counter() - started < 1.0
    assert not at.exception


def test_a_real_trace_is_a_scenario_when_the_reference_data_is_there() -> None:
    from lab import scenarios

    if not scenarios.POLLUX_TRACE.is_file():
        pytest.skip("../shared/data is not here")
    at = open_app()
    (reading,) = [c.value for c in at.caption if c.value.startswith("A real trace")]
    assert "than Slurm FIFO (fifo-request)" in reading and "95% CI" not in reading
    cards = [m.value for m in at.metric if m.label == "drl average JCT"]
    assert len(cards) == 3 and "±" not in cards[2]  # one workload: no interval
