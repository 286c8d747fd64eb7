"""RADAR's evidence panel while retrieval runs (AppTest; scripted debaters, the real embedder, the
loopback stand-ins): "Searching…" with each source's state as the person reads it (waiting…, n passages,
timed out, rate-limited), then the final states, and the queries when the judge model wrote questions.

The local index is held back by a gate the test opens only after the page has shown it waiting, so the
intermediate state is observed without relying on timing."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest

from debate.retrieval.multi import MultiRetriever
from debate.retrieval.provenance import state_words
from debate.retrieval.retriever import Retriever
from debate.retrieval.sources import SourceSettings, make
from debate.retrieval.sources.local import LocalSource
from tests.support.engine import scripted
from tests.support.hostile_servers import evidence_services
from tests.ui.test_ui_app import _app, _html, _scripted_lineup, _set, _store

CLAIM = "People who drink 3 cups of coffee a day live longer, a study of 500,000 adults found"


class HeldLocal(LocalSource):
    """The local index, answering only once `gate` is open (a slow index, under the test's control)."""

    def __init__(self, retriever, gate: threading.Event) -> None:
        super().__init__(retriever)
        self.gate = gate

    def _search(self, query: str, n: int):
        self.gate.wait(300)
        return super()._search(query, n)


@pytest.fixture
def local(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_INDEX_DIR", str(tmp_path / "indexes"))
    f = tmp_path / "facts.jsonl"
    f.write_text(
        json.dumps(
            {
                "id": "coffee",
                "text": "Adults who drank three cups of coffee a day lived longer in a cohort study of 500,000 people.",
                "source": "https://facts.example/coffee",
                "title": "Coffee cohort",
            }
        )
    )
    from debate.retrieval import embed as embed_mod

    embed_mod.get_embedder()
    return Retriever("ui-progress", corpus=f)


def _until(at, what, timeout: float = 300.0) -> str:
    """Re-run the page (its fragment does not tick in AppTest) until `what(html)`; the html then."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        html = _html(at)
        if what(html):
            return html
        time.sleep(0.3)
    raise AssertionError(f"the page never showed it; last:\n{_html(at)[-3000:]}")


def test_state_words_say_what_a_source_did():
    assert state_words({"state": "waiting"}) == "waiting…"
    assert state_words({"state": "live", "passages": 1}) == "1 passage"
    assert state_words({"state": "cache", "passages": 3}) == "3 passages (cached)"
    assert state_words({"state": "timeout", "passages": 0}) == "timed out"
    assert state_words({"state": "timeout", "passages": 2}) == "timed out, kept 2"
    assert state_words({"state": "failed"}) == "failed" and state_words({"state": "rate-limited"}) == "rate-limited"


@pytest.mark.timeout(900)
def test_radar_shows_searching_with_each_sources_state_then_the_final_states(local):
    gate = threading.Event()
    with evidence_services(mediawiki="429", ddg="timeout") as s:
        st = SourceSettings(
            openalex_url=s["openalex"].url,
            wikipedia_url=s["mediawiki"].url + "/w/api.php",
            ddg_url=s["ddg"].url + "/html/",
            timeout_s=2.0,
            allow_private_addresses=("127.0.0.1",),
        )
        sources = [HeldLocal(local, gate), make("scholar", st), make("wikipedia", st), make("web", st)]
        for src in sources:
            src.cache = None
        retriever = MultiRetriever(["local", "scholar", "wikipedia", "web"], sources=sources, floor=0.2, budget_s=120)
        client, backend = scripted()  # RADAR's prompts answered by kind (questions, arguments, verdicts)
        for name in ("steady", "other"):  # listed as models, so the page's lineup check finds them
            backend._fixed[name] = backend.default
        preset = _scripted_lineup(_store(), "progress-lineup", ["steady", "other"])
        at = _app(_client=client, _retriever=retriever)
        at.text_area(key="claim").input(CLAIM)
        at.selectbox(key="cfg_preset").set_value(preset).run()
        at.radio(key="cfg_protocol").set_value("radar").run()
        _set(at, "cfg_questions", 2)
        at.run()
        at.button(key="run").click().run()
        assert not at.exception, [e.message for e in at.exception]
        assert "debate_id" in at.session_state, [e.value for e in at.error]
        debate_id = at.session_state["debate_id"]
        # while the local index is held: searching, the index waiting, the others' outcomes as they come
        during = _until(at, lambda h: "Searching…" in h and 'data-state="timeout"' in h)
        gate.set()
        store = _store()
        deadline = time.time() + 600
        while store.get(debate_id)["status"] == "running" and time.time() < deadline:
            time.sleep(0.5)
            at.run()
        at.run()
    assert store.get(debate_id)["status"] == "completed"
    assert ">local index</span> waiting…" in during
    assert re.search(r">OpenAlex</span> \d+ passages?<", during)  # answered while the index was still held
    assert ">Wikipedia</span> rate-limited" in during and ">web</span> timed out" in during
    assert "queries: “What did the coffee study find?”" in during  # the judge model's questions, searched
    after = _html(at)
    assert "Searching…" not in after
    assert re.search(r">local index</span> \d+ passages?<", after) and re.search(
        r">OpenAlex</span> \d+ passages?<", after
    )
    assert ">Wikipedia</span> rate-limited" in after and ">web</span> timed out" in after
    assert "queries: “" in after and "“Who ran the coffee study?”" in after and "questions by scripted:steady" in after
    (ev,) = [e for e in store.events(debate_id) if e.type == "evidence"]
    assert ev.questions == ["What did the coffee study find?", "Who ran the coffee study?"]
    progress = [e for e in store.events(debate_id) if e.type == "evidence_progress"]
    assert progress[0].stage == "questions" and any(
        x["state"] == "waiting" for p in progress for x in p.sources if x["name"] == "local"
    )
