"""Compare: policies over seeds, CIs, distributions, the sweep, downloads."""

from __future__ import annotations

from apptest_helpers import open_app

FEW = ["sjf-knee", "fifo-request", "threshold-optimal"]


def test_compare_runs_with_charts_table_and_downloads() -> None:
    at = open_app("compare")
    assert not at.exception
    at.multiselect(key="cmp_policies").set_value(FEW)
    at.slider(key="cmp_seeds").set_value(2)
    at.button(key="cmp_run").click().run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 5  # JCT+CI, CDF, GPUs/model, timeline, sweep
    summary = at.dataframe[0].value
    assert set(summary["policy"]) == set(FEW)
    assert (summary["runs"] == 2).all()
    assert {"avg_jct_mean", "avg_jct_ci95"} <= set(summary.columns)
    assert len(at.get("download_button")) == 2
    (held_out,) = [c.value for c in at.caption if "threshold-held-out" in c.value]
    assert "rather than" in held_out


def test_without_threshold_optimal_there_is_no_sweep() -> None:
    at = open_app("compare")
    at.multiselect(key="cmp_policies").set_value(FEW[:2])
    at.slider(key="cmp_seeds").set_value(1)
    at.button(key="cmp_run").click().run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 4
    assert not [c for c in at.caption if "threshold-held-out" in c.value]
