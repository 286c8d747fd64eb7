"""Compare with every seat on one server: the Debate page's "Run every seat on" box, applied to each column.

Real parts: the Ollama stand-in (Ollama's REST API over the packaged Qwen2.5-Coder-0.5B and SmolLM2-135M, under
Ollama's tags) on loopback, the real `ollama` client, the background worker and the store. The paper's
council (five members, one round of votes) beside the few-shot baseline on the OpenAI-flavoured preset:
both lineups land on the one Ollama server, so the box, not the presets, decides where the seats run.
"""

from __future__ import annotations

import html

import pytest
from streamlit.testing.v1 import AppTest

from debate import live
from debate.models.registry import default_client
from debate.store import DebateStore
from tests.support.paper_server import CLAIM, OLLAMA_MAP, council_ran, map_text, start_paper_ollama
from tests.support.servers import closed_port

pytest.importorskip("llama_cpp")


@pytest.fixture(scope="module")
def ollama(tmp_path_factory):
    srv = start_paper_ollama(tmp_path_factory.mktemp("cmp-ollama"))
    yield srv
    srv.stop()


def _said(at: AppTest) -> str:
    return html.unescape(" ".join(w.value for w in [*at.warning, *at.error, *at.caption]))


@pytest.mark.real_model
@pytest.mark.timeout(1200)
def test_compare_runs_every_column_on_the_chosen_server(ollama):
    at = AppTest.from_file("../../pages/compare.py", default_timeout=120)
    # the members are asked at once and the stand-in answers one after another
    at.session_state["_client"] = default_client({"ollama": {"timeout_s": 900, "max_parallel": 1}}, cache=False)
    at.run()
    at.text_area(key="cmp_claim").input(CLAIM).run()
    at.selectbox(key="cmp_proto_0").select("council").run()
    at.selectbox(key="cmp_proto_1").select("baseline").run()
    at.selectbox(key="cmp_lineup_0").select("paper-council-ollama").run()
    at.selectbox(key="cmp_lineup_1").select("paper-council-openai").run()
    at.toggle(key="cfg_aids").set_value(False).run()
    at.number_input(key="cfg_max_tokens").set_value(24).run()
    at.number_input(key="p_council_rounds").set_value(0).run()
    for proto in ("council", "baseline"):  # short prompts: no few-shot examples
        at.toggle(key=f"p_{proto}_examples").set_value(False).run()
    assert not at.exception, [e.message for e in at.exception]

    # a server nobody listens on: each column says so, and how to start one
    at.selectbox(key="cfg_server_kind").set_value("ollama").run()
    down = f"http://127.0.0.1:{closed_port()}"
    at.text_input(key="cfg_server_url").input(down).run()
    said = _said(at)
    assert f"Cannot list the models of the Ollama server at {down}" in said and "ollama serve" in said
    assert not at.exception, [e.message for e in at.exception]

    # the stand-in without a map: each column names the models it lacks, for which seats, and what to pull
    at.text_input(key="cfg_server_url").input(ollama.url).run()
    lacks = [html.unescape(w.value) for w in at.warning if "lacks" in w.value]
    assert len(lacks) == 2, _said(at)
    assert all(
        f"Ollama server at {ollama.url} lacks" in w
        and "It has: qwen2.5:0.5b, smollm2:135m." in w
        and "`ollama pull gemma3:12b`" in w
        for w in lacks
    )
    assert "lacks 6" in lacks[0] and "gemma3:12b (Gemma3)" in lacks[0] and "mistral:7b (Mistral)" in lacks[0]
    at.button(key="cmp_run").click().run()  # refused per column before anything runs
    problems = [html.unescape(p) for p in at.session_state["cmp_problems"]]
    assert len(problems) == 2 and not at.session_state["cmp_ids"], problems
    assert all(f"Ollama server at {ollama.url} lacks" in p and "ollama pull" in p for p in problems), problems

    # mapped: each column says where its models went, and both run on the server
    at.text_area(key="cfg_server_map").input(map_text(OLLAMA_MAP)).run()
    assert not any("lacks" in w.value for w in at.warning), _said(at)
    assert sum("gemma3:12b → qwen2.5:0.5b (mapped)" in html.unescape(c.value) for c in at.caption) == 2
    at.button(key="cmp_run").click().run()
    ids = at.session_state["cmp_ids"]
    assert len(ids) == 2 and not at.session_state["cmp_problems"], at.session_state["cmp_problems"]
    for d in ids:
        assert live.wait(d, 1000), f"debate {d} did not finish"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    store = DebateStore()
    council = [e.to_dict() for e in store.events(ids[0])]
    council_ran(council, ollama.url, "ollama", OLLAMA_MAP)
    baseline = [e.to_dict() for e in store.events(ids[1])]
    turns = [e for e in baseline if e["type"] == "turn_finished"]
    assert turns and all(
        t["model"].startswith("ollama:") and t["model"].endswith(f"@{ollama.url}") and t["completion_tokens"] > 0
        for t in turns
    )
    assert baseline[-1]["type"] == "finished" and baseline[-1]["status"] == "completed"
    verdicts = [m.value for m in at.metric if m.label == "Verdict"]
    assert len(verdicts) == 2 and all(v in ("YES", "NO") for v in verdicts), verdicts
