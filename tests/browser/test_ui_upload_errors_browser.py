"""Real browser (Debian chromium + playwright): what an uploaded file says about itself reaches the
Adjudicate page's error as text. A column named like a Markdown image was drawn as an <img> that the
browser fetched (a beacon to whoever wrote the file); now the message shows it literally."""

from __future__ import annotations

import time

import pytest

from tests.support.browser import app_server, browser_page, have_browser, shot, wait_settled

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not have_browser(), reason="chromium/playwright missing")]


@pytest.mark.timeout(300)
def test_upload_error_quotes_the_file_as_text_and_fetches_nothing(tmp_path):
    bad = tmp_path / "cases.csv"
    bad.write_text("a,![b](http://127.0.0.1:9/beacon.png),**loud**\n1,2,3\n", encoding="utf-8")
    with app_server(tmp_path) as url, browser_page(1280, 1400) as page:
        fetched: list[str] = []
        page.on("request", lambda r: fetched.append(r.url))
        page.goto(url + "/adjudicate")
        page.get_by_text("Uploaded file").wait_for(timeout=90_000)
        wait_settled(page)
        page.get_by_text("Uploaded file").click()
        wait_settled(page)
        page.locator("input[type=file]").set_input_files(str(bad))
        wait_settled(page)
        page.get_by_role("button", name="Build the queue").click()
        alert = page.locator('[data-testid="stAlert"]')
        alert.wait_for(timeout=60_000)
        time.sleep(0.5)  # an <img> would have been requested by now
        shot(page, "review-upload-error")
        text = alert.inner_text()
        assert "cases.csv: no text column; the columns are" in text
        assert "![b](http://127.0.0.1:9/beacon.png)" in text and "**loud**" in text  # literally, not drawn
        assert "['" not in text  # a list in words, not a Python list
        assert alert.locator("img").count() == 0
        assert "loud" not in alert.locator("strong").all_inner_texts()  # (the whole message is bold: one <strong>)
        assert not [u for u in fetched if "beacon" in u]
        assert "text, claim, statement, tweet" in text  # and it still says what to do
