"""Careless clicks in a real browser (Debian chromium + playwright), as a new user makes them.

A council runs on a loopback server speaking OpenAI's API (its words paced, so the debate lasts seconds):
Run clicked twice, 0.3 s apart, starts one debate and shows no error; a reload during the debate comes back
to it (its id in the address); a 5,000-character claim stays in the box and the page says how long it is;
Present keeps the debate picked in its box, and its list, like Learn's, dates each debate.
"""

from __future__ import annotations

import re
import time

import pytest

from debate import live
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.runner import DebateConfig
from debate.store import DebateStore
from tests.support.browser import (
    app_log_problems,
    app_server,
    browser_page,
    have_browser,
    open_debate_page,
    pick,
    poll,
    save_loop_council,
    shot,
    wait_idle,
    wait_settled,
)
from tests.support.hostile_servers import recorder

pytestmark = [pytest.mark.skipif(not have_browser(), reason="needs /usr/bin/chromium and playwright")]

CLAIM = "A new study in Nature shows that two cups of coffee a day lower the risk of heart disease."
VOTE = '{"vote": "YES", "explanation": "It cites a study in a journal."}'
STORED = ("Stored debate one: tea cures colds.", "Stored debate two: the moon is cheese.")


def _store_two_debates(store: DebateStore) -> None:
    client = ModelClient({"scripted": ScriptedBackend(default=lambda m, o: VOTE)})
    lineup = {
        "name": "s",
        "members": [{"name": n, "model": f"scripted:{n}"} for n in ("a", "b", "c")],
        "judge": {"model": "scripted:judge"},
        "chair": {"model": "scripted:judge"},
    }
    for claim in STORED:
        cfg = DebateConfig(claim=claim, protocol="council", lineup=lineup, params={"rounds": 1})
        assert live.wait(live.start_debate(cfg, client, None, store), 30)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    home = tmp_path_factory.mktemp("careless-home")
    with recorder(reply=VOTE, delay_s=3.0) as srv:  # ~25 s per answer: the debate outlives a reload
        save_loop_council(home, f"openai:scripted@{srv.url}")
        store = DebateStore(home / "debates.sqlite")
        _store_two_debates(store)
        # the presenter's server (OPENAI_BASE_URL): a lineup may name it (models/reach.py)
        with app_server(home, {"DEBATE_WARM_AHEAD": "0", "OPENAI_BASE_URL": srv.url}) as url:
            yield url, store
            assert app_log_problems(home) == []  # a double Run, a reload, a long paste: nothing in the app's log


def _errors(page) -> list[str]:
    return [e.inner_text() for e in page.locator('[data-testid="stAlertContentError"]').all()]


@pytest.mark.timeout(300)
def test_run_clicked_twice_starts_one_debate_and_a_reload_comes_back_to_it(app):
    url, store = app
    before = {r["id"] for r in store.list()}
    with browser_page(height=900) as page:  # a laptop's screen: the debate starts below the set-up
        open_debate_page(page, url, CLAIM)
        box = page.locator(".st-key-p_council_rounds input")
        box.fill("1")
        box.press("Enter")
        wait_settled(page)
        page.get_by_text("Lineup · who plays which part").click()
        pick(page, "cfg_preset", "loop-council (saved)")
        page.locator(".st-key-run button").scroll_into_view_if_needed()
        b = page.locator(".st-key-run button").bounding_box()
        x, y = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
        page.mouse.click(x, y)  # the mouse itself: a locator's click would wait for the page to settle
        page.wait_for_timeout(300)  # the second click lands while the first one's debate starts
        page.mouse.click(x, y)
        page.locator('.claim-card, [data-testid="stAlertContentError"]').first.wait_for(timeout=60_000)
        wait_idle(page)
        new = poll(lambda: [r for r in store.list() if r["id"] not in before])
        try:
            assert len(new) == 1, new  # one debate, not two
            assert not _errors(page), _errors(page)  # no "could not be written", no disk advice
            did = new[0]["id"]
            assert poll(lambda: f"debate={did}" in page.url), page.url  # a reload finds it by its id
            assert store.get(did)["status"] == "running"
            card = page.locator(".claim-card").first
            assert poll(lambda: 0 <= (card.bounding_box() or {}).get("y", -1) < 900), card.bounding_box()  # followed
        except AssertionError:
            shot(page, "careless-double-run")
            raise
        page.reload()
        page.locator(".claim-card").first.wait_for(timeout=60_000)
        try:
            assert CLAIM[:40] in page.locator(".claim-card").first.inner_text()
            box = page.locator(".st-key-claim textarea")
            assert poll(lambda: box.input_value() == CLAIM, 10), box.input_value()  # the set-up's box agrees
            assert "/library" not in page.url and page.locator(".st-key-run button").count() == 1  # the Debate page
            assert store.get(did)["status"] == "running", "the debate had ended: nothing was reattached"
            shot(page, "careless-reload-followed")
            page.locator(".st-key-stop button").click()  # its Stop works too: this page holds the debate again
            assert poll(lambda: store.get(did)["status"] != "running", 60), store.get(did)["status"]
            assert not _errors(page), _errors(page)
            assert len([r for r in store.list() if r["id"] not in before]) == 1
        except AssertionError:
            shot(page, "careless-reload")
            raise


@pytest.mark.timeout(120)
def test_a_claim_past_the_limit_is_kept_and_told(app):
    url, _ = app
    with browser_page() as page:
        page.goto(url)
        area = page.locator(".st-key-claim textarea")
        area.wait_for(timeout=60_000)
        wait_settled(page)
        area.fill("x" * 5_000)
        area.press("Control+Enter")
        wait_settled(page)
        try:
            assert len(area.input_value()) == 5_000  # kept, not dropped
            note = page.get_by_text(re.compile(r"5,000 characters; a claim may have at most 4,000"))
            assert note.count() == 1
            page.get_by_role("button", name="Keep the first 4,000").click()
            wait_settled(page)
            assert len(area.input_value()) == 4_000 and note.count() == 0
        except AssertionError:
            shot(page, "careless-long-claim")
            raise


def _present_choice(page) -> str:
    """What the Debate box shows (its label, the picked line, and the text of its search input)."""
    return page.locator(".st-key-pres_pick").evaluate(
        "el => el.innerText + ' ' + [...el.querySelectorAll('input')].map(i => i.value).join(' ')"
    )


@pytest.mark.timeout(120)
def test_present_keeps_the_first_pick_and_dates_its_list(app):
    url, _ = app
    with browser_page() as page:
        page.goto(url + "/present")
        page.locator(".st-key-pres_pick").wait_for(timeout=60_000)
        wait_settled(page)
        page.locator(".st-key-pres_pick").click()
        try:
            page.get_by_role("option", name=re.compile(re.escape(STORED[0][:30]))).first.click()
            wait_settled(page)
            time.sleep(1.5)  # a later run (the page writes the pick into the address) must not undo it
            wait_settled(page)
            assert STORED[0][:30] in _present_choice(page), _present_choice(page)
            page.locator(".st-key-pres_pick").click()
            options = [o.inner_text() for o in page.get_by_role("option").all()]
            assert len(options) >= 2 and all(re.search(r"^\d{4}-\d\d-\d\d \d\d:\d\d · ", o) for o in options), options
        except AssertionError:
            shot(page, "careless-present-pick")
            raise
