"""Render a debate from the store while its worker writes it (live), or at once / at recorded pace.

A fragment reruns every ~0.3 s while the debate runs: it reads only the events after the last one
it folded (kept per session and per debate), folds them into the DebateView and redraws. When the
closing event arrives it triggers one full rerun so the page's Run/Stop buttons and the fragment's
timer reflect the finished state.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

import streamlit as st

from debate import live
from ui import resources
from ui.render import render_debate
from ui.transcript import DebateView

TICK_S = 0.3


def _view(debate_id: str, scope: str) -> DebateView:
    views = st.session_state.setdefault(f"views:{scope}", {})
    view = views.get(debate_id)
    if view is None:
        view = views[debate_id] = DebateView()
    new = resources.get_store().events(debate_id, after_seq=view.last_seq)
    view.extend(new)
    return view


def _elapsed(row: dict | None, view: DebateView) -> float | None:
    if not row or view.finished is not None or row.get("status") != "running":
        return None
    try:
        start = datetime.fromisoformat(row["created_at"])
        return max(0.0, (datetime.now(timezone.utc) - start).total_seconds())
    except (KeyError, ValueError):
        return None


def show_live(debate_id: str, gold: Any = None) -> None:
    """The live debate of this session; ticks while the worker is running."""
    store = resources.get_store()
    row = store.get(debate_id)
    if row is None:
        st.info("This debate is no longer in the store.")
        return
    ticking = row["status"] == "running" and live.is_running(debate_id)

    @st.fragment(run_every=TICK_S if ticking else None)
    def _frame() -> None:
        r = store.get(debate_id) or row
        view = _view(debate_id, "live")
        render_debate(view, debate_id, row=r, gold=gold, elapsed=_elapsed(r, view), chart_key="live")
        if ticking and (view.finished is not None or not live.is_running(debate_id)):
            st.rerun()

    _frame()


def show_stored(debate_id: str, pace: str = "instant", speed: float = 1.0) -> None:
    """A saved debate: all at once, or replayed at its recorded pace (times `speed`)."""
    store = resources.get_store()
    row = store.get(debate_id)
    if row is None:
        st.info("This debate is no longer in the store.")
        return
    key = f"replay:{debate_id}"
    if pace == "instant":
        st.session_state.pop(key, None)
        view = _view(debate_id, "library")
        render_debate(view, debate_id, row=row, chart_key="lib")
        return
    if key not in st.session_state:
        st.session_state[key] = time.monotonic()
    events = store.events(debate_id)
    end_t = max((e.t for e in events), default=0.0)

    @st.fragment(run_every=TICK_S)
    def _frame() -> None:
        clock = (time.monotonic() - st.session_state[key]) * speed
        view = DebateView().extend([e for e in events if (e.t or 0.0) <= clock])
        st.progress(min(1.0, clock / end_t) if end_t else 1.0,
                    text=f"Replaying at {speed:g}× · {min(clock, end_t):.1f} / {end_t:.1f} s")
        render_debate(view, debate_id, row={**row, "status": "running" if clock < end_t else row["status"]},
                      elapsed=min(clock, end_t), chart_key="replay")
        if clock > end_t + 1.0:
            st.session_state.pop(key, None)
            st.session_state["lib_replay_done"] = True
            st.rerun()

    _frame()
