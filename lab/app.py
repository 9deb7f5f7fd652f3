"""The app's wiring: the page list, the shared sidebar (cluster and seed) and the URL
mirror of the settings. Each page is a thin view over ``engine``.

In a checkout ``streamlit run app.py`` calls :func:`main`; an installed package runs this
file itself (``python -m lab``), so the app needs nothing outside the installed packages.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from engine.paths import beside_package
from lab import runs, state, ui


def pages_dir() -> Path:
    """Where the page scripts are: the checkout's ``app_pages/``, installed as ``lab.app_pages``."""
    return beside_package(Path(__file__).resolve().parent, "app_pages")


def main() -> None:
    st.set_page_config(page_title="Moldable Lab", page_icon="🖥️", layout="wide")
    folder = pages_dir()
    pages = [
        st.Page(folder / "home.py", title="Home", icon=":material/home:", default=True),
        st.Page(folder / "workload.py", title="Workload", icon=":material/table:"),
        st.Page(folder / "live.py", title="Live simulation", icon=":material/play_circle:"),
        st.Page(folder / "compare.py", title="Compare", icon=":material/leaderboard:"),
        st.Page(folder / "train.py", title="Train", icon=":material/school:"),
        st.Page(folder / "about.py", title="About", icon=":material/info:"),
    ]
    refused = state.boot()
    page = st.navigation(pages, position="top" if state.presenting() else "sidebar")
    ui.readable_text()
    ui.presentation_switch()
    ui.sidebar(refused)
    st.sidebar.caption(f"Heavy runs (Compare, Home's demo) go to {runs.where_heavy_runs_go()}.")
    state.mirror_to_url()
    page.run()


if __name__ == "__main__":
    main()
