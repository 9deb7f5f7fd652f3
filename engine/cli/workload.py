"""``workload``: generate a workload (or convert an imported one) and write it as CSV."""

from __future__ import annotations

import argparse
import sys

from engine.cli.common import (
    add_cluster_options,
    add_workload_options,
    cluster_from,
    output_file,
    workload_from,
)
from engine.workload import save_csv


def register(parser: argparse.ArgumentParser) -> None:
    add_workload_options(parser)
    add_cluster_options(parser)
    parser.add_argument("-o", "--output", metavar="PATH", help="CSV to write (default stdout)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    cluster = cluster_from(args)
    workload = workload_from(args, cluster)
    if not args.output:
        save_csv(workload, sys.stdout)
        return 0
    with output_file(args.output) as file:
        save_csv(workload, file)
    print(f"wrote {len(workload)} jobs to {args.output}", file=sys.stderr)
    return 0
