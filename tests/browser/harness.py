"""The app in headless Chromium, for the browser tests and the browser benchmarks.

``serve()`` starts ``streamlit run app.py`` on a free port; ``launch()`` starts Debian's
Chromium through Playwright. The live-view probes read what the browser actually drew:
each Gantt chart update carries its simulated clock in ``layout.meta.clock``, and a
``requestAnimationFrame`` loop records every new value with the browser's time.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
WAIT_MS = 60_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve() -> Iterator[str]:
    """The app served on a free port (its URL), stopped afterwards."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"streamlit exited: {process.stderr.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("streamlit did not become healthy in 90 s") from None
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _processes() -> dict[int, tuple[int, str]]:
    """Every process of this machine: pid -> (parent pid, command line)."""
    found = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue  # not a process, or it ended meanwhile
        found[int(entry)] = (parent, command)
    return found


def server_processes(url: str) -> dict[int, str]:
    """The server at ``url`` (``serve()``'s) and its descendants: pid -> command line."""
    processes = _processes()
    port = url.rsplit(":", 1)[1]
    family = {pid for pid, (_, command) in processes.items()
              if "streamlit run app.py" in command and f"--server.port {port}" in command}
    grew = True
    while grew:
        children = {pid for pid, (parent, _) in processes.items() if parent in family}
        grew = not children <= family
        family |= children
    return {pid: processes[pid][1] for pid in sorted(family)}


def pool_workers(url: str) -> list[int]:
    """The server's worker processes: the descendants ``multiprocessing`` spawned."""
    return [pid for pid, command in server_processes(url).items() if "spawn_main" in command]


def resident_mb(pid: int) -> float:
    """Process ``pid``'s resident memory now (MB; 0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


@contextmanager
def launch(playwright: Any) -> Iterator[Any]:
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
    try:
        yield browser
    finally:
        browser.close()


def settle(page: Any) -> None:
    """Wait until the script run ends and the widgets' lazily loaded code has arrived."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
        timeout=WAIT_MS,
    )
    page.wait_for_load_state("networkidle", timeout=WAIT_MS)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stSkeleton\"]')", timeout=WAIT_MS
    )


def open_page(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("h1", timeout=WAIT_MS)
    settle(page)


LEGENDS_WHOLE = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot => {
  const out = [], bar = plot.querySelector('.legend .scrollbar');
  if (bar && bar.getBoundingClientRect().height > 0) out.push('legend scrolls');
  const area = plot.querySelector('.nsewdrag');  // a small multiple's panel may be small
  if (plot.querySelector('.legend') && area && area.getBoundingClientRect().height < 120)
    out.push('plot squeezed: ' + Math.round(area.getBoundingClientRect().height) + ' px in '
      + Math.round(plot.getBoundingClientRect().height));
  return out;
})"""
"""Per chart: a legend that scrolls (shows some policies only), or a plot squeezed by it."""


# -- the live view, as drawn ------------------------------------------------------------

WATCH_GANTT = """() => {
  window.__frames = [];
  window.__clicked = 0;
  window.__playShown = 0;
  let play = false;
  document.addEventListener('click', () => { window.__clicked = performance.now(); }, true);
  const poll = () => {
    const shown = [...document.querySelectorAll('button')]
      .some(b => b.textContent.trim().startsWith('Play'));
    if (shown && !play) window.__playShown = performance.now();
    play = shown;
    const gd = [...document.querySelectorAll('.js-plotly-plot')]
      .find(g => g.layout && g.layout.meta && g.layout.meta.clock !== undefined);
    if (gd) {
      const clock = gd.layout.meta.clock, frames = window.__frames;
      if (!frames.length || frames[frames.length - 1][1] !== clock)
        frames.push([performance.now(), clock]);
    }
    requestAnimationFrame(poll);
  };
  poll();
}"""
"""Record ``[browser ms, simulated s]`` each time the drawn Gantt chart shows a new clock,
the time of the last click (``window.__clicked``) and of the animation frame that first
showed a Play button after none (``window.__playShown``): the browser's own times, not
Playwright's, whose calls wait behind whatever the page is drawing."""


def watch_gantt(page: Any) -> None:
    page.evaluate(WATCH_GANTT)


def frames(page: Any) -> list[tuple[float, float]]:
    """The Gantt updates drawn so far: ``(browser seconds, simulated seconds)``."""
    return [(ms / 1000.0, clock) for ms, clock in page.evaluate("() => window.__frames")]


def now_s(page: Any) -> float:
    return page.evaluate("() => performance.now()") / 1000.0


def rate(drawn: list[tuple[float, float]]) -> tuple[float, float]:
    """Updates per second and simulated seconds per wall second over ``drawn``."""
    if len(drawn) < 2:
        return 0.0, 0.0
    wall = drawn[-1][0] - drawn[0][0]
    return (len(drawn) - 1) / wall, (drawn[-1][1] - drawn[0][1]) / wall


