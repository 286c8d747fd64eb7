"""Pages run inside app.py's navigation, also when the very first request is a deep link.

Why: Streamlit decides per server process whether the app uses the old `pages/` folder mode, and starts
out believing it does because a `pages/` folder exists. Until app.py has called `st.navigation` once,
a shared link such as /learn runs pages/learn.py on its own: no page config, no stylesheet, a menu built
from file names. A demo that opens on a bookmarked page after a restart hits exactly that. Each page calls
`through_app()` first: in that mode it switches the flag off and reruns, and the rerun goes through
app.py, whose navigation routes to the same page (page ids are the same URL paths in both modes).
"""

from __future__ import annotations

import streamlit as st


def through_app() -> None:
    """Rerun through app.py when Streamlit ran this page file directly (old multipage mode)."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
