"""Learn's step-through replays a stored debate: its evidence panel says what is true at the step shown
(the passages arrive at step N, the debate had no retrieval), never a progress line for a search that
is not running, and its transcript does not say it is "waiting" for a first round that a replay has stored. Real runner, real store, the real embedder over a small corpus, AppTest on the page."""

from __future__ import annotations

import html
import json

import pytest
from streamlit.testing.v1 import AppTest

from debate import live
from debate.retrieval.retriever import Retriever
from debate.runner import DebateConfig, run_debate
from debate.store import DebateStore
from tests.support.scripted_runs import SCRIPTED_LINEUP, scripted_client, stored_council_debate

T = 60


def _panel(at: AppTest) -> str:
    return html.unescape(" ".join(c.value for c in at.caption))  # (captions escape the stored text)


def _open(did: str) -> AppTest:
    at = AppTest.from_file("../../pages/learn.py", default_timeout=T).run()
    at.selectbox(key="learn_debate").select(did).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.mark.timeout(180)
def test_a_debate_without_retrieval_says_so_at_every_step():
    at = _open(stored_council_debate("Tea cures colds, a study says."))
    for _ in range(3):
        text = _panel(at)
        assert "This debate had no evidence retrieval" in text, text
        assert "Searching" not in text and "Waiting" not in text
        at.button(key="learn_next").click().run()


@pytest.mark.timeout(300)
def test_passages_not_reached_yet_say_at_which_step_they_arrive(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_INDEX_DIR", str(tmp_path / "indexes"))
    corpus = tmp_path / "facts.jsonl"
    corpus.write_text(
        "\n".join(
            json.dumps({"id": f"c{i}", "text": t, "source": f"https://facts.example/{i}"})
            for i, t in enumerate(
                ["Colds are caused by viruses such as rhinoviruses.", "Green tea contains catechins and caffeine."]
            )
        )
    )
    cfg = DebateConfig(
        claim="Green tea cures colds, a study says.",
        protocol="council",
        task="checkthat",
        category=1,
        lineup=SCRIPTED_LINEUP,
        params={"rounds": 1},
        max_tokens=32,
        evidence=True,
        top_k=2,
    )
    did = live.start_debate(
        cfg, scripted_client("flip"), Retriever("learn-facts", corpus=corpus), DebateStore(), run=run_debate
    )
    assert live.wait(did, 120)
    events = DebateStore().event_dicts(did)
    (ev,) = [e for e in events if e["type"] == "evidence"]
    assert len(ev["passages"]) == 2
    at = _open(did)
    n = int(at.get("progress")[0].proto.text.split(" of ")[1])
    text = _panel(at)  # step 1: the debate has started, retrieval not yet reached in the replay
    assert "Not reached yet in this replay: 2 passages arrive at step 2 of " + str(n) in text, text
    assert "Searching" not in text and "Waiting for the first round" not in text
    assert "Nothing said yet at this step of the replay: the first turn comes at step " in text, text
    at.button(key="learn_next").click().run()  # step 2: the passages
    shown = " ".join(m.value for m in at.markdown)
    assert "Colds are caused by viruses" in shown and "Not reached yet" not in _panel(at)
    # the local index asked directly (no relevance floor): the panel says its passages were not floor-checked
    assert "no relevance floor was applied" in _panel(at)
