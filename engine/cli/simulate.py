"""``simulate``: run one policy on one workload and print its summary."""

from __future__ import annotations

import argparse

from engine.cli.common import (
    add_cluster_options,
    add_workload_options,
    cluster_from,
    print_json,
    workload_from,
)
from engine.policies import POLICIES
from engine.run import run_policy
from engine.simulator.results import METRIC_DEFINITIONS, metrics_epilog
from engine.workload import to_jobs


def register(parser: argparse.ArgumentParser) -> None:
    parser.epilog = metrics_epilog(list(METRIC_DEFINITIONS))
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    add_workload_options(parser)
    add_cluster_options(parser)
    parser.add_argument("--policy", default="fifo-request", help=f"one of {', '.join(POLICIES)}")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--jobs-csv", metavar="PATH", help="also write the per-job table here")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    cluster = cluster_from(args)
    workload = workload_from(args, cluster)
    result = run_policy(args.policy, to_jobs(workload, cluster), cluster, seed=args.seed)
    if args.jobs_csv:
        result.jobs.to_csv(args.jobs_csv, index=False)
    summary = result.summary.as_dict()
    if args.json:
        print_json({"policy": result.policy, "cluster": str(cluster), **summary})
        return 0
    print(f"policy {result.policy} on {cluster}, workload {workload.name} ({len(workload)} jobs)")
    for key, value in summary.items():
        print(f"  {key:>20}: {value:,.3f}" if isinstance(value, float) else f"  {key:>20}: {value}")
    return 0
