"""In Debian's chromium: a stored council whose member smol writes NO while the tally counts YES from its
probabilities, and whose chair's status field says "CONSENSUS REACHED" above a tally that is not, reads as
one truth on the Library page: the card's headline gives the votes as written and as counted, smol's
bubbles say both, and the chair's tag is the tally's state (tests/services/test_verdict_outcome.py has the
same council on every other sink)."""

from __future__ import annotations

import pytest

from debate import config
from debate.store import DebateStore
from tests.services.test_verdict_outcome import HEADLINE1, council_events
from tests.support.browser import have_browser, library_page, shot

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not have_browser(), reason="no chromium/playwright")]


@pytest.mark.timeout(600)
def test_a_council_counted_otherwise_than_written_says_so_in_its_headline(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_HOME", str(tmp_path))
    store = DebateStore(config.store_db())
    events = council_events()
    did = store.create_debate({"protocol": "council", "task": "checkthat", "claim": events[0]["claim"]}, "council-b1")
    store.append_events(did, [{**e, "debate_id": did} if e["type"] == "debate_started" else e for e in events])
    with library_page(tmp_path, did) as (_, page):
        card = page.locator(".verdict-card").first.inner_text()
        assert HEADLINE1 in card and "3 of 3 members voted" not in card
        smol = page.locator(".turn").filter(has_text="smol")
        assert smol.count() == 2
        assert all("wrote NO · P 0.20 · counted as YES" in smol.nth(i).inner_text() for i in range(2))
        chair = page.locator(".turn").filter(has_text="Two of three say YES").first.inner_text()
        assert "CONSENSUS NOT REACHED" in chair and "its own status field disagrees" in chair
        assert "CONSENSUS REACHED" not in chair.replace("CONSENSUS NOT REACHED", "").replace(
            '"status": "CONSENSUS REACHED"', ""
        )  # only in the raw JSON, one click away
        shot(page, "council-headline-written-and-counted")
