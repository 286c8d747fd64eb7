"""A script of ours run against the page (scrolling to what just appeared).

Streamlit's own HTML element runs no script; an iframe whose document is given inline is same-origin and
can reach `window.parent.document`. `st.iframe` is that element (`components.html`, which did the same, is
deprecated and wrote a warning to the app's log on every page that used it). Only the app's own constant
scripts go through here, never model text or anything a user typed: the frame may run script on the app's
origin."""

from __future__ import annotations


def run_in_page(script_html: str) -> None:
    """Mount `script_html` (a `<script>` of ours) in a one-pixel frame: a frame of height 0 is refused."""
    import streamlit as st

    st.iframe(script_html, height=1)
