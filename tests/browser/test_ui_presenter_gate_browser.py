"""The presenter's gate in chromium: an app served beyond loopback opens no page before the presenter's
passcode (wrong one refused, right one opens the Debate page); without a passcode it says how to set one.
On 127.0.0.1 every other browser test opens the app as before (no gate)."""

from __future__ import annotations

import pytest

from tests.support.browser import app_server, browser_page, have_browser, wait_settled

pytestmark = pytest.mark.skipif(not have_browser(), reason="needs Debian chromium and playwright")

CODE = "violet-kettle-93"


def _text(page) -> str:
    return page.locator("body").inner_text()


@pytest.mark.timeout(300)
def test_an_app_served_beyond_loopback_asks_the_presenter_first(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    with app_server(home, {"DEBATE_PRESENTER_PASSCODE": CODE}, address="0.0.0.0") as url:
        with browser_page(height=1000) as page:
            page.goto(url + "/library")
            page.get_by_text("Presenter sign-in").wait_for(timeout=60_000)
            wait_settled(page)
            assert "Library" not in _text(page) and not page.locator(".st-key-claim").count()
            page.goto(url)  # a page's address led to the sign-in (Streamlit also says that page was not found)
            page.get_by_text("Presenter sign-in").wait_for(timeout=60_000)
            wait_settled(page)
            page.get_by_label("Presenter passcode").fill("guess")
            page.get_by_role("button", name="Open the app").click()
            page.get_by_text("That is not the presenter's passcode.").wait_for(timeout=30_000)
            assert not page.locator('[data-testid="stSidebarNav"]').count()
            page.get_by_label("Presenter passcode").fill(CODE)
            page.get_by_role("button", name="Open the app").click()
            page.locator('[data-testid="stSidebarNav"]').wait_for(timeout=60_000)
            page.locator(".st-key-claim").wait_for(timeout=60_000)  # the Debate page, the app's first
            wait_settled(page)
            assert "Presenter sign-in" not in _text(page)


@pytest.mark.timeout(300)
def test_beyond_loopback_without_a_passcode_no_page_opens(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    with app_server(home, {"DEBATE_PRESENTER_PASSCODE": ""}, address="0.0.0.0") as url:
        with browser_page(height=1000) as page:
            page.goto(url)
            page.get_by_text("no presenter passcode is set").wait_for(timeout=60_000)
            wait_settled(page)
            assert not page.locator('[data-testid="stSidebarNav"]').count()
            assert not page.locator(".st-key-claim").count()


@pytest.mark.timeout(300)
def test_beyond_loopback_an_annotator_signs_in_to_adjudicate_alone(tmp_path):
    """A member of the labelling team works from another machine without the presenter's passcode: their
    own account opens the Adjudicate page and nothing else (no menu, no Library behind a page's address)."""
    from debate.adjudication.accounts import AccountStore

    home = tmp_path / "home"
    home.mkdir()
    AccountStore(str(home / "debates.sqlite")).add("ada", "quiet-harbour-lantern-71")
    with app_server(home, {"DEBATE_PRESENTER_PASSCODE": CODE}, address="0.0.0.0") as url:
        with browser_page(height=1000) as page:
            page.goto(url)
            page.get_by_text("Annotators and reviewers: sign in to label").click()
            page.get_by_role("textbox", name="Name", exact=True).fill("ada")
            page.get_by_role("textbox", name="Password", exact=True).fill("quiet-harbour-lantern-71")
            page.get_by_role("button", name="Sign in", exact=True).click()
            page.get_by_text("Signed in as").wait_for(timeout=60_000)
            wait_settled(page)
            assert "Presenter sign-in" not in _text(page)
            assert not page.locator('[data-testid="stSidebarNav"]').count()  # one page: no menu
            page.goto(url + "/library")  # a new session: signed out again, so the gate, not the Library
            page.get_by_text("Presenter sign-in").wait_for(timeout=60_000)
            wait_settled(page)
            assert "Delete" not in _text(page) and not page.locator(".st-key-claim").count()