def play_for(page: Any, seconds: float) -> list[tuple[float, float]]:
    """Press Play, let it run ``seconds``, and return the updates drawn meanwhile."""
    page.get_by_role("button", name="Play").click()
    page.get_by_role("button", name="Pause").wait_for(timeout=WAIT_MS)
    start = now_s(page)
    page.wait_for_timeout(seconds * 1000)
    return [f for f in frames(page) if f[0] >= start]


def pause_overrun(page: Any) -> tuple[int, float]:
    """Press Pause; the updates drawn after the click and the simulated seconds they moved.

    Counted from the click's own timestamp (``window.__clicked``) over the next 2 s.
    """
    page.get_by_role("button", name="Pause").click()
    page.get_by_role("button", name="Play").wait_for(timeout=WAIT_MS)
    page.wait_for_timeout(2000)
    clicked = page.evaluate("() => window.__clicked") / 1000.0
    drawn = frames(page)
    before = [clock for at, clock in drawn if at <= clicked]
    after = [clock for at, clock in drawn if at > clicked]
    moved = (after[-1] - before[-1]) if after and before else 0.0
    return len(after), moved


def reset(page: Any) -> None:
    page.get_by_role("button", name="Reset").click()
    settle(page)


def finish(page: Any) -> None:
    """Play at the fastest speed until the run says it has finished."""
    page.locator('[data-testid="stSlider"] input[type="range"]').first.press("End")
    settle(page)
    page.get_by_role("button", name="Play").click()
    page.get_by_text("Finished:").wait_for(timeout=WAIT_MS)


# -- a class at once ---------------------------------------------------------------------


IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
"""The page's script run has ended (Streamlit's running indicator is gone)."""


async def _student(browser: Any, url: str, compares: bool) -> dict[str, float]:
    """One student: open Home (until the scenarios show), run the demo, maybe Compare."""
    from playwright.async_api import TimeoutError as Timeout

    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    times: dict[str, float] = {}
    try:
        started = time.perf_counter()
        await page.goto(url + "/", wait_until="commit", timeout=180_000)
        await page.get_by_text("A busy cluster:").first.wait_for(timeout=120_000)
        times["page"] = time.perf_counter() - started
        await page.wait_for_function(IDLE, timeout=120_000)  # what a student waits for
        started = time.perf_counter()
        await page.get_by_role("button", name="Run the demo").click()
        await page.locator(".js-plotly-plot").first.wait_for(timeout=180_000)
        times["demo"] = time.perf_counter() - started
        if compares:
            await page.goto(url + "/compare", wait_until="commit", timeout=180_000)
            button = page.get_by_role("button", name="Run comparison")
            await button.wait_for(timeout=120_000)
            await page.wait_for_function(IDLE, timeout=120_000)
            started = time.perf_counter()
            await button.click()
            await page.get_by_text("Results").first.wait_for(timeout=300_000)
            times["compare"] = time.perf_counter() - started
    except Timeout:
        times["failed"] = 1.0  # counted, so one stuck browser does not hide the others
    finally:
        await context.close()
    return times


def classroom(url: str, students: int, comparing: int) -> dict[str, list[float]]:
    """``students`` sessions at once (the first ``comparing`` also run Compare), after one
    lecturer's session alone: seconds per step, ``{"page": [...], "demo": [...], ...}``."""
    import asyncio

    from playwright.async_api import async_playwright

    async def run() -> list[dict[str, float]]:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            try:  # the lecturer opens the demo first: the server computes it once
                await _student(browser, url, False)
                return await asyncio.gather(*(
                    _student(browser, url, k < comparing) for k in range(students)))
            finally:
                await browser.close()

    out: dict[str, list[float]] = {"page": [], "demo": [], "compare": [], "failed": []}
    for times in asyncio.run(run()):
        for step, seconds in times.items():
            out[step].append(seconds)
    return out


def p50_p95(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


SHOTS = ROOT / "artifacts" / "screenshots"
"""Where browser tests keep their screenshots (CI keeps them as artifacts)."""


def shoot(page: Any, name: str) -> None:
    """A full-page screenshot ``name``.png in :data:`SHOTS`."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def metric(page: Any, label: str) -> str:
    """The value shown on the metric card labelled ``label``."""
    card = page.locator('[data-testid="stMetric"]', has_text=label).first
    return card.locator('[data-testid="stMetricValue"]').inner_text()


def no_exception(page: Any) -> None:
    """The page shows no Streamlit exception; if it does, the failure says which."""
    shown = page.locator('[data-testid="stException"]')
    assert shown.count() == 0, shown.first.inner_text()
