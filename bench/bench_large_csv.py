"""A 200,000-job native CSV end to end: read, validate, build Jobs, simulate fifo-request.

The bar (workload issue): at least 33,000 jobs/s end to end on 64 x 4 GPUs, i.e. about
6 s for 200,000 jobs, process start and simulation included.

The CSV is generated (``GeneratorConfig(jobs, load=0.9)``) and written to a temporary
folder first, untimed. Then two fresh interpreters are timed, wall clock:

* the library path the CLI's ``simulate`` takes (``load_workload`` -> ``to_jobs`` ->
  ``run_policy`` -> ``summary``), stage by stage, with the interpreter start and imports
  as a stage of their own;
* the CLI itself, ``python -m engine simulate --workload big.csv --policy fifo-request
  --nodes 64 --gpus-per-node 4 --json`` (no ``--max-rows``: by default no limit).

Run: ``python bench/bench_large_csv.py [--jobs N]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine.cluster import Cluster
from engine.workload import GeneratorConfig, generate, save_csv

BAR_JOBS_PER_S = 33_000
NODES, GPUS_PER_NODE = 64, 4
ROOT = Path(__file__).resolve().parents[1]

STAGES = """
import json, sys, time
started = float(sys.argv[2])
from engine.cluster import Cluster
from engine.run import run_policy
from engine.workload import load_workload, to_jobs
marks = {"start + imports": time.time() - started}
cluster = Cluster(nodes=int(sys.argv[3]), gpus_per_node=int(sys.argv[4]))
def stage(name, run):
    began = time.perf_counter()
    value = run()
    marks[name] = time.perf_counter() - began
    return value
workload = stage("load + validate", lambda: load_workload(sys.argv[1], cluster=cluster))
jobs = stage("to_jobs", lambda: to_jobs(workload, cluster))
result = stage("simulate", lambda: run_policy("fifo-request", jobs, cluster))
stage("summary", result.summary.as_dict)
print(json.dumps({"jobs": len(jobs), "stages": marks}))
"""


def library_run(path: Path) -> tuple[int, dict[str, float], float]:
    """Jobs, seconds per stage and total wall seconds of the library path, fresh process."""
    began = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            STAGES,
            str(path),
            repr(time.time()),
            str(NODES),
            str(GPUS_PER_NODE),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - began
    report = json.loads(out.stdout.strip().splitlines()[-1])
    return report["jobs"], report["stages"], wall


def cli_run(path: Path) -> tuple[float | None, str]:
    """Wall seconds of the CLI on the file (None if it failed), and what to say about it."""
    command = [sys.executable, "-m", "engine", "simulate", "--workload", str(path)]
    command += ["--policy", "fifo-request", "--nodes", str(NODES)]
    command += ["--gpus-per-node", str(GPUS_PER_NODE), "--json"]
    began = time.perf_counter()
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - began
    if out.returncode != 0:
        return None, f"the CLI failed (exit {out.returncode}): {out.stderr.strip()[-300:]}"
    return wall, "the whole CLI, loading included"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200_000, help="jobs in the CSV")
    args = parser.parse_args()
    cluster = Cluster(nodes=NODES, gpus_per_node=GPUS_PER_NODE)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.csv"
        save_csv(generate(GeneratorConfig(jobs=args.jobs, load=0.9, seed=0), cluster), path)
        megabytes = path.stat().st_size / 1e6
        print(f"{args.jobs:,} jobs, {megabytes:.1f} MB native CSV, fifo-request on {cluster}")
        jobs, stages, wall = library_run(path)
        print("library path (the CLI's simulate), fresh interpreter, wall clock:")
        for name, seconds in stages.items():
            rate = f"{jobs / seconds:>12,.0f} jobs/s" if seconds > 0.01 else ""
            print(f"  {name:>16}: {seconds:7.3f} s  {rate}")
        print(f"  {'end to end':>16}: {wall:7.3f} s  {jobs / wall:>12,.0f} jobs/s")
        loading = stages["load + validate"] + stages["to_jobs"]
        print(f"  {'load + to_jobs':>16}: {loading:7.3f} s  {jobs / loading:>12,.0f} jobs/s")
        cli_wall, how = cli_run(path)
    if cli_wall is None:
        print(f"CLI: {how}")
        total = wall
        source = "library path"
    else:
        print(f"CLI end to end ({how}): {cli_wall:.3f} s, {jobs / cli_wall:,.0f} jobs/s")
        total = cli_wall
        source = "CLI"
    rate = jobs / total
    verdict = "meets" if rate >= BAR_JOBS_PER_S else "MISSES"
    print(f"{source}: {rate:,.0f} jobs/s end to end -> {verdict} the {BAR_JOBS_PER_S:,} jobs/s bar")


if __name__ == "__main__":
    main()
