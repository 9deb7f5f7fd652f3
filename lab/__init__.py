"""The Streamlit app's thin shared layer: session state, query parameters and widgets.

Pages import from here and from ``engine``; nothing here schedules or simulates on its
own, so anything a page shows can be reproduced with ``python -m engine``.
"""
