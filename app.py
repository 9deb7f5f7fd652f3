"""Moldable Lab: the entry point in a checkout (``streamlit run app.py``); see ``lab.app``."""

from lab.app import main

main()
