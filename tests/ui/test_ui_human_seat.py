"""The Debate page through AppTest with a person in a seat: take the opponent's seat before Run, type the
turns when the page asks, and the judge (a loopback server speaking OpenAI's API, which logs its
requests) reads the typed rebuttal word for word; a council vote that is not a vote is refused with a
clear message on the page; the person's turns carry the "person" badge."""

from __future__ import annotations

import html
import time

import pytest
from streamlit.testing.v1 import AppTest

from debate import config, live
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.store import DebateStore
from tests.engine.test_human_seat import CLAIM, JUDGE_REPLY, OPENING, REBUTTAL, judge_prompts, person_lineup
from tests.support.hostile_servers import recorder

APP = "../../app.py"


def _store() -> DebateStore:
    return DebateStore(config.store_db())


def _texts(at: AppTest) -> str:
    return "\n".join(
        [m.value for m in at.markdown]
        + [m.value for m in at.caption]
        + [m.value for m in at.error]
        + [m.value for m in at.success]
    )


def _set_up(at: AppTest, protocol: str, preset: str, seat: str, params: dict) -> None:
    at.text_area(key="claim").input(CLAIM)
    at.toggle(key="cfg_aids").set_value(False)
    at.radio(key="cfg_protocol").set_value(protocol).run()
    for k, v in params.items():
        for kind in ("number_input", "toggle"):
            try:
                getattr(at, kind)(key=f"p_{protocol}_{k}").set_value(v)
                break
            except KeyError:
                continue
    at.number_input(key="cfg_max_tokens").set_value(16)
    at.selectbox(key="cfg_preset").set_value(preset).run()
    at.multiselect(key="seat_who").set_value([seat]).run()
    at.number_input(key="seat_timeout").set_value(600).run()
    assert not at.exception, [e.message for e in at.exception]


def _open_seat(at: AppTest, debate_id: str, deadline: float):
    """Rerun the page (its fragments do not tick in AppTest) until it shows a seat's answer box."""
    while time.time() < deadline:
        at.run()
        boxes = [t for t in at.text_area if str(t.key).startswith("seat_text_")]
        if boxes:
            return boxes[0]
        if not live.is_running(debate_id):
            return None
        time.sleep(0.3)
    return None


def _send(at: AppTest, box, text: str) -> None:
    turn = str(box.key).removeprefix("seat_text_")
    box.input(text)
    at.button(key=f"FormSubmitter:seat_form_{turn}-Send").click().run()
    assert not at.exception, [e.message for e in at.exception]


@pytest.mark.timeout(900)
def test_person_takes_the_opponents_seat_on_the_debate_page(monkeypatch):
    monkeypatch.setenv("DEBATE_WARM_AHEAD", "0")
    with recorder(reply=JUDGE_REPLY) as srv:
        # the presenter's server (OPENAI_BASE_URL): a lineup typed on a page may name it (models/reach.py)
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
        _store().save_lineup("person-page", person_lineup(srv.url))
        at = AppTest.from_file(APP, default_timeout=180)
        at.session_state["_retriever"] = None
        at.run()
        _set_up(at, "single", "saved:person-page", "opponent", {"rounds": 1, "examples": False})
        at.button(key="run").click().run()
        assert not at.exception, [e.message for e in at.exception]
        did = at.session_state["debate_id"]
        deadline = time.time() + 800
        typed = []
        for text in (OPENING, REBUTTAL, "I rest my case."):
            box = _open_seat(at, did, deadline)
            assert box is not None, "the page never asked the person"
            assert "What the opponent's prompt shows" in [e.label for e in at.expander]
            _send(at, box, text)
            typed.append(text)
        assert live.wait(did, 600)
        at.run()
        prompts = judge_prompts(srv)
    assert len(prompts) == 1 and REBUTTAL in prompts[0]
    events = _store().events(did)
    mine = [e.text for e in events if e.type == "turn_finished" and e.human]
    assert mine == typed
    assert events[-1].status == "completed"
    page = html.unescape(_texts(at))
    assert 'class="chip person"' in page and REBUTTAL in page


def _council_page(name: str, seat: str) -> AppTest:
    """The Debate page set up for a council of scripted members (every one votes YES), `seat` a person's."""
    vote = '{"vote": "YES", "explanation": "It cites a study."}'
    client = ModelClient({"scripted": ScriptedBackend(dict.fromkeys(("ana", "ben", "cy", "chair"), vote))})
    lineup = {
        "name": name,
        "members": [{"name": n, "model": f"scripted:{n}", "seed": i} for i, n in enumerate(("ana", "ben", "cy"))],
        "judge": {"name": "judge", "model": "scripted:chair"},
        "chair": {"name": "chair", "model": "scripted:chair"},
    }
    _store().save_lineup(name, lineup)
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["_client"] = client
    at.session_state["_retriever"] = None
    at.run()
    _set_up(at, "council", f"saved:{name}", seat, {"rounds": 0})
    return at


def test_a_council_vote_that_is_not_a_vote_is_refused_on_the_page():
    at = _council_page("seat-council", "ben")
    at.button(key="run").click().run()
    did = at.session_state["debate_id"]
    box = _open_seat(at, did, time.time() + 60)
    assert box is not None
    assert "Answer format: ANSWER: YES/NO — your reason" in html.unescape(_texts(at))
    _send(at, box, "Honestly I am not sure what to think")
    refused = [e.value for e in at.error]
    assert any("Refused: this turn needs a vote (one of YES, NO)" in r and "Write it as" in r for r in refused)
    box = _open_seat(at, did, time.time() + 60)  # still open: try again within the countdown
    _send(at, box, "ANSWER: NO — the link is a press release")
    assert live.wait(did, 60)
    at.run()
    events = _store().events(did)
    tally = next(e for e in events if e.type == "votes_tallied")
    assert tally.votes == {"ana": "YES", "ben": "NO", "cy": "YES"}
    ben = next(e for e in events if e.type == "turn_finished" and e.agent == "ben")
    assert ben.human and ben.parsed["refused"] == 1
    assert 'class="chip person"' in _texts(at)


def test_a_seat_nobody_answers_passes_when_its_countdown_ends_on_the_page():
    at = _council_page("seat-idle", "cy")
    at.number_input(key="seat_timeout").set_value(5).run()
    at.button(key="run").click().run()
    did = at.session_state["debate_id"]
    assert _open_seat(at, did, time.time() + 60) is not None  # asked; nobody answers (the tab was closed)
    assert live.wait(did, 60)
    at.run()
    page = html.unescape(_texts(at))
    assert "No answer from the person playing cy within 5 s: the turn passed and the debate went on." in page
    assert "no answer" in page and [t for t in at.text_area if str(t.key).startswith("seat_text_")] == []
    events = _store().events(did)
    assert events[-1].status == "completed"
    assert next(e for e in events if e.type == "votes_tallied").votes == {"ana": "YES", "ben": "YES", "cy": None}
