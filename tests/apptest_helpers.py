"""AppTest helpers shared by tests/app: a fresh session on a chosen page, small settings.

CI has two cores, so runs get a generous timeout and workloads are kept small.
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

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
    parts = [e.value for e in (*at.markdown, *at.caption, *at.success, *at.info, *at.error)]
    parts += [f"{m.label}={m.value}" for m in at.metric]
    return "\n".join(map(str, parts))
