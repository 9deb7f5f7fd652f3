"""A killed pool worker breaks no session: the comparison it was running is retried on a
fresh worker, and another session's comparison afterwards runs (issue 25: a dead worker
used to show ``BrokenProcessPool`` to every session until a restart)."""

from __future__ import annotations

import os
import signal
import time

import pytest

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
from browser import harness  # noqa: E402

if not harness.CHROMIUM.exists():
    pytest.skip("chromium is not installed at /usr/bin/chromium", allow_module_level=True)

COMPARE_MS = 240_000
"""A comparison retried after its worker died, on a busy two-core machine."""


def kill_workers(url: str) -> list[int]:
    """SIGKILL the server's pool workers (waiting for them to exist), as the kernel's
    out-of-memory killer would."""
    deadline = time.monotonic() + 120
    while not (workers := harness.pool_workers(url)):
        assert time.monotonic() < deadline, "the server started no worker process"
        time.sleep(0.1)
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    return workers


def compared(page: object) -> None:
    """The comparison's results are on the page, with no exception or traceback."""
    results = page.get_by_role("heading", name="Results")
    failed = page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]')
    results.or_(failed).first.wait_for(timeout=COMPARE_MS)
    text = page.inner_text("body")
    assert failed.count() == 0, text[-2000:]
    assert "Traceback" not in text and "BrokenProcessPool" not in text


def test_a_killed_pool_worker_breaks_no_session() -> None:
    with harness.serve() as url, sync_api.sync_playwright() as playwright, \
            harness.launch(playwright) as browser:
        first = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        harness.open_page(first, f"{url}/compare?jobs=1000&seed=3")
        first.get_by_role("button", name="Run comparison").click()
        first.get_by_text("Simulating").first.wait_for(timeout=harness.WAIT_MS)
        killed = kill_workers(url)  # mid-comparison: its map is retried on a fresh pool
        compared(first)
        assert not set(killed) & set(harness.pool_workers(url))  # replaced
        kill_workers(url)  # and killed again while idle, before another session's run
        second = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        harness.open_page(second, f"{url}/compare?jobs=40&seed=4")
        second.get_by_role("button", name="Run comparison").click()
        compared(second)
