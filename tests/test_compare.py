"""engine.compare and the ``compare`` command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from factories import make_job
from hypothesis import given
from hypothesis import strategies as st

from engine.cli import main
from engine.cluster import Cluster
from engine.compare import (
    METRICS,
    Comparison,
    compare,
    compare_all,
    held_out_threshold,
    held_out_tuning,
    resolve_all,
    results_table,
    summarize_comparison,
)
from engine.parallel import Executor
from engine.run import run_policy
from engine.workload import GeneratorConfig

CLUSTER = Cluster(2, 2)


def _workload(shift: float):
    return [make_job(i, shift + 4.0 * i, 60 + 25 * i, requested=1 + i % 3) for i in range(8)]


WORKLOADS = {0: _workload(0.0), 1: _workload(1.5)}


def test_one_row_per_policy_and_seed_matching_single_runs():
    table = compare(["fifo-request", "threshold-optimal"], WORKLOADS, CLUSTER)
    assert list(table.columns) == ["policy", "seed", *METRICS]
    assert table[["policy", "seed"]].values.tolist() == [
        ["fifo-request", 0],
        ["threshold-optimal", 0],
        ["fifo-request", 1],
        ["threshold-optimal", 1],
    ]
    for row in table.itertuples():
        alone = run_policy(row.policy, WORKLOADS[row.seed], CLUSTER, row.seed).summary
        assert row.avg_jct == alone.avg_jct
        assert row.makespan == alone.makespan


def test_sweep_records_per_seed():
    table = compare(["threshold-optimal"], WORKLOADS, CLUSTER)
    sweep = table.attrs["threshold_sweep"]
    assert len(sweep) == 2 * 38
    for seed in (0, 1):
        mine = [r for r in sweep if r["seed"] == seed]
        best = [r for r in mine if r["best"]]
        assert len(best) == 1
        assert best[0]["avg_jct"] == min(r["avg_jct"] for r in mine)
        assert best[0]["avg_jct"] == table.loc[table["seed"] == seed, "avg_jct"].item()


def test_results_table_from_kept_runs_equals_compare():
    names = ["fifo-request", "threshold-optimal"]
    results = {seed: {n: run_policy(n, jobs, CLUSTER, seed) for n in names}
               for seed, jobs in WORKLOADS.items()}
    kept, fresh = results_table(results), compare(names, WORKLOADS, CLUSTER)
    pd.testing.assert_frame_equal(kept, fresh)
    assert kept.attrs == fresh.attrs


def test_held_out_threshold_needs_a_sweep_over_two_workloads():
    assert held_out_threshold(compare(["fifo-request"], WORKLOADS, CLUSTER)) is None
    assert held_out_threshold(compare(["threshold-optimal"], {0: WORKLOADS[0]}, CLUSTER)) is None
    two = compare(["threshold-optimal"], WORKLOADS, CLUSTER)
    pd.testing.assert_series_equal(held_out_threshold(two),
                                   held_out_tuning(pd.DataFrame(two.attrs["threshold_sweep"])))


def _sweep(grid: list[list[float]]) -> pd.DataFrame:
    """Sweep records: grid[seed][setting] is that setting's average JCT on that seed."""
    settings = [("free", 0.1), ("free", 0.2), ("queue", 1)]
    return pd.DataFrame([
        {"signal": signal, "T": t, "avg_jct": jct, "best": False, "policy": "p", "seed": seed}
        for seed, row in enumerate(grid)
        for (signal, t), jct in zip(settings, row, strict=True)
    ])


def test_held_out_tuning_scores_the_setting_best_on_the_other_seeds():
    grid = [[1.0, 5.0, 3.0], [4.0, 2.0, 3.0], [9.0, 1.0, 2.0]]
    # seed 0: the others sum to (13, 3, 5) -> setting 1; seed 1: (10, 6, 5) -> setting 2;
    # seed 2: (5, 7, 6) -> setting 0
    assert held_out_tuning(_sweep(grid)).to_dict() == {0: 5.0, 1: 3.0, 2: 9.0}


def test_held_out_tuning_breaks_ties_by_grid_order_and_needs_two_seeds():
    assert held_out_tuning(_sweep([[2.0, 1.0, 1.0], [1.0, 1.0, 1.0]])).to_dict() == {0: 2.0, 1: 1.0}
    with pytest.raises(ValueError, match="two workloads"):
        held_out_tuning(_sweep([[1.0, 2.0, 3.0]]))


@given(st.lists(st.lists(st.floats(1.0, 1e4), min_size=3, max_size=3), min_size=2, max_size=6))
def test_held_out_tuning_never_beats_the_oracle_and_picks_a_real_setting(grid):
    held_out = held_out_tuning(_sweep(grid))
    for seed, row in enumerate(grid):
        assert min(row) <= held_out[seed] and held_out[seed] in row


def test_held_out_tuning_on_a_real_comparison():
    table = compare(["threshold-optimal"], WORKLOADS, CLUSTER)
    held_out = held_out_tuning(pd.DataFrame(table.attrs["threshold_sweep"]))
    oracle = table.set_index("seed")["avg_jct"]
    assert sorted(held_out.index) == [0, 1]
    assert all(held_out[seed] >= oracle[seed] for seed in (0, 1))


def test_progress_counts_every_run():
    calls = []
    compare(
        ["fifo-request", "threshold-optimal"],
        {0: _workload(0.0)},
        CLUSTER,
        progress=lambda d, t: calls.append((d, t)),
    )
    assert calls == [(done, 39) for done in range(40)]


def test_seeds_are_generated():
    table = compare(["knee"], [3, 4], Cluster(2, 4), config=GeneratorConfig(jobs=15))
    assert table["seed"].tolist() == [3, 4]
    assert table["avg_jct"].nunique() == 2


