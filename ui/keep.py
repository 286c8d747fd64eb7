"""Widget memory: a widget's value kept across pages, below every module that draws widgets.

A widget's key vanishes from session_state on pages where it is not drawn, so each value is mirrored into
a plain `keep:` key and restored when the page is drawn again. It lives apart from ui.widgets so that the
small boxes ui.widgets builds on (ui.server_box) can keep their values without importing it back.
"""

from __future__ import annotations

from typing import Any

import streamlit as st


def keep(key: str, default: Any) -> None:
    """Give widget `key` its last value (or `default`) before it is drawn.

    The value is set through the Session State API even when the key is there: right after a page
    switch the key still holds the value of the other page's widget, which a widget of another id
    (another page, another container) would not take over; it would start from its own default."""
    st.session_state[key] = (
        st.session_state[key] if key in st.session_state else st.session_state.get(f"keep:{key}", default)
    )


def remember(*keys: str) -> None:
    for k in keys:
        if k in st.session_state:
            st.session_state[f"keep:{k}"] = st.session_state[k]
