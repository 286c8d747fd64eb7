"""Values the app sets in widgets, when a person acts again before the page has drawn them (Debian chromium).

Streamlit lets the browser's widget state win over a value the app set, even in a widget callback: a
rerun the browser sends before it has drawn the new value carries the old one. Here the person switches
the live-demo pace off (the callback puts the papers' settings into the widgets) or picks RADAR (the task
switches to half-truth) and types in another field before the app's answer has reached the page (the app's
messages are held back, as on a slow network): the values the app set must still be the ones shown, and
the ones that run."""

from __future__ import annotations

import pytest

from debate.live import pace as pace_mod
from tests.support.browser import SlowDownlink, app_server, browser_page, have_browser, shot, wait_settled

pytestmark = pytest.mark.skipif(not have_browser(), reason="chromium + playwright not installed")


def _act_before_the_page_drew(page, link: SlowDownlink, click, drawn: bytes, questions: int) -> None:
    """`click`, then (once the app drew the `drawn` widget, its answer held back) type in another field."""
    link.held = True
    click()
    link.wait_kept(drawn)  # the click's run ran its callback and drew the widget: the page has not seen it
    n = len(link.kept)
    box = page.locator(".st-key-cfg_questions input")
    box.fill(str(questions))
    box.press("Enter")  # a rerun with the page's widget state, the old value in it
    link.wait_kept(drawn, since=n)  # the app ran that rerun
    link.release()
    wait_settled(page)


def _select_text(page, key: str) -> str:
    return page.locator(f".st-key-{key}").evaluate(
        "el => el.innerText + ' ' + [...el.querySelectorAll('input')].map(i => i.value).join(' ')"
    )


def test_values_the_app_set_survive_a_person_acting_before_the_page_drew_them(tmp_path):
    from playwright.sync_api import expect

    with app_server(tmp_path) as url, browser_page() as page:
        link = SlowDownlink(page)
        page.goto(url)
        tokens = page.locator(".st-key-cfg_max_tokens input")
        tokens.wait_for(timeout=120_000)
        wait_settled(page)
        expect(tokens).to_have_value(str(pace_mod.max_tokens("demo")))  # the pace is on by default
        _act_before_the_page_drew(
            page, link, page.locator(".st-key-cfg_pace").get_by_text("Live-demo pace").click, b"cfg_max_tokens", 1
        )
        try:
            expect(tokens).to_have_value(str(pace_mod.max_tokens("paper")), timeout=5_000)  # not lost
            expect(page.locator(".st-key-p_council_rounds input")).to_have_value("5")  # the paper's rounds
            paper = f"answers of at most {pace_mod.max_tokens('paper')} tokens"
            assert page.get_by_text(paper).count() >= 1  # the app's own line: what will run
        except AssertionError:
            shot(page, "race-pace-lost")
            raise

        _act_before_the_page_drew(
            page, link, page.get_by_text("RADAR (role-anchored debate over evidence)").click, b"cfg_task", 2
        )
        try:
            assert "Half-truth" in _select_text(page, "cfg_task"), "RADAR's task switch was lost"
            assert page.get_by_text("so the task switched to Half-truth").count() == 1
        except AssertionError:
            shot(page, "race-task-lost")
            raise
