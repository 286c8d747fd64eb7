"""Widget values the app sets for the person (not values the person typed), made again when lost.

Streamlit lets the browser's widget state win over a value the app put into a widget's key: a browser
that sends a rerun (a person typing in another field, a click) before it has drawn the app's new value
sends the old value back, and the app's change is silently gone, even when it was made in a widget
callback. What was lost mattered: the live-demo pace switched on with the paper's rounds still in the
widget (a slow debate under a caption naming the pace's rounds), RADAR picked with the yes/no task left
in place, then taken as the person's own choice.

The rule (the same as the small-model aids', ui.setup.settle_aids): a value the app set is recorded with
the value it replaced. A run that drew the widgets and got past them (`confirm`) has shown it: the record
ends, and whatever the widget holds afterwards is the person's. A record still there when the next run
starts means the run that drew the value was cut short by a rerun from the browser; if the widget then
holds the value it had before, that is the browser's stale state, and the value is set again (`redo_lost`,
before the widgets are drawn).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

UNLANDED = "landing:unlanded"  # widget key -> {"value": set by the app, "before": the value it replaced}
_NONE = object()


def _current(key: str) -> Any:
    return st.session_state.get(key, st.session_state.get(f"keep:{key}", _NONE))


def _put(key: str, value: Any) -> None:
    st.session_state[key] = st.session_state[f"keep:{key}"] = value  # keep: the page-switch mirror (ui.widgets)


def set_value(key: str, value: Any) -> None:
    """Put `value` into widget `key` for the person: from a widget callback, or before the widget is
    drawn. Made again if the browser's stale state undoes it before the widget showed it."""
    before = _current(key)
    _put(key, value)
    unlanded: dict = st.session_state.setdefault(UNLANDED, {})
    if before is _NONE or before == value:
        unlanded.pop(key, None)
    else:
        unlanded[key] = {"value": value, "before": before}


def redo_lost() -> None:
    """At the start of a run, before the widgets are drawn: a value the app set whose run was cut short
    and that the browser sent back as it was before is set again; any other value is the person's."""
    unlanded: dict = st.session_state.get(UNLANDED) or {}
    for key, rec in list(unlanded.items()):
        cur = _current(key)
        if cur == rec["before"]:
            _put(key, rec["value"])
        elif cur != rec["value"]:
            unlanded.pop(key, None)


def confirm() -> None:
    """After the widgets are drawn: the values this run showed have landed; from now on they are the
    person's to change."""
    unlanded: dict = st.session_state.get(UNLANDED) or {}
    for key, rec in list(unlanded.items()):
        if _current(key) == rec["value"]:
            unlanded.pop(key, None)
