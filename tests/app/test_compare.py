"""Compare: policies over seeds, CIs, distributions, the sweep, downloads."""

from __future__ import annotations

from apptest_helpers import open_app

from engine.policies import display_name

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
    assert set(summary["policy"]) == {display_name(p) for p in FEW}
    assert (summary["runs"] == 2).all()
    hours = [c for c in summary.columns if c.endswith("(h)") or c.endswith("(min)")]
    assert len(hours) == 6 and "utilization (%)" in summary.columns
    assert (summary[hours].round(2) == summary[hours]).all().all()
    assert len(at.get("download_button")) == 2
    (held_out,) = [c.value for c in at.caption if "threshold-held-out" in c.value]
    assert "rather than" in held_out and "python -m" not in held_out
    assert not [c for c in at.caption if "python -m engine" in c.value]


def test_compare_starts_with_five_policies_and_offers_the_rest_in_one_click() -> None:
    at = open_app("compare")
    assert at.multiselect(key="cmp_policies").value == [
        "drl", "threshold-optimal", "fifo-request", "mesos-offer", "sjf-knee"]
    at.button(key="cmp_all").click().run()
    assert len(at.multiselect(key="cmp_policies").value) == 12
    assert not at.exception


def test_without_threshold_optimal_there_is_no_sweep() -> None:
    at = open_app("compare")
    at.multiselect(key="cmp_policies").set_value(FEW[:2])
    at.slider(key="cmp_seeds").set_value(1)
    at.button(key="cmp_run").click().run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 4
    assert not [c for c in at.caption if "threshold-held-out" in c.value]


def test_a_loaded_workload_is_one_run_per_policy_not_fake_seeds() -> None:
    good = b"submit_time,runtime_1gpu,model,requested_gpus\n0,3600,bert,2\n60,7200,ncf,4\n"
    at = open_app("workload")
    at.file_uploader(key="upload_csv").set_value(("mine.csv", good, "text/csv")).run()
    at.switch_page("app_pages/compare.py").run()
    assert not at.slider  # no seeds to choose
    assert any("one run per policy" in c.value for c in at.caption)
    at.multiselect(key="cmp_policies").set_value(FEW)
    at.button(key="cmp_run").click().run()
    assert not at.exception
    assert (at.dataframe[0].value["runs"] == 1).all()
