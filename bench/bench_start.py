"""Start-up figures: how long a newcomer waits before the CLI or the app does anything.

Run ``python bench/bench_start.py``. Bars (issue "research log to product"):
``simulate --jobs 10 --policy fifo-request --json`` under 1.0 s wall, ``--policy drl``
under 1.5 s, ``import engine.simulator`` without torch, scipy or DRL code, and the first
page of the app rendered in a browser under 2 s after the server is up (a running
browser, a fresh context: nothing of the site cached; the median of three fresh servers).
Each CLI figure is the median of several cold processes, run from an empty folder (as an
installed package would be); the browser figure needs Debian's chromium and playwright.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 7
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
HEAVY = ("torch", "scipy", "engine.drl", "engine.env", "engine.policies.drl")


def wall(command: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def cli_figures() -> None:
    print(f"CLI wall time, median of {REPEATS} cold processes:")
    with tempfile.TemporaryDirectory() as empty:
        for policy, bar in (("fifo-request", 1.0), ("drl", 1.5)):
            command = [sys.executable, "-m", "engine", "simulate", "--jobs", "10",
                       "--policy", policy, "--json"]
            wall(command, empty)  # warm the OS file cache once
            seconds = statistics.median(wall(command, empty) for _ in range(REPEATS))
            verdict = "ok" if seconds < bar else "SLOW"
            print(f"  simulate --jobs 10 --policy {policy:<12} {seconds:5.2f} s  "
                  f"(bar < {bar} s) {verdict}")
        code = ("import sys, time; t = time.perf_counter(); import engine.simulator; "
                "t = time.perf_counter() - t; "
                f"print(t, sorted({{m.split('.')[0] if not m.startswith('engine') else m "
                f"for m in sys.modules if m.startswith({HEAVY!r})}}))")
        out = subprocess.run([sys.executable, "-c", code], cwd=empty, check=True,
                             capture_output=True, text=True).stdout.split(maxsplit=1)
        print(f"  import engine.simulator: {float(out[0]):.2f} s, heavy modules loaded: "
              f"{out[1].strip()} ({'ok' if out[1].strip() == '[]' else 'FAIL'})")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app_figure(servers: int = 3) -> None:
    """Median over ``servers`` fresh servers of the first session's first page."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("app first render: skipped (playwright is not installed)")
        return
    if not CHROMIUM.exists():
        print("app first render: skipped (no /usr/bin/chromium)")
        return
    ups, firsts, completes = [], [], []
    for _ in range(servers):
        up, first, complete = first_render(sync_playwright)
        ups.append(up)
        firsts.append(first)
        completes.append(complete)
    first = statistics.median(firsts)
    print(f"app: server up in {statistics.median(ups):.2f} s; first page (Home, usable: its "
          f"button drawn) {first:.2f} s after that, median of {servers} fresh servers "
          f"({', '.join(f'{f:.2f}' for f in firsts)}) (bar < 2 s) {'ok' if first < 2 else 'SLOW'}")
    print(f"     its scenario cards (computed once per server, on the first visit) complete "
          f"after {statistics.median(completes):.2f} s")


def first_render(sync_playwright) -> tuple[float, float, float]:
    """Seconds until a fresh server is up, then until its first page is usable and complete."""
    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.05)
        up = time.perf_counter() - started
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            # a browser already running, as a student's is, but nothing of this site cached
            browser.new_page().set_content("<script>JSON.parse('[1,2,3]')</script>ready")
            page = browser.new_context().new_page()
            start = time.perf_counter()
            page.goto(url)
            page.get_by_role("button", name="Run the demo").wait_for(timeout=60_000)
            first = time.perf_counter() - start
            page.get_by_text("A busy cluster", exact=False).first.wait_for(timeout=60_000)
            complete = time.perf_counter() - start
            browser.close()
        return up, first, complete
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    cli_figures()
    app_figure()
