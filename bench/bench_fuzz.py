"""The mutation fuzzer (``engine.fuzz``) through the CLI, one subprocess per case.

Each case is written to a file and run as ``python -m engine simulate --workload F
--policy P --json`` (the policy cycles through a rigid, a moldable and the elastic
ones), with a time limit and each child's peak memory measured. Printed: cases tried,
exit 0, exit 2, other exits, tracebacks, hangs (past the limit), silent job losses
(exit 0 with ``completed`` below ``jobs``), the slowest case and the peak memory.
Target (issue 25): 0 tracebacks, 0 hangs, 0 losses; every case under 2 s and 500 MB
(the limit here counts interpreter start-up, about 0.5-1 s on a busy machine).

Run: ``python bench/bench_fuzz.py [--cases 10000] [--workers 2] [--timeout 10]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from engine.fuzz import case

POLICIES = ("fifo-request", "knee", "tiresias", "optimus-elastic", "pollux-like", "drl")


def run_case(number: int, folder: Path, timeout: float) -> tuple[str, str, float, int]:
    """(outcome, case name, seconds, peak kB) of case ``number``."""
    name, data = case(number)
    path = folder / f"case-{number}.csv"
    path.write_bytes(data)
    policy = POLICIES[number % len(POLICIES)]
    # the child runs the CLI and reports its own peak memory on stderr's last line
    wrapper = (
        "import resource, runpy, sys\n"
        f"sys.argv = ['engine', 'simulate', '--workload', {str(path)!r}, '--policy', "
        f"{policy!r}, '--json']\n"
        "try:\n    runpy.run_module('engine', run_name='__main__')\n"
        "finally:\n"
        "    sys.stderr.write(f'\\nPEAK_KB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}')\n"
    )
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", wrapper], capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return "hang", f"{name} ({policy})", time.perf_counter() - started, 0
    seconds = time.perf_counter() - started
    path.unlink()
    err = done.stderr
    peak = int(err.rsplit("PEAK_KB ", 1)[1]) if "PEAK_KB " in err else 0
    if "Traceback" in err:
        return "traceback", f"{name} ({policy}): {err.strip().splitlines()[-2:]}", seconds, peak
    if done.returncode == 0:
        summary = json.loads(done.stdout)
        if summary["completed"] != summary["jobs"]:
            return "lost", f"{name} ({policy})", seconds, peak
        return "exit 0", name, seconds, peak
    if done.returncode == 2:
        return "exit 2", name, seconds, peak
    return f"exit {done.returncode}", f"{name} ({policy})", seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--first", type=int, default=0, help="first case number")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds before a hang")
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    examples: dict[str, str] = {}
    slowest = (0.0, "")
    peak = 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(args.workers) as pool:
        numbers = range(args.first, args.first + args.cases)
        for outcome, name, seconds, kb in pool.map(
            lambda n: run_case(n, Path(folder), args.timeout), numbers
        ):
            counts[outcome] += 1
            examples.setdefault(outcome, name)
            slowest = max(slowest, (seconds, name))
            peak = max(peak, kb)
    other = sum(v for k, v in counts.items() if k.startswith("exit") and k not in
                ("exit 0", "exit 2"))
    print(f"cases tried   {args.cases:,} (from #{args.first}, {args.workers} at a time, "
          f"{time.perf_counter() - started:.0f} s)")
    print(f"exit 0        {counts['exit 0']:,}")
    print(f"exit 2        {counts['exit 2']:,}")
    print(f"other exits   {other:,}")
    print(f"tracebacks    {counts['traceback']:,}")
    print(f"hangs         {counts['hang']:,} (over {args.timeout:g} s)")
    print(f"jobs lost     {counts['lost']:,}")
    print(f"slowest case  {slowest[0]:.2f} s ({slowest[1]})")
    print(f"peak memory   {peak / 1024:.0f} MB (one case's process)")
    for outcome, name in examples.items():
        if outcome not in ("exit 0", "exit 2"):
            print(f"  first {outcome}: {name}")


if __name__ == "__main__":
    main()
