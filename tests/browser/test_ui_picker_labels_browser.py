"""A picker whose option's label changes while the page is open says the new label (Debian chromium).

The Library's "Open a debate" list titles each debate with its verdict, or its status while it has none.
Streamlit's browser side keeps a selectbox's value as the label it was sent, and a rerun that changes only
the labels does not send it again: a debate that finished while the Library showed it stayed "running" in
the list beside a table that said "completed" (seen after a fork streamed in the Library). The page now sets
the value again when the chosen option's label changed (ui.keep.relabel). No model is asked: the debate is
written into the store by hand, as the worker would write it.
"""

from __future__ import annotations

import pytest

from tests.support.browser import app_server, browser_page, have_browser, shot, wait_settled

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not have_browser(), reason="needs chromium and playwright")]

CLAIM = "Says the city's libraries lent more books last year than in any year since 1990."
VALUE_JS = "() => document.querySelector('.st-key-lib_open input[role=combobox]')?.value || ''"


@pytest.mark.timeout(300)
def test_the_library_list_follows_a_debate_that_finishes_while_it_is_shown(tmp_path):
    from debate.store import DebateStore

    store = DebateStore(tmp_path / "debates.sqlite")
    did = store.create_debate({"claim": CLAIM, "protocol": "radar", "task": "halftruth", "category": None}, "lbl1")
    store.close()
    with app_server(tmp_path) as url, browser_page() as page:
        page.goto(f"{url}/library?debate={did}")
        page.locator(".st-key-lib_open input[role=combobox]").wait_for(timeout=60_000)
        wait_settled(page)
        before = page.evaluate(VALUE_JS)
        assert "FALSE" not in before and "Says the city" in before, before  # no verdict yet: its status

        store = DebateStore(tmp_path / "debates.sqlite")  # the worker finishes it while the page is open
        store.append_event(did, {"type": "verdict", "label": "FALSE", "explanation": "", "source": "judge"})
        store.append_event(did, {"type": "finished", "status": "completed"})
        store.close()
        page.evaluate("() => document.activeElement && document.activeElement.blur()")  # off any input
        page.keyboard.press("r")  # Streamlit's rerun key: the page is drawn again from the store
        page.get_by_text("✅ completed").first.wait_for(state="attached", timeout=60_000)  # the table, redrawn
        wait_settled(page)
        after = page.evaluate(VALUE_JS)
        shot(page, "library-picker-relabelled")
        assert "FALSE" in after and before != after, (before, after)
