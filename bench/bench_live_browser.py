"""The Live page as a browser draws it: chart updates per second, clock speed, Pause.

Run ``python bench/bench_live_browser.py [SECONDS]``. It serves the app, opens Live on
the default 200 jobs / 64 GPUs in headless Chromium and counts the Gantt chart updates
the browser actually drew (not server frames). Targets: 5+ updates/s, the clock within
10% of its label (1 h/s), every Pause stopping within one frame (at most one chart
update drawn after the click, and none moving the clock once Play is shown again), a
"Finished" state. It prints, per Pause try, the updates drawn after the click, and how
many of them were not yet in the page when the click came (the browser sometimes first
notices a chart plotly already has at the next animation frame, after the click).
"""

from __future__ import annotations

import itertools
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser import harness  # noqa: E402
from browser.test_live_browser import pause  # noqa: E402

PAUSES = 8


def main(seconds: float) -> None:
    from playwright.sync_api import sync_playwright

    with harness.serve() as url, sync_playwright() as playwright, \
            harness.launch(playwright) as browser:
        page = browser.new_context(viewport={"width": 1400, "height": 1800}).new_page()
        harness.open_page(page, url + "/live?policy=drl")
        harness.watch_gantt(page)
        drawn = harness.play_for(page, seconds)
        updates, speed = harness.rate(drawn)
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(drawn)]
        print(f"live, 200 jobs / 64 GPUs, drl, 1 h/s, {seconds:.0f} s in Chromium: "
              f"{updates:.1f} chart updates/s (p95 gap "
              f"{statistics.quantiles(gaps, n=20)[-1] * 1e3:.0f} ms)  "
              f"{'ok' if updates >= 5 else 'SLOW'}")
        print(f"  clock: {speed / 3600:.2f} simulated h per second "
              f"({speed / 3600 - 1:+.0%} of the label)  "
              f"{'ok' if abs(speed / 3600 - 1) <= 0.1 else 'OFF'}")
        tries = [pause(page)]
        harness.reset(page)
        for _ in range(PAUSES - 1):
            harness.play_for(page, 1.0)
            tries.append(pause(page))
        extra = [t.updates for t in tries]
        new = [t.new for t in tries]
        late = max(t.moved for t in tries) / 3600
        after_ack = max(t.moved_after_ack for t in tries)
        print(f"  pause, {PAUSES} tries: updates drawn after the click {extra}; of them not "
              f"yet in the page at the click {new}; the clock moved at most "
              f"{late * 60:.1f} simulated min (one frame at 5/s: 12 min)  "
              f"{'ok' if max(new) <= 1 else 'LATE'}")
        print(f"  clock after Play was shown again: moved {after_ack:.0f} simulated s at most  "
              f"{'ok' if after_ack == 0 else 'MOVED'}")
        harness.finish(page)
        print("  finished state:", page.get_by_text("Finished:").inner_text())


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0)
