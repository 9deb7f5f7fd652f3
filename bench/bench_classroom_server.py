"""A class of N on one server, timed at the server: p50/p95 of every page and demo.

Run ``python bench/bench_classroom_server.py [STUDENTS] [COMPARING] [THINK]`` (default 30,
5 and 2 s: a student reads a page for THINK seconds before opening the next; 0 makes it a
stress test of the server, every student clicking without pause).
The students are :class:`streamlit_client.ProtocolSession` s, not browsers, so the
server keeps the machine's cores (30 Chromium tabs on a 2-core machine would take them;
``bench_classroom.py`` runs real browsers). In turn, all at once:

1. every student opens Home on a cold server (the first computes the once-per-server
   scenarios; the rest wait for it or share it);
2. every student opens Home again, then runs Home's demo on their workload (when Home
   draws a "Run the demo" button);
3. every student but COMPARING keeps opening Workload, Home and About (THINK seconds
   apart) for 10 s: the pages' times with nothing heavy running;
4. COMPARING students press All policies and Run comparison on Compare (every policy x 3
   seeds, each student on a seed of their own, so each computes; heavy runs wait in the
   server's line) while the others
   browse the same way until the comparisons end: the pages' times under that load.

Targets (issue 14): Home and the demo under 1 s for every session once computed; pages
under 3 s while comparisons run.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from browser import harness  # noqa: E402
from streamlit_client import ProtocolSession  # noqa: E402

BROWSING = ("workload", "", "about")
"""What a student who is not comparing keeps opening."""


def p50_p95(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def report(step: str, values: list[float], target: float | None = None) -> None:
    if not values:
        print(f"  {step:<34} (not run)")
        return
    p50, p95 = p50_p95(values)
    verdict = "" if target is None else ("  meets" if p95 < target else "  MISSES") + \
        f" the {target:g} s target"
    print(f"  {step:<34} p50 {p50:6.2f} s  p95 {p95:6.2f} s  max {max(values):6.2f} s  "
          f"(n={len(values)}){verdict}")


async def together(sessions: list[ProtocolSession],
                   act: Callable[[ProtocolSession], Awaitable[float]]) -> list[float]:
    return list(await asyncio.gather(*(act(s) for s in sessions)))


async def browsing(sessions: list[ProtocolSession], think: float, seconds: float | None,
                   done: asyncio.Event | None = None) -> list[float]:
    """Every session opens BROWSING's pages in turn, ``think`` seconds apart, for
    ``seconds`` (or until ``done``); the times of every page opened."""
    times: list[float] = []
    end = None if seconds is None else asyncio.get_running_loop().time() + seconds

    async def browse(session: ProtocolSession, offset: int) -> None:
        turn = offset
        while not (done is not None and done.is_set()) and (
                end is None or asyncio.get_running_loop().time() < end):
            times.append(await session.open(BROWSING[turn % len(BROWSING)]))
            turn += 1
            await asyncio.sleep(think)

    await asyncio.gather(*(browse(s, i) for i, s in enumerate(sessions)))
    return times


async def classroom(url: str, students: int, comparing: int, think: float) -> list[str]:
    """Run the three steps; returns the errors any page showed."""
    sessions = [ProtocolSession(url) for _ in range(students)]
    for session in sessions:
        await session.__aenter__()
    try:
        report("Home, cold server", await together(sessions, lambda s: s.open("")))
        report("Home", await together(sessions, lambda s: s.open("")), 1.0)
        if all("Run the demo" in s.buttons for s in sessions):
            report("Home demo", await together(sessions, lambda s: s.click("Run the demo")),
                   1.0)
        else:
            report("Home demo (no Run the demo button)", [])
        light = sessions[comparing:]
        report("pages, nothing heavy running", await browsing(light, think, 10.0), 3.0)
        # the comparing students, each on a seed of their own so that each one computes
        heavy = [ProtocolSession(url, f"seed={10 * k}") for k in range(1, comparing + 1)]
        for session in heavy:
            await session.__aenter__()
            await session.open("compare")
            await session.click("All policies")  # the case: a 12-policy sweep
        sessions += heavy  # all closed below; the ones they stand for stay idle
        done = asyncio.Event()
        browsers = asyncio.ensure_future(browsing(light, think, None, done))
        comparisons = await together(heavy, lambda s: s.click("Run comparison"))
        done.set()
        report(f"Compare ({comparing} at once, line)", comparisons)
        report("pages while they compare", await browsers, 3.0)
    finally:
        for session in sessions:
            await session.__aexit__()
    return [error for s in sessions for error in s.errors]


def main(students: int, comparing: int, think: float) -> None:
    print(f"{students} sessions at the server ({comparing} also running Compare, "
          f"{think:g} s between pages), times from request to the end of the server's "
          "script run:")
    with harness.serve() as url:
        errors = asyncio.run(classroom(url, students, comparing, think))
    print(f"  errors shown by the app: {len(errors)}" + "".join(f"\n    {e}" for e in errors[:5]))


if __name__ == "__main__":
    given = [float(a) for a in sys.argv[1:4]]
    students, comparing, think = given + [30, 5, 2.0][len(given):]
    main(int(students), int(comparing), think)
