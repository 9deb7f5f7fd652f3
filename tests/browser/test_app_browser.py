"""The real app in headless Chromium: every page, its main buttons, charts, isolation.

Starts ``streamlit run app.py`` on a free port, drives it with Playwright, saves a
screenshot per page in ``artifacts/screenshots/`` and checks that no page shows a
Streamlit exception. Skips when Chromium or Playwright is missing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
from browser import harness  # noqa: E402
from browser.harness import CHROMIUM, WAIT_MS, metric, open_page, settle, shoot  # noqa: E402

SMALL = "?jobs=40"
"""Small workloads keep the run fast on a two-core CI machine."""
GOOD = b"submit_time,runtime_1gpu,model,requested_gpus\n0,3600,bert,2\n60,7200,ncf,4\n"
BAD = b"submit_time,runtime_1gpu,model\n0,3600,bert\n60,-5,bert\n"

if not CHROMIUM.exists():
    pytest.skip("chromium is not installed at /usr/bin/chromium", allow_module_level=True)




@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    yield context.new_page()
    context.close()


def plots(page: object, at_least: int) -> None:
    page.wait_for_function(
        f"() => document.querySelectorAll('.js-plotly-plot').length >= {at_least}",
        timeout=WAIT_MS,
    )


def no_exception(page: object) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0




def upload(page: object, name: str, data: bytes) -> None:
    page.get_by_role("tab", name="Upload CSV").click()
    field = page.locator('[data-testid="stFileUploaderDropzoneInput"]').first
    field.set_input_files({"name": name, "mimeType": "text/csv", "buffer": data})
    settle(page)


def test_home_runs_the_demo(server: str, page: object) -> None:
    open_page(page, server + "/" + SMALL)
    page.get_by_role("button", name="Run the demo").click()
    plots(page, 1)
    settle(page)
    words = metric(page, "vs Hindsight-tuned threshold")
    assert words == "ties" or words.endswith((" faster", " slower"))
    no_exception(page)
    shoot(page, "home")


def test_workload_page_uploads_and_rejects(server: str, page: object) -> None:
    open_page(page, server + "/workload" + SMALL)
    plots(page, 4)
    assert metric(page, "jobs") == "40"
    shoot(page, "workload")
    upload(page, "mine.csv", GOOD)
    page.get_by_text("Loaded mine.csv:").wait_for(timeout=WAIT_MS)
    assert metric(page, "jobs") == "2"
    upload(page, "broken.csv", BAD)
    error = page.locator('[data-testid="stAlertContentError"]').first
    error.wait_for(timeout=WAIT_MS)
    assert "row 3, column 'runtime_1gpu'" in error.inner_text()
    assert metric(page, "jobs") == "2"
    no_exception(page)
    shoot(page, "workload-bad-upload")


def test_train_start_is_disabled_while_running_and_stop_ends_the_warm_start(
    server: str, page: object
) -> None:
    open_page(page, server + "/train" + SMALL)
    start = page.get_by_role("button", name="Start training")
    start.click()
    page.get_by_text("Warm start: imitating the teacher").wait_for(timeout=WAIT_MS)
    assert start.is_disabled()
    page.wait_for_timeout(1500)
    page.get_by_role("button", name="Stop").click()
    page.get_by_text("Stopped during the warm start").wait_for(timeout=4000)
    settle(page)
    assert start.is_enabled()
    no_exception(page)


LEGEND_CLEAR = """() => [...document.querySelectorAll('.js-plotly-plot')].every(plot => {
  const legend = plot.querySelector('.legend'), area = plot.querySelector('.nsewdrag');
  if (!legend || !area) return true;
  const l = legend.getBoundingClientRect(), a = area.getBoundingClientRect();
  return l.bottom <= a.top + 1 && l.right <= plot.getBoundingClientRect().right + 1;
})"""


BUTTON_CLEAR = """() => [...document.querySelectorAll('.js-plotly-plot')].every(plot => {
  const button = plot.querySelector('.modebar-btn');
  if (!button || getComputedStyle(button.closest('.modebar')).opacity === '0') return true;
  const b = button.getBoundingClientRect();
  return [...plot.querySelectorAll('.legend .traces')].every(entry => {
    const l = entry.getBoundingClientRect();
    return b.right <= l.left || l.right <= b.left || b.bottom <= l.top || l.bottom <= b.top;
  });
})"""
"""The PNG button, where shown (on hover), never sits on a legend entry."""

def test_all_policies_show_every_legend_entry_and_a_readable_plot(
    server: str, page: object
) -> None:
    """With All policies the legends were scroll boxes showing 9 of 12, and the GPUs-per-
    model chart shrank to a strip."""
    open_page(page, server + "/compare" + SMALL)
    page.get_by_role("button", name="All policies").click()
    settle(page)
    page.get_by_role("button", name="Run comparison").click()
    plots(page, 5)
    settle(page)
    shoot(page, "compare-all-policies")
    assert page.evaluate(harness.LEGENDS_WHOLE) == []
    no_exception(page)


def test_compare_on_a_phone_keeps_toolbar_and_legends_off_the_charts(
    server: str, browser: object
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page = context.new_page()
        open_page(page, server + "/compare" + SMALL)
        page.get_by_role("button", name="Run comparison").click()
        plots(page, 5)
        settle(page)
        assert page.evaluate(LEGEND_CLEAR)
        assert page.evaluate(BUTTON_CLEAR)
        no_exception(page)
        shoot(page, "compare-390px")
    finally:
        context.close()


def test_compare_page_runs(server: str, page: object) -> None:
    open_page(page, server + "/compare" + SMALL)
    page.get_by_role("button", name="Run comparison").click()
    plots(page, 5)
    settle(page)
    no_exception(page)
    shoot(page, "compare")


@pytest.mark.parametrize("path, charts", [("train", 0), ("about", 1)])
def test_other_pages_render(server: str, page: object, path: str, charts: int) -> None:
    open_page(page, f"{server}/{path}{SMALL}")
    if charts:
        plots(page, charts)
    no_exception(page)
    shoot(page, path)


def test_two_sessions_do_not_share_workloads(server: str, browser: object) -> None:
    first, second = browser.new_context(), browser.new_context()
    try:
        a, b = first.new_page(), second.new_page()
        open_page(a, server + "/workload" + SMALL)
        open_page(b, server + "/workload" + SMALL)
        upload(a, "mine.csv", GOOD)
        a.get_by_text("Loaded mine.csv:").wait_for(timeout=WAIT_MS)
        for link in ("About", "Workload"):  # the same session of b reruns its pages
            b.locator('[data-testid="stSidebarNavLink"]', has_text=link).click()
            b.wait_for_selector("h1", timeout=WAIT_MS)
            settle(b)
        assert metric(a, "jobs") == "2"
        assert metric(b, "jobs") == "40"
    finally:
        first.close()
        second.close()


def test_a_shared_link_reopens_the_same_demo(server: str, page: object) -> None:
    open_page(page, server + "/live" + SMALL + "&policy=sjf-knee&nodes=8&seed=3")
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert "8x4 (32 GPUs)" in sidebar.inner_text()
    policy = page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').first
    shown = policy.evaluate("e => e.innerText + [...e.querySelectorAll('input')]"
                            ".map(i => i.value + i.getAttribute('aria-label')).join(' ')")
    assert "sjf-knee" in shown
    assert "seed=3" in page.url and "policy=sjf-knee" in page.url
    no_exception(page)
