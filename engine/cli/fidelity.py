"""``fidelity``: our Tiresias, Optimus and Pollux against the Pollux simulator, on its workloads.

The Pollux OSDI'21 artifact simulates its 8 workloads (shipped with the engine,
``engine.paths.pollux_workloads``) on 16 nodes x 4 GPUs. We run the same workloads
through the same loader and job model as ``simulate`` (every job's speed measured at its
own batch, ``engine.speedup.measured``): ``tiresias`` on rigid jobs (their
``num_replicas``), ``optimus-elastic`` on malleable ones, exactly as
``simulate --workload workload-N.csv --policy P --mode M`` does, so the two print the
same figures. ``pollux-like`` runs Pollux's batch-adaptive jobs (``simulate --batch
adaptive``). Nothing is fitted per workload.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cli.common import print_json
from engine.cluster import Cluster
from engine.job import Job
from engine.paths import pollux_workloads
from engine.run import run_policy
from engine.workload import load_workload, to_jobs

PUBLISHED: dict[str, dict[str, float]] = {
    "tiresias": {
        "workload-1": 2473.65, "workload-2": 5144.9625, "workload-3": 3876.25625,
        "workload-4": 3280.2625, "workload-5": 3501.0125, "workload-6": 3469.69375,
        "workload-7": 5479.9125, "workload-8": 5079.70625,
    },
    "optimus": {
        "workload-1": 4087.0625, "workload-2": 6913.875, "workload-3": 3944.00625,
        "workload-4": 5967.75, "workload-5": 5656.25, "workload-6": 5301.875,
        "workload-7": 7290.85625, "workload-8": 6293.79375,
    },
    "pollux": {
        "workload-1": 2088.76875, "workload-2": 3322.94375, "workload-3": 2188.49375,
        "workload-4": 2720.98125, "workload-5": 2673.7, "workload-6": 2446.13125,
        "workload-7": 3616.14375, "workload-8": 2951.90625,
    },
}
"""The artifact's average JCT (s) per workload: ``avgs`` of
``simulator/results-jobload/{tiresias,optimus,pollux}-1.0/summary.json`` (petuum/adaptdl,
branch osdi21-artifact, Apache-2.0), written by ``python3 simulator.py --policy P
--output DIR workloads/``; workload-6 is the README's figure for each policy."""

OURS = {"tiresias": "tiresias", "optimus": "optimus-elastic", "pollux": "pollux-like"}
"""The artifact's policy -> ours."""
RUNS: dict[str, tuple[str, str]] = {
    "tiresias": ("rigid", "fixed"), "optimus": ("malleable", "fixed"),
    "pollux": ("malleable", "adaptive"),
}
"""The artifact's policy -> the job mode and batch kind its jobs run as."""
CLUSTER = Cluster(16, 4)


def workload_jobs(name: str, policy: str) -> list[Job]:
    """A Pollux workload's jobs for the artifact's ``policy``, as ``simulate`` builds them."""
    mode, batch = RUNS[policy]
    workload = load_workload(pollux_workloads() / f"{name}.csv", "pollux", CLUSTER)
    return to_jobs(workload, CLUSTER, mode, batch)


@dataclass(frozen=True)
class Row:
    workload: str
    policy: str
    ours: float
    artifact: float
    seconds: float

    @property
    def error(self) -> float:
        return self.ours / self.artifact - 1.0


def measure(names: Sequence[str], policies: Sequence[str] = tuple(OURS)) -> list[Row]:
    """Our average JCT beside the artifact's, per workload and policy."""
    rows = []
    for name in names:
        for theirs in policies:
            ours = OURS[theirs]
            jobs = workload_jobs(name, theirs)
            began = time.process_time()
            result = run_policy(ours, jobs, CLUSTER)
            seconds = time.process_time() - began
            rows.append(Row(name, ours, result.summary.avg_jct, PUBLISHED[theirs][name],
                            seconds))
    return rows


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workloads", default="all",
                        help="comma-separated names (workload-1 ...), or all")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    names = (sorted(PUBLISHED["tiresias"]) if args.workloads == "all"
             else args.workloads.split(","))
    unknown = sorted(set(names) - set(PUBLISHED["tiresias"]))
    if unknown:
        raise ValueError(f"unknown workload {unknown[0]!r}; known: workload-1..workload-8")
    rows = measure(names)
    if args.json:
        print_json([{**vars(r), "relative_error": r.error} for r in rows])
        return 0
    print(f"{'workload':<12}{'policy':<17}{'ours':>9}{'artifact':>10}{'error':>8}")
    for r in rows:
        print(f"{r.workload:<12}{r.policy:<17}{r.ours:>9.1f}{r.artifact:>10.1f}{r.error:>+8.1%}")
    for policy in dict.fromkeys(r.policy for r in rows):
        errors = [abs(r.error) for r in rows if r.policy == policy]
        print(f"{policy}: mean absolute error {sum(errors) / len(errors):.1%}, "
              f"worst {max(errors):.1%}")
    for low, high in (("tiresias", "optimus-elastic"), ("pollux-like", "tiresias")):
        flips = order_flips(rows, low, high)
        print(f"order {low} vs {high} as the artifact's: {len(names) - len(flips)} of "
              f"{len(names)} workloads" + (f" (not {', '.join(flips)})" if flips else ""))
    return 0


def order_flips(rows: Sequence[Row], first: str, second: str) -> list[str]:
    """Workloads where ours order ``first`` and ``second`` unlike the artifact's."""
    by = {(r.workload, r.policy): r for r in rows}
    names = dict.fromkeys(r.workload for r in rows)
    return [name for name in names
            if (by[name, first].ours < by[name, second].ours)
            != (by[name, first].artifact < by[name, second].artifact)]
