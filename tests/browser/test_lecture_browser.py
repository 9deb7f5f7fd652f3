"""A lecture from a projector and a phone, in headless Chromium: nothing is cut off, Live
is played from the keyboard, twelve policies stay readable, presentation mode and the
guided tour.

Screenshots are kept in ``artifacts/screenshots/``. Skips when Chromium or Playwright is
missing.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
from browser import harness  # noqa: E402
from browser.harness import CHROMIUM, WAIT_MS, metric, open_page, settle, shoot  # noqa: E402

if not CHROMIUM.exists():
    pytest.skip("chromium is not installed at /usr/bin/chromium", allow_module_level=True)

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




def new_page(browser: Any, viewport: dict[str, int]) -> Any:
    context = browser.new_context(viewport=viewport, is_mobile=viewport["width"] < 500)
    return context.new_page()




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
        for path, charts in (("workload", 4), ("about", 3)):  # no legend scrolls anywhere
            open_page(page, f"{server}/{path}?jobs=40")
            page.wait_for_function(f"() => document.querySelectorAll('.js-plotly-plot')"
                                   f".length >= {charts}", timeout=WAIT_MS)
            assert page.evaluate(CUT_OFF) == []
            assert page.evaluate(harness.LEGENDS_WHOLE) == []
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
        assert metric(page, "jobs done") != "0 / 40" or metric(page, "simulated time") != "0 s"
        stepped = metric(page, "simulated time")
        page.keyboard.press("Space")
        page.get_by_role("button", name="Pause").wait_for(timeout=WAIT_MS)
        page.wait_for_timeout(1500)
        page.keyboard.press("Space")
        page.get_by_role("button", name="Play").wait_for(timeout=WAIT_MS)
        settle(page)
        paused = metric(page, "simulated time")
        assert paused != stepped
        page.wait_for_timeout(1000)
        assert metric(page, "simulated time") == paused
        shoot(page, "live-keyboard")
    finally:
        page.context.close()


LINES = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot => {
  const per = {}, out = [];
  for (const t of plot.data) {
    if (t.type !== 'scatter' || !(t.mode || 'lines').includes('lines')) continue;
    const axes = (t.xaxis || 'x') + (t.yaxis || 'y');
    (per[axes] = per[axes] || []).push(t);
  }
  for (const [axes, lines] of Object.entries(per)) {
    if (lines.length > 4) out.push(lines.length + ' lines on one plot (' + axes + ')');
    const named = lines.filter(t => t.showlegend !== false);
    const looks = named.map(t => (t.line || {}).dash + '/' + ((t.marker || {}).symbol || ''));
    if (new Set(looks).size < named.length)
      out.push('told apart by colour alone: ' + named.map(t => t.name).join(', '));
  }
  return out;
})"""
"""Per chart: more than four lines on one plot, or named lines that share dash and marker."""


def test_twelve_policies_are_told_apart_without_a_scrolling_legend(
    server: str, browser: Any
) -> None:
    """With All policies the utilization chart drew 12 lines (24 with the queue), the JCT
    distribution 12 more, and a grouped bar chart 72 bars told apart by colour only."""
    page = new_page(browser, WIDE)
    try:
        open_page(page, server + "/compare?jobs=40&seeds=1")
        page.get_by_role("button", name="All policies").click()
        settle(page)
        page.get_by_role("button", name="Run comparison").click()
        page.get_by_text("GPU utilization over time, a panel per policy").wait_for(
            timeout=WAIT_MS * 3)
        settle(page)
        assert page.evaluate(harness.LEGENDS_WHOLE) == []
        assert page.evaluate(LINES) == []
        shoot(page, "compare-twelve-policies")
        open_page(page, server + "/compare?jobs=40&seeds=1&policies=drl,knee,fifo-request")
        page.get_by_role("button", name="Run comparison").click()
        page.get_by_text("Results").first.wait_for(timeout=WAIT_MS)
        settle(page)
        assert page.evaluate(LINES) == []  # three lines: each its own dash and marker
    finally:
        page.context.close()


TOO_SMALL = """() => {
  const main = document.querySelector('[data-testid="stMain"]'), out = new Set();
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode.textContent.trim(), element = walker.currentNode.parentElement;
    if (!text || !element.getClientRects().length) continue;
    if (element.closest('.modebar, .hoverlayer, [data-testid="stTooltipIcon"]')) continue;
    const px = parseFloat(getComputedStyle(element).fontSize);
    if (px < 16) out.add(px + ' px: ' + text.slice(0, 40));
  }
  return [...out];
}"""
"""Every piece of text in the page (charts included) under 16 px."""

CONTRAST = """() => [...document.querySelectorAll(
    '[data-testid="stCaptionContainer"] p, [data-testid="stAlertContainer"] p')]
  .filter(p => p.innerText.trim()).map(p => {
    const lum = colour => {
      const [r, g, b] = colour.match(/[\\d.]+/g).map(Number).map(v => {
        v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    let box = p, back = 'rgb(255, 255, 255)';
    for (; box; box = box.parentElement) {
      const bg = getComputedStyle(box).backgroundColor;
      if (bg && !bg.startsWith('rgba(0, 0, 0, 0)') && bg !== 'transparent') { back = bg; break; }
    }
    const [a, b] = [lum(getComputedStyle(p).color), lum(back)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    return {ratio, text: p.innerText.slice(0, 40)};
  }).filter(c => c.ratio < 7)"""
