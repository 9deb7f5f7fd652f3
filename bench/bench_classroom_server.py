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

``--hostile`` runs issue 25's load test instead: five students browse (Workload, Home,
About, THINK seconds apart, for 20 s) and then each run a comparison on a seed of their
own, first on a calm server, then while one more session keeps uploading the worst
inputs the server takes (a 45 MB file of 20,000 jobs, 8,000 columns, 20,000 jobs of
29 days on one GPU) and starting the heaviest runs on them (Run job modes, all policies'
Run comparison). Printed: the five's page and comparison times in both runs, their
ratio (target: within 1.5x of calm), the server's and its workers' peak memory, and
what the hostile session was told.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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


OTHERS = 5
"""The students a hostile session shares the server with."""


def worst_inputs() -> dict[str, bytes]:
    """The heaviest uploads the server accepts (issue 25's reproducers, within the limits)."""
    header = "submit_time,runtime_1gpu,model,requested_gpus"
    cell = "x" * 2_200  # an ignored column: 20,000 rows make 45 MB
    return {
        "big.csv": (f"{header},note\n" + "".join(
            f"{i},{3600 + i},bert,1,{cell}\n" for i in range(20_000))).encode(),
        "wide.csv": ("submit_time,runtime_1gpu," + ",".join(f"c{i}" for i in range(8_000))
                     + "\n0,3600" + "," * 8_000 + "\n").encode(),
        "endless.csv": (f"{header}\n" + "".join(
            f"{i},{29 * 86400},bert,1\n" for i in range(20_000))).encode(),
    }


async def hostile(url: str, started: asyncio.Event, log: list[str]) -> None:
    """Upload the worst inputs and start the heaviest runs on them, over and over (until
    cancelled), noting in ``log`` what it did, how long each took and what it was told."""
    async with ProtocolSession(url, "nodes=1&gpn=1") as session:
        try:
            while True:
                await session.open("workload")
                for name, data in worst_inputs().items():
                    seconds = await session.upload("workload CSV", name, data)
                    log.append(f"upload {name} ({len(data) / 1e6:.1f} MB): {seconds:.1f} s")
                    started.set()
                await session.open("compare")
                log.append(f"Run job modes: {await session.click('Run job modes'):.1f} s")
                await session.click("All policies")
                log.append(f"Run comparison: {await session.click('Run comparison'):.1f} s")
        finally:
            log.extend(sorted({f"told: {text[:200]}" for text in session.told}))
            log.extend(f"exception: {error}" for error in session.errors)


async def students(url: str, first_seed: int, think: float) -> tuple[list[float], list[float]]:
    """:data:`OTHERS` students: 20 s of browsing, then a comparison each (seeds of their own,
    so each computes); their page times and comparison times."""
    sessions = [ProtocolSession(url, f"seed={first_seed + k}") for k in range(OTHERS)]
    for session in sessions:
        await session.__aenter__()
    try:
        pages = await browsing(sessions, think, 20.0)
        await together(sessions, lambda s: s.open("compare"))
        compares = await together(sessions, lambda s: s.click("Run comparison"))
        errors = [error for s in sessions for error in s.errors]
        assert not errors, errors
    finally:
        for session in sessions:
            await session.__aexit__()
    return pages, compares


async def memory(url: str, done: asyncio.Event) -> tuple[float, float]:
    """Peak resident MB of the server process and of its worker processes together."""
    server = workers = 0.0
    while not done.is_set():
        family = harness.server_processes(url)
        sizes = {pid: harness.resident_mb(pid) for pid in family}
        main = next(pid for pid, command in family.items() if "streamlit run" in command)
        server = max(server, sizes[main])
        workers = max(workers, sum(v for pid, v in sizes.items() if pid != main))
        await asyncio.sleep(0.5)
    return server, workers


async def under_attack(url: str, think: float) -> None:
    """The five students on a calm server, then beside a hostile session."""
    async with ProtocolSession(url) as lecturer:  # the named scenarios, once per server
        await lecturer.open("")
    calm_done = asyncio.Event()
    calm_watch = asyncio.ensure_future(memory(url, calm_done))
    calm = await students(url, 100, think)
    calm_done.set()
    calm_memory = await calm_watch
    done, started, log = asyncio.Event(), asyncio.Event(), []
    watch = asyncio.ensure_future(memory(url, done))
    attack = asyncio.ensure_future(hostile(url, started, log))
    first = asyncio.ensure_future(started.wait())  # its first upload is in
    await asyncio.wait([first, attack], return_when=asyncio.FIRST_COMPLETED)
    if attack.done():
        attack.result()  # it failed: say why
    attacked = await students(url, 200, think)
    attack.cancel()  # its run in progress goes on at the server until its budget ends it
    with contextlib.suppress(asyncio.CancelledError):
        await attack
    done.set()
    server, workers = await watch
    print(f"{OTHERS} students, calm and beside one hostile session ({think:g} s between pages):")
    for what, calm_times, hostile_times in (("pages", calm[0], attacked[0]),
                                            ("comparison", calm[1], attacked[1])):
        report(f"{what}, calm", calm_times)
        report(f"{what}, hostile session", hostile_times)
        ratio = p50_p95(hostile_times)[1] / p50_p95(calm_times)[1]
        print(f"  {what}: p95 {ratio:.2f}x calm -> "
              f"{'meets' if ratio <= 1.5 else 'MISSES'} the 1.5x target")
    print(f"  server memory: calm peak {calm_memory[0]:,.0f} MB (workers {calm_memory[1]:,.0f} "
          f"MB); beside the hostile session {server:,.0f} MB (workers {workers:,.0f} MB)")
    print("  the hostile session:" + "".join(f"\n    {line}" for line in log))


def main(students: int, comparing: int, think: float) -> None:
    print(f"{students} sessions at the server ({comparing} also running Compare, "
          f"{think:g} s between pages), times from request to the end of the server's "
          "script run:")
    with harness.serve() as url:
        errors = asyncio.run(classroom(url, students, comparing, think))
    print(f"  errors shown by the app: {len(errors)}" + "".join(f"\n    {e}" for e in errors[:5]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("students", nargs="?", type=int, default=30)
    parser.add_argument("comparing", nargs="?", type=int, default=5)
    parser.add_argument("think", nargs="?", type=float, default=2.0)
    parser.add_argument("--hostile", action="store_true",
                        help="issue 25's load test: five students beside a hostile session")
    args = parser.parse_args()
    if args.hostile:
        with harness.serve() as url:
            asyncio.run(under_attack(url, args.think))
    else:
        main(args.students, args.comparing, args.think)
