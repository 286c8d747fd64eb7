"""The verdict card says how the debate compares with a plain vote of its first answers (Library, AppTest)."""

from __future__ import annotations

import html
import json

from streamlit.testing.v1 import AppTest

from debate import config
from debate.store import DebateStore
from tests.support.engine import run, scripted

APP = "../../app.py"


def _store_debate(debate_id: str, claim: str, first: dict[int, str], later: str | None, gold: str) -> None:
    """A council on a scripted model (the votes on cue), stored as the live path stores it: event by event."""

    def reply(messages, options):
        discussing = "Chairperson Summary: None" not in messages[-1]["content"]
        return json.dumps({"vote": later if later and discussing else first[options.seed], "explanation": "why"})

    client, _ = scripted({"vote": reply})
    store = DebateStore(config.store_db())
    store.create_debate({"claim": claim, "protocol": "council", "task": "checkthat", "gold": gold}, debate_id)
    for ev in run(client, "council", n=3, claim=claim, gold=gold, debate_id=debate_id):
        store.append_event(debate_id, ev)


def _card(at: AppTest) -> str:
    """The verdict card as a person reads it (the markup escapes model-adjacent text, colons included)."""
    return html.unescape("\n".join(m.value for m in at.markdown if "verdict-card" in m.value))


def test_verdict_card_says_whether_the_discussion_changed_the_first_vote():
    _store_debate("vote-flip", "Vote card flip claim", {1: "NO", 2: "NO", 3: "YES"}, "YES", gold="YES")
    _store_debate("vote-same", "Vote card unanimous claim", {1: "NO", 2: "NO", 3: "NO"}, None, gold="NO")
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/library.py").run()
    assert not at.exception, [e.message for e in at.exception]
    at.text_input(key="lib_search").input("Vote card").run()
    at.selectbox(key="lib_open").select("vote-flip").run()
    assert "Debate vs. vote: the discussion changed the outcome: NO → YES (for the better)" in _card(at)
    at.selectbox(key="lib_open").select("vote-same").run()
    assert "Debate vs. vote: unanimous at the first vote" in _card(at)
    # the Library's filter: only debates whose discussion changed the outcome
    at.selectbox(key="lib_open").select("vote-flip").run()
    assert len(at.selectbox(key="lib_open").options) == 2
    at.checkbox(key="lib_vote_changed").check().run()
    assert not at.exception, [e.message for e in at.exception]
    (only,) = at.selectbox(key="lib_open").options
    assert only.endswith("Vote card flip claim")
