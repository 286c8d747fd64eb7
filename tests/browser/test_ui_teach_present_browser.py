"""The teaching and presenting views in a real browser (Debian chromium + playwright): what a person
reads. Stored debates come from the real runner on a scripted backend, written to a real SQLite store
that the app (a subprocess) reads; screenshots go to test-artifacts/.

- Present plays a RADAR debate whose turns took five minutes each, at 5×: every turn is shown whole,
  the politician's opening included; pause holds the place, Next and Back step; full screen hides the
  sidebar and the address says so.
- Learn's "Who voted what" draws a council that agreed at its first vote (it rendered blank).
- The Library table shows the verdict column, and the export buttons show their whole labels.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from debate.runner import DebateConfig, run_debate
from debate.store import DebateStore
from tests.support.browser import app_server, browser_page, have_browser, shot, wait_settled
from tests.support.engine import FakeRetriever, lineup, scripted
from tests.support.scripted_runs import SCRIPTED_LINEUP, scripted_client

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not have_browser(), reason="needs /usr/bin/chromium and playwright"),
]

TURN_S = 300.0  # every recorded turn took five minutes, as on a busy CPU


def _store(home: Path, events: list) -> str:
    store = DebateStore(home / "debates.sqlite")
    did = events[0].debate_id
    store.create_debate({"claim": events[0].claim, "protocol": events[0].protocol, "task": events[0].task}, did)
    for e in events:
        if e.type != "token":
            store.append_event(did, e)
    return did


def _slow_radar(home: Path) -> str:
    client, _ = scripted({"argue": lambda m, o: f"Argument of seed {o.seed}: the record [E1] says otherwise."})
    cfg = DebateConfig(
        claim="Unemployment fell to 3.4 percent, the lowest since 1969.",
        protocol="radar",
        task="halftruth",
        lineup=lineup(5),
        params={"rounds": 1, "early_stop": False},
        max_tokens=64,
        debate_id="slow-radar",
        evidence=True,
    )
    events = list(run_debate(cfg, client, retriever=FakeRetriever()))
    t = 0.0
    for e in events:
        t += TURN_S if e.type == "turn_finished" else 0.05
        e.t = t
    return _store(home, events)


def _agreed_council(home: Path) -> str:
    cfg = DebateConfig(
        claim="A council that agreed at once.",
        protocol="council",
        task="checkthat",
        category=1,
        lineup=SCRIPTED_LINEUP,
        params={"rounds": 2},
        max_tokens=32,
        debate_id="agreed-council",
    )
    return _store(home, list(run_debate(cfg, scripted_client("agree"))))


def _all_categories(home: Path) -> str:
    cfg = DebateConfig(
        claim="Three categories " * 10,
        protocol="council",
        task="checkthat",
        category=None,
        lineup=SCRIPTED_LINEUP,
        params={"rounds": 1},
        max_tokens=32,
        debate_id="three-cats",
    )
    return _store(home, list(run_debate(cfg, scripted_client("flip"))))


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    home = tmp_path_factory.mktemp("teach-present-home")
    ids = {"radar": _slow_radar(home), "council": _agreed_council(home), "three": _all_categories(home)}
    with app_server(home) as url:
        yield url, ids


SPEAKER_JS = """() => { const live = [...document.querySelectorAll('.p-speaker')]
      .filter(el => !el.closest('[data-stale="true"]'));
    if (!live.length) return null;
    const el = live[live.length - 1];
    return {head: el.querySelector('.meta').innerText, who: el.querySelector('.p-who').innerText,
            text: (el.querySelector('.p-text') || {innerText: ''}).innerText}; }"""

PROGRESS_JS = """() => { const el = [...document.querySelectorAll('[data-testid="stProgress"]')]
      .filter(e => !e.closest('[data-stale="true"]')).pop(); return el ? el.innerText : ''; }"""


def _step(page, must: bool = True) -> tuple[int, int, bool] | None:
    text = page.evaluate(PROGRESS_JS)
    m = re.search(r"step (\d+) of (\d+)", text)
    assert m or not must, text
    return (int(m.group(1)), int(m.group(2)), "paused" in text) if m else None


def test_present_plays_every_turn_at_5x_with_pause_step_and_full_screen(app):
    url, ids = app
    with browser_page(1400, 1600) as page:
        page.goto(f"{url}/present?debate={ids['radar']}")
        page.locator(".st-key-pres_speed").wait_for()
        wait_settled(page)
        page.locator(".st-key-pres_speed").click()
        page.get_by_role("option", name="5×").click()
        # what a person sees, polled: every (speaker, section) whose whole text was on screen
        seen: dict[tuple[str, str], str] = {}
        deadline = time.time() + 240
        while time.time() < deadline:
            s = page.evaluate(SPEAKER_JS)
            if s and s["text"].strip() not in ("", "…") and s["text"].rstrip().endswith("otherwise."):
                seen[(s["who"].split("\n")[0].split(" ")[0], s["head"])] = s["text"]
            if _done(page):
                break
            time.sleep(0.1)
        shot(page, "present-5x-end")
        openings = {who for who, head in seen if head.startswith("Opening")}
        assert len(openings) == 2, seen  # both openings, the politician's included
        heads = {head for _, head in seen}
        assert any(h.startswith("Rebuttal") for h in heads) and any(h.startswith("Closing") for h in heads), heads
        body = page.locator('[data-testid="stMain"]').inner_text()
        assert "Verdict" in body and "RECORDED" in body

        # pause holds the place; Next and Back step one beat
        wait_settled(page)
        assert page.locator(".st-key-pres_play button").inner_text().endswith("Play")  # it stopped at the end
        page.locator(".st-key-pres_play button").click()  # at the end, Play starts again from the top
        wait_settled(page)
        time.sleep(0.5)
        page.locator(".st-key-pres_play button").click()  # Pause
        wait_settled(page)
        k, n, paused = _step(page)
        assert paused and 1 <= k < n
        time.sleep(1.5)
        assert _step(page)[0] == k  # held
        page.locator(".st-key-pres_next button").click()
        wait_settled(page)
        assert _step(page)[0] == k + 1
        s = page.evaluate(SPEAKER_JS)  # a stepped-to turn is shown whole, to be talked about
        assert s is None or s["text"].rstrip().endswith(("otherwise.", "HALF-TRUE")), s
        page.locator(".st-key-pres_back button").click()
        wait_settled(page)
        assert _step(page)[0] == k

        # full screen: no sidebar, and a link that opens so
        assert page.locator('[data-testid="stSidebar"]').is_visible()
        page.locator(".st-key-pres_full").get_by_text("Full screen").click()
        wait_settled(page)
        assert not page.locator('[data-testid="stSidebar"]').is_visible()
        assert "full=1" in page.url
        shot(page, "present-full-screen")


def _done(page) -> bool:
    at = _step(page, must=False)
    return at is not None and at[0] == at[1] and page.locator(".p-verdict").count() > 0


def test_learn_who_voted_what_draws_a_council_that_agreed_at_once(app):
    url, ids = app
    with browser_page(1400, 1400) as page:
        page.goto(f"{url}/learn")
        page.locator(".st-key-learn_debate").wait_for(timeout=90_000)
        wait_settled(page)
        page.locator(".st-key-learn_debate input").click()
        page.keyboard.type("agreed at once")
        page.keyboard.press("Enter")
        wait_settled(page)
        page.get_by_text("Vote dynamics").first.click()
        wait_settled(page)
        chart = page.locator(".js-plotly-plot").first
        chart.wait_for()
        page.locator(".sankey-node").first.wait_for(timeout=30_000)
        labels = page.locator(".sankey-node").evaluate_all("els => els.map(e => e.textContent)")
        shot(page, "learn-who-voted-what")
        assert any("R0 · YES" in x for x in labels) and any("Verdict · YES" in x for x in labels), labels
        assert page.locator(".sankey-link").count() >= 1


FITS_JS = """(label) => { const out = [];
  for (const b of document.querySelectorAll('button')) {
    const walker = document.createTreeWalker(b, NodeFilter.SHOW_TEXT); let n;
    while ((n = walker.nextNode())) {
      if (n.textContent.trim() !== label) continue;
      const r = document.createRange(); r.selectNodeContents(n); const t = r.getBoundingClientRect();
      if (t.width === 0) continue;
      let right = Infinity, p = n.parentElement;
      while (p && p !== b.parentElement) { const cs = getComputedStyle(p);
        if (cs.overflowX !== 'visible') right = Math.min(right, p.getBoundingClientRect().right - parseFloat(cs.paddingRight || 0));
        p = p.parentElement; }
      out.push(t.right <= right + 0.5); } }
  return out; }"""


def test_library_table_shows_the_verdict_and_buttons_show_their_labels(app):
    url, ids = app
    with browser_page(1280, 1400) as page:
        page.goto(f"{url}/library?debate={ids['three']}")
        page.locator(".verdict-card").wait_for(timeout=60_000)
        page.locator('[data-testid="stDataFrame"] [role="columnheader"]').first.wait_for(state="attached")
        wait_settled(page)
        shot(page, "library-table")
        # the grid renders only the columns that are in view: the verdict must be one of them
        visible = page.locator('[data-testid="stDataFrame"] [role="columnheader"]').all_inner_texts()
        assert "verdict" in visible and "right" in visible, visible
        cells = page.locator('[data-testid="stDataFrame"] [role="gridcell"]').all_inner_texts()
        assert any(re.fullmatch(r"1: (YES|NO) · 2: (YES|NO) · 3: (YES|NO)", c.strip()) for c in cells), cells
        for label in ("JSON", "Markdown", "CSV", "HTML", "Delete"):
            fits = page.evaluate(FITS_JS, label)
            assert fits and all(fits), (label, fits)