"""Result sentences (captions, alerts) under 7:1 contrast with their own background."""


def test_presentation_mode_from_a_link_is_large_plain_and_one_chart_wide(
    server: str, browser: Any
) -> None:
    """``?present=1``: no sidebar, pages in a bar at the top, no text under 16 px (charts
    included), result sentences at 7:1, and Compare's charts one per row."""
    page = new_page(browser, {"width": 1400, "height": 1000})
    try:
        open_page(page, server + "/?jobs=40&present=1")
        assert not page.locator('[data-testid="stSidebar"]').is_visible()
        assert page.get_by_role("link", name="Compare").is_visible()
        page.get_by_role("button", name="Run the demo").click()
        page.locator(".js-plotly-plot").first.wait_for(timeout=WAIT_MS)
        settle(page)
        assert page.evaluate(TOO_SMALL) == []
        assert page.evaluate(CONTRAST) == []
        shoot(page, "home-presenting")
        page.get_by_role("link", name="Compare").click()
        page.wait_for_selector("h1:has-text('Compare policies')", timeout=WAIT_MS)
        settle(page)
        page.get_by_role("button", name="Run comparison").click()
        page.get_by_text("Mean GPUs given per model").wait_for(timeout=WAIT_MS)
        settle(page)
        boxes = [page.locator(f".js-plotly-plot >> nth={k}").bounding_box() for k in (1, 2)]
        assert boxes[0]["x"] == boxes[1]["x"] and boxes[1]["y"] > boxes[0]["y"]  # stacked
        assert page.evaluate(TOO_SMALL) == []
        assert page.evaluate(CONTRAST) == []
        assert "present=1" in page.url
        page.get_by_role("button", name="Leave presentation mode").click()
        settle(page)
        assert page.locator('[data-testid="stSidebar"]').is_visible()
        assert "present=0" in page.url
    finally:
        page.context.close()


def test_the_guided_tour_points_at_what_to_click_and_stays_closed(
    server: str, browser: Any
) -> None:
    page = new_page(browser, {"width": 1400, "height": 1000})
    try:
        open_page(page, server + "/?jobs=40")
        tour = page.locator(".st-key-tour_box")
        assert "step 1 of 5" in tour.inner_text()
        page.get_by_role("button", name="Next").click()
        settle(page)
        assert "step 2 of 5" in tour.inner_text()
        demo = page.get_by_role("button", name="Run the demo")
        assert demo.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"
        demo.click()
        page.locator(".js-plotly-plot").first.wait_for(timeout=WAIT_MS)
        settle(page)
        page.get_by_role("button", name="Next").click()
        settle(page)
        assert demo.evaluate("e => getComputedStyle(e).outlineStyle") == "none"
        page.get_by_role("link", name="Go to Live simulation").click()
        page.wait_for_selector("h1:has-text('Live simulation')", timeout=WAIT_MS)
        settle(page)
        page.locator('[data-testid="stSidebarNavLink"]', has_text="Home").click()
        page.wait_for_selector("h1:has-text('Moldable Lab')", timeout=WAIT_MS)
        settle(page)
        assert "step 3 of 5" in tour.inner_text()  # where it was left
        for _ in range(2):
            page.get_by_role("button", name="Next").click()
            settle(page)
        assert "step 5 of 5" in tour.inner_text()
        shoot(page, "home-tour")
        page.get_by_role("button", name="Finish").click()
        settle(page)
        assert tour.count() == 0
        page.locator('[data-testid="stSidebarNavLink"]', has_text="About").click()
        page.wait_for_selector("h1:has-text('About')", timeout=WAIT_MS)
        page.locator('[data-testid="stSidebarNavLink"]', has_text="Home").click()
        page.wait_for_selector("h1:has-text('Moldable Lab')", timeout=WAIT_MS)
        settle(page)
        assert tour.count() == 0  # closed for the session
        page.get_by_role("button", name="Take the guided tour").click()
        settle(page)
        assert "step 1 of 5" in tour.inner_text()
    finally:
        page.context.close()


SPINNER_CLEAR = """() => [...document.querySelectorAll('[data-testid="stSpinner"]')].flatMap(s => {
  const r = s.getBoundingClientRect();
  return [...document.querySelectorAll('h1, h2, h3')].filter(h => {
    const q = h.getBoundingClientRect();
    return r.left < q.right && q.left < r.right && r.top < q.bottom - 1 && q.top < r.bottom - 1;
  }).map(h => 'spinner over ' + h.innerText);
})"""


def test_the_spinner_of_a_first_computation_covers_no_heading(browser: Any) -> None:
    """On a fresh server Home computes its scenarios; the spinner lay over the heading
    under it (Streamlit draws a cache spinner in a box of no height)."""
    with harness.serve() as url:
        page = new_page(browser, {"width": 1400, "height": 1000})
        try:
            page.goto(url + "/?jobs=40")
            page.locator('[data-testid="stSpinner"]').first.wait_for(timeout=WAIT_MS)
            page.wait_for_timeout(300)
            assert page.evaluate(SPINNER_CLEAR) == []
            shoot(page, "home-spinner")
        finally:
            page.context.close()
