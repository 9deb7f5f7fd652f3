"""``compare``: chosen policies on the same workloads, with a mean and 95% CI per policy.

``--mode rigid|moldable|malleable`` makes every job that mode and compares that mode's
candidate policies (``engine.modes``) with their restart counts; ``--mode all`` prints
one row per mode, its best policy.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

import pandas as pd

from engine.cli.common import (
    add_cluster_options,
    add_executor_options,
    add_workload_options,
    cluster_from,
    executor_from,
    metrics_epilog,
    positive_int,
    print_json,
    workload_from,
)
from engine.cluster import Cluster
from engine.compare import (
    HELD_OUT,
    compare,
    held_out_threshold,
    mean_ci,
    runnable_policies,
    summarize_comparison,
)
from engine.job import MODES, Job
from engine.modes import (
    COUNTS,
    MODE_METRICS,
    MODE_POLICIES,
    mode_candidates,
    mode_runs,
    summarize_modes,
)
from engine.policies import POLICIES, make_policy
from engine.workload import to_jobs

JSON_KEYS: tuple[str, ...] = ("policy", "seed", "avg_jct", "p95_jct", "makespan", "utilization")
EPILOG = (
    metrics_epilog(JSON_KEYS[2:])
    + "\nmean ± 95% CI: over the workloads, the mean and the half-width of its Student-t"
    " interval\n(no interval with one workload)."
)


def register(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    add_workload_options(parser)
    add_cluster_options(parser)
    parser.add_argument(
        "--policies",
        default="all",
        help=f"comma-separated names, or all (default): {', '.join(POLICIES)}",
    )
    parser.add_argument(
        "--seeds",
        type=positive_int,
        default=1,
        help="K workloads, generated with seeds seed..seed+K-1 (a --workload file is one "
        "workload: it runs once)",
    )
    parser.add_argument(
        "--mode", choices=(*MODES, "all"),
        help="make every job rigid, moldable or malleable and compare that mode's policies "
        "(default --policies: "
        + "; ".join(f"{mode}: {', '.join(names)}" for mode, names in MODE_POLICIES.items())
        + "); all: one row per mode, its best policy (default: each job as loaded)",
    )
    add_executor_options(parser)
    parser.add_argument("--json", action="store_true",
                        help="print one JSON row per run (with --mode all: per mode)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    cluster = cluster_from(args)
    if args.mode == "all" and args.policies.strip() != "all":
        raise ValueError("--mode all compares each mode's own candidate policies; leave "
                         f"--policies out (got --policies {args.policies})")
    plan = _plan(args, cluster)
    workloads = _workloads(args, cluster)
    if plan is not None:
        return _run_modes(args, plan, workloads, cluster)
    names = _policies(args.policies, cluster)
    with executor_from(args) as executor:
        table = compare(names, workloads, cluster, executor=executor)
    if args.json:
        print_json(json_rows(table))
        return 0
    print(_heading(args, f"{len(names)} policies", workloads, cluster))
    print(_format(summarize_comparison(table)))
    for key, records in table.attrs.items():
        best = [f"seed {r['seed']}: {_label(r)}" for r in records if r["best"]]
        print(f"{key}, best per seed: {'; '.join(best)}")
    held_out = held_out_threshold(table)
    if held_out is not None:
        mean, half = mean_ci(held_out.to_numpy())
        print(f"{HELD_OUT} (the setting best on the other seeds, scored on each seed): avg JCT "
              f"{mean:,.0f} ± {half:,.0f} s")
    return 0


def _workloads(args: argparse.Namespace, cluster: Cluster) -> dict[int, list[Job]]:
    """Seed -> jobs: the file once, or ``--seeds`` generated workloads."""
    if args.workload:
        if args.seeds > 1:  # every policy is deterministic: K replays would show ± 0
            print(f"note: --seeds applies to generated workloads only; {args.workload} is one "
                  f"workload, run once", file=sys.stderr)
        return {args.seed: to_jobs(workload_from(args, cluster), cluster)}
    seeds = range(args.seed, args.seed + args.seeds)
    return {seed: to_jobs(workload_from(args, cluster, seed), cluster) for seed in seeds}


def _heading(
    args: argparse.Namespace, what: str, workloads: dict[int, list[Job]], cluster: Cluster
) -> str:
    """``what`` ran on which workloads and cluster, and whether there is an interval."""
    source = args.workload or f"generated, load {args.load:g}"
    jobs = len(next(iter(workloads.values())))
    if len(workloads) == 1:
        shape = f"1 workload ({source}), {jobs} jobs; one run each, so no interval"
    else:
        shape = f"{len(workloads)} workloads ({source}), {jobs} jobs each; mean ± 95% CI"
    return f"{what} on {cluster}: {shape}"


def _plan(args: argparse.Namespace, cluster: Cluster) -> dict[str, list[str]] | None:
    """``--mode``'s policies per mode, or None without ``--mode`` (each job as loaded)."""
    if args.mode is None:
        return None
    modes = MODES if args.mode == "all" else (args.mode,)
    if args.policies.strip() != "all":
        return {args.mode: _policies(args.policies, cluster)}
    plan = {}
    for mode in modes:
        plan[mode], skipped = mode_candidates(mode, cluster)
        for name, reason in skipped.items():
            print(f"note: skipping {name}, it cannot run here ({reason})", file=sys.stderr)
    return plan


