"""Moldable Lab: the entry point in a checkout (``streamlit run app.py``); see ``lab.app``."""

from lab.app import main

if __name__ == "__main__":  # Streamlit runs this file as __main__; a spawned worker
    main()  # process re-imports it as __mp_main__, and must not start another app
