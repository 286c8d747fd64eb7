"""Adjudicate: a case with no stored debate (from an uploaded file) gets one run on demand on the real
embedded models; the debate is saved to the Library, attached to the case, and shown beside the labels."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from debate import live
from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import from_upload
from debate.store import DebateStore

llama_cpp = pytest.importorskip("llama_cpp")


@pytest.mark.real_model
@pytest.mark.timeout(600)
def test_case_without_a_debate_gets_one_on_demand():
    data = b"id,claim,label\nc1,The city cut its budget deficit by 15% last year.,HALF-TRUE\n"
    store = AnnotationStore()
    qid = store.create_queue(
        from_upload("cases.csv", data, task="halftruth", labels=["TRUE", "HALF-TRUE", "FALSE"], name="on-demand")
    )
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=120)
    at.query_params["who"] = "alice"
    at.query_params["q"] = qid
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("Run one on demand" in c.value for c in at.caption)
    at.selectbox(key="adj_run_proto").select("radar-single").run()
    at.button(key="adj_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (row,) = DebateStore().list(search="budget deficit")
    assert live.wait(row["id"], 500), "the on-demand debate did not finish"
    at.run()
    assert not at.exception
    done = DebateStore().get(row["id"])
    assert done["status"] == "completed" and done["protocol"] == "radar-single"
    events = DebateStore().events(row["id"])
    assert any(e.type == "turn_finished" and e.model.startswith("local:") for e in events)
    assert any(e.type == "verdict" and e.label in ("TRUE", "HALF-TRUE", "FALSE") for e in events)
    # the debate is attached to the case and shown with the labelling panel
    assert not any("Run one on demand" in c.value for c in at.caption)
    assert any("verdict-card" in m.value or "turn" in m.value for m in at.markdown)
