"""The text of every screen and export of one stored debate, for debate.content.consistency.

`export_screens` renders the exports (JSON, CSV, Markdown, HTML, the terminal transcript) and Learn's
step notes, in milliseconds; `page_screens` opens the app's pages on the debate through Streamlit's AppTest
(no browser: the Library's card and bubbles, which pages/debate.py opens for `?debate=ID`, Learn at its
last step with every step's title and its vote dynamics, Present at the end of its recorded playback), a
few seconds each. Both return {screen name: its text}; `contradictions` runs the checker over them. Used
by the tests and by bench/bench_consistency.py.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from debate.content import consistency
from debate.events import event_from_dict
from debate.sharing import exports
from debate.sharing.html import to_html
from debate.store import DebateStore, to_markdown
from debate.teaching.steps import debate_dynamics, steps
from debate.transcript import render_text

REPO = Path(__file__).resolve().parents[2]
PAGES = ("library", "learn", "present")


def learn_text(events: list[dict], tables: bool = True) -> str:
    """Learn's step-through as text: each step's title and note (what the page shows one at a time), then
    the vote dynamics' tables (the counted-otherwise votes and who changed), as lines the checker reads."""
    lines = [x for s in steps(events) for x in (s.title, s.note)]
    return "\n".join(lines + (dynamics_lines(events) if tables else []))


def dynamics_lines(events: list[dict]) -> list[str]:
    d = debate_dynamics(events)
    out = [
        f"Vote, round {c['round']}: {c['agent']} wrote {c['wrote']}, counted as {c['counted']}"
        for c in d.get("counted_otherwise") or []
    ]
    out += [f"Vote, round {c['round']}: {c['agent']} changed to {c['to']}" for c in d.get("changes") or []]
    return out


def csv_text(store: DebateStore, did: str) -> str:
    """The CSV export as lines the checker reads: each member's vote with its round, the verdict."""
    out = []
    for r in csv.DictReader(io.StringIO(exports.export_csv(store, did))):
        if r.get("phase") == "vote" and r.get("role") == "member":
            label = r.get("label") or "invalid"
            if str(r.get("valid")).lower() in ("false", "0"):
                label = "invalid"
            counted = r.get("counted") or label
            out.append(f"Vote, round {r.get('round')}: {r.get('agent')} wrote {label}, counted as {counted}")
        elif r.get("phase") == "verdict" and r.get("label"):
            out.append(f"Verdict: {r['label']}")
    return "\n".join(out)


def export_screens(store: DebateStore, did: str) -> dict[str, str]:
    """Every export of a stored debate, and Learn's notes, as text (milliseconds)."""
    row = store.get(did)
    assert row is not None, did
    events = store.event_dicts(did)
    listed = next((r for r in store.list(limit=100000) if r["id"] == did), row)
    # an all-categories run: one debate per category, its rounds counted again from 0 in each; the tables
    # (CSV, Learn's) give rounds without saying which debate, so they are read only for one category
    several = len({e.get("category") for e in events if e.get("type") == "verdict"} - {None}) > 1
    return {
        "json": exports.export_json(store, did),
        "csv": "" if several else csv_text(store, did),
        "markdown": to_markdown(row, events),
        "html": to_html(events),
        "text": render_text([event_from_dict(e) for e in events]),
        "learn-notes": learn_text(events, tables=not several),
        "library-row": library_row(listed),
    }


def library_row(row: dict) -> str:
    """The Library's list row: its status and verdict (an all-categories run's verdict per category)."""
    verdict = row.get("verdict") or "no verdict"
    try:
        labels = json.loads(verdict) if str(verdict).startswith("{") else None
    except ValueError:
        labels = None
    if isinstance(labels, dict):
        return "\n".join(f"Final verdict, category {k}: {v}" for k, v in labels.items())
    return f"Listed: verdict {verdict} · status {row.get('status')}"


def _app(timeout: float = 60):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=timeout)
    at.session_state["_retriever"] = None  # no evidence index: the pages only read the store
    return at


def app_text(at, leave_out: set[str] = frozenset()) -> str:
    """What an AppTest run drew: every Markdown, caption, info and warning element's source, in order,
    and every table as lines."""
    out = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success"):
        out += [str(e.value) for e in getattr(at, kind) if str(e.value) not in leave_out]
    out += [f"{m.label}: {m.value}" for m in at.metric]  # the counters: tokens, model calls, cache hits
    return "\n".join(out)


def page_screens(did: str, pages: tuple[str, ...] = PAGES, timeout: float = 60) -> dict[str, str]:
    """The app's pages on one stored debate (DEBATE_HOME's store), through AppTest: {"page:NAME": text}."""
    out: dict[str, str] = {}
    store = DebateStore()
    if "library" in pages:  # where pages/debate.py sends ?debate=ID for a stored debate
        at = _app(timeout)
        at.query_params["debate"] = did
        at.run()
        at.switch_page("pages/library.py").run()
        _ok(at)
        out["page:library"] = app_text(at)
    if "learn" in pages:
        n = len(steps(store.event_dicts(did)))
        at = _app(timeout)
        at.run()
        at.switch_page("pages/learn.py").run()
        at.selectbox(key="learn_debate").set_value(did).run()
        at.session_state["learn_step"] = n - 1  # the last step: the whole debate drawn, every step's title listed
        at.run()
        _ok(at)
        # every step's title, listed under the step shown: a screen of its own (its rounds start again)
        listed = [str(m.value) for m in at.markdown if re.match(r"^(<b>▶ )?1\. ", str(m.value))]
        out["page:learn-steps"] = "\n".join(listed)
        text = app_text(at, leave_out=set(listed))
        at.session_state["learn_view"] = "Vote dynamics"
        at.run()
        _ok(at)
        out["page:learn"] = text + "\n" + _tables(at)
    if "present" in pages:
        at = _app(timeout)
        at.query_params["debate"] = did
        at.session_state[f"pres_pos:{did}"] = 1e9  # the end of the recorded playback, paused
        at.session_state[f"pres_playing:{did}"] = False
        at.run()
        at.switch_page("pages/present.py").run()
        _ok(at)
        out["page:present"] = app_text(at)
    return out


def _tables(at) -> str:
    """Learn's vote-dynamics tables as lines (the counted-otherwise votes, who changed)."""
    lines = []
    for df in at.dataframe:
        frame = df.value
        cols = set(frame.columns)
        for rec in frame.to_dict("records"):
            if {"agent", "round", "wrote", "counted"} <= cols:
                lines.append(
                    f"Vote, round {rec['round']}: {rec['agent']} wrote {rec['wrote']}, counted as {rec['counted']}"
                )
            elif {"agent", "round", "to"} <= cols and str(rec.get("round")) != "":
                lines.append(f"Vote, round {rec['round']}: {rec['agent']} changed to {rec['to']}")
    return "\n".join(lines)


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def contradictions(screens: dict[str, str]) -> list[consistency.Contradiction]:
    return consistency.check(screens)


def assert_one_truth(screens: dict[str, str]) -> None:
    """Every screen says the same; else each contradiction, one per line."""
    found = consistency.check(screens)
    assert not found, "\n".join(str(c) for c in found)
