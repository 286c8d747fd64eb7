"""One ranking over every source, the relevance floor and the offline path, on the real packaged
all-MiniLM-L6-v2 (no stand-in for the embedder), and what RADAR sees when nothing fits."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from debate.retrieval.multi import MultiRetriever, keywords
from debate.retrieval.ranking import rank
from debate.retrieval.retriever import Retriever
from debate.retrieval.sources import SourceSettings
from debate.retrieval.sources.base import Hit
from debate.retrieval.sources.local import LocalSource
from tests.support.engine import by_type, lineup, run, scripted
from tests.support.hostile_servers import evidence_services
from tests.support.servers import REPO, closed_port

FACTS = [
    ("eiffel", "The Eiffel Tower in Paris is 330 metres tall and was finished in 1889."),
    ("wall", "The Great Wall of China cannot be seen from space with the naked eye."),
    ("tides", "The Moon's gravity is the main cause of ocean tides on Earth."),
    ("vaccine", "The Pfizer vaccine trial enrolled about 43,000 participants."),
]


@pytest.fixture
def local(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_INDEX_DIR", str(tmp_path / "indexes"))
    f = tmp_path / "facts.jsonl"
    f.write_text(
        "\n".join(
            json.dumps({"id": i, "text": t, "source": f"https://facts.example/{i}", "title": i.title()})
            for i, t in FACTS
        )
    )
    return Retriever("facts", corpus=f)


def dead_settings() -> SourceSettings:
    dead = f"http://127.0.0.1:{closed_port()}"
    return SourceSettings(openalex_url=dead, wikipedia_url=dead + "/w/api.php", ddg_url=dead + "/html/")


def test_fusion_ranks_the_passage_about_the_claim_first_and_merges_duplicates():
    text = "Adults who drank two to three cups of coffee a day had a lower risk of death over ten years."
    hits = [
        Hit(
            text="Stock markets fell sharply on Monday after the central bank raised rates.",
            source="web",
            url="https://news.example/markets",
        ),
        Hit(text=text, source="web", url="https://news.example/coffee", title="Coffee study"),
        Hit(text=text.upper(), source="scholar", url="https://doi.org/10.1/x", doi="10.1/x"),  # same words
        Hit(text="Coffee beans are the seeds of a cherry-like fruit grown in the tropics.", source="wikipedia"),
    ]
    got = rank("Does drinking coffee every day lower the risk of death?", hits, k=3, floor=None)
    assert got.duplicates == 1 and got.candidates == 3
    top = got.passages[0]
    assert top["url"] == "https://news.example/coffee" and top["also_from"] == ["scholar"]
    assert top["origin"] == "web" and top["source"] == top["url"]  # the URL stays where the viewer reads it
    assert top["score"] > got.passages[-1]["score"] and top["rrf"] >= max(p["rrf"] for p in got.passages)
    plain = rank("Does drinking coffee every day lower the risk of death?", hits, k=3, floor=None, mmr=False)
    assert plain.passages[-1]["url"] == "https://news.example/markets"  # by relevance alone, the off-topic one is last


def test_mmr_keeps_a_repeat_of_one_fact_from_crowding_out_another():
    hits = [
        Hit(text="The Moon's gravity is the main cause of ocean tides on Earth.", source="local"),
        Hit(text="Ocean tides on Earth are caused mainly by the gravity of the Moon.", source="web"),
        Hit(text="The Sun's gravity also raises tides, about half as strong as the Moon's.", source="wikipedia"),
    ]
    plain = rank("What causes ocean tides, the Moon or the Sun?", hits, k=2, floor=None, mmr=False)
    diverse = rank("What causes ocean tides, the Moon or the Sun?", hits, k=2, floor=None, mmr=True, lambda_=0.3)
    assert any("Sun's" in p["text"] for p in diverse.passages)
    assert len(plain.passages) == len(diverse.passages) == 2


def test_the_floor_turns_away_passages_about_something_else_and_keeps_their_scores():
    hits = [Hit(text=t, source="local", url=f"https://facts.example/{i}") for i, t in FACTS]
    got = rank("Sea levels rose 20 cm since 1900, NASA data show", hits, k=3, floor=0.45)
    assert got.passages == [] and len(got.rejected) == 4
    assert all(r["score"] < 0.45 for r in got.rejected) and got.best_score == got.rejected[0]["score"]
    on_topic = rank("Is the Eiffel Tower 330 metres tall?", hits, k=3, floor=0.45)
    assert [p["url"] for p in on_topic.passages] == ["https://facts.example/eiffel"]


def test_offline_the_default_is_the_local_index_alone_and_says_so(local):
    m = MultiRetriever(None, settings=dead_settings(), local=local, floor=None)
    g = m.gather("How tall is the Eiffel Tower?", 2)
    states = {s["name"]: s["state"] for s in g.sources}
    assert states == {"local": "live", "scholar": "unavailable", "wikipedia": "unavailable", "web": "unavailable"}
    assert "No online source answered" in g.note and "only the local index" in g.note
    assert g.passages[0]["origin"] == "local" and "Eiffel" in g.passages[0]["text"]


def test_every_source_together_against_the_stand_ins(local):
    with evidence_services() as s:
        st = SourceSettings(
            openalex_url=s["openalex"].url,
            wikipedia_url=s["mediawiki"].url + "/w/api.php",
            ddg_url=s["ddg"].url + "/html/",
            allow_private_addresses=("127.0.0.1",),
        )
        m = MultiRetriever(None, settings=st, local=local, floor=0.3)
        for src in m.sources.values():
            src.cache = None
        g = m.gather("People who drink 3 cups of coffee a day live longer, a study of 500,000 adults found", 4)
    states = {x["name"]: x["state"] for x in g.sources}
    assert states == {"local": "live", "scholar": "live", "wikipedia": "live", "web": "live"}
    origins = {p["origin"] for p in g.passages}
    assert len(origins) >= 2 and "local" not in origins  # the local facts are about something else
    assert all(x["passages"] > 0 for x in g.sources)
    assert all(p["score"] >= 0.3 for p in g.passages) and not any("Eiffel" in p["text"] for p in g.passages)
    scholar_q = next(x["query"] for x in g.sources if x["name"] == "scholar")
    assert scholar_q == keywords("People who drink 3 cups of coffee a day live longer, a study of 500,000 adults found")


def test_a_source_past_its_budget_is_left_out_and_the_rest_still_answer(local):
    with evidence_services(openalex="timeout") as s:
        st = SourceSettings(
            openalex_url=s["openalex"].url,
            wikipedia_url=s["mediawiki"].url + "/w/api.php",
            ddg_url=s["ddg"].url + "/html/",
            allow_private_addresses=("127.0.0.1",),
            timeout_s=20,
        )
        m = MultiRetriever(["local", "scholar", "wikipedia"], settings=st, local=local, floor=None, budget_s=1.5)
        for src in m.sources.values():
            src.cache = None
        g = m.gather("coffee mortality", 3)
    by = {x["name"]: x for x in g.sources}
    assert by["scholar"]["state"] == "timeout" and "budget" in by["scholar"]["note"]
    assert by["wikipedia"]["state"] == "live" and g.passages


def test_radar_gets_only_passing_passages_and_its_judge_is_told_none_fit(local):
    client, backend = scripted()
    retriever = MultiRetriever(["local"], sources=[LocalSource(local)], floor=0.9)
    ev = run(
        client,
        "radar-single",
        task="halftruth",
        category=None,
        retriever=retriever,
        evidence=True,
        claim="Sea levels rose 20 cm since 1900, NASA data show",
        lineup=lineup(2),
        params={"single_mode": "judge"},
    )
    e = by_type(ev, "evidence")[0]
    assert e.passages == [] and e.floor == 0.9 and e.rejected and all(r["score"] < 0.9 for r in e.rejected)
    assert "No passage is about this claim" in e.note and e.sources[0]["state"] == "live"
    judge_prompts = [c["messages"][-1]["content"] for c in backend.calls if "[VERDICT]" in c["messages"][-1]["content"]]
    assert judge_prompts and all("no retrieved passage is about this claim" in p for p in judge_prompts)
    assert not any("Eiffel" in p for p in judge_prompts)
    assert by_type(ev, "finished")[0].status == "completed"


def test_cli_rejects_an_unknown_source_with_a_hint():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "debate",
            "run",
            "--protocol",
            "radar",
            "--sources",
            "local,bing",
            "--no-check",
            "A claim",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert r.returncode != 0 and "Unknown evidence source 'bing'" in (r.stderr + r.stdout)
    assert "Traceback" not in r.stderr
