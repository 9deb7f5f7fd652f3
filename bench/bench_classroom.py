"""A class on one server: N browser sessions at once, p50/p95 of what each one waits.

Run ``python bench/bench_classroom.py [STUDENTS] [COMPARING] [--server-cores K]`` (default
30 and 5). Each student opens Home (timed until the named scenarios show), clicks Run the demo
(timed until its chart shows); the first COMPARING also click Run comparison (5 policies
x 3 seeds), which goes through the server-wide line. Target: Home and the demo under 3 s.

On one machine the browsers compete with the server for the CPU, which a real class's
browsers (on the students' own laptops) do not. ``--server-cores K`` pins the server to
the first K cores and the browsers to the others (``os.sched_setaffinity``, which child
processes inherit), so the figures are what a K-core server delivers, provided the
browsers' cores keep up: on a 2-core machine one core draws every page, and the figures
then measure the browsers instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser import harness  # noqa: E402


@contextmanager
def pinned(cores: set[int]) -> Iterator[None]:
    """This process, and whatever it starts meanwhile, on ``cores`` only."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cores)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def split_cores(server: int) -> tuple[set[int], set[int]]:
    """(server cores, browser cores): the first ``server`` cores, and the rest."""
    cores = sorted(os.sched_getaffinity(0))
    if not 0 < server < len(cores):
        raise SystemExit(f"--server-cores must be in [1, {len(cores) - 1}] on these "
                         f"{len(cores)} cores, got {server}")
    return set(cores[:server]), set(cores[server:])


def main(students: int, comparing: int, server_cores: int | None) -> None:
    every = os.sched_getaffinity(0)
    server, browsers = (every, every) if server_cores is None else split_cores(server_cores)
    with pinned(server), harness.serve() as url, pinned(browsers):
        times = harness.classroom(url, students, comparing)
    where = (f"server and browsers sharing {len(every)} cores" if server_cores is None
             else f"server on cores {sorted(server)}, browsers on cores {sorted(browsers)}")
    print(f"{students} sessions at once ({comparing} also running Compare), {where}:")
    print(f"  {len(times['failed'])} sessions timed out")
    for step, values in times.items():
        if values and step != "failed":
            p50, p95 = harness.p50_p95(values)
            print(f"  {step:>8}: p50 {p50:5.1f} s  p95 {p95:5.1f} s  (n={len(values)})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("students", nargs="?", type=int, default=30)
    parser.add_argument("comparing", nargs="?", type=int, default=5)
    parser.add_argument("--server-cores", type=int, metavar="K",
                        help="pin the server to the first K cores and the browsers to the rest")
    args = parser.parse_args()
    main(args.students, args.comparing, args.server_cores)
