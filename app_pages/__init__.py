"""The app's pages, one script each; ``lab.app`` lists them for ``st.navigation``."""