def _run_modes(
    args: argparse.Namespace,
    plan: dict[str, list[str]],
    workloads: dict[int, list[Job]],
    cluster: Cluster,
) -> int:
    with executor_from(args) as executor:
        table = mode_runs(plan, workloads, cluster, executor=executor)
    if args.mode != "all":
        if args.json:
            print_json(table[["mode", *JSON_KEYS, *COUNTS]].to_dict("records"))
            return 0
        what = f"{len(plan[args.mode])} policies ({args.mode} jobs)"
        print(_heading(args, what, workloads, cluster))
        print(_format(summarize_comparison(table, MODE_METRICS), restarts=True))
        return 0
    best = summarize_modes(table)
    if args.json:
        print_json(best.to_dict("records"))
        return 0
    what = f"{sum(map(len, plan.values()))} policies over the three job modes"
    print(_heading(args, what, workloads, cluster))
    print(_format(best, restarts=True, by_mode=True))
    print("each mode's best policy by mean avg JCT; restarts: resizes plus resumes after a "
          "preemption, per workload")
    return 0


def json_rows(table: pd.DataFrame) -> list[dict[str, Any]]:
    """``JSON_KEYS`` per run, plus each tuned policy's sweep for that seed."""
    rows = []
    for row in table.to_dict("records"):
        run = (row["policy"], row["seed"])
        out = {key: row[key] for key in JSON_KEYS}
        for sweep_key, records in table.attrs.items():
            mine = [_without_run(r) for r in records if (r["policy"], r["seed"]) == run]
            if mine:
                out[sweep_key] = mine
        rows.append(out)
    return rows


def _without_run(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in ("policy", "seed")}


def _policies(text: str, cluster: Cluster) -> list[str]:
    if text.strip() == "all":
        names, skipped = runnable_policies(cluster)
        for name, reason in skipped.items():
            print(f"note: skipping {name}, it cannot run here ({reason})", file=sys.stderr)
        return names
    names = list(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    if not names:
        raise ValueError("--policies needs at least one policy name, or all")
    for name in names:
        make_policy(name)  # an unknown name raises KeyError listing the known ones
    return names


def _format(summary: pd.DataFrame, restarts: bool = False, by_mode: bool = False) -> str:
    """A text table of means ± CIs; ``by_mode``: a mode column before the policy."""
    columns = {
        "avg_jct": ("avg JCT (s)", ",.0f"),
        "p95_jct": ("p95 JCT (s)", ",.0f"),
        "makespan": ("makespan (s)", ",.0f"),
        "utilization": ("utilization", ".3f"),
    }
    if restarts:
        columns["restarts"] = ("restarts", ",.0f")
    keys = ["mode", "policy"] if by_mode else ["policy"]
    cells = [[*keys, *(title for title, _ in columns.values())]]
    for row in summary.to_dict("records"):
        cells.append(
            [row[key] for key in keys]
            + [_cell(row[f"{m}_mean"], row[f"{m}_ci95"], spec) for m, (_, spec) in columns.items()]
        )
    widths = [max(len(line[i]) for line in cells) for i in range(len(cells[0]))]
    return "\n".join(
        "  ".join(
            c.ljust(w) if i < len(keys) else c.rjust(w)
            for i, (c, w) in enumerate(zip(line, widths, strict=True))
        )
        for line in cells
    )


def _cell(mean: float, half: float, spec: str) -> str:
    return format(mean, spec) if math.isnan(half) else f"{mean:{spec}} ± {half:{spec}}"


def _label(record: dict[str, Any]) -> str:
    setting = _without_run(record)
    shown = {k: v for k, v in setting.items() if k not in ("avg_jct", "best")}
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in shown.items())
