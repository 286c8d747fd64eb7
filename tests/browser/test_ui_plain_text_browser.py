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


@pytest.mark.timeout(300)
def test_a_stored_debate_shows_no_markdown_marks_and_no_json(tmp_path):
    shutil.copy(FIXTURE, tmp_path / "debates.sqlite")
    with library_page(tmp_path, "single") as (_, page):
        screen = page.evaluate(SCREEN_JS)
    assert "No study is linked." in screen and "bold" in screen and "A study is cited." in screen
    assert "**" not in screen and '{"' not in screen
