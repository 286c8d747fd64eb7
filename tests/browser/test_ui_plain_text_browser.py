"""In Debian's chromium: the stored single debate of tests/fixtures/debates/today, whose opponent writes
`**bold**` and whose judge answers in JSON, opened in the Library. What the screen shows is words: no
Markdown mark, no JSON answer (the raw JSON stays folded away under "Raw answer", closed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.browser import have_browser, library_page

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not have_browser(), reason="chromium + playwright not installed")]

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "debates" / "today" / "debates.sqlite"
# the text a person sees: closed <details> hold only their summary on screen
SCREEN_JS = """() => { for (const d of document.querySelectorAll('details:not([open])'))
    for (const c of [...d.children]) if (c.tagName !== 'SUMMARY') c.remove();
  return document.querySelector('[data-testid="stMain"]').innerText; }"""


def _stored(tmp_path, cfg, events) -> None:
    """A debate the real runner made, in the SQLite store the app under test reads."""
    from debate.store import DebateStore

    store = DebateStore(tmp_path / "debates.sqlite")
    store.create_debate({"claim": cfg.claim, "protocol": cfg.protocol, "task": cfg.task}, cfg.debate_id)
    store.append_events(cfg.debate_id, [e if isinstance(e, dict) else e.to_dict() for e in events])
    store.release(cfg.debate_id)


@pytest.mark.timeout(300)
def test_a_stored_debate_shows_no_markdown_marks_and_no_json(tmp_path):
    shutil.copy(FIXTURE, tmp_path / "debates.sqlite")
    with library_page(tmp_path, "single") as (_, page):
        screen = page.evaluate(SCREEN_JS)
    assert "No study is linked." in screen and "bold" in screen and "A study is cited." in screen
    assert "**" not in screen and '{"' not in screen


class _FailedIndex:
    """The app's background index load, failed: not searchable, with the error the load raised."""

    searchable = False

    def __init__(self) -> None:
        from debate.errors import InvalidInput

        self.error = InvalidInput(
            "There is no index named 'averitec-dev' in /tmp/pytest-of-root/home/indexes.",
            "Build it: `python -m debate index build --corpus PATH --name averitec-dev`",
        )


@pytest.mark.timeout(300)
def test_an_index_that_could_not_load_is_said_once_in_plain_words(tmp_path):
    """A council shown beside evidence for reference, whose index could not be loaded: the note once (it was
    shown twice on council pages), with no code marks and no folder of this machine (it named /tmp/…)."""
    from debate.runner import DebateConfig, run_debate
    from tests.support.engine import lineup, scripted

    client, _ = scripted()
    cfg = DebateConfig(
        claim="A study in Nature shows coffee helps.",
        protocol="council",
        task="checkthat",
        category=2,
        lineup=lineup(3),
        params={"rounds": 1},
        debate_id="no-index",
        max_tokens=32,
    )
    events = [e for e in run_debate(cfg, client, retriever=_FailedIndex()) if e.type != "token"]
    _stored(tmp_path, cfg, events)
    with library_page(tmp_path, "no-index") as (_, page):
        screen = page.evaluate(SCREEN_JS)
    assert screen.count("The evidence index could not be loaded") == 1, screen
    assert "There is no index named 'averitec-dev'." in screen
    assert "/tmp" not in screen and "`" not in screen


@pytest.mark.timeout(300)
def test_a_judges_reason_the_budget_cut_is_marked_on_the_card(tmp_path):
    """A RADAR judge whose answer the token budget ended mid-sentence: the card's reason ends in "…" with the
    cut's mark under it (it once stopped mid-word with nothing to say so)."""
    from debate.runner import DebateConfig, run_debate
    from tests.support.engine import lineup, scripted

    client, _ = scripted()
    cfg = DebateConfig(
        claim="Unemployment fell every year since 2010.",
        protocol="radar",
        task="halftruth",
        lineup=lineup(4),
        params={"rounds": 0, "early_stop": False},
        debate_id="cut-judge",
        max_tokens=64,
    )
    events = [e.to_dict() for e in run_debate(cfg, client) if e.type != "token"]
    judge = next(e for e in events if e["type"] == "turn_finished" and e["role"] == "judge")
    judge["cut_off_at"] = 64  # as the budget ends it on a real model (finish_reason "length")
    reason = next(e for e in events if e["type"] == "verdict")["explanation"].rstrip("…")
    assert reason
    _stored(tmp_path, cfg, events)
    with library_page(tmp_path, "cut-judge") as (_, page):
        card = page.locator(".verdict-card").first.inner_text()
    assert reason + "…" in card, card
    assert "✂ cut off at 64 tokens (the answer budget)" in card


@pytest.mark.timeout(400)
def test_a_list_of_reasons_and_bold_marks_read_as_words_in_the_library_and_on_present(tmp_path):
    """A single debate whose judge writes its explanation as a JSON list and whose debaters write **bold**:
    the card gives the sentences (it once showed ["…"]), and Present, which magnifies every turn, shows no
    Markdown mark (it once showed the asterisks, large)."""
    import time

    from debate.runner import DebateConfig, run_debate
    from tests.support.browser import wait_settled
    from tests.support.engine import lineup, scripted

    client, _ = scripted(
        {
            "judge": '{"category": 0, "explanation": ["It names no study.", "Only a link is given."]}',
            "argue": "The tweet **names no study** at all, only a link.",
        }
    )
    cfg = DebateConfig(
        claim="Read this https://example.org/x",
        protocol="single",
        task="checkthat",
        category=2,
        lineup=lineup(2),
        params={"rounds": 0},
        debate_id="list-bold",
        max_tokens=32,
    )
    events = [e for e in run_debate(cfg, client) if e.type != "token"]
    _stored(tmp_path, cfg, events)
    with library_page(tmp_path, "list-bold") as (url, page):
        card = page.locator(".verdict-card").first.inner_text()
        assert "It names no study. Only a link is given." in card and "[" not in card, card
        screen = page.evaluate(SCREEN_JS)
        assert "names no study" in screen and "**" not in screen
        page.goto(f"{url}/present?debate=list-bold")
        page.locator(".st-key-pres_speed").wait_for(timeout=60_000)
        wait_settled(page)
        page.locator(".st-key-pres_speed").click()
        page.get_by_role("option", name="5×").click()
        shown, deadline = set(), time.time() + 120
        while time.time() < deadline and page.locator(".p-verdict").count() == 0:
            shown |= set(page.locator(".p-speaker .p-text").all_inner_texts())
            time.sleep(0.1)
        shown |= set(page.locator(".p-speaker .p-text, .p-verdict").all_inner_texts())
    said = "\n".join(shown)
    assert "names no study" in said and "**" not in said and '["' not in said, said
