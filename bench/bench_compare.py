"""Comparison throughput: every registered policy, threshold sweep included, one workload.

The bar (compare issue): 1,000 jobs on 64 GPUs (16 x 4) in under 5 s on 2 cores.
Run: ``python bench/bench_compare.py`` (times ``compare`` only, not generating the jobs;
prints each policy's own share, measured in one process, to show where the time goes).
"""

from __future__ import annotations

import time

from engine.cluster import Cluster
from engine.compare import compare
from engine.policies import POLICIES
from engine.run import run_policy
from engine.workload import GeneratorConfig, generate, to_jobs

CLUSTER = Cluster(nodes=16, gpus_per_node=4)
JOBS = 1_000
BAR_SECONDS = 5.0


def main() -> None:
    jobs = to_jobs(generate(GeneratorConfig(jobs=JOBS, seed=0), CLUSTER), CLUSTER)
    names = list(POLICIES)
    started = time.perf_counter()
    table = compare(names, {0: jobs}, CLUSTER)
    seconds = time.perf_counter() - started
    print(f"compare of {len(names)} policies, {JOBS:,} jobs on {CLUSTER}: {seconds:.2f} s")
    for name in names:
        started = time.perf_counter()
        run_policy(name, jobs, CLUSTER)
        own = time.perf_counter() - started
        jct = table.loc[table["policy"] == name, "avg_jct"].item()
        print(f"  {name:>18}: {own:6.3f} s   avg JCT {jct:9,.0f} s")
    verdict = "meets" if seconds < BAR_SECONDS else "MISSES"
    print(f"{seconds:.2f} s -> {verdict} the {BAR_SECONDS:g} s bar")


if __name__ == "__main__":
    main()
