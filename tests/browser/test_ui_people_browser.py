"""A person in the debate, in Debian's chromium: take the opponent's seat on the Debate page and type the
turns (the judge, a loopback server speaking OpenAI's API, logs the prompt it was sent: the typed rebuttal
is in it word for word; the proponent is the embedded SmolLM2), and an audience poll with two browser
sessions voting while a third presents."""

from __future__ import annotations

import re
import time

import pytest

from tests.engine.test_human_seat import CLAIM, JUDGE_REPLY, OPENING, REBUTTAL, judge_prompts, person_lineup
from tests.support.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    app_server,
    have_browser,
    open_debate_page,
    pick,
    save_loop_council,
    shot,
    wait_settled,
)
from tests.support.hostile_servers import recorder

pytestmark = pytest.mark.skipif(not have_browser(), reason="chromium + playwright not installed")


def _set_number(page, key: str, value: int) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")
    wait_settled(page)  # the next step must not race this rerun (the browser's widget state would win)


def _wait_for_seat(page, timeout_s: float, name: str):
    """The first open seat box, or fail at once with the page's error if the debate stopped instead."""
    box = page.locator('[class*="st-key-seat_text_"]:not([data-stale="true"]) textarea').first
    errors = page.locator('[data-testid="stAlertContentError"]')
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if box.is_visible():
            return box
        if errors.count():
            shot(page, name)
            raise AssertionError(f"the debate stopped before the person's turn: {errors.first.inner_text()}")
        time.sleep(0.3)
    shot(page, name)
    raise AssertionError(f"the page never asked the person within {timeout_s:.0f} s")


