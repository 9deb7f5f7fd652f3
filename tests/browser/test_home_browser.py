"""Home on a phone (390 px wide): the demo's cards and chart fit, nothing covers a title.

A student follows the lecture on a phone: the cards must not run off the screen or cut
their words, and plotly's toolbar or a wrapped legend must not sit on a chart's title.
Skips when Chromium or Playwright is missing.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
from browser import harness  # noqa: E402
from browser.harness import CHROMIUM, ROOT, WAIT_MS, open_page, settle  # noqa: E402

if not CHROMIUM.exists():
    pytest.skip("chromium is not installed at /usr/bin/chromium", allow_module_level=True)

PHONE = {"width": 390, "height": 844}

OVERFLOW = """() => {
  const width = document.documentElement.clientWidth, out = [];
  for (const box of [document.documentElement, document.querySelector('[data-testid="stMain"]')])
    if (box && box.scrollWidth > box.clientWidth + 1) out.push('page scrolls sideways');
  for (const card of document.querySelectorAll('[data-testid="stMetric"]')) {
    const box = card.getBoundingClientRect();
    const value = card.querySelector('[data-testid="stMetricValue"]');
    if (box.left < -1 || box.right > width + 1) out.push('card off screen: ' + card.innerText);
    if (value && value.scrollWidth > value.clientWidth + 1) out.push('cut: ' + value.innerText);
  }
  return out;
}"""
"""What sticks out sideways: the page itself, a metric card, or a card's cut-off value."""

COVERED = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot => {
  const top = plot.getBoundingClientRect().top, area = plot.querySelector('.nsewdrag');
  const out = [];
  const block = plot.closest('[data-testid="stElementContainer"]');
  const title = block && block.previousElementSibling;
  if (title && title.getBoundingClientRect().bottom > top + 1) out.push('title under chart');
  const legend = plot.querySelector('.legend');
  const over = (a, b) => a.getBoundingClientRect().bottom > b.getBoundingClientRect().top + 1;
  const meet = (a, b) => {
    const r = a.getBoundingClientRect(), q = b.getBoundingClientRect();
    return r.width > 0 && q.width > 0 && r.left < q.right && q.left < r.right
      && r.top < q.bottom && q.top < r.bottom;
  };
  const button = plot.querySelector('.modebar-btn');  // the PNG button: never over a legend
  if (button && legend && meet(button, legend)) out.push('toolbar over the legend');
  if (legend && area && over(legend, area)) out.push('legend over the plot');
  return out;
})"""
"""Per chart: its title (drawn above it) overlapped, the toolbar's button on the legend, a
legend on the data."""


def test_home_on_a_phone_fits_its_cards_and_keeps_chart_titles_clear() -> None:
    with harness.serve() as url, sync_api.sync_playwright() as playwright, \
            harness.launch(playwright) as browser:
        context = browser.new_context(viewport=PHONE, is_mobile=True)
        page = context.new_page()
        open_page(page, url + "/?jobs=40")
        page.get_by_text("A busy cluster:").first.wait_for(timeout=WAIT_MS)
        assert page.evaluate(OVERFLOW) == []
        page.get_by_role("button", name="Run the demo").click()
        page.locator(".js-plotly-plot").first.wait_for(timeout=WAIT_MS)
        settle(page)
        assert page.get_by_text("Average job completion time").first.is_visible()
        assert page.evaluate(OVERFLOW) == []
        assert page.evaluate(COVERED) == []
        assert page.locator('[data-testid="stException"]').count() == 0
        shots = ROOT / "artifacts" / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "home-390px.png"), full_page=True)
        context.close()


CAPTIONS = """() => [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
  .filter(c => c.innerText.trim()).map(c => {
    const style = getComputedStyle(c.querySelector('p') || c);
    const rgb = style.color.match(/[\\d.]+/g).map(Number);
    const lum = rgb.slice(0, 3).map(v => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    const L = 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2];
    const alpha = (rgb.length > 3 ? rgb[3] : 1) * Number(getComputedStyle(c).opacity);
    return {px: parseFloat(style.fontSize), contrast: alpha < 1 ? 0 : 1.05 / (L + 0.05),
            text: c.innerText.slice(0, 40)};
  })"""
"""Each caption's font size and its contrast on white (0 when drawn faded)."""


def test_result_sentences_are_readable_from_the_back_row() -> None:
    """They were 14 px captions at 60% opacity: at least 16 px and 7:1 contrast."""
    with harness.serve() as url, sync_api.sync_playwright() as playwright, \
            harness.launch(playwright) as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        open_page(page, url + "/?jobs=40")
        page.get_by_text("A busy cluster:").first.wait_for(timeout=WAIT_MS)
        captions = page.evaluate(CAPTIONS)
        assert captions
        small = [c for c in captions if c["px"] < 16 or c["contrast"] < 7]
        assert small == []
