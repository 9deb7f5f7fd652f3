"""Compare: policies over seeds, CIs, distributions, the sweep, downloads."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from apptest_helpers import open_app, texts

from engine.cluster import Cluster
from engine.compare import resolve_workloads
from engine.parallel import Executor
from engine.policies import display_name
from engine.run import run_pairs
from engine.workload import GeneratorConfig
from lab import runs
from lab.plain import plain

FEW = ["sjf-knee", "fifo-request", "threshold-optimal"]


def test_compare_runs_with_charts_table_and_downloads() -> None:
    at = open_app("compare")
    assert not at.exception
    at.multiselect(key="cmp_policies").set_value(FEW)
    at.slider(key="w_seeds").set_value(2)
    at.button(key="cmp_run").click().run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 5  # JCT+CI, CDF, GPUs/model, timeline, sweep
    summary = at.table[0].value
    assert set(summary["policy"]) == {display_name(p) for p in FEW}
    assert (summary["runs"] == 2).all()
    hours = [c for c in summary.columns if c.endswith("(h)") or c.endswith("(min)")]
    assert len(hours) == 2 and "utilization" in summary.columns
    shown = summary[hours].stack().str.replace("\\", "")  # as markdown shows them
    assert shown.str.fullmatch(r"\d[\d,]*\.\d\d ± \d[\d,]*\.\d\d").all()
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
    at.slider(key="w_seeds").set_value(1)
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
    summary = at.table[0].value
    assert (summary["runs"] == 1).all()
    assert not summary.stack().astype(str).str.contains("±").any()  # one run: no interval


def test_the_link_carries_the_chosen_policies_and_seeds() -> None:
    at = open_app("compare", policies="fifo-request,sjf-knee", seeds=2)
    assert at.multiselect(key="cmp_policies").value == ["fifo-request", "sjf-knee"]
    assert at.slider(key="w_seeds").value == 2
    at.multiselect(key="cmp_policies").set_value(["knee", "drl"]).run()
    at.slider(key="w_seeds").set_value(4).run()
    assert at.query_params["policies"] == "knee,drl" and at.query_params["seeds"] == "4"
    assert not at.exception


def test_an_unknown_policy_in_the_link_is_reported_and_the_default_kept() -> None:
    at = open_app("compare", policies="fifo-request,bogus", seeds=11)
    shown = texts(at)
    assert plain("policies=fifo-request,bogus: expected one of fifo-request,") in shown
    assert plain("seeds=11: expected a whole number in [1, 10]") in shown
    assert at.multiselect(key="cmp_policies").value == list(runs.DEFAULT_COMPARISON)
    assert not at.exception


def test_the_sidebar_says_where_heavy_runs_go() -> None:
    at = open_app("compare")
    assert any(c.value.startswith("Heavy runs (Compare, Home's demo) go to local: up to ")
               for c in at.sidebar.caption)


def test_a_second_session_gets_the_stored_runs_without_simulating(monkeypatch) -> None:
    first = open_app("compare", seed=7)
    first.multiselect(key="cmp_policies").set_value(FEW[:2])
    first.button(key="cmp_run").click().run()
    assert not first.exception

    def refuse(*_: object) -> None:
        raise AssertionError("simulated again")

    monkeypatch.setattr(runs, "pair_outcomes", refuse)
    second = open_app("compare", seed=7)
    second.multiselect(key="cmp_policies").set_value(FEW[:2])
    second.button(key="cmp_run").click().run()
    assert not second.exception
    pd.testing.assert_frame_equal(second.table[0].value, first.table[0].value)


def test_worker_processes_give_the_runs_in_process_gives() -> None:
    cluster = Cluster(2, 4)
    workloads = dict(resolve_workloads([0, 1], cluster, GeneratorConfig(jobs=30, load=1.2)))
    pairs = [(seed, name) for seed in workloads for name in FEW]
    serial = run_pairs(pairs, workloads, cluster, Executor("serial"))
    with Executor("local", workers=1, offload=True) as pool:  # as the server's executor
        assert not pool.in_process(len(pairs))
        spread = run_pairs(pairs, workloads, cluster, pool)
    for one, other in zip(serial, spread, strict=True):
        assert one.summary == other.summary
        pd.testing.assert_frame_equal(one.jobs, other.jobs)
        pd.testing.assert_frame_equal(one.timeline, other.timeline)


@pytest.mark.parametrize("origin", ["generated", "loaded"])
def test_job_modes_chart_one_bar_per_mode_with_a_reading(origin: str) -> None:
    at = open_app("compare", jobs=30, nodes=2)
    if origin == "loaded":
        at = open_app("workload")
        good = b"submit_time,runtime_1gpu,model,requested_gpus\n0,3600,bert,2\n60,7200,ncf,4\n"
        at.file_uploader(key="upload_csv").set_value(("mine.csv", good, "text/csv")).run()
        at.switch_page("app_pages/compare.py").run()
    at.button(key="cmp_modes_run").click().run()
    assert not at.exception
    modes = at.table[0].value
    assert list(modes["mode"]) == ["rigid", "moldable", "malleable"]
    assert (modes["runs"] == (1 if origin == "loaded" else 3)).all()
    (reading,) = [c.value for c in at.caption if "Read it as:" in c.value]
    assert "rigid jobs average" in reading and "against rigid" in reading
    assert "**What elasticity buys: the best policy of each job mode**" in texts(at)
    (chart,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    bars = chart["data"][0]["y"]
    assert [bar.split("<br>")[0] for bar in bars] == ["<b>rigid</b>", "<b>moldable</b>",
                                                      "<b>malleable</b>"]
    for bar, policy in zip(bars, modes["policy"], strict=True):  # "Title (code-name)"
        assert policy.startswith(bar.split("<br>")[1] + " (")


def test_compare_reads_in_one_unit_and_names_the_interval_half_width() -> None:
    at = open_app("compare")
    at.multiselect(key="cmp_policies").set_value(FEW)
    at.slider(key="w_seeds").set_value(2)
    at.button(key="cmp_run").click().run()
    summary = at.table[0].value
    (unit,) = {c.split("(")[-1].rstrip(")") for c in summary.columns if "JCT" in c}
    assert " ± " in summary[f"average JCT ({unit})"].iloc[0]
    assert any("± the half-width of its 95% confidence interval" in c.value for c in at.caption)
    specs = "".join(c.proto.spec for c in at.get("plotly_chart"))
    assert f"average JCT ({unit})" in specs and f"JCT ({unit}, log)" in specs
    (held_out,) = [c.value for c in at.caption if "threshold-held-out" in c.value]
    assert held_out.count(f" {unit} ") == 2
