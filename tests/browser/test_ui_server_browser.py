"""The lineup's "Run every seat on" box in Debian's chromium: the paper's council put on one Ollama server
from the Debate page, its votes and verdict streaming in; a server nobody listens on, said on the page.

Real parts: the app as a subprocess, the Ollama stand-in (Ollama's REST API over the packaged
Qwen2.5-Coder-0.5B and SmolLM2-135M under Ollama's tags) on loopback, the real `ollama` client, the store. The
settings hold a key saved for the stand-in's URL: it may go to that server, never into the page.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.support.browser import app_server, browser_page, have_browser, pick, shot, wait_idle, wait_settled
from tests.support.paper_server import CLAIM, MEMBERS, OLLAMA_MAP, PAPER, council_ran, map_text, start_paper_ollama
from tests.support.servers import closed_port

pytestmark = [
    pytest.mark.browser,
    pytest.mark.real_model,
    pytest.mark.skipif(not have_browser(), reason="needs /usr/bin/chromium and playwright"),
]

KEY = "sk-saved-for-the-standin-0123456789"
LIVE_JS = """() => { const live = (sel) => [...document.querySelectorAll(sel)]
      .filter(el => !el.closest('[data-stale="true"]'));
    return {bubbles: live('[data-testid="stChatMessage"]').length, tallies: live('.tally').length,
            verdict: live('.verdict-card').length}; }"""


def _number(page, key: str, value: int) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")
    wait_settled(page)


def _toggle_off(page, key: str) -> None:
    if page.locator(f".st-key-{key} input").is_checked():
        page.locator(f".st-key-{key} label").first.click()
        wait_settled(page)
    assert not page.locator(f".st-key-{key} input").is_checked()


def _type(page, key: str, text: str, area: bool = False) -> None:
    box = page.locator(f".st-key-{key} {'textarea' if area else 'input'}")
    box.fill(text)
    box.press("Control+Enter" if area else "Enter")
    wait_settled(page)


def _wait_text(page, text: str, timeout_s: float = 60) -> None:
    page.get_by_text(text).first.wait_for(timeout=timeout_s * 1000)


@pytest.mark.timeout(1800)
def test_the_papers_council_on_an_ollama_server_from_the_debate_page(tmp_path):
    from debate.store import DebateStore

    srv = start_paper_ollama(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    # the members are asked at once and the stand-in answers one after another; both servers are the
    # presenter's (a key saved for each), so the page may name them (models/reach.py)
    down = f"http://127.0.0.1:{closed_port()}"
    (home / "settings.json").write_text(
        json.dumps({"ollama": {"timeout_s": 900, "max_parallel": 1, "keys": {srv.url: KEY, down: "k-down"}}})
    )
    env = {
        "DEBATE_WARM_AHEAD": "0",  # the embedded models are not this test's: leave the cores to the server
        "DEBATE_CACHE_DB": str(home / "response-cache.sqlite"),
    }
    try:
        with app_server(home, env) as url, browser_page(height=2600) as page:
            page.goto(url)
            page.locator(".st-key-claim textarea").wait_for(timeout=60_000)
            wait_idle(page)
            _type(page, "claim", CLAIM, area=True)
            _toggle_off(page, "cfg_aids")  # the papers' settings, kept short: one round of votes, 24 tokens
            _number(page, "p_council_rounds", 0)
            _number(page, "cfg_max_tokens", 24)
            page.get_by_text("More parameters").first.click()
            _toggle_off(page, "p_council_examples")
            page.get_by_text("Lineup · who plays which part").click()
            pick(page, "cfg_preset", "Paper council (Ollama)", exact=True)
            pick(page, "cfg_server_kind", "an Ollama server", exact=True)

            # -- nobody listens there: what happened and what to do, on the page; Run starts nothing ---------
            _type(page, "cfg_server_url", down)
            _wait_text(page, f"Cannot list the models of the Ollama server at {down}")
            assert "ollama serve" in " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())
            page.locator(".st-key-run button").click()
            wait_settled(page)
            _wait_text(page, "of the lineup are not available")
            assert "Traceback" not in page.locator("body").inner_text()
            # the six seats' models, with their one cause said once
            (warn,) = [t for t in page.locator('[data-testid="stAlert"]').all_inner_texts() if "Not available" in t]
            assert warn.count("Cannot reach Ollama") == 1, warn
            assert all(f"ollama:{m}@{down}" in warn for m in (*PAPER, "llama3.1:8b")), warn
            assert page.evaluate(LIVE_JS)["bubbles"] == 0  # no debate started
            shot(page, "server-box-unreachable")

            # -- the stand-in: without a map it names what to pull; with one, each model's server name ----
            _type(page, "cfg_server_url", srv.url)
            _wait_text(page, f"The Ollama server at {srv.url} lacks 6 of the lineup's models")
            _wait_text(page, "ollama pull gemma3:12b")
            _type(page, "cfg_server_map", map_text(OLLAMA_MAP), area=True)
            _wait_text(page, "gemma3:12b → qwen2.5:0.5b (mapped)")
            assert page.get_by_text("lacks 6").count() == 0
            shot(page, "server-box-mapped")

            # -- Run: the five votes arrive one by one, then the tally and the verdict ---------------------
            page.locator(".st-key-run button").click()
            seen_before_verdict, deadline = [], time.time() + 1500
            while time.time() < deadline:
                state = page.evaluate(LIVE_JS)
                if state["verdict"]:
                    break
                if state["bubbles"]:
                    seen_before_verdict.append(state["bubbles"])
                time.sleep(0.3)
            page.locator(".verdict-card").wait_for(timeout=60_000)
            wait_settled(page)
            shot(page, "server-box-council-verdict")
            assert seen_before_verdict, "no vote was on the page before the verdict"
            assert page.evaluate(LIVE_JS)["tallies"] >= 1
            said = page.locator('[data-testid="stChatMessage"]').all_inner_texts()
            assert all(any(m in t for t in said) for m in MEMBERS), said
            assert any(w in page.locator(".verdict-card").inner_text() for w in ("YES", "NO"))
            html = page.content()
            assert KEY not in html and "Traceback" not in html

        store = DebateStore(home / "debates.sqlite")
        try:
            (row,) = store.list(limit=5)
            council_ran([e.to_dict() for e in store.events(row["id"])], srv.url, "ollama", OLLAMA_MAP)
        finally:
            store.close()
        asked = [json.loads(line) for line in srv.requests.read_text().splitlines()]
        assert {r["model"] for r in asked} == {"qwen2.5:0.5b", "smollm2:135m"}
    finally:
        srv.stop()
