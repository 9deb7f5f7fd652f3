"""Moldable Lab: the entry point (``streamlit run app.py``).

It only wires things up: the page list, the shared sidebar (cluster and seed) and the
URL mirror of the settings. Each page is a thin view over ``engine``.
"""

from __future__ import annotations

import streamlit as st

from lab import state, ui

st.set_page_config(page_title="Moldable Lab", page_icon=":material/memory:", layout="wide")

PAGES = [
    st.Page("app_pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("app_pages/workload.py", title="Workload", icon=":material/table:"),
    st.Page("app_pages/live.py", title="Live simulation", icon=":material/play_circle:"),
    st.Page("app_pages/compare.py", title="Compare", icon=":material/leaderboard:"),
    st.Page("app_pages/train.py", title="Train", icon=":material/school:"),
    st.Page("app_pages/about.py", title="About", icon=":material/info:"),
]

refused = state.boot()
page = st.navigation(PAGES)
ui.sidebar(refused)
state.mirror_to_url()
page.run()
