"""AppTest of the sharing and steering page parts: deep link at a round, fork from the Library (real store, real runner
and worker, scripted backend), the fork beside its parent in Compare, the presenter view, interjection."""

from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from debate import live
from debate.runner import DebateConfig, run_debate
from debate.store import DebateStore
from tests.support.scripted_runs import SCRIPTED_LINEUP, scripted_client, stored_council_debate

T = 90


def _texts(at) -> str:
    return "\n".join(
        [m.value for m in at.markdown]
        + [m.value for m in at.caption]
        + [m.value for m in at.info]
        + [m.value for m in at.warning]
        + [m.value for m in at.error]
    )


def test_deep_link_opens_a_stored_debate_at_a_round():
    did = stored_council_debate("Deep link claim, <b>bold</b>.")
    at = AppTest.from_file("../../app.py", default_timeout=T)
    at.query_params["debate"] = did
    at.query_params["round"] = "1"
    at.switch_page("pages/library.py").run()
    assert not at.exception
    text = _texts(at)
    assert "as it stood after round 1" in text and "Deep link claim" in text
    assert "Votes, round 1" in text and "Votes, round 2" not in text
    bad = AppTest.from_file("../../app.py", default_timeout=T)
    bad.query_params["debate"] = "no-such-debate"
    bad.switch_page("pages/library.py").run()
    assert "No debate 'no-such-debate'" in _texts(bad)


def test_fork_from_the_library_then_compare_it_with_its_parent():
    did = stored_council_debate("Fork me, a study says.")
    at = AppTest.from_file("../../app.py", default_timeout=T)
    at.session_state["_client"] = scripted_client("flip")
    at.session_state["_run"] = run_debate
    at.session_state["_retriever"] = None
    at.query_params["debate"] = did
    at.switch_page("pages/library.py").run()
    at.selectbox(key="lib_fork_round").select(0)
    at.text_input(key="lib_fork_note").input("Mind the sample size.")
    at.button(key="FormSubmitter:lib_fork-Fork").click().run()
    assert not at.exception, at.exception
    store = DebateStore()
    fork = next(r for r in store.list() if r["id"] != did and r["claim"] == "Fork me, a study says.")
    assert live.wait(fork["id"], 30)
    ev = store.event_dicts(fork["id"])
    assert ev[0]["forked_from"] == {"debate_id": did, "round": 0}
    assert any(e["type"] == "moderator" and e["text"] == "Mind the sample size." for e in ev)
    at.run()
    assert "fork after round 0" in _texts(at)  # the family panel
    cmp = AppTest.from_file("../../app.py", default_timeout=T)
    cmp.session_state["cmp_fork"] = fork["id"]
    cmp.switch_page("pages/compare.py").run()
    assert not cmp.exception
    assert "Fork after round 0: what changed" in _texts(cmp)
    table = cmp.dataframe[0].value
    assert list(table["round"])[-2:] == ["verdict", "tokens"]


def test_presenter_plays_a_recorded_debate_labelled_recorded():
    did = stored_council_debate("Present me.")
    at = AppTest.from_file("../../app.py", default_timeout=T)
    at.query_params["debate"] = did
    at.switch_page("pages/present.py").run()
    time.sleep(0.5)
    at.run()
    assert not at.exception
    assert "RECORDED" in _texts(at) and "Present me." in _texts(at)


def test_interjection_from_the_page_reaches_the_next_rounds_prompts():
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend
    from debate.teaching.flow import _reply_fn

    backend = ScriptedBackend(default=_reply_fn("flip", ("YES", "NO")), delay_s=0.15)  # runs ~30 s
    client = ModelClient(backends={"scripted": backend})
    cfg = DebateConfig(
        claim="Steer me.",
        protocol="council",
        task="checkthat",
        category=1,
        lineup=SCRIPTED_LINEUP,
        params={"rounds": 3, "stable_rounds": 9},
        max_tokens=32,
    )
    did = live.start_debate(cfg, client, None, DebateStore(), run=run_debate)
    at = AppTest.from_file("../../app.py", default_timeout=T)
    at.session_state["debate_id"] = did
    at.query_params["debate"] = did
    at.switch_page("pages/library.py").run()
    at.text_input(key="mod_note").input("Check the date of the study.")
    at.button(key="FormSubmitter:mod_form-Interject").click().run()
    assert not at.exception
    assert live.wait(did, 60)
    ev = DebateStore().event_dicts(did)
    mod = [e for e in ev if e["type"] == "moderator"]
    assert len(mod) == 1 and mod[0]["text"] == "Check the date of the study." and mod[0]["seen"]
    note = "human moderator of this debate (not a debater; take it into account in your answer):\n- Check the date"
    after = [c for c in backend.calls if any(note in m["content"] for m in c["messages"])]
    assert after
    # every call after the note's boundary carries it: the calls are the tail of the sequence
    first = backend.calls.index(after[0])
    assert len(after) == len(backend.calls) - first
    assert any(e["type"] == "moderator" for e in ev[:-1]) and ev.index(mod[0]) < len(ev) - 2
