"""AppTest helpers shared by tests/app: a fresh session on a chosen page, small settings.

CI has two cores, so runs get a generous timeout and workloads are kept small.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from engine.drl.pretrained import shipped_policy
from engine.paths import PRETRAINED_ENV

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60


def open_app(page: str | None = None, **settings: object) -> AppTest:
    """The app booted with ``settings`` (as a shared link would give them), on ``page``."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update({k: str(v) for k, v in {"jobs": 40, **settings}.items()})
    if page is not None:
        at.switch_page(f"app_pages/{page}.py")
    return at.run()


def texts(at: AppTest) -> str:
    """Everything readable on the page, to assert on."""
    parts = [e.value for e in (*at.markdown, *at.caption, *at.success, *at.info, *at.warning,
                               *at.error)]
    parts += [f"{m.label}={m.value}" for m in at.metric]
    return "\n".join(map(str, parts))


@contextmanager
def weights_from(folder: Path, monkeypatch) -> Iterator[None]:
    """The app as a server whose pretrained folder is ``folder`` (caches emptied around it)."""
    from lab import runs

    def forget() -> None:
        for clear in (shipped_policy.cache_clear, runs.pretrained.clear, st.cache_data.clear):
            clear()

    monkeypatch.setenv(PRETRAINED_ENV, str(folder))
    forget()
    try:
        yield
    finally:
        monkeypatch.delenv(PRETRAINED_ENV)
        forget()
