"""About: the MDP, the engine's speedup plots, the baselines and the references."""

from __future__ import annotations

from apptest_helpers import open_app, texts


def test_about_renders_mdp_speedups_and_references() -> None:
    at = open_app("about")
    assert not at.exception
    shown = texts(at)
    for word in ("State", "Action", "Reward", "DeepRM", "Mesos", "Pollux", "Downey", "Optimus"):
        assert word in shown
    assert at.get("plotly_chart")


def test_efficiency_view_changes_the_chart() -> None:
    at = open_app("about")
    before = at.get("plotly_chart")[0].proto.spec
    at.radio(key="about_metric").set_value("efficiency").run()
    assert not at.exception
    assert at.get("plotly_chart")[0].proto.spec != before


def test_every_policy_is_explained_in_words_for_students() -> None:
    at = open_app("about")
    labels = [e.label for e in at.expander]
    assert "Slurm FIFO (`fifo-request`)" in labels
    assert "Threshold on free GPUs (`threshold-free`)" in labels
    shown = texts(at)
    assert "functools" not in shown and "``" not in shown
