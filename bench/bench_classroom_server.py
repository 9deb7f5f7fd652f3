"""A class of N on one server, timed at the server: p50/p95 of every page and demo.

Run ``python bench/bench_classroom_server.py [STUDENTS] [COMPARING]`` (default 30 and 5).
The students are :class:`streamlit_client.ProtocolSession` s, not browsers, so the
server keeps the machine's cores (30 Chromium tabs on a 2-core machine would take them;
``bench_classroom.py`` runs real browsers). In turn, all at once:

1. every student opens Home on a cold server (the first computes the once-per-server
   scenarios; the rest wait for it or share it);
2. every student opens Home again, then runs Home's demo on their workload (when Home
   draws a "Run the demo" button);
3. COMPARING students press Run comparison on Compare (5 policies x 3 seeds; heavy runs
   wait in the server's line) while every other student keeps opening Workload, Home
   and About until the comparisons end: the pages' times under that load.

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


async def classroom(url: str, students: int, comparing: int) -> list[str]:
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
        heavy, light = sessions[:comparing], sessions[comparing:]
        await together(heavy, lambda s: s.open("compare"))
        done = asyncio.Event()
        pages: list[float] = []

        async def compare(session: ProtocolSession) -> float:
            return await session.click("Run comparison")

        async def browse(session: ProtocolSession) -> None:
            turn = 0
            while not done.is_set():
                pages.append(await session.open(BROWSING[turn % len(BROWSING)]))
                turn += 1

        browsing = [asyncio.create_task(browse(s)) for s in light]
        comparisons = await together(heavy, compare)
        done.set()
        await asyncio.gather(*browsing)
        report(f"Compare ({comparing} at once, line)", comparisons)
        report("pages while they compare", pages, 3.0)
    finally:
        for session in sessions:
            await session.__aexit__()
    return [error for s in sessions for error in s.errors]


def main(students: int, comparing: int) -> None:
    print(f"{students} sessions at the server ({comparing} also running Compare), "
          "times from request to the end of the server's script run:")
    with harness.serve() as url:
        errors = asyncio.run(classroom(url, students, comparing))
    print(f"  errors shown by the app: {len(errors)}" + "".join(f"\n    {e}" for e in errors[:5]))


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    main(*(args + [30, 5][len(args):]))