def test_workloads_generated_on_workers_are_the_ones_generated_here():
    requests = [([3, 4], Cluster(2, 4), GeneratorConfig(jobs=15)), (WORKLOADS, CLUSTER, None)]
    here = resolve_all(requests)
    with Executor("local", workers=2) as executor:
        there = resolve_all(requests, executor.start())
    assert there[1] is WORKLOADS  # given jobs are passed through
    for seed in (3, 4):
        assert [j.runtime_1gpu for j in there[0][seed]] == [j.runtime_1gpu for j in here[0][seed]]
        assert compare(["knee"], {seed: there[0][seed]}, Cluster(2, 4)).equals(
            compare(["knee"], {seed: here[0][seed]}, Cluster(2, 4)))


def test_worker_processes_give_the_same_rows():
    policies = ["fifo-backfill", "threshold-optimal"]
    serial = compare(policies, WORKLOADS, CLUSTER, executor=Executor("serial"))
    with Executor("local", workers=2) as executor:
        parallel = compare(policies, WORKLOADS, CLUSTER, executor=executor)
    assert serial.equals(parallel)
    assert serial.attrs == parallel.attrs


def test_compare_all_gives_each_comparison_its_own_table():
    policies = ("fifo-request", "threshold-optimal")
    other = Cluster(2, 4)
    tables = compare_all([Comparison(policies, WORKLOADS, CLUSTER),
                          Comparison(policies[:1], {5: WORKLOADS[1]}, other)])
    alone = [compare(policies, WORKLOADS, CLUSTER), compare(policies[:1], {5: WORKLOADS[1]}, other)]
    for table, expected in zip(tables, alone, strict=True):
        pd.testing.assert_frame_equal(table, expected)
        assert table.attrs == expected.attrs


def test_summary_mean_and_t_interval():
    # avg_jct 10, 20, 30: mean 20, sample sd 10, sem 10/sqrt(3); t(0.975, 2 dof) = 4.3027
    # -> half-width 24.84. One seed gives no interval.
    rows = [{"policy": "a", "seed": s, "avg_jct": v} for s, v in enumerate((10.0, 20.0, 30.0))]
    rows.append({"policy": "b", "seed": 0, "avg_jct": 5.0})
    summary = summarize_comparison(pd.DataFrame(rows), metrics=["avg_jct"])
    assert summary["policy"].tolist() == ["b", "a"]  # best mean first
    a = summary.set_index("policy").loc["a"]
    assert a["runs"] == 3
    assert a["avg_jct_mean"] == 20
    assert a["avg_jct_ci95"] == pytest.approx(4.302653 * 10 / np.sqrt(3), rel=1e-6)
    assert np.isnan(summary.set_index("policy").loc["b", "avg_jct_ci95"])


def test_cli_json_rows(capsys):
    argv = ["compare", "--jobs", "20", "--nodes", "2", "--seeds", "2", "--json"]
    assert main([*argv, "--policies", "fifo-request,threshold-optimal"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["policy"], r["seed"]) for r in rows] == [
        ("fifo-request", 0),
        ("threshold-optimal", 0),
        ("fifo-request", 1),
        ("threshold-optimal", 1),
    ]
    for row in rows:
        assert {"policy", "seed", "avg_jct", "p95_jct", "makespan", "utilization"} <= set(row)
    sweep = rows[1]["threshold_sweep"]
    assert len(sweep) == 38
    assert set(sweep[0]) == {"signal", "T", "avg_jct", "best"}
    assert "threshold_sweep" not in rows[0]


def test_cli_table_sorted_by_avg_jct(capsys):
    argv = ["compare", "--jobs", "20", "--nodes", "2", "--seeds", "2"]
    assert main([*argv, "--policies", "fifo-request,sjf-knee,knee"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[1].split()[0] == "policy"
    names = [line.split()[0] for line in lines[2:5]]
    assert sorted(names) == ["fifo-request", "knee", "sjf-knee"]
    means = [float(line.split()[1].replace(",", "")) for line in lines[2:5]]
    assert means == sorted(means)
    assert "±" in lines[2]


def test_cli_reports_the_held_out_threshold_with_two_seeds_or_more(capsys):
    argv = ["compare", "--jobs", "20", "--nodes", "2", "--policies", "threshold-optimal"]
    assert main([*argv, "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if line.startswith("threshold-held-out")]
    held_out = float(line.split("avg JCT ")[1].split()[0].replace(",", ""))
    oracle = float(out.splitlines()[2].split()[1].replace(",", ""))
    assert held_out >= oracle - 1  # never better than tuning on each seed itself (rounding)
    assert main([*argv, "--seeds", "1"]) == 0
    assert "threshold-held-out" not in capsys.readouterr().out


def test_cli_unknown_policy_is_a_readable_error(capsys):
    assert main(["compare", "--jobs", "5", "--policies", "fifo-request,nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown policy 'nope'; known: fifo-request")
    assert "Traceback" not in err


def test_simulate_cli_runs_tuned_policies(capsys):
    argv = ["simulate", "--jobs", "15", "--nodes", "2", "--policy", "threshold-optimal", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["policy"] == "threshold-optimal"


def test_mean_ci_is_bit_identical_to_scipy_stats():
    from scipy import stats

    from engine.compare import mean_ci

    rng = np.random.default_rng(3)
    for n in (2, 3, 5, 10, 30, 101):
        values = rng.lognormal(8, 1, size=n)
        expected = float(stats.t.ppf(0.975, n - 1) * stats.sem(values))
        assert mean_ci(values) == (float(values.mean()), expected)
