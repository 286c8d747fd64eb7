"""The Debate page with several evidence sources (AppTest, scripted voters, the real embedder, the
loopback stand-ins): provenance per passage, the sources' states, the sidebar choice recorded in the
debate's settings, and the "nothing fits" message instead of off-topic passages."""

from __future__ import annotations

import json

import pytest

from debate.retrieval.multi import MultiRetriever
from debate.retrieval.retriever import Retriever
from debate.retrieval.sources import SourceSettings
from tests.support.hostile_servers import evidence_services
from tests.ui.test_ui_app import _app, _html, _run_to_end, _scripted_client, _scripted_lineup, _set, _store

CLAIM = "People who drink 3 cups of coffee a day live longer, a study of 500,000 adults found"


@pytest.fixture
def local(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_INDEX_DIR", str(tmp_path / "indexes"))
    f = tmp_path / "facts.jsonl"
    f.write_text(
        json.dumps(
            {
                "id": "eiffel",
                "text": "The Eiffel Tower in Paris is 330 metres tall.",
                "source": "https://facts.example/eiffel",
                "title": "Eiffel",
            }
        )
    )
    from debate.retrieval import embed as embed_mod

    embed_mod.get_embedder()  # loaded before the page's threads start, as the app's warm-up does
    return Retriever("ui-facts", corpus=f)


def _retriever(s, local, floor):
    st = SourceSettings(
        openalex_url=s["openalex"].url,
        wikipedia_url=s["mediawiki"].url + "/w/api.php",
        ddg_url=s["ddg"].url + "/html/",
        allow_private_addresses=("127.0.0.1",),
    )
    m = MultiRetriever(["local", "scholar", "web"], settings=st, local=local, floor=floor)
    for src in m.sources.values():
        src.cache = None
    return m


@pytest.mark.timeout(1200)
def test_passages_show_where_they_came_from_and_who_cited_them(local):
    with evidence_services() as s:
        preset = _scripted_lineup(_store(), "sources-lineup", ["steady", "other"])
        at = _app(_client=_scripted_client(), _retriever=_retriever(s, local, 0.3))
        assert at.multiselect(key="cfg_sources").options  # the sidebar offers the sources
        at.multiselect(key="cfg_sources").set_value(["local", "scholar", "web"])
        at.text_area(key="claim").input(CLAIM)
        at.selectbox(key="cfg_preset").set_value(preset).run()
        _set(at, "cfg_evidence_council", True)
        _set(at, "cfg_top_k", 6)
        _set(at, "p_council_rounds", 1)
        row = _run_to_end(at, timeout=600)
    assert row["status"] == "completed", row
    events = _store().events(row["id"])
    assert events[0].settings["sources"] == "local,scholar,web"  # the debate records what was asked
    (ev,) = [e for e in events if e.type == "evidence"]
    assert {x["name"]: x["state"] for x in ev.sources} == {"local": "live", "scholar": "live", "web": "live"}
    assert ev.floor == 0.3 and not any("Eiffel" in p["text"] for p in ev.passages)
    assert {p["origin"] for p in ev.passages} == {"scholar", "web"}
    html = _html(at)
    assert ">OpenAlex</span>" in html and ">web</span>" in html  # a badge per source
    assert "https://doi.org/10.1000/standin.0" in html and "Journal of Stand-ins" in html
    assert "Science Daily Stand-in" in html and "2023-06-01" in html  # site and date of the web page
    assert "query “" in html and "cited by steady" in html
    assert "relevance floor 0.30" in html
    assert "<script>" not in html


@pytest.mark.timeout(1200)
def test_nothing_fits_is_said_instead_of_showing_off_topic_passages(local):
    with evidence_services() as s:
        preset = _scripted_lineup(_store(), "nofit-lineup", ["steady", "other"])
        at = _app(_client=_scripted_client(), _retriever=_retriever(s, local, 0.99))
        at.text_area(key="claim").input(CLAIM)
        at.selectbox(key="cfg_preset").set_value(preset).run()
        _set(at, "cfg_evidence_council", True)
        _set(at, "p_council_rounds", 1)
        row = _run_to_end(at, timeout=600)
    (ev,) = [e for e in _store().events(row["id"]) if e.type == "evidence"]
    assert ev.passages == [] and ev.rejected and "No passage is about this claim" in ev.note
    assert any("No passage is about this claim" in i.value for i in at.info)
    assert "Eiffel" not in _html(at)
