"""Two phones vote on the audience server in Debian's chromium: a phone-sized viewport with JavaScript off
(the pages need none), each phone its own browser context (its own cookies), the votes in the real store."""

from __future__ import annotations

import pytest

from debate.audience import links
from debate.store.people import PeopleStore
from tests.support.audience import audience_server
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, have_browser, shot

pytestmark = pytest.mark.skipif(not have_browser(), reason="chromium + playwright not installed")

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "java_script_enabled": False}


def test_two_phones_vote_with_no_javascript(tmp_path):
    from playwright.sync_api import sync_playwright

    db = tmp_path / "debates.sqlite"
    people = PeopleStore(db)
    people.open_poll("d-phone", "before", ("TRUE", "FALSE"), claim="Coffee cures colds <b>now</b>")
    token = links.AudienceStore(db).link("poll", "d-phone")
    with audience_server(db) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for n, label in enumerate(("TRUE", "FALSE")):
                phone = browser.new_context(**PHONE).new_page()
                phone.goto(f"{base}/p/{token}")
                assert phone.locator(".claim").inner_text() == "Coffee cures colds <b>now</b>"
                button = phone.get_by_role("button", name=label)
                box = button.bounding_box()
                assert box and box["width"] > 300 and box["height"] >= 44  # a thumb's target on a phone
                button.click()
                phone.wait_for_load_state()
                assert f"Your vote before the debate: {label}" in phone.locator("main").inner_text()
                assert phone.get_by_role("button").count() == 0  # voted: no second vote offered
                if n == 0:
                    shot(phone, "audience-phone-voted")
        finally:
            browser.close()
    assert people.tallies("d-phone")["before"] == {"TRUE": 1, "FALSE": 1}
