"""Simulator throughput: ``fifo-request`` on 256 GPUs for 1k, 10k and 100k jobs.

The bar (engine issue): 100,000 jobs in under 3 s on one core, cost growing ~n log n.
The 100k run is timed again under a run budget (``engine.budget``, every limit set, as
the app runs it): its checks must cost nothing measurable.
Run: ``python bench/bench_simulator.py`` (times the simulation only, not generation).
"""

from __future__ import annotations

import math
import time

from engine.budget import RunBudget
from engine.cluster import Cluster
from engine.policies import make_policy
from engine.simulator import simulate
from engine.workload import GeneratorConfig, generate, to_jobs

CLUSTER = Cluster(nodes=64, gpus_per_node=4)
SIZES = (1_000, 10_000, 100_000)
BUDGET = RunBudget(events=10**7, span=1e12, wall_s=3600, memory_mb=10_000)
"""Every limit set, none reached: the checks' cost alone."""


def best_of(repeats: int, jobs: list, budget: RunBudget | None = None) -> tuple[float, float]:
    """Best wall and CPU seconds; CPU time is the one-core cost even on a busy machine."""
    wall = cpu = math.inf
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        simulate(jobs, CLUSTER, make_policy("fifo-request"), budget=budget)
        wall = min(wall, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - started_cpu)
    return wall, cpu


def main() -> None:
    print(f"fifo-request on {CLUSTER}, load 0.9, best of 3")
    print(f"{'jobs':>8} {'wall s':>8} {'CPU s':>8} {'jobs/s':>9} {'us/(n log2 n)':>14}")
    seconds = {}
    for n in SIZES:
        workload = generate(GeneratorConfig(jobs=n, load=0.9, seed=1), CLUSTER)
        jobs = to_jobs(workload, CLUSTER)
        wall, seconds[n] = best_of(3, jobs)
        if n == SIZES[-1]:
            _, budgeted = best_of(3, jobs, BUDGET)
        per_nlogn = seconds[n] / (n * math.log2(n)) * 1e6
        print(f"{n:>8} {wall:>8.3f} {seconds[n]:>8.3f} {n / seconds[n]:>9,.0f} {per_nlogn:>14.4f}")
    small, large = SIZES[0], SIZES[-1]
    exponent = math.log(seconds[large] / seconds[small]) / math.log(large / small)
    print(f"cost grows as n^{exponent:.2f} from {small:,} to {large:,} jobs (n log n ~ n^1.1)")
    verdict = "meets" if seconds[large] < 3.0 else "MISSES"
    print(f"100,000 jobs: {seconds[large]:.2f} CPU s -> {verdict} the 3 s bar (jobs/s uses CPU s)")
    print(f"100,000 jobs under a run budget: {budgeted:.2f} CPU s "
          f"({budgeted / seconds[large] - 1:+.1%})")


if __name__ == "__main__":
    main()