def _answer_seat(page, seen: set[str], text: str, phase: str, timeout_s: float = 900) -> None:
    """Wait for a seat box this test has not answered yet, type `text`, send it."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        boxes = page.locator('[class*="st-key-seat_text_"]:not([data-stale="true"])')
        for i in range(boxes.count()):
            key = next(
                (c for c in (boxes.nth(i).get_attribute("class") or "").split() if c.startswith("st-key-seat_text_")),
                "",
            )
            if key and key not in seen:
                seen.add(key)
                area = boxes.nth(i).locator("textarea")
                area.fill(text)
                page.get_by_role("button", name="Send").first.click()
                page.locator('[data-testid="stAlertContentSuccess"]').filter(
                    has_text=f"Sent: your {phase} turn as opponent"
                ).first.wait_for(timeout=60_000)
                return
        time.sleep(0.3)
    raise AssertionError("the page never asked the person")


@pytest.mark.timeout(1800)
def test_person_takes_the_opponents_seat_in_the_browser(tmp_path):
    from playwright.sync_api import sync_playwright

    from debate.store import DebateStore

    home = tmp_path / "home"
    home.mkdir()
    with recorder(reply=JUDGE_REPLY) as srv:
        store = DebateStore(home / "debates.sqlite")
        store.save_lineup("person-browser", person_lineup(srv.url))
        store.close()
        # the presenter's server (OPENAI_BASE_URL): a lineup may name it (models/reach.py)
        with app_server(home, {"DEBATE_WARM_AHEAD": "0", "OPENAI_BASE_URL": srv.url}) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 2400})
            open_debate_page(page, url, CLAIM)
            page.get_by_text("Single debate (TurQUaz Alg. 1)").click()
            wait_settled(page)
            _set_number(page, "p_single_rounds", 1)
            _set_number(page, "cfg_max_tokens", 16)
            page.get_by_text("Lineup · who plays which part").click()
            pick(page, "cfg_preset", "person-browser (saved)")
            pick(page, "seat_who", "opponent")
            shot(page, "person-seat-setup")
            page.locator(".st-key-run button").click()
            seen: set[str] = set()
            try:
                _answer_seat(page, seen, OPENING, "opening")
                _answer_seat(page, seen, REBUTTAL, "rebuttal")
                shot(page, "person-seat-rebuttal")
                _answer_seat(page, seen, "I rest my case.", "closing")
            except Exception:
                shot(page, "person-seat-failed")
                raise
            page.locator(".verdict-card").wait_for(timeout=900_000)
            wait_settled(page)
            shot(page, "person-seat-finished")
            assert page.locator(".chip.person").count() >= 3  # the person's three turns carry the badge
            said = " ".join(page.locator('[data-testid="stChatMessage"]').all_inner_texts())
            assert REBUTTAL in said
            browser.close()
        prompts = judge_prompts(srv)
    assert len(prompts) == 1 and REBUTTAL in prompts[0] and OPENING in prompts[0]


@pytest.mark.timeout(600)
def test_two_browser_sessions_vote_while_a_third_presents(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    from debate import live
    from debate.runner import DebateConfig
    from debate.store import DebateStore
    from tests.support.scripted_runs import SCRIPTED_LINEUP, scripted_client

    home = tmp_path / "home"
    home.mkdir()
    store = DebateStore(home / "debates.sqlite")
    cfg = DebateConfig(
        claim="The room decides: does this tweet cite a study?",
        protocol="council",
        category=1,
        lineup=SCRIPTED_LINEUP,
        params={"rounds": 1},
        max_tokens=32,
    )
    did = live.start_debate(cfg, scripted_client("flip"), None, store)
    assert live.wait(did, 30)
    store.close()
    with app_server(home) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        presenter = browser.new_context(viewport={"width": 1400, "height": 1800}).new_page()
        presenter.goto(f"{url}/present?debate={did}")
        wait_settled(presenter)
        presenter.get_by_text("Audience poll").first.click()
        presenter.get_by_role("button", name="Poll before").click()
        presenter.get_by_text("Poll open for votes before the debate").wait_for(timeout=60_000)
        voters = []
        for _ in range(2):  # two browser sessions (own contexts: own cookies, own Streamlit sessions)
            v = browser.new_context(viewport={"width": 900, "height": 900}).new_page()
            v.goto(f"{url}/?debate={did}&poll=1")
            v.get_by_text("Before the debate: what do you think?").wait_for(timeout=60_000)
            voters.append(v)
        voters[0].get_by_role("button", name="YES", exact=True).click()
        voters[1].get_by_role("button", name="NO", exact=True).click()
        for v, lab in zip(voters, ("YES", "NO")):
            v.get_by_text(f"Your vote before the debate: {lab}").wait_for(timeout=60_000)
            # one vote per session: the buttons leave when the rerun that drew the thanks ends (Streamlit keeps
            # the last run's elements on the page, greyed, until then), so the check waits for that end
            expect(v.get_by_role("button", name="YES", exact=True)).to_have_count(0, timeout=30_000)

        def poll_row(label: str) -> str:
            return presenter.locator(".p-poll tr").filter(has_text=label).first.inner_text()

        deadline = time.time() + 60  # the presenter's table follows the votes without a reload
        while time.time() < deadline and not (
            re.search(r"YES\s+1\s+0", poll_row("YES")) and re.search(r"NO\s+1\s+0", poll_row("NO"))
        ):
            time.sleep(0.3)
        assert re.search(r"YES\s+1\s+0", poll_row("YES")) and re.search(r"NO\s+1\s+0", poll_row("NO"))
        presenter.get_by_role("button", name="Poll after").click()
        for v in voters:
            v.get_by_text("After the debate: what do you think?").wait_for(timeout=60_000)
            v.get_by_role("button", name="NO", exact=True).click()
            v.get_by_text("Your vote after the debate: NO").wait_for(timeout=60_000)
        deadline = time.time() + 60
        while time.time() < deadline and not (
            re.search(r"NO\s+1\s+2", poll_row("NO")) and re.search(r"YES\s+1\s+0\s+-50%", poll_row("YES"))
        ):
            time.sleep(0.3)
        assert re.search(r"NO\s+1\s+2\s+\+50%", poll_row("NO")) and re.search(r"YES\s+1\s+0\s+-50%", poll_row("YES"))
        shot(presenter, "poll-present-swing")
        browser.close()


@pytest.mark.timeout(900)
def test_a_refused_vote_then_a_seat_that_times_out_in_the_browser(tmp_path):
    """A council on a loopback server (every member votes YES); a person plays "ben": the first answer is
    not a vote and is refused on the page, the second counts; in round 1 nobody answers: the turn passes
    when its countdown ends, the page says so, and the debate finishes."""
    from playwright.sync_api import sync_playwright

    home = tmp_path / "home"
    home.mkdir()
    with recorder(reply='{"vote": "YES", "explanation": "It cites a study."}') as srv:
        save_loop_council(home, f"openai:scripted@{srv.url}")
        with app_server(home, {"DEBATE_WARM_AHEAD": "0", "OPENAI_BASE_URL": srv.url}) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 2400})
            open_debate_page(page, url, CLAIM)
            _set_number(page, "p_council_rounds", 1)
            page.get_by_text("Lineup · who plays which part").click()
            pick(page, "cfg_preset", "loop-council (saved)")
            pick(page, "seat_who", "ben")
            _set_number(page, "seat_timeout", 20)
            page.locator(".st-key-run button").click()
            # the app, the page and the first votes share 2 loaded cores
            box = _wait_for_seat(page, 300, "person-vote-never-asked")
            box.fill("Honestly I am not sure what to think")
            page.get_by_role("button", name="Send").first.click()
            refusal = page.locator('[data-testid="stAlertContentError"]').filter(
                has_text="Refused: this turn needs a vote (one of YES, NO)"
            )
            refusal.first.wait_for(timeout=60_000)
            assert "Write it as: ANSWER: YES/NO" in refusal.first.inner_text()
            shot(page, "person-vote-refused")
            box = page.locator('[class*="st-key-seat_text_"]:not([data-stale="true"]) textarea').first
            box.fill("ANSWER: NO — the link is a press release")
            page.get_by_role("button", name="Send").first.click()
            page.get_by_text("Sent: your vote turn as ben is in the debate.").first.wait_for(timeout=60_000)
            # round 1: nobody answers; the countdown ends and the debate goes on
            page.get_by_text("No answer from the person playing ben within 20 s").first.wait_for(timeout=240_000)
            page.locator(".verdict-card").wait_for(timeout=240_000)
            wait_settled(page)
            shot(page, "person-seat-timed-out")
            assert page.locator(".chip.person").count() >= 2
            browser.close()
