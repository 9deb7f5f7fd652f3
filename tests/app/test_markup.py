"""Nothing a user types is markup: link values, file names and CSV text read as text.

Whoever opens a shared link sees its values and the uploaded file's name; rendered as
markdown they put live links and remote images on other people's pages.
"""

from __future__ import annotations

import re

from apptest_helpers import open_app

from lab.plain import plain

LURE = ("[Session expired: log in again](http://evil.example/login)"
        "![x](http://evil.example/pixel.png)<img src=x onerror=alert(1)>*bold*")
LIVE = re.compile(r"(?<!\\)\[Session|(?<!\\)!\[x|(?<!\\)<img|(?<!\\)\*bold")
"""The lure's markup, unescaped: what markdown would turn into a link, image or tag."""


def shown(at) -> list[str]:
    """Every element of page and sidebar that renders markdown."""
    kinds = ("markdown", "caption", "header", "title", "subheader", "success", "info",
             "warning", "error")
    return [str(e.value) for kind in kinds for e in at.get(kind)] + [
        str(e.value) for kind in kinds for e in getattr(at.sidebar, kind)]


def assert_text_only(at) -> None:
    rendered = shown(at)
    assert not [value for value in rendered if LIVE.search(value)]
    assert any("Session expired" in value for value in rendered)  # shown, as text


def test_link_values_are_shown_as_text() -> None:
    at = open_app("about", seed=f"x{LURE}", policies=LURE, upload=LURE)
    assert not at.exception
    assert_text_only(at)


def test_a_file_name_header_and_cells_are_shown_as_text_here_and_on_the_link() -> None:
    at = open_app("workload")
    data = (f"submit_time,runtime_1gpu,{LURE.replace(',', ' ')}\n"
            "0,3600,a\n60,3600,b\n").encode()
    at.file_uploader(key="upload_csv").set_value((f"{LURE}.csv", data, "text/csv")).run()
    assert not at.exception and "upload" in at.query_params
    assert_text_only(at)
    bad = f"submit_time,runtime_1gpu\n0,{LURE.replace(',', ' ')}\n".encode()
    at.file_uploader(key="upload_csv").set_value(("bad.csv", bad, "text/csv")).run()
    assert_text_only(at)
    other = open_app("compare", upload=at.query_params["upload"])
    assert not other.exception
    assert_text_only(other)
    assert plain(f"uploaded {LURE}.csv") in " ".join(shown(other))
