"""Compare page on the real embedded models: two protocols on one claim, side by side, each column
streaming from llama.cpp through the background worker into the store, each with its own verdict.
A custom question keeps the prompts short so the run stays quick."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from debate import live
from debate.store import DebateStore

llama_cpp = pytest.importorskip("llama_cpp")


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_compare_baseline_and_single_debate_on_embedded_models():
    at = AppTest.from_file("../../pages/compare.py", default_timeout=120)
    at.run()
    assert not at.exception
    at.text_area(key="cmp_claim").input("Drinking two cups of green tea a day doubles your memory.").run()
    at.selectbox(key="cfg_task").select("custom").run()
    at.text_input(key="cfg_custom_title").input("make a health claim").run()
    at.selectbox(key="cmp_proto_0").select("baseline").run()
    at.selectbox(key="cmp_proto_1").select("single").run()
    for i in (0, 1):
        at.selectbox(key=f"cmp_lineup_{i}").select("embedded").run()
    at.number_input(key="cfg_max_tokens").set_value(24).run()
    at.number_input(key="p_single_rounds").set_value(1).run()
    at.button(key="cmp_run").click().run()
    ids = at.session_state["cmp_ids"]
    assert len(ids) == 2 and not at.session_state["cmp_problems"]
    for d in ids:
        assert live.wait(d, 800), f"debate {d} did not finish"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    rows = [DebateStore().get(d) for d in ids]
    assert [r["protocol"] for r in rows] == ["baseline", "single"]
    assert all(r["status"] == "completed" for r in rows), rows
    verdicts = [m.value for m in at.metric if m.label == "Verdict"]
    assert len(verdicts) == 2 and all(v in ("YES", "NO") for v in verdicts), verdicts
    calls = [int(m.value) for m in at.metric if m.label == "Model calls"]
    assert calls[0] >= 1 and calls[1] >= 7  # baseline: one answer (+repair); single R=1: 2+2+2 turns + judge
    for d in ids:  # every turn came from a real model, with real token counts
        turns = [e for e in DebateStore().events(d) if e.type == "turn_finished"]
        assert turns and all(t.model.startswith("local:") and t.completion_tokens > 0 for t in turns)
