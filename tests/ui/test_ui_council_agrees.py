"""A real council, stored, read on the Library and Learn pages: the card, the bubbles' tags and Learn say
the same about who voted what (as written and as counted), whether consensus was reached and who changed.

The council is the Debate page's own (embedded lineup, the small-model aids on, the shared short case of
tests/support/real_cases.py) with one discussion round held (`min_rounds=1`), so a chair speaks: the first
vote's answers come from the response cache the engine tests filled, the round after it from the models.
What each screen must say is computed once from the stored events by debate/outcome.py; the test checks the
rendered pages against it, whatever the models answered."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from debate import config, live, outcome  # (the package, before pages/ is on the path)
from debate.store import DebateStore
from tests.support.real_cases import council_config
from ui.safe import escape

pytestmark = pytest.mark.real_model


@pytest.fixture(scope="module")
def council_id() -> str:
    pytest.importorskip("llama_cpp")
    from tests.support.real_cases import prepared_client

    client = prepared_client(("local:qwen2.5-coder-0.5b", "local:smollm2-135m"), cache=True)
    cfg = council_config({"min_rounds": 1})
    store = DebateStore(config.store_db())
    did = live.start_debate(cfg, client, None, store, wait_first_s=600)
    assert live.wait(did, 900) and store.get(did)["status"] == "completed", store.event_dicts(did)[-3:]
    return did


def _page(did: str, page: str) -> AppTest:
    at = AppTest.from_file("../../app.py", default_timeout=120)
    at.session_state["_retriever"] = None
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.mark.timeout(1200)
def test_the_card_the_tags_and_learn_agree_on_a_real_council(council_id):
    events = DebateStore(config.store_db()).event_dicts(council_id)
    rounds = outcome.council_rounds(events)
    verdict = next(e for e in reversed(events) if e["type"] == "verdict")
    chairs = outcome.chair_tags(events)
    assert len(rounds) == 2 and len(chairs) == 1  # the first vote, the chair, the round after it

    at = _page(council_id, "pages/library.py")
    at.selectbox(key="lib_open").set_value(council_id).run()
    assert not at.exception, [e.message for e in at.exception]
    card = next(m.value for m in at.markdown if "verdict-card" in m.value)
    assert f'<span class="v-headline">{escape(outcome.verdict_headline(verdict, rounds))}</span>' in card
    bubbles = [m.value for m in at.markdown if 'class="turn"' in m.value]
    votes = [v for r in rounds for v in r.votes]
    for agent in {v.agent for v in votes}:  # each member's tags, round by round, in the order they are drawn
        mine = [b for b in bubbles if f">{escape(agent)}</span>" in b]
        theirs = [v for v in votes if v.agent == agent and v.turn_id]  # a member not asked again has no turn
        assert len(mine) == len(theirs), (agent, len(mine), theirs)
        for b, v in zip(mine, theirs):  # "counted as" exactly where the tally counted another label
            assert ("counted as" in b) == v.differs, (v, b)
            if v.differs:
                assert f"wrote {escape(str(v.written))}" in b and f"counted as {escape(str(v.counted))}" in b
    tallies = " ".join(m.value for m in at.markdown if 'class="tally"' in m.value)
    for r in rounds:  # a vote counted without a turn (keep_first_vote: the aids' SmolLM2) is said on its tally
        assert not r.kept or escape(r.kept_note()) in tallies, (r.kept, tallies)
    tag = next(iter(chairs.values()))
    chair = next(b for b in bubbles if ">chair<" in b)
    assert f">{escape(tag.label)}</span>" in chair
    if tag.label == "CONSENSUS NOT REACHED":  # never the chair's own status field drawn as the tally's
        assert 'class="chip green">CONSENSUS REACHED' not in chair
    assert ("its own status field disagrees" in chair) == bool(tag.wrote)

    at = _page(council_id, "pages/learn.py")
    at.selectbox(key="learn_debate").set_value(council_id).run()
    from debate.teaching.steps import debate_dynamics, steps

    all_steps = steps(events)
    by_turn = outcome.counted_votes(events)
    for v in by_turn.values():  # every vote step names the counted vote, and what was written where it differs
        title = f"{v.agent} (member) votes {v.counted}" + (f" (wrote {v.written})" if v.differs else "")
        assert any(s.title == title and s.round == v.round for s in all_steps), (title, [s.title for s in all_steps])
    verdict_step = next(i for i, s in enumerate(all_steps) if s.kind == "verdict")
    at.session_state["learn_step"] = verdict_step
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    note = next(m.value for m in at.markdown if "claim-card" in m.value and "step " in m.value)
    assert escape(outcome.verdict_headline(verdict, rounds)) in note
    learn_card = next(m.value for m in at.markdown if "verdict-card" in m.value)
    assert f'<span class="v-headline">{escape(outcome.verdict_headline(verdict, rounds))}</span>' in learn_card

    d = debate_dynamics(events)  # the Vote dynamics view: the counted votes, who changed
    counted = [(v.agent, v.round, v.counted) for r in rounds for v in r.votes]
    first = {a: c for a, r, c in counted if r == 0}
    changed = sorted((a, c) for a, r, c in counted if r == 1 and first.get(a) not in (None, c))
    assert sorted((c["agent"], c["to"]) for c in d["changes"]) == changed
    written_otherwise = sorted((v.agent, v.round) for v in votes if v.differs)
    assert sorted((c["agent"], c["round"]) for c in d["counted_otherwise"]) == written_otherwise
    at.segmented_control(key="learn_view").set_value("Vote dynamics").run()
    assert not at.exception, [e.message for e in at.exception]
    heads = " ".join(m.value for m in at.markdown)
    assert ("Votes counted otherwise than written" in heads) == bool(written_otherwise)
