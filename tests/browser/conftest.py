"""The app served on a free port and one headless Chromium, shared by a module's tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The app served on a free port, stopped after the module's tests."""
    from browser import harness

    with harness.serve() as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for the module's tests."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from browser import harness

    with sync_api.sync_playwright() as playwright, harness.launch(playwright) as chromium:
        yield chromium
