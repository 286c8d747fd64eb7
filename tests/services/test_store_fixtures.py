"""Debates stored and exported by an earlier version still load and render, as the event contract promises.

tests/fixtures/debates/ holds, for today's format and for that of 2026-12-01 (made by the same script,
tests/fixtures/debates/make.py, on each version), a council and a single debate on scripted models as a
JSONL events file, a Library JSON export and a SQLite store. Each is read the way the app and the command
line read it and rendered by the terminal, the Markdown export and the HTML export. One answer carries
markup, which every render must show as text.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from debate.cli.inputs import load_events
from debate.sharing.html import to_html
from debate.store import DebateStore
from debate.store.debates import to_markdown
from debate.transcript import read_events, render_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "debates"
FORMATS = ("today", "2026-12-01")
CLAIM = "A Harvard study says coffee drinkers live longer."


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, DebateStore]:
    """Each format's store, copied first: opening a store may write to it (its log, a newer schema)."""
    out = {}
    for fmt in FORMATS:
        path = tmp_path_factory.mktemp(fmt) / "debates.sqlite"
        shutil.copy(FIXTURES / fmt / "debates.sqlite", path)
        out[fmt] = DebateStore(path)
    return out


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["council", "single"])
def test_stored_and_exported_debates_load_and_render(fmt, name, stores):
    jsonl = [e.to_dict() for e in read_events(FIXTURES / fmt / f"{name}.jsonl")]
    export = [e.to_dict() for e in load_events(str(FIXTURES / fmt / f"{name}.json"))]
    store = stores[fmt]
    row = store.get(name)
    stored = [e.to_dict() for e in store.events(name)]
    assert row is not None and row["status"] == "completed" and row["protocol"] == name
    assert export == stored  # the export is the store's events, as they were
    assert [e["type"] for e in stored] == [e["type"] for e in jsonl]  # the store keeps the stream as it came
    assert jsonl[0]["type"] == "debate_started" and jsonl[-1]["type"] == "finished"

    for events in (jsonl, stored):
        text = render_text(read_events_from_dicts(events))
        assert CLAIM in text and "VERDICT" in text and "YES" in text
        assert "No study is linked." in text  # what the opponent (member Y) said
        markdown = to_markdown(row, events)
        assert CLAIM in markdown and "YES" in markdown and "No study is linked." in markdown
        assert "<script>" not in markdown  # markup from a model is quoted, never live
        html = to_html(events)
        assert CLAIM in html and "No study is linked." in html
        assert "<script>alert" not in html and "&lt;script&gt;alert" in html.replace("&#60;", "&lt;").replace(
            "&#62;", "&gt;"
        )


def read_events_from_dicts(dicts: list[dict]):
    from debate.events import event_from_dict

    return [event_from_dict(d) for d in dicts]


def test_the_earlier_format_really_is_earlier():
    """The fixture stays a test of compatibility only while it lacks what today's events carry."""
    old = {e.type: e for e in read_events(FIXTURES / "2026-12-01" / "council.jsonl")}
    new = {e.type: e for e in read_events(FIXTURES / "today" / "council.jsonl")}
    assert "vote_comparison" in new and "vote_comparison" not in old
    raw_old = (FIXTURES / "2026-12-01" / "council.jsonl").read_text()
    assert '"full_text"' not in raw_old and '"full_text"' in (FIXTURES / "today" / "council.jsonl").read_text()
