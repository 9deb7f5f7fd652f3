"""``reproduce`` end to end on one tiny cell (the real table takes minutes)."""

from __future__ import annotations

from engine.cli.reproduce import Cell, evaluate, format_report
from engine.cluster import Cluster
from engine.parallel import Executor
from engine.workload import GeneratorConfig


def test_one_tiny_cell_reports_every_policy_and_the_reduction():
    cell = Cell("tiny", Cluster(2, 4), [0, 1], GeneratorConfig(jobs=15, load=0.9))
    report = evaluate([cell], Executor("serial"))
    (row,) = report["cells"]
    assert {"drl", "threshold-optimal", "sjf-knee"} <= set(row["policies"])
    drl, threshold = row["policies"]["drl"]["mean"], row["policies"]["threshold-optimal"]["mean"]
    assert row["reduction_vs_threshold_optimal"] == 1 - drl / threshold
    assert report["average_reduction_vs_threshold_optimal"] == row["reduction_vs_threshold_optimal"]
    held_out = row["policies"]["threshold-held-out"]["mean"]
    assert held_out >= threshold  # tuned on the other workload: never better than the oracle
    assert row["reduction_vs_threshold_held_out"] == 1 - drl / held_out
    text = format_report(report)
    assert "tiny" in text and "threshold-optimal" in text and "average reduction" in text
    assert "threshold-held-out" in text


def test_one_workload_per_cell_leaves_the_held_out_threshold_out():
    cell = Cell("single", Cluster(2, 4), [0], GeneratorConfig(jobs=10, load=0.9))
    report = evaluate([cell], Executor("serial"))
    assert "threshold-held-out" not in report["cells"][0]["policies"]
    assert report["average_reduction_vs_threshold_held_out"] is None
    text = format_report(report)
    assert "held-out" not in text
    assert "(1 run)" in text and "nan" not in text  # one run: no interval to show
