"""The four renderings of one stored debate state the same facts: the terminal (debate.transcript), the
Markdown and HTML exports (debate.sharing) and the page (ui.render, its Streamlit calls caught here) all
read the one view (debate.view). For the stored debates of today's format and of an earlier one
(tests/fixtures/debates/), each shows the verdict with its votes, every tally and every turn, and none shows
a model's Markdown marks (`**bold**`) or a JSON answer (`{"vote": ...}`) as written. A reason the token
budget cut ends in "…" and says so on every view; a reason written as a JSON list reads as words.
"""

from __future__ import annotations

import contextlib
import html
import re

import pytest

from debate.sharing.html import to_html
from debate.sharing.markdown import to_markdown
from debate.transcript import render_text
from debate.view import DebateView, build_view
from tests.services.test_store_fixtures import FORMATS, read_events_from_dicts, stores  # noqa: F401 (a fixture)


class _Page:
    """Stands in for `streamlit` in ui.render: keeps what the page would draw, as HTML/Markdown strings."""

    def __init__(self) -> None:
        self.out: list[str] = []

    def markdown(self, body: str, **_: object) -> None:
        self.out.append(body)

    caption = error = warning = markdown

    def chat_message(self, *_: object, **__: object) -> contextlib.AbstractContextManager:
        return contextlib.nullcontext()


def page_text(view: DebateView, monkeypatch) -> tuple[str, list[str]]:
    """(the page's text as a person reads it, the drawn blocks): the sections and the verdict card, with
    the raw JSON a person can unfold (closed on screen) left out."""
    from ui import people_view, render

    page = _Page()
    monkeypatch.setattr(render, "st", page)
    monkeypatch.setattr(people_view, "verdict_line", lambda _id: "")
    render.render_sections(view, "d")
    render.render_verdict(view)
    drawn = "".join(page.out)
    drawn = re.sub(r'<details class="raw">.*?</details>', "", drawn, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", drawn)), page.out


def present_text(view: DebateView, monkeypatch) -> str:
    """Present's large type (ui.share_view.presenter) for the finished debate, as text."""
    from ui import share_view

    page = _Page()
    monkeypatch.setattr(share_view, "st", page)
    share_view.presenter(view, recorded=True, status="completed")
    return html.unescape(re.sub(r"<[^>]+>", " ", "".join(page.out)))


def _text_of_html(doc: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", doc))


def _renders(row: dict, events: list[dict], monkeypatch) -> dict[str, str]:
    view = build_view(events)
    page, blocks = page_text(view, monkeypatch)
    return {
        "terminal": render_text(read_events_from_dicts(events)),
        "markdown": to_markdown(row, events),
        "html": _text_of_html(to_html(events)),
        "page": page,
        "page_turns": str(sum('class="turn"' in b for b in blocks)),
        "present": present_text(view, monkeypatch),
    }


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["council", "single"])
def test_the_four_views_state_the_same_verdict_votes_and_turns(fmt, name, stores, monkeypatch):
    store = stores[fmt]
    row, events = store.get(name), store.event_dicts(name)
    view = build_view(events)
    out = _renders(row, events, monkeypatch)
    v = view.verdict_view
    turns = len(view.done_turns())
    assert v is not None and v.label == "YES" and turns >= 7
    # the verdict, with the votes behind it (a council's tally headline) and its reason in words
    for where in ("terminal", "markdown", "html", "page"):
        text = out[where]
        assert v.label in text and v.reason in text, where
        assert v.number in text, where
        # every tally, in each view's own words
        for t in view.tallies:
            said = {
                "terminal": [f"{k} {n}" for k, n in t.counts.items()],
                "markdown": [f"{k}: {n}" for k, n in t.counts.items()],
                "html": [f"{k} {n}" for k, n in t.counts.items()],
                "page": [f"{k}  ×{n}" for k, n in t.counts.items() if n],
            }[where]
            assert all(s in text for s in said), (where, said)
        # model text as words: no Markdown marks, no JSON answer
        assert "**bold**" not in text and '{"' not in text and "No study is linked." in text, where
    assert "**" not in out["present"] and '{"' not in out["present"] and v.reason in out["present"]
    assert "**" not in out["terminal"] and "**" not in out["html"] and "**" not in out["page"]
    # the same turns, counted as each view draws them
    assert out["terminal"].count("\n▶ ") == turns
    assert out["markdown"].count("\n### ") == turns
    assert to_html(events).count('class="card turn') == turns
    assert int(out["page_turns"]) == turns
    # tallies: as many on each view
    n = len(view.tallies)
    assert out["terminal"].count("Votes (round") == n and out["markdown"].count("**Votes, round") == n
    assert out["html"].count("Votes, round") == n and out["page"].count("Votes, round") == n


def test_a_cut_reason_and_a_listed_one_read_as_words_on_every_view(stores, monkeypatch):
    """The judge's answer ended by the budget: its reason ends in "…" with the cut's mark, on every view;
    the verdict's explanation stored as a JSON list reads as its sentence."""
    store = stores["today"]
    row, events = store.get("single"), store.event_dicts("single")
    judge = next(e for e in events if e["type"] == "turn_finished" and e["role"] == "judge")
    judge["cut_off_at"] = 7
    verdict = next(e for e in events if e["type"] == "verdict")
    verdict["explanation"] = '["A study is cited."]'
    out = _renders(row, events, monkeypatch)
    for where in ("terminal", "markdown", "html", "page", "present"):
        text = out[where]
        assert "A study is cited.…" in text and "cut off at 7 tokens" in text, where
        assert '["' not in text and "[&quot;" not in text, where
    view = build_view(events)
    assert view.verdict_view.cut and view.verdict_view.reason == "A study is cited.…"
    assert view.to_dict()["verdict_views"][0]["reason"] == "A study is cited.…"  # the view as JSON


def test_the_rule_for_model_text_is_one_function_each():
    """Markdown marks out (words, identifiers and arithmetic kept); a list of sentences read as words; a
    JSON answer the budget cut still gives its words."""
    from debate.sanitize import unmarked
    from debate.view import answer_prose, partial_prose, prose

    assert unmarked("**Support position:** yes, *really*; `x`\n## Head\n* item") == (
        "Support position: yes, really; x\nHead\n- item"
    )
    assert unmarked("2*3*4 and snake_case __init__") == "2*3*4 and snake_case __init__"
    assert (
        prose('["It names Harvard.", "Twice."]')
        == prose(["It names Harvard.", "Twice."])
        == ("It names Harvard. Twice.")
    )
    assert answer_prose({"explanation": ["A **study** is cited."]}) == "A study is cited."
    assert partial_prose('{"vote": "NO", "explanation": "No stu') == "No stu"
