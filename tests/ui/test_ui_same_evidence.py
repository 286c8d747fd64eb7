"""The same claim with the same set-up gets the same evidence verdict on the Compare and Debate pages.

The UX review found Compare showing "Evidence (6 passages)" for the bench's coffee claim while the Debate
page said no passage passed the relevance floor: Compare searched the local index directly (its top-k,
however far from the claim) and Debate the sources ranked under the floor. Both pages now search with the
retriever of the debate's own config. AppTest on both pages, the app's own retriever (the AVeriTeC-dev
index, the embedder in its worker process), scripted voters through the real runner and store."""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from debate import config, live
from debate.runner import run_debate
from tests.conftest import data_path
from tests.ui.test_ui_app import _app, _run_to_end, _scripted_client, _scripted_lineup, _store

# bench/bench_live.py's CLAIM: offline, the bundled index has nothing over the floor for it
CLAIM = "New study: people who drink 3 cups of coffee a day live longer, researchers at Harvard found https://t.co/abc"


def _index_loaded() -> None:
    """The app's retriever loaded before Run (the Debate page starts it on open; this test waits for it
    so that the viewer's search, which a finished debate awaits for a bounded time, is not cut short)."""
    from ui import resources

    r = resources._retriever(str(config.index_dir()))
    deadline = time.time() + 240
    while not r.searchable and r.error is None and time.time() < deadline:
        time.sleep(0.5)
    assert r.searchable, r.error


def _evidence(debate_id: str) -> dict:
    (ev,) = [e for e in _store().event_dicts(debate_id) if e["type"] == "evidence"]
    return ev


@pytest.mark.timeout(600)
def test_compare_and_debate_give_the_coffee_claim_the_same_evidence_verdict():
    data_path("averitec/dev.json")  # both pages search the default corpus, AVeriTeC dev's evidence
    preset = _scripted_lineup(_store(), "same-evidence", ["steady", "other"])
    _index_loaded()
    # Compare: one council column on the coffee claim, every other setting as the page opens
    cmp_ = AppTest.from_file("../../pages/compare.py", default_timeout=180)
    cmp_.session_state["_client"] = _scripted_client()
    cmp_.session_state["_run"] = run_debate
    cmp_.run()
    cmp_.text_area(key="cmp_claim").input(CLAIM).run()
    cmp_.selectbox(key="cmp_proto_0").select("council").run()
    cmp_.selectbox(key="cmp_proto_1").select("baseline").run()
    for i in (0, 1):
        cmp_.selectbox(key=f"cmp_lineup_{i}").select(preset).run()
    cmp_.button(key="cmp_run").click().run()
    assert not cmp_.session_state["cmp_problems"]
    cmp_id = cmp_.session_state["cmp_ids"][0]
    assert live.wait(cmp_id, 120)
    cmp_.run()
    assert not cmp_.exception, [e.message for e in cmp_.exception]
    # Debate: the same claim, protocol and lineup, every other setting as the page opens
    deb = _app(_client=_scripted_client())
    deb.text_area(key="claim").input(CLAIM)
    deb.selectbox(key="cfg_preset").set_value(preset).run()
    row = _run_to_end(deb, timeout=300)
    assert row["status"] == "completed", row

    a, b = _evidence(cmp_id), _evidence(row["id"])
    s_a, s_b = (_store().event_dicts(d)[0]["settings"] for d in (cmp_id, row["id"]))
    assert (s_a["top_k"], s_a["sources"], s_a["questions"]) == (s_b["top_k"], s_b["sources"], s_b["questions"])
    # one verdict: the same floor, no passage over it, the same passages turned away
    assert a["floor"] is not None and a["floor"] == b["floor"]
    assert a["passages"] == b["passages"] == [] and a["rejected"] and a["rejected"] == b["rejected"]
    # and both pages say it: Compare's evidence panel, collapsed and open, and the Debate page's
    assert "Evidence (no passage passed the relevance floor)" in [e.label for e in cmp_.expander]
    assert not any("passages)" in e.label for e in cmp_.expander)
    for at in (cmp_, deb):
        assert any("No passage is about this claim" in i.value for i in at.info), [i.value for i in at.info]
        ran = [c.value for c in at.caption if "Ran with: council" in c.value]
        assert ran and "(top 6 passages from every source that answers)" in ran[0], ran


def test_the_settings_line_says_how_evidence_was_searched_so_differences_show():
    """Where two debates of one claim searched differently, their "Ran with" lines say so."""
    from debate.live.pace import settings_line

    base = {"params": {}, "max_tokens": 128, "aids": False, "evidence_on": False}
    a = settings_line({"protocol": "council", "settings": {**base, "top_k": 6, "sources": None, "questions": 0}})
    b = settings_line(
        {"protocol": "council", "settings": {**base, "top_k": 20, "sources": "local,web", "questions": 2}}
    )
    assert "evidence shown, not given to the agents (top 6 passages from every source that answers)" in a
    assert "(top 20 passages from local, web, 2 search questions)" in b
    # an events file from before these settings were recorded: no claim about how it was searched
    assert "passages from" not in settings_line({"protocol": "council", "settings": base})
