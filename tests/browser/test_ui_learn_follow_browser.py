"""Learn in Debian's chromium on a stored fixture debate: after Next the step's new turn is in the viewport
with Next beside it, and every glyph the app's pages write renders (none falls back to the empty box of a
missing glyph). Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from debate.events import event_from_dict
from debate.store import DebateStore
from tests.support.browser import (
    REPO,
    app_log_problems,
    app_server,
    browser_page,
    have_browser,
    poll,
    shot,
    wait_settled,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not have_browser(), reason="needs /usr/bin/chromium and playwright"),
]

FIXTURE = REPO / "tests" / "fixtures" / "debates" / "today" / "council.jsonl"
SHOWN = [REPO / "app.py", *(REPO / "ui").glob("*.py"), *(REPO / "pages").glob("*.py")]
SHOWN += [p for p in (REPO / "debate").rglob("*.py") if "content" not in p.parts and p.name != "safety.py"]


def _glyphs() -> list[str]:
    """Every symbol the app's pages and the engine's words write (beyond Latin and punctuation), from the
    sources themselves; the scripts the content checks detect (CJK, full-width) are not shown by the app."""
    text = "".join(p.read_text(encoding="utf-8") for p in SHOWN)
    chars = {c for c in text if ord(c) > 0x2000 and c not in "\ufe0e\ufe0f"}
    return sorted(c for c in chars if not re.match(r"[\u3000-\u9fff\uff00-\uffef]", c))


# Draws each glyph on a canvas in the page's font and compares it with two code points no font has (the
# box drawn for a missing glyph); an empty drawing counts as missing too.
TOFU_JS = """(chars) => {
  const c = document.createElement('canvas'); c.width = 48; c.height = 48; const g = c.getContext('2d');
  const font = getComputedStyle(document.querySelector('[data-testid="stMarkdown"]') || document.body).fontFamily;
  const img = (ch) => { g.clearRect(0, 0, 48, 48); g.font = `28px ${font}`; g.fillStyle = '#000';
    g.fillText(ch, 6, 36); return Array.from(g.getImageData(0, 0, 48, 48).data).join(','); };
  const tofu = img('\\u0378'), blank = img(' ');
  return {control: tofu === img(String.fromCodePoint(0x10FFFD)) && tofu !== blank,
          missing: chars.filter(ch => img(ch) === tofu || img(ch) === blank)};
}"""

IN_VIEW_JS = """(sel) => { const els = [...document.querySelectorAll(sel)].filter(el =>
    el.closest("[data-testid='stMain']") && !el.closest('[data-stale="true"]'));
  const el = els[els.length - 1]; if (!el) return null; const r = el.getBoundingClientRect();
  const bar = document.querySelector('.st-key-learn_controls').getBoundingClientRect();
  const note = document.querySelector('.learn-note').getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, h: window.innerHeight, under: bar.bottom, note: [note.top, note.bottom],
          text: el.innerText.slice(0, 60)}; }"""


SCROLLED_JS = """() => [...document.querySelectorAll('*')].some(e =>
    e.closest("[data-testid='stMain']") && e.scrollTop > 0)"""


def _store(home: Path) -> str:
    events = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]
    store = DebateStore(home / "debates.sqlite")
    store.create_debate({"claim": events[0]["claim"], "protocol": "council", "task": "checkthat"}, "fixture-council")
    store.append_events("fixture-council", [event_from_dict(e) for e in events if e["type"] != "token"])
    store.release("fixture-council")
    return "fixture-council"


@pytest.mark.timeout(180)
def test_next_brings_the_new_turn_into_view_and_every_glyph_renders(tmp_path):
    _store(tmp_path)
    with app_server(tmp_path) as url, browser_page(1280, 560) as page:
        page.goto(f"{url}/learn")
        page.get_by_text("Step 1 of").wait_for(timeout=60_000)
        wait_settled(page)
        scrolled = 0
        for k in range(2, 9):  # the votes, the tally, the next round and the chair: past the fold
            page.get_by_role("button", name="Next ▶").click()
            assert poll(lambda k=k: page.evaluate("document.body.dataset.learnFollowed") == str(k - 1)), k
            page.wait_for_timeout(150)  # a smooth scroll ends
            at = page.evaluate(IN_VIEW_JS, ".turn, .tally, .round-title")
            assert at and at["top"] >= at["under"] - 1 and at["bottom"] <= at["h"] + 1, (k, at)  # not under the bar
            nxt = page.get_by_role("button", name="Next ▶").bounding_box()
            assert nxt and nxt["y"] >= 0 and nxt["y"] + nxt["height"] <= at["h"], (k, nxt)  # beside it
            assert at["note"][0] >= 0 and at["note"][1] <= at["h"], (k, at)  # and the step's note
            scrolled += page.evaluate(SCROLLED_JS)
        assert scrolled, "the transcript never needed a scroll: the check proved nothing"
        shot(page, "learn-follow-step-8")
        result = page.evaluate(TOFU_JS, _glyphs())
        assert result["control"], "the page draws no box for a missing glyph: the check cannot tell"
        assert result["missing"] == [], [f"{c} U+{ord(c):04X}" for c in result["missing"]]
        assert app_log_problems(tmp_path) == []  # the scroll's frame wrote no deprecation notice
