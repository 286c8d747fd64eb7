"""Pages run inside app.py's navigation, also when the very first request is a deep link.

Why: Streamlit decides per server process whether the app uses the old `pages/` folder mode, and starts
out believing it does because a `pages/` folder exists. Until app.py has called `st.navigation` once,
a shared link such as /learn runs pages/learn.py on its own: no page config, no stylesheet, a menu built
from file names. A demo that opens on a bookmarked page after a restart hits exactly that. Each page calls
`through_app()` first: in that mode it switches the flag off and runs app.py in its place, in the same
script run (so a click that started the run is not lost); app.py's navigation then routes to this page,
whose id is the same URL path in both modes.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import streamlit as st

APP = Path(__file__).resolve().parent.parent / "app.py"


def through_app() -> None:
    """Hand the run to app.py when Streamlit ran this page file directly (old multipage mode)."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        runpy.run_path(str(APP), run_name="__main__")
        st.stop()
