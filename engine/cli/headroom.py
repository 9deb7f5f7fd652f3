"""``headroom``: how much a clairvoyant search improves a policy's schedule.

A research diagnostic (:mod:`engine.headroom`), not part of the product. For each
workload, it runs a policy, then searches with the whole workload known in advance and
prints the average JCT before and after: ``--search shifts`` moves per-job GPU counts of
``drl``'s (or the teacher ``drl-expert``'s) own decisions; ``--search list`` replays any
policy's counts and start order as a list schedule and moves counts and priorities
freely. With ``--reference`` it also prints each workload's JCT under a baseline and what
the searched schedule would gain against it. Each workload is one executor task.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from tqdm import tqdm

from engine.cli.common import (
    add_cluster_options,
    add_executor_options,
    add_workload_options,
    cluster_from,
    executor_from,
    positive_int,
    print_json,
    workload_from,
)
from engine.cluster import Cluster
from engine.drl.shift_search import MOVES, ShiftedPolicy, local_search
from engine.headroom import SEARCHABLE, chooser, list_search
from engine.job import Job
from engine.policies import POLICIES
from engine.run import run_policy
from engine.simulator import SimulationResult, simulate
from engine.workload import to_jobs

SEARCHES: tuple[str, ...] = ("shifts", "list")


def register(parser: argparse.ArgumentParser) -> None:
    add_workload_options(parser)
    add_cluster_options(parser)
    parser.add_argument("--search", choices=SEARCHES, default="shifts",
                        help="shifts: GPU-count shifts of drl's own decisions; list: counts "
                             "and priorities of a list schedule (default shifts)")
    parser.add_argument("--policy", choices=[*SEARCHABLE, *sorted(set(POLICIES) - {"drl"})],
                        default="drl", help="schedule to start from (default drl; any policy "
                        "with --search list)")
    parser.add_argument("--trials", type=positive_int, default=20_000,
                        help="runs per workload of --search list (default 20000)")
    parser.add_argument("--seeds", type=positive_int, default=1,
                        help="generated workloads, seeds --seed, --seed+1, ... (default 1)")
    parser.add_argument("--passes", type=positive_int, default=2,
                        help="sweeps over the jobs (default 2)")
    parser.add_argument("--reference", default="threshold-optimal",
                        help="baseline to set the result against (default threshold-optimal; "
                             "'none' to skip)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    add_executor_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    cluster = cluster_from(args)
    seeds = [args.seed] if args.workload else [args.seed + k for k in range(args.seeds)]
    if args.search == "shifts" and args.policy not in SEARCHABLE:
        raise ValueError(f"--search shifts starts from {' or '.join(SEARCHABLE)}, not "
                         f"{args.policy!r}; use --search list for other policies")
    runs = args.passes * len(MOVES) * args.jobs if args.search == "shifts" else args.trials
    with executor_from(args) as executor:
        if executor.in_process(len(seeds), work=len(seeds) * runs * args.jobs):
            rows = [_row(args, seed, verbose=not args.json) for seed in seeds]
        else:  # one task per workload: the bar moves as workloads finish
            with tqdm(total=len(seeds), desc="workloads", file=sys.stderr,
                      disable=args.json or None) as bar:
                rows = executor.map(_row, seeds, shared=args,
                                    progress=lambda done, _total: bar.update(done - bar.n))
    if args.json:
        print_json({"policy": args.policy, "cluster": str(cluster), "workloads": rows})
        return 0
    if args.search == "shifts":
        print(f"clairvoyant local search around {args.policy} on {cluster} ({args.passes} passes)")
    else:
        print(f"clairvoyant list-schedule search from {args.policy}'s schedule on {cluster} "
              f"({args.trials:,} trials)")
    for row in rows:
        line = (f"  seed {row['seed']}: {row[f'{args.policy}_avg_jct']:,.0f} s -> "
                f"{row['searched_avg_jct']:,.0f} s ({100 * row['headroom']:.1f}% lower, "
                f"{row['changed_jobs']} of {row['jobs']} jobs re-sized)")
        if args.reference != "none":
            line += (f"; vs {args.reference}: {100 * row[f'{args.policy}_vs_reference']:+.1f}% "
                     f"-> {100 * row['searched_vs_reference']:+.1f}%")
        print(line)
    return 0


def _row(args: argparse.Namespace, seed: int, verbose: bool = False) -> dict[str, Any]:
    """One workload's search and its numbers (an executor task; ``verbose``: a trial bar)."""
    cluster = cluster_from(args)
    jobs = to_jobs(workload_from(args, cluster, seed), cluster)
    total = args.passes * len(jobs) if args.search == "shifts" else args.trials
    with tqdm(total=total, desc=f"seed {seed}", file=sys.stderr,
              disable=not verbose or None, leave=False) as bar:
        own, searched, found = _search(args, jobs, cluster, seed,
                                       lambda done, _total: bar.update(done - bar.n))
    row: dict[str, Any] = {
        "seed": seed,
        "jobs": len(jobs),
        f"{args.policy}_avg_jct": own,
        "searched_avg_jct": searched,
        "headroom": 1.0 - searched / own,
        **found,
    }
    if args.reference != "none":
        reference = run_policy(args.reference, jobs, cluster, seed).summary.avg_jct
        row[f"{args.reference}_avg_jct"] = reference
        row[f"{args.policy}_vs_reference"] = 1.0 - own / reference
        row["searched_vs_reference"] = 1.0 - searched / reference
    return row


def _search(
    args: argparse.Namespace, jobs: list[Job], cluster: Cluster, seed: int,
    progress: Callable[[int, int], None],
) -> tuple[float, float, dict[str, Any]]:
    """The policy's own average JCT, the searched one, and what else the search reports."""
    if args.search == "shifts":
        result = local_search(jobs, cluster, chooser(args.policy), args.passes, progress=progress)
        return result.base_avg_jct, result.avg_jct, {"changed_jobs": len(result.shifts),
                                                     "simulations": result.simulations}
    start = _start(args.policy, jobs, cluster, seed)
    listed = list_search(jobs, cluster, start, args.trials, seed, progress)
    resized = int((start.jobs["gpus"].to_numpy() != np.array(listed.gpus)).sum())
    return start.summary.avg_jct, listed.avg_jct, {
        "replayed_avg_jct": listed.base_avg_jct, "changed_jobs": resized,
        "simulations": args.trials + 1}


def _start(policy: str, jobs: list[Job], cluster: Cluster, seed: int) -> SimulationResult:
    """``policy``'s own run, the start of a list search (the teacher is not in the registry)."""
    if policy not in POLICIES:
        return simulate(jobs, cluster, ShiftedPolicy(chooser(policy), {}), seed)
    return run_policy(policy, jobs, cluster, seed)

