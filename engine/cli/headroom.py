"""``headroom``: how much a clairvoyant local search improves a policy's schedule.

For each workload, it runs ``drl`` (or the teacher ``drl-expert``), then searches per-job
GPU-count shifts with the whole workload known in advance, and prints the average JCT
before and after (see :mod:`engine.headroom`). With ``--reference`` it also prints each
workload's JCT under a baseline and what the improved schedule would gain against it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tqdm import tqdm

from engine.cli.common import (
    add_cluster_options,
    add_workload_options,
    cluster_from,
    positive_int,
    print_json,
    workload_from,
)
from engine.compare import run_policy
from engine.headroom import SEARCHABLE, chooser, local_search
from engine.workload import to_jobs


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "headroom", help="clairvoyant local search: how far a policy's schedule is from better"
    )
    add_workload_options(parser)
    add_cluster_options(parser)
    parser.add_argument("--policy", choices=SEARCHABLE, default="drl",
                        help="schedule to start from (default drl)")
    parser.add_argument("--seeds", type=positive_int, default=1,
                        help="generated workloads, seeds --seed, --seed+1, ... (default 1)")
    parser.add_argument("--passes", type=positive_int, default=2,
                        help="sweeps over the jobs (default 2)")
    parser.add_argument("--reference", default="threshold-optimal",
                        help="baseline to set the result against (default threshold-optimal; "
                             "'none' to skip)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    cluster = cluster_from(args)
    seeds = [args.seed] if args.workload else [args.seed + k for k in range(args.seeds)]
    choose = chooser(args.policy)
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        jobs = to_jobs(workload_from(args, cluster, seed), cluster)
        with tqdm(total=args.passes * len(jobs), desc=f"seed {seed}", unit="job",
                  file=sys.stderr, disable=args.json or None, leave=False) as bar:
            result = local_search(jobs, cluster, choose, args.passes,
                                  progress=lambda done, _total: bar.update(done - bar.n))
        row: dict[str, Any] = {
            "seed": seed,
            "jobs": len(jobs),
            f"{args.policy}_avg_jct": result.base_avg_jct,
            "searched_avg_jct": result.avg_jct,
            "headroom": result.headroom,
            "shifted_jobs": len(result.shifts),
            "simulations": result.simulations,
        }
        if args.reference != "none":
            reference = run_policy(args.reference, jobs, cluster, seed).summary.avg_jct
            row[f"{args.reference}_avg_jct"] = reference
            row[f"{args.policy}_vs_reference"] = 1.0 - result.base_avg_jct / reference
            row["searched_vs_reference"] = 1.0 - result.avg_jct / reference
        rows.append(row)
    if args.json:
        print_json({"policy": args.policy, "cluster": str(cluster), "workloads": rows})
        return 0
    print(f"clairvoyant local search around {args.policy} on {cluster} ({args.passes} passes)")
    for row in rows:
        line = (f"  seed {row['seed']}: {row[f'{args.policy}_avg_jct']:,.0f} s -> "
                f"{row['searched_avg_jct']:,.0f} s ({100 * row['headroom']:.1f}% lower, "
                f"{row['shifted_jobs']} of {row['jobs']} jobs shifted)")
        if args.reference != "none":
            line += (f"; vs {args.reference}: {100 * row[f'{args.policy}_vs_reference']:+.1f}% "
                     f"-> {100 * row['searched_vs_reference']:+.1f}%")
        print(line)
    return 0
