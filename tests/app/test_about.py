"""About: the MDP, the engine's speedup plots, the baselines and the references."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from apptest_helpers import open_app, texts
from streamlit.testing.v1 import AppTest

from engine.policies import ELASTIC_POLICIES, POLICIES
from lab.figures import MODE_COLOURS, job_modes_sketch


def test_about_renders_mdp_speedups_and_references() -> None:
    at = open_app("about")
    assert not at.exception
    shown = texts(at)
    for word in ("State", "Action", "Reward", "DeepRM", "Mesos", "Pollux", "Downey", "Optimus"):
        assert word in shown
    assert at.get("plotly_chart")


def chart(at: AppTest, key: str) -> str:
    """The plotly spec of the chart drawn with ``key``."""
    (spec,) = [c.proto.spec for c in at.get("plotly_chart") if c.proto.id.endswith(key)]
    return spec


def test_strong_and_weak_scaling_are_shown_side_by_side() -> None:
    at = open_app("about")
    spec = json.loads(chart(at, "about_scaling"))
    names = {trace["name"] for trace in spec["data"]}
    assert {"fixed global batch (strong scaling)", "fixed local batch (weak scaling)"} <= names
    assert "at its fastest on 16 GPUs" in " ".join(texts(at).split())


def test_efficiency_view_changes_the_chart() -> None:
    at = open_app("about")
    before = chart(at, "about_speedup")
    at.radio(key="about_metric").set_value("efficiency").run()
    assert not at.exception
    assert chart(at, "about_speedup") != before


def test_every_policy_is_explained_in_words_for_students() -> None:
    at = open_app("about")
    labels = [e.label for e in at.expander]
    assert "Slurm FIFO (`fifo-request`)" in labels
    assert "Threshold on free GPUs (`threshold-free`)" in labels
    shown = texts(at)
    assert "functools" not in shown and "``" not in shown


def test_the_three_job_modes_are_explained_with_a_sketch_and_drl_placed_among_them() -> None:
    at = open_app("about")
    assert not at.exception
    shown = texts(at)
    for words in ("A **rigid** job", "A **moldable** job", "A **malleable**",
                  "`drl` is a **moldable** policy", "restart cost in its reward",
                  "**Job modes** tab"):
        assert words in shown
    sketch = json.loads(chart(at, "about_modes"))
    titles = [a["text"] for a in sketch["layout"]["annotations"]]
    assert titles == ["rigid", "moldable", "malleable"]
    per_panel = Counter(trace.get("xaxis", "x") for trace in sketch["data"])
    assert per_panel == {"x": 2, "x2": 2, "x3": 4}  # the malleable job's resize and restart
    labels = [e.label for e in at.main.expander]
    assert "Preemptive Tiresias (`tiresias`)" in labels
    assert len(labels) == len(POLICIES) + len(ELASTIC_POLICIES)


def test_the_sketch_does_the_same_work_in_each_mode() -> None:
    """8 GPU-units: rigid 2 GPUs x 8, moldable 4 x 4, malleable 2 x 3 then 4 x 2.5."""
    bars = [t for t in job_modes_sketch().data if t.marker.color in MODE_COLOURS.values()]
    work: Counter[str] = Counter()
    for bar, mode in zip(bars, ("rigid", "moldable", "malleable", "malleable"), strict=True):
        assert bar.marker.color == MODE_COLOURS[mode]
        work[mode] += bar.width[0] / 0.95 * bar.x[0]
    assert work == {m: pytest.approx(16) for m in ("rigid", "moldable", "malleable")}


def test_the_learned_scheduler_is_not_listed_among_the_baselines() -> None:
    at = open_app("about")
    headers = [h.value for h in at.header]
    assert headers.index("The learned scheduler") < headers.index("Baselines")
    drl = [e.label for e in at.expander].index("Deep-RL scheduler (`drl`)")
    assert drl < [e.label for e in at.expander].index("Slurm FIFO (`fifo-request`)")


@pytest.mark.parametrize("page", [None, "workload", "live", "compare", "train", "about"])
def test_the_glossary_is_one_click_from_every_page(page) -> None:
    at = open_app(page)
    (glossary,) = [e for e in at.sidebar.expander if e.label == "Glossary"]
    words = " ".join(m.value for m in glossary.markdown)
    for term in ("JCT", "offered load", "lower bound", "moldable", "malleable", "tie"):
        assert f"**{term}**" in words
