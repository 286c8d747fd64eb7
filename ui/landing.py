"""Widget values the app sets for the person (not values the person typed), made again when lost.

Streamlit lets the browser's widget state win over a value the app put into a widget's key: a browser
that sends a rerun (a person typing in another field, a click) before it has drawn the app's new value
sends the old value back, and the app's change is silently gone, even when it was made in a widget
callback. What was lost mattered: the live-demo pace switched off with the demo's answer length still in
the widget and in the run (under a caption naming the papers' settings), RADAR picked with the yes/no task
left in place, then taken as the person's own choice.

How the app knows the browser is behind: each value the app sets gets a number, and a hidden widget
drawn after the set-up's widgets (`sentinel`) carries the last number. The browser sends it back with
every rerun. A value whose number the browser has not sent back yet, and which the browser sent back as it
was before the app changed it, was lost: it is set again (`redo_lost`, before the widgets are drawn). Any
other value is the person's. Telling a stale browser from a person's choice by the value alone cannot
work: both send the old value back; and a run of the app that finished says nothing about what the
browser has drawn.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

SEEN = "landing_seen"  # the hidden widget: the number of the app's values the page last drew
UNLANDED = "landing:unlanded"  # widget key -> {"value": set by the app, "before": it replaced, "n": its number}
COUNT = "landing:count"  # the number of the last set of values the app set
_NONE = object()


def _current(key: str) -> Any:
    return st.session_state.get(key, st.session_state.get(f"keep:{key}", _NONE))


def _put(key: str, value: Any) -> None:
    st.session_state[key] = st.session_state[f"keep:{key}"] = value  # keep: the page-switch mirror (ui.widgets)


def set_value(key: str, value: Any) -> None:
    """Put `value` into widget `key` for the person: from a widget callback, or before the widget is
    drawn. Set again if a browser that had not drawn it sends the old value back."""
    before = _current(key)
    _put(key, value)
    unlanded: dict = st.session_state.setdefault(UNLANDED, {})
    if before is _NONE or before == value:
        unlanded.pop(key, None)
        return
    n = st.session_state[COUNT] = int(st.session_state.get(COUNT, 0)) + 1
    unlanded[key] = {"value": value, "before": before, "n": n}


def _seen() -> int:
    """The number the browser sent back: the app's values it had drawn when it sent this rerun. (After
    st.rerun no widgets are sent: then it is the number the app last drew, and nothing is redone.)"""
    try:
        return int(st.session_state.get(SEEN, 0))
    except (TypeError, ValueError):  # the browser's text: anything
        return 0


def redo_lost() -> None:
    """Before the widgets are drawn (at the start of the set-up, and in the callbacks that decide on these
    values): a value the browser had not drawn when it sent this rerun, and sent back as it was before, is
    set again. A value the person changed to something else is theirs."""
    if SEEN not in st.session_state:  # the last run drew no sentinel (another page): no browser state to judge
        return
    seen = _seen()
    unlanded: dict = st.session_state.get(UNLANDED) or {}
    for key, rec in list(unlanded.items()):
        cur = _current(key)
        if cur != rec["before"] and cur != rec["value"]:
            unlanded.pop(key, None)  # the person typed something else
        elif rec["n"] > seen and cur == rec["before"]:
            _put(key, rec["value"])


def mark_drawn() -> None:
    """The sentinel's value in this run: the number of the app's last value (set before it is drawn)."""
    st.session_state[SEEN] = str(int(st.session_state.get(COUNT, 0)))


def sentinel() -> None:
    """Drawn once per run after the widgets the app sets values in (hidden by the stylesheet)."""
    mark_drawn()
    st.text_input("seen", key=SEEN, label_visibility="collapsed")
