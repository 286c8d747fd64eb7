"""Render a debate from the store while its worker writes it (live), or at once / at recorded pace.

While a debate runs, the page shares the CPU cores (and the Python interpreter) with the models that
generate it, so every tick must cost little and must not grow with the transcript:
- what is finished (earlier rounds, charts, evidence, the claim) is drawn once, by a full run of the
  page, and left alone; only the round being spoken is redrawn, by a fragment that ticks every
  `TICK_S` and reads only the events after the last one it folded (kept per session and per debate);
- the counters have their own, slower fragment;
- when something outside the live round changes (a new round begins, votes are tallied, evidence or
  the verdict arrives, the debate ends) the fragment asks for one full run, which moves the finished
  round into the static part. That is a handful of full runs per debate, not one per tick.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import streamlit as st

from debate import live
from ui import resources
from ui.render import render_claim, render_counters, render_debate, render_section, render_side, render_verdict
from ui.transcript import DebateView

TICK_S = 1.0  # the live round (each tick costs the browser a re-render, and the browser shares the cores)
COUNTER_TICK_S = 2.0  # tokens and elapsed time
# While a debate streams, Streamlit's own "running" indicator would animate on every tick: hidden (the
# page's status badge and the streaming text say that the debate runs)
QUIET_CSS = "<style>[data-testid='stStatusWidget']{display:none}</style>"


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
        return max(0.0, (datetime.now(UTC) - start).total_seconds())
    except (KeyError, ValueError):
        return None


def _shape(view: DebateView) -> tuple:
    """What the static part of the live page shows; when it changes, the page runs in full once."""
    return (
        len(view.sections),
        len(view.tallies),
        len(view.stop_checks),
        len(view.evidence),
        len(view.verdicts),
        view.finished is not None,
        _searching(view),
    )


def _searching(view: DebateView) -> tuple:
    """The evidence panel's "searching…" line (stage and each source's state), until the passages come."""
    p = view.evidence_progress
    if not p or view.evidence_event:
        return (bool(view.evidence_event),)
    return (p.get("stage"), tuple((s.get("name"), s.get("state"), s.get("passages")) for s in p.get("sources") or []))


# After Run the debate starts below the set-up, out of sight on a laptop's screen: the page is scrolled to
# its claim card once (tried for a few seconds, until the card is drawn), the card just under the header. Streamlit's own HTML element runs
# no script; a one-pixel inline frame (same origin, ui.page_script) can reach the page.
FOLLOW_JS = """<script>
(() => { const doc = window.parent.document; let tries = 0;
  const go = () => { const cards = [...doc.querySelectorAll('.claim-card')]
      .filter(el => !el.closest('[data-stale="true"]'));
    if (cards.length) { const card = cards[cards.length - 1]; let box = card.parentElement;
      while (box && !(box.scrollHeight > box.clientHeight && /(auto|scroll)/.test(getComputedStyle(box).overflowY)))
        box = box.parentElement;
      if (box) box.scrollBy({top: card.getBoundingClientRect().top - 80}); else card.scrollIntoView();
      return; }
    if (++tries < 50) setTimeout(go, 100); };
  go(); })();
</script>"""


def follow_debate() -> None:
    """Scroll the page to the debate that has just started (once, right after Run)."""
    from ui.page_script import run_in_page

    run_in_page(FOLLOW_JS)


def show_live(debate_id: str, gold: Any = None) -> None:
    """The live debate of this session; its current round ticks while the worker is running."""
    store = resources.get_store()
    row = store.get(debate_id)
    if row is None:
        st.info("This debate is no longer in the store.")
        return
    view = _view(debate_id, "live")
    ticking = row["status"] == "running" and live.is_running(debate_id) and view.finished is None
    if not ticking:
        render_debate(view, debate_id, row=row, gold=gold, elapsed=_elapsed(row, view), chart_key="live")
        return

    st.html(QUIET_CSS)
    render_claim(view, row)

    @st.fragment(run_every=COUNTER_TICK_S)
    def _counters() -> None:
        render_counters(view, _elapsed(row, view))

    _counters()
    render_verdict(view, gold)
    shape = _shape(view)
    frozen = max(0, len(view.sections) - 1)  # every round but the last is over: drawn once, here
    left, right = st.columns([3, 2], gap="large")
    with right:
        render_side(view, debate_id, chart_key="live")
    with left:
        for sec in view.sections[:frozen]:
            render_section(view, sec, debate_id)

        @st.fragment(run_every=TICK_S)
        def _live_round() -> None:
            now = _view(debate_id, "live")
            if _shape(now)[1:] != shape[1:] or len(now.sections) > frozen + 1 or not live.is_running(debate_id):
                st.rerun()  # the static part changed: one full run redraws it
            if not now.sections:
                st.caption("Waiting for the first round…")
            for sec in now.sections[frozen:]:
                render_section(now, sec, debate_id)

        _live_round()


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
        st.progress(
            min(1.0, clock / end_t) if end_t else 1.0,
            text=f"Replaying at {speed:g}× · {min(clock, end_t):.1f} / {end_t:.1f} s",
        )
        render_debate(
            view,
            debate_id,
            row={**row, "status": "running" if clock < end_t else row["status"]},
            elapsed=min(clock, end_t),
            chart_key="replay",
        )
        if clock > end_t + 1.0:
            st.session_state.pop(key, None)
            st.session_state["lib_replay_done"] = True
            st.rerun()

    _frame()
