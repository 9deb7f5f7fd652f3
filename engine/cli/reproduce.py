"""``reproduce``: the headline table, ``drl`` against every baseline on unseen workloads.

Cells: generated workloads at loads 0.7, 0.85 and 1.0 on 32 and 64 GPUs (8x4, 16x4),
``--seeds`` seeds each (seeds 0, 1, ...: never used in training, whose workload seeds
start at 1,000,000), plus the eight Pollux workloads on the Pollux testbed (16x4) from
``--pollux-dir`` or the copies shipped with the engine (a named folder without them is
an error). Per cell: mean
+- 95% CI of the average JCT per policy ("(1 run)" with one seed: no interval), and the
% reduction of ``drl`` against ``threshold-optimal`` (oracle-tuned per workload); then
the reduction averaged over the cells. For context, also
``threshold-held-out``: the threshold rule with (signal, T) picked on the cell's *other*
workloads (leave-one-out over the same sweep), as an operator tuning one setting for a
kind of workload would; it costs no extra runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cli.common import add_executor_options, executor_from, positive_int, print_json
from engine.cluster import Cluster
from engine.compare import (
    HELD_OUT,
    Comparison,
    compare_all,
    resolve_all,
    runnable_policies,
    summarize_comparison,
    with_held_out_threshold,
)
from engine.drl.pretrained import update_card
from engine.errors import LabError
from engine.evaluation import REFERENCE, TARGET
from engine.job import Job
from engine.parallel import Executor
from engine.paths import pollux_workloads, pretrained_dir
from engine.preload import TABLES, import_in_background
from engine.workload import GeneratorConfig, load_workload, to_jobs

LOADS: tuple[float, ...] = (0.7, 0.85, 1.0)
CLUSTERS: tuple[Cluster, ...] = (Cluster(8, 4), Cluster(16, 4))
POLLUX_TRACES = "workload-*.csv"


@dataclass(frozen=True)
class Cell:
    """One row of the table: a cluster and either a generated load or the Pollux traces."""

    name: str
    cluster: Cluster
    workloads: dict[int, list[Job]] | list[int]
    config: GeneratorConfig | None = None


class PolluxTracesMissing(LabError, ValueError):
    """A folder meant to hold the Pollux traces holds none: the table would lose a cell."""


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seeds", type=positive_int, default=5, help="seeds per cell (default 5)")
    traces = parser.add_mutually_exclusive_group()
    traces.add_argument("--quick", action="store_true",
                        help="2 seeds of 100 jobs per cell and no Pollux traces (a smoke run)")
    traces.add_argument("--pollux-dir", type=Path, metavar="DIR",
                        help=f"folder of Pollux {POLLUX_TRACES} files (default "
                             "the eight shipped with the engine)")
    add_executor_options(parser)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--card", nargs="?", const=str(pretrained_dir()), metavar="DIR",
                        help="also write the table into the pretrained model card")
    parser.set_defaults(handler=run)


def pollux_traces(folder: Path) -> list[Path]:
    """The Pollux traces in ``folder``, sorted; :class:`PolluxTracesMissing` if none."""
    if not folder.is_dir():
        problem = "not a folder" if folder.exists() else "no such folder"
    elif files := sorted(folder.glob(POLLUX_TRACES)):
        return files
    else:
        problem = f"no {POLLUX_TRACES} files in it"
    raise PolluxTracesMissing(
        f"{folder}: {problem}; expected a folder of Pollux traces ({POLLUX_TRACES} files)"
    )


def cells(seeds: int, jobs: int, files: Sequence[Path]) -> list[Cell]:
    """The generated cells, plus one Pollux cell of ``files`` when there are any."""
    out = [
        Cell(f"{c.total_gpus} GPUs, load {load:g}", c, list(range(seeds)),
             GeneratorConfig(jobs=jobs, load=load))
        for c in CLUSTERS
        for load in LOADS
    ]
    if files:
        testbed = Cluster(16, 4)
        traces = {i: to_jobs(load_workload(f, fmt="pollux", cluster=testbed), testbed)
                  for i, f in enumerate(files, 1)}
        out.append(Cell(f"Pollux traces ({len(files)}), 64 GPUs", testbed, traces))
    return out


def evaluate(cell_list: list[Cell], executor: Executor | None = None) -> dict[str, Any]:
    """Run every runnable policy on every cell; per-cell stats and the headline numbers.

    Every cell's runs go to ``executor`` (default: a local one) in one map.
    """
    comparisons, skipped_anywhere = [], {}
    runnable: dict[Cluster, tuple[list[str], dict[str, str]]] = {}
    for cell in cell_list:
        if cell.cluster not in runnable:  # probing costs a run per policy; cells share clusters
            runnable[cell.cluster] = runnable_policies(cell.cluster)
        names, skipped = runnable[cell.cluster]
        skipped_anywhere.update(skipped)
        if TARGET not in names or REFERENCE not in names:
            raise ValueError(f"cannot run {TARGET} and {REFERENCE}: {skipped}")
    resolved = resolve_all([(c.workloads, c.cluster, c.config) for c in cell_list], executor)
    for cell, workloads in zip(cell_list, resolved, strict=True):
        names, _ = runnable[cell.cluster]
        comparisons.append(Comparison(tuple(names), workloads, cell.cluster))
    results = []
    for cell, table in zip(cell_list, compare_all(comparisons, executor), strict=True):
        table = with_held_out_threshold(table)
        summary = summarize_comparison(table, ("avg_jct",)).set_index("policy")
        stats = {p: {"mean": float(r.avg_jct_mean), "ci95": float(r.avg_jct_ci95),
                     "runs": int(r.runs)} for p, r in summary.iterrows()}
        ours = stats[TARGET]["mean"]
        others = {p: s["mean"] for p, s in stats.items() if p != TARGET}
        best_other = min(others, key=others.__getitem__)
        held_out = stats.get(HELD_OUT, {}).get("mean")
        results.append({
            "cell": cell.name,
            "policies": stats,
            "reduction_vs_threshold_optimal": 1.0 - ours / stats[REFERENCE]["mean"],
            "reduction_vs_threshold_held_out": None if held_out is None else 1.0 - ours / held_out,
            "best_baseline": best_other,
            "drl_beats_every_baseline": ours < others[best_other],
        })
    reductions = [r["reduction_vs_threshold_optimal"] for r in results]
    held_out = [r["reduction_vs_threshold_held_out"] for r in results]
    return {
        "cells": results,
        "average_reduction_vs_threshold_optimal": sum(reductions) / len(reductions),
        "average_reduction_vs_threshold_held_out":
            None if None in held_out else sum(held_out) / len(held_out),
        "cells_where_drl_beats_every_baseline": sum(r["drl_beats_every_baseline"] for r in results),
        "skipped_policies": skipped_anywhere,
    }


def run(args: argparse.Namespace) -> int:
    seeds, jobs = (2, 100) if args.quick else (args.seeds, GeneratorConfig().jobs)
    files = [] if args.quick else pollux_traces(args.pollux_dir or pollux_workloads())
    with executor_from(args) as executor:
        executor.start("engine.compare", "engine.policies.drl")  # while the cells are built
        import_in_background(TABLES)  # while the workers run: the tables come after them
        report = evaluate(cells(seeds, jobs, files), executor)
    report["setup"] = {"seeds": seeds, "jobs_per_generated_workload": jobs}
    if args.card:
        update_card({"evaluation": report}, args.card)
    if args.json:
        print_json(report)
        return 0
    print(format_report(report))
    return 0


def format_report(report: dict[str, Any]) -> str:
    """The table as text: one block per cell, policies best first."""
    lines = []
    for cell in report["cells"]:
        held_out = cell["reduction_vs_threshold_held_out"]
        versus_held_out = "" if held_out is None else f", vs {HELD_OUT}: {100 * held_out:+.1f}%"
        lines.append(f"{cell['cell']}  (drl vs threshold-optimal: "
                     f"{100 * cell['reduction_vs_threshold_optimal']:+.1f}% lower avg JCT"
                     f"{versus_held_out}; best baseline {cell['best_baseline']})")
        for name, s in sorted(cell["policies"].items(), key=lambda kv: kv[1]["mean"]):
            spread = "s (1 run)" if s["runs"] == 1 else f"+- {s['ci95']:8,.0f} s"
            lines.append(f"  {name:>20}  {s['mean']:10,.0f} {spread}")
    held_out = report["average_reduction_vs_threshold_held_out"]
    if held_out is not None:
        lines.append(f"average reduction vs {HELD_OUT} (T tuned on the cell's other "
                     f"workloads): {100 * held_out:.1f}%")
    lines.append(
        f"average reduction vs threshold-optimal: "
        f"{100 * report['average_reduction_vs_threshold_optimal']:.1f}%; drl beats every "
        f"baseline in {report['cells_where_drl_beats_every_baseline']} of "
        f"{len(report['cells'])} cells"
    )
    return "\n".join(lines)
