"""A lecture from a projector and a phone, in headless Chromium: nothing is cut off, Live
is played from the keyboard, twelve policies stay readable, presentation mode and the
guided tour.

Screenshots are kept in ``artifacts/screenshots/``. Skips when Chromium or Playwright is
missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
from browser import harness  # noqa: E402
from browser.harness import CHROMIUM, ROOT, WAIT_MS, open_page, settle  # noqa: E402

if not CHROMIUM.exists():
    pytest.skip("chromium is not installed at /usr/bin/chromium", allow_module_level=True)

SHOTS = ROOT / "artifacts" / "screenshots"
WIDE = {"width": 1400, "height": 1800}
PHONE = {"width": 390, "height": 844}

CUT_OFF = """() => {
  const out = [], clipped = e => e.scrollWidth > e.clientWidth + 1;
  const width = document.documentElement.clientWidth;
  for (const select of document.querySelectorAll('[data-testid="stMultiSelect"]')) {
    const box = select.querySelector('.react-aria-ComboBox').getBoundingClientRect();
    for (const tag of select.querySelectorAll('[data-tag]')) {
      const r = tag.getBoundingClientRect();
      if (r.width === 0 || r.right > box.right + 1 || r.bottom > box.bottom + 1
          || clipped(tag.firstElementChild)) out.push('chosen item hidden: ' + tag.innerText);
    }
  }
  for (const table of document.querySelectorAll('[data-testid="stTable"]')) {
    const head = table.querySelector('th').innerText;
    if (clipped(table.firstElementChild) || table.getBoundingClientRect().right > width + 1)
      out.push('table wider than its place: ' + head);
    for (const cell of table.querySelectorAll('td p, th p'))
      if (clipped(cell)) out.push('cell cut: ' + cell.innerText);
  }
  for (const label of document.querySelectorAll('[data-testid="stMain"] button p'))
    if (clipped(label)) out.push('button label cut: ' + label.innerText);
  return out;
}"""
"""What the page hides of its own text: a chosen item of a multiselect scrolled away or
ended in an ellipsis, a table that scrolls sideways or cuts a cell, a cut button label."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with harness.serve() as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright, harness.launch(playwright) as chromium:
        yield chromium


def new_page(browser: Any, viewport: dict[str, int]) -> Any:
    context = browser.new_context(viewport=viewport, is_mobile=viewport["width"] < 500)
    return context.new_page()


def shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def card(page: Any, label: str) -> str:
    found = page.locator('[data-testid="stMetric"]', has_text=label).first
    return found.locator('[data-testid="stMetricValue"]').inner_text()


def step(page: Any, times: int) -> None:
    for _ in range(times):
        page.get_by_role("button", name="Step").click()
        settle(page)


def decision_log(page: Any) -> Any:
    """The decision log, as a table the page holds as text (not a canvas)."""
    table = page.locator('[data-testid="stTable"]', has_text="GPUs chosen").first
    table.wait_for(timeout=WAIT_MS)
    return table


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1400px", "390px"])
def test_nothing_is_cut_off(server: str, browser: Any, viewport: dict[str, int]) -> None:
    """The decision log cut model names, "GPUs chosen" and *why*; Compare's picker showed
    3 of 5 chosen policies; Train's model picker hid yolov3."""
    page = new_page(browser, viewport)
    name = f"{viewport['width']}px"
    try:
        open_page(page, server + "/live?jobs=40&policy=drl")
        step(page, 6)
        assert "wait" in decision_log(page).inner_text()  # drl's why, whole
        assert page.evaluate(CUT_OFF) == []
        shoot(page, f"live-log-{name}")
        open_page(page, server + "/compare?jobs=40")
        assert page.locator('[data-testid="stMultiSelect"] [data-tag]').count() == 5
        assert page.evaluate(CUT_OFF) == []
        open_page(page, server + "/train?jobs=40")
        page.get_by_text("yolov3").first.wait_for(timeout=WAIT_MS)
        assert page.evaluate(CUT_OFF) == []
        shoot(page, f"train-{name}")
    finally:
        page.context.close()


def test_a_phone_reaches_compare_through_the_menu_and_reads_every_column(
    server: str, browser: Any
) -> None:
    """On a phone the sidebar stayed open over the page after a page link (a click on Run
    comparison then timed out), and the Results table showed only policy and runs."""
    page = new_page(browser, PHONE)
    try:
        open_page(page, server + "/?jobs=40&seeds=1")
        page.locator('[data-testid="stExpandSidebarButton"]').click()
        sidebar = page.locator('[data-testid="stSidebar"]')
        page.wait_for_function("() => document.querySelector('[data-testid=\"stSidebar\"]')"
                               ".getBoundingClientRect().right > 200")
        sidebar.locator('[data-testid="stSidebarNavLink"]', has_text="Compare").click()
        page.wait_for_selector("h1:has-text('Compare policies')", timeout=WAIT_MS)
        settle(page)
        assert sidebar.bounding_box()["x"] + sidebar.bounding_box()["width"] <= 1
        page.get_by_role("button", name="Run comparison").click(timeout=5000)
        results = page.locator('[data-testid="stTable"]', has_text="average JCT").first
        results.wait_for(timeout=WAIT_MS)
        settle(page)
        for column in ("policy", "average JCT", "p95 JCT", "utilization", "runs"):
            assert column in results.locator("thead").inner_text()
        assert page.evaluate(CUT_OFF) == []
        results.scroll_into_view_if_needed()
        shoot(page, "compare-results-390px")
    finally:
        page.context.close()


def test_live_plays_pauses_and_steps_from_the_keyboard(server: str, browser: Any) -> None:
    """Space plays and pauses, the right arrow steps; the page says so."""
    page = new_page(browser, {"width": 1400, "height": 1000})
    try:
        open_page(page, server + "/live?jobs=40&policy=sjf-knee")
        assert "Space plays or pauses" in page.locator('[data-testid="stMain"]').inner_text()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
            settle(page)
        assert card(page, "jobs done") != "0 / 40" or card(page, "simulated time") != "0 s"
        stepped = card(page, "simulated time")
        page.keyboard.press("Space")
        page.get_by_role("button", name="Pause").wait_for(timeout=WAIT_MS)
        page.wait_for_timeout(1500)
        page.keyboard.press("Space")
        page.get_by_role("button", name="Play").wait_for(timeout=WAIT_MS)
        settle(page)
        paused = card(page, "simulated time")
        assert paused != stepped
        page.wait_for_timeout(1000)
        assert card(page, "simulated time") == paused
        shoot(page, "live-keyboard")
    finally:
        page.context.close()
