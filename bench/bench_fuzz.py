"""The mutation fuzzer (``engine.fuzz``) through the CLI, one process per case.

Each case is written to a file and run as ``python -m engine simulate --workload F
--policy P --json`` (the policy cycles through a rigid, a moldable and the elastic
ones), with a time limit and each case's peak memory measured. The cases' processes are
forked from this one, which has imported the CLI and every policy (torch included)
first: a fresh interpreter per case spent most of its second starting up, so 10,000
cases took hours on two cores; forked, each case costs its own work. Printed: cases
tried, exit 0, exit 2, other exits, tracebacks, hangs (past the limit), silent job
losses (exit 0 with ``completed`` below ``jobs``), the slowest case and the peak memory.
Target (issue 25): 0 tracebacks, 0 hangs, 0 losses; every case under 2 s and 500 MB.

Run: ``python bench/bench_fuzz.py [--cases 10000] [--workers 2] [--timeout 10]
[--minutes M]`` (``--minutes``: start no case after M minutes; the cases tried are
printed).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import NamedTuple, NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's engine

import engine.cli.simulate  # imported once here, not in every case
import engine.policies.drl  # noqa: F401
from engine.cli import main as cli
from engine.fuzz import case

POLICIES = ("fifo-request", "knee", "tiresias", "optimus-elastic", "pollux-like", "drl")
SHOWN = 20
"""Failed cases listed by name (all of them, while there are few)."""


class Outcome(NamedTuple):
    """How one case ended: ``exit 0``, ``exit 2``, ``exit N``, ``traceback``, ``hang`` or
    ``lost``."""

    kind: str
    name: str
    seconds: float
    peak_mb: float


def _child(argv: list[str], out: Path, err: Path) -> NoReturn:
    """The case's process: the CLI as ``python -m engine`` runs it, its output in files."""
    for fd, path in ((1, out), (2, err)):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
    code = 1
    try:
        code = cli(argv)
    except SystemExit as exit_:  # argparse
        code = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:  # a bug: shown as the interpreter would show it
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _judge(name: str, folder: Path, number: int, status: int, seconds: float,
           peak_mb: float) -> Outcome:
    code = os.waitstatus_to_exitcode(status)
    out = (folder / f"{number}.out").read_text(errors="replace")
    err = (folder / f"{number}.err").read_text(errors="replace")
    if "Traceback" in err:
        return Outcome("traceback", f"{name}: {err.strip().splitlines()[-2:]}", seconds, peak_mb)
    if code == 0:
        summary = json.loads(out)
        if summary["completed"] != summary["jobs"]:
            return Outcome("lost", name, seconds, peak_mb)
    return Outcome(f"exit {code}", name, seconds, peak_mb)


def fuzz(numbers: range, workers: int, timeout: float, minutes: float | None,
         folder: Path) -> list[Outcome]:
    """Run the cases ``numbers``, ``workers`` at a time; stop starting new ones after
    ``minutes``."""
    running: dict[int, tuple[int, str, float]] = {}  # pid -> (case, name, start)
    killed: set[int] = set()
    outcomes: list[Outcome] = []
    todo = iter(numbers)
    stop_at = None if minutes is None else time.monotonic() + 60 * minutes
    while True:
        while len(running) < workers and (stop_at is None or time.monotonic() < stop_at):
            number = next(todo, None)
            if number is None:
                break
            name, data = case(number)
            policy = POLICIES[number % len(POLICIES)]
            path = folder / f"{number}.csv"
            path.write_bytes(data)
            argv = ["simulate", "--workload", str(path), "--policy", policy, "--json"]
            pid = os.fork()
            if pid == 0:
                _child(argv, folder / f"{number}.out", folder / f"{number}.err")
            running[pid] = (number, f"{name} ({policy})", time.monotonic())
        if not running:
            return outcomes
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        if pid == 0:
            for other, (_, _, started) in running.items():
                if other not in killed and time.monotonic() - started > timeout:
                    os.kill(other, signal.SIGKILL)
                    killed.add(other)
            time.sleep(0.002)
            continue
        number, name, started = running.pop(pid)
        seconds, peak_mb = time.monotonic() - started, usage.ru_maxrss / 1024
        if pid in killed:
            outcomes.append(Outcome("hang", name, seconds, peak_mb))
        else:
            outcomes.append(_judge(name, folder, number, status, seconds, peak_mb))
        for suffix in ("csv", "out", "err"):
            (folder / f"{number}.{suffix}").unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--first", type=int, default=0, help="first case number")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds before a hang")
    parser.add_argument("--minutes", type=float, help="start no case after this many minutes")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        outcomes = fuzz(range(args.first, args.first + args.cases), args.workers,
                        args.timeout, args.minutes, Path(folder))
    counts = Counter(o.kind for o in outcomes)
    other = sum(v for k, v in counts.items() if k.startswith("exit") and k not in
                ("exit 0", "exit 2"))
    slowest = max(outcomes, key=lambda o: o.seconds)
    biggest = max(outcomes, key=lambda o: o.peak_mb)
    print(f"cases tried   {len(outcomes):,} of {args.cases:,} (from #{args.first}, "
          f"{args.workers} at a time, {time.perf_counter() - started:.0f} s)")
    print(f"exit 0        {counts['exit 0']:,}")
    print(f"exit 2        {counts['exit 2']:,}")
    print(f"other exits   {other:,}")
    print(f"tracebacks    {counts['traceback']:,}")
    print(f"hangs         {counts['hang']:,} (over {args.timeout:g} s)")
    print(f"jobs lost     {counts['lost']:,}")
    print(f"slowest case  {slowest.seconds:.2f} s ({slowest.name})")
    print(f"peak memory   {biggest.peak_mb:.0f} MB ({biggest.name}; a case's peak resident "
          "memory, the engine pages it inherited and touched included)")
    failures = [o for o in outcomes if o.kind not in ("exit 0", "exit 2")]
    for outcome in failures[:SHOWN]:  # each reproduces from its number: engine.fuzz.case
        print(f"  {outcome.kind}: {outcome.name}")


if __name__ == "__main__":
    main()
