"""Home: one click schedules the workload with drl and the baselines."""

from __future__ import annotations

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
    labels = {m.label for m in at.metric}
    assert {"average JCT", "utilization", "vs threshold-optimal"} <= labels
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
