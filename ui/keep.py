"""Widget memory: a widget's value kept across pages, below every module that draws widgets.

A widget's key vanishes from session_state on pages where it is not drawn, so each value is mirrored into
a plain `keep:` key and restored when the page is drawn again. It lives apart from ui.widgets so that the
small boxes ui.widgets builds on (ui.server_box) can keep their values without importing it back.
"""

from __future__ import annotations

from collections.abc import Callable
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


def follow_default(key: str, default: str) -> None:
    """A seat's model box follows its seat's default until the person picks another model.

    A seat keeps its name when the layout changes (team size 2 -> 1: "opp-1" was a Qwen seat, now the
    preset seats SmolLM2 there), so its box still held the old default: the page ran a lineup nobody chose
    and called it "custom", while the command line ran the preset. The default last shown is remembered;
    a box the person never changed takes the new one, one the person changed keeps its pick."""
    seen, picked = f"default:{key}", f"picked:{key}"
    before = st.session_state.get(seen)
    value = st.session_state.get(key, st.session_state.get(f"keep:{key}"))
    if before is not None and value is not None and value != before:
        st.session_state[picked] = True  # the box differs from the default it was shown with: a pick
    if before is not None and before != default and not st.session_state.get(picked):
        for k in (key, f"keep:{key}"):
            if k in st.session_state:
                st.session_state[k] = default
    st.session_state[seen] = default


def relabel(key: str, title: Callable[[Any], str]) -> None:
    """Before a picker whose option labels change while it is shown (a debate's status and verdict as it
    finishes): when the chosen option's label is not the one the browser was last sent, its value is set
    again, which sends the new label. Streamlit's browser side holds a selectbox's value as its label and
    keeps it when only the labels change, so the Library's list said "running" beside a table that said
    "completed" until the page was reloaded."""
    value = st.session_state.get(key)
    if value is None or value == []:
        return
    try:
        label = [title(v) for v in value] if isinstance(value, list) else title(value)
    except (KeyError, ValueError):  # an option that is gone: the widget resets it itself
        return
    if st.session_state.get(f"label:{key}") != label:
        st.session_state[key] = value
        st.session_state[f"label:{key}"] = label
