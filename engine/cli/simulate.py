"""``simulate``: run one policy on one workload and print its summary.

``--mode`` makes every job rigid, moldable or malleable; an elastic policy
(``tiresias``, ``optimus-elastic``) pays ``--restart-delay`` per resize or resume.
"""

from __future__ import annotations

import argparse

from engine.cli.common import (
    add_cluster_options,
    add_workload_options,
    cluster_from,
    metrics_epilog,
    output_file,
    print_json,
    workload_from,
)
from engine.job import MODES
from engine.policies import ELASTIC_POLICIES, POLICIES
from engine.run import run_policy
from engine.simulator.elastic import RESTART_DELAY
from engine.simulator.results import METRIC_DEFINITIONS, TIME_METRICS
from engine.units import with_unit
from engine.workload import to_jobs
from engine.workload.jobs import BATCH_KINDS


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected seconds >= 0, got {text!r}")
    return value


def register(parser: argparse.ArgumentParser) -> None:
    parser.epilog = metrics_epilog(list(METRIC_DEFINITIONS))
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    add_workload_options(parser)
    add_cluster_options(parser)
    names = ", ".join([*POLICIES, *ELASTIC_POLICIES])
    parser.add_argument("--policy", default="fifo-request", help=f"one of {names}")
    parser.add_argument("--mode", choices=MODES,
                        help="make every job rigid, moldable or malleable (default: moldable)")
    parser.add_argument("--batch", choices=BATCH_KINDS, default="fixed",
                        help="measured DL jobs: train at their batch_size (fixed), or retune "
                             "it every epoch for their GPUs as Pollux's jobs do (adaptive; "
                             "pair with pollux-like)")
    parser.add_argument("--restart-delay", type=_seconds, default=RESTART_DELAY,
                        metavar="SECONDS",
                        help="elastic policies: seconds each resize or resume makes no "
                             f"progress (default {RESTART_DELAY:g}, as in the Pollux simulator)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--jobs-csv", metavar="PATH", help="also write the per-job table here")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    cluster = cluster_from(args)
    workload = workload_from(args, cluster)
    jobs = to_jobs(workload, cluster, args.mode, args.batch)
    result = run_policy(args.policy, jobs, cluster, seed=args.seed,
                        restart_delay=args.restart_delay)
    summary = result.summary.as_dict()
    if "resizes" in result.jobs:
        summary |= {"resizes": int(result.jobs["resizes"].sum()),
                    "preemptions": int(result.jobs["preemptions"].sum())}
    if args.json:
        print_json({"policy": result.policy, "cluster": str(cluster), **summary})
    else:
        print(f"policy {result.policy} on {cluster}, workload {workload.name} "
              f"({len(workload)} jobs)")
        for key, value in summary.items():
            shown = (with_unit(value) if key in TIME_METRICS
                     else f"{value:,.3f}" if isinstance(value, float) else value)
            print(f"  {key:>20}: {shown}")
    if args.jobs_csv:  # after the summary: a run's figures survive a full disk
        with output_file(args.jobs_csv) as file:
            result.jobs.to_csv(file, index=False)
    return 0
