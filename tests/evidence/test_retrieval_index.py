"""Embedding, faiss indexes, persistence and search with the real packaged all-MiniLM-L6-v2.

Small corpora in a per-test index folder, except the default-corpus tests, which share the AVeriTeC
index in DEBATE_INDEX_DIR (built once, ~1 min on 2 busy cores, then loaded).
"""

from __future__ import annotations

import json
import threading

import pytest

from debate.__main__ import main
from debate.errors import InvalidInput
from debate.retrieval import embed as embed_mod
from debate.retrieval import index as index_mod
from debate.retrieval.corpus import Document, Passage
from debate.retrieval.retriever import Retriever, default_retriever
from tests.conftest import data_path

FACTS = [
    ("eiffel", "The Eiffel Tower in Paris is 330 metres tall and was finished in 1889.", "https://ex.org/eiffel"),
    ("moon", "The Moon's gravity is the main cause of ocean tides on Earth.", "https://ex.org/moon"),
    ("vaccine", "The Pfizer vaccine trial enrolled about 43,000 participants.", "https://ex.org/vaccine"),
    ("wall", "The Great Wall of China cannot be seen from space with the naked eye.", "https://ex.org/wall"),
    ("coffee", "Coffee beans are the seeds of a cherry-like fruit.", "https://ex.org/coffee"),
    ("tides2", "Ocean tides on Earth are caused mostly by the Moon pulling on the water.", "https://ex.org/tides2"),
]


@pytest.fixture
def index_home(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_INDEX_DIR", str(tmp_path / "indexes"))
    return tmp_path / "indexes"


@pytest.fixture
def corpus(tmp_path):
    f = tmp_path / "facts.jsonl"
    f.write_text("\n".join(json.dumps({"id": i, "text": t, "source": s, "title": i.title()}) for i, t, s in FACTS))
    return f


@pytest.mark.timeout(300)
def test_embedder_is_checked_normalised_and_shared():
    import numpy as np

    assert embed_mod.verify_model().name == "model"
    vecs = embed_mod.embed(["a cat sat on the mat", "a kitten sat on a rug", "stock markets fell sharply"])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2] + 0.2
    got = []
    threads = [threading.Thread(target=lambda: got.append(embed_mod.get_embedder())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(e is got[0] for e in got)


def test_bad_model_file_is_refused(tmp_path, monkeypatch):
    from debate.errors import ModelFileError

    (tmp_path / "model.safetensors").write_bytes(b"not the model")
    with pytest.raises(ModelFileError) as e:
        embed_mod.verify_model(tmp_path)
    assert "SHA-256" in str(e.value) and "reinstall" in e.value.hint


@pytest.mark.timeout(300)
def test_search_persistence_round_trip_and_incremental(index_home, corpus):
    r = Retriever("facts", corpus)
    hits = r.search("What causes the tides?", k=3)
    assert r.built and [h["id"] for h in hits] == ["E1", "E2", "E3"]
    assert {hits[0]["doc_id"], hits[1]["doc_id"]} == {"moon", "tides2"}
    assert hits[0]["score"] >= hits[1]["score"] >= hits[2]["score"] and 0.3 < hits[0]["score"] <= 1.0
    assert set(hits[0]) == {"id", "text", "score", "source", "title", "date", "doc_id", "passage_id"}
    assert hits[0]["source"].startswith("https://ex.org/") and hits[0]["title"]
    saved = json.loads((index_home / "facts" / "meta.json").read_text())
    assert saved["model_id"] == embed_mod.MODEL_ID and saved["passages"] == 6 and saved["index_type"] == "flat"

    again = Retriever("facts", corpus)  # same corpus: loaded, not rebuilt
    assert again.search("What causes the tides?", k=3) == hits and not again.built

    with corpus.open("a") as f:  # corpus grows: rebuilt, re-embedding only the new passage
        f.write(
            "\n"
            + json.dumps({"id": "nile", "text": "The Nile is about 6,650 km long.", "source": "https://ex.org/nile"})
        )
    grown = Retriever("facts", corpus)
    assert grown.search("length of the Nile river", k=1)[0]["doc_id"] == "nile"
    assert grown.built and grown.info()["embedded"] == 1 and grown.info()["reused"] == 6

    added = grown.add(
        [
            Document("amazon", "The Amazon rainforest spans nine countries.", source="https://ex.org/az"),
            Document("dup", "the eiffel tower in paris is 330 metres tall and was finished in 1889"),
        ]
    )
    assert added == 1  # the near-duplicate is dropped
    reloaded = Retriever("facts")  # no corpus: whatever is saved under the name
    assert reloaded.search("rainforest countries", k=1)[0]["doc_id"] == "amazon" and len(reloaded.load()) == 8


@pytest.mark.timeout(300)
def test_mmr_diversifies(index_home, corpus):
    r = Retriever("facts-mmr", corpus)
    plain = r.search("ocean tides and the moon", k=3)
    diverse = r.search("ocean tides and the moon", k=3, mmr=True, lambda_=0.3)
    assert {h["doc_id"] for h in plain[:2]} == {"moon", "tides2"}
    assert diverse[0]["doc_id"] == plain[0]["doc_id"]
    assert [h["doc_id"] for h in diverse[:2]].count("tides2") + [h["doc_id"] for h in diverse[:2]].count("moon") == 1
    assert [h["id"] for h in diverse] == ["E1", "E2", "E3"] and len({h["passage_id"] for h in diverse}) == 3
    with pytest.raises(InvalidInput):
        r.search("x", mmr=True, lambda_=2)
    assert len(r.search("anything", k=50)) == 6  # k larger than the corpus


def test_approximate_index_recall_on_synthetic_vectors(index_home):
    """5,000 clustered unit vectors: HNSW above the threshold, recall@10 against exact measured."""
    import numpy as np

    rng = np.random.default_rng(1)
    centres = rng.normal(size=(50, 384))
    vecs = centres[rng.integers(0, 50, 5000)] + rng.normal(scale=0.7, size=(5000, 384))
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype("float32")
    passages = [Passage(f"p{i}", f"d{i}", f"synthetic passage {i}") for i in range(5000)]
    vi = index_mod.build("synthetic", passages, limit=1000, embed_fn=lambda texts: vecs[: len(texts)])
    assert vi.meta["index_type"] == "hnsw" and vi.meta["approx_recall_at_10"] >= 0.95
    queries = index_mod.probe_queries(vecs, n=300, seed=7)
    assert index_mod.recall_at_k(vi.index, vecs, queries, 10) >= 0.95
    loaded = index_mod.VectorIndex.load("synthetic")
    assert loaded.meta["index_type"] == "hnsw" and len(loaded) == 5000
    _, rows = loaded.search_vectors(queries[:5], 10)
    _, rows2 = vi.search_vectors(queries[:5], 10)
    assert (rows == rows2).all()


def test_crossing_the_threshold_switches_to_hnsw(index_home):
    import numpy as np

    rng = np.random.default_rng(2)
    fake = lambda texts: (lambda v: (v / np.linalg.norm(v, axis=1, keepdims=True)).astype("float32"))(
        rng.normal(size=(len(texts), 384))
    )
    vi = index_mod.build("grow", [Passage(f"p{i}", "d", f"text {i}") for i in range(80)], limit=100, embed_fn=fake)
    assert vi.meta["index_type"] == "flat" and vi.meta["approx_recall_at_10"] is None
    vi.add([Passage(f"q{i}", "d", f"more {i}") for i in range(40)], embed_fn=fake)
    assert vi.meta["index_type"] == "hnsw" and vi.index.ntotal == 120 and vi.meta["approx_recall_at_10"] > 0.9


@pytest.mark.timeout(900)
def test_default_corpus_real_recall_and_sensible_hits():
    data_path("averitec/dev.json")  # the default corpus is AVeriTeC dev's evidence
    import numpy as np

    r = default_retriever()
    hits = r.search("Joe Biden says he will ban fracking", k=5)
    assert hits[0]["doc_id"].startswith("averitec-dev/149/") and "fracking" in hits[0]["text"].lower()
    assert hits[0]["source"].startswith("http")
    info = r.info()
    assert info["licence"] == "CC BY-NC 4.0" and 1200 < info["passages"] < 1500

    # HNSW over the real default-corpus vectors, queried with real claims
    from debate.retrieval import averitec

    vi = r.load()
    claims = [c["claim"] for c in averitec.load_claims()[:100]]
    q = embed_mod.embed(claims)
    hnsw = index_mod.make_faiss_index(vi.vectors, limit=100)
    assert index_mod.index_kind(hnsw) == "hnsw"
    assert index_mod.recall_at_k(hnsw, vi.vectors, np.asarray(q), 10) >= 0.95


@pytest.mark.timeout(300)
def test_concurrent_first_searches_build_once(index_home, corpus):
    r = Retriever("facts-conc", corpus)
    results, errors = [], []

    def go():
        try:
            results.append(r.search("Eiffel Tower height", k=1)[0]["doc_id"])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=go) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == ["eiffel"] * 4
    assert len(list(index_home.glob(".facts-conc*"))) == 0  # no stray temporary folders


@pytest.mark.timeout(300)
def test_cli_build_info_query(index_home, corpus, capsys):
    assert main(["index", "build", "--corpus", str(corpus)]) == 0
    out = capsys.readouterr().out
    assert "index 'facts' built" in out and "6 passages" in out
    assert main(["index", "build", "--corpus", str(corpus)]) == 0
    assert "up to date" in capsys.readouterr().out
    assert main(["index", "info", "--name", "facts"]) == 0
    assert "passages: 6" in capsys.readouterr().out
    assert (
        main(
            ["index", "query", "Who built the Great Wall and is it visible from orbit?", "--k", "2", "--name", "facts"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("[E1] ") and "https://ex.org/wall" in out.splitlines()[0] and "[E2]" in out
    assert main(["index", "query", "tides", "--name", "facts", "--json", "--k", "1", "--mmr"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["id"] == "E1"
    assert main(["index", "info", "--name", "nothing-here"]) == 2
    assert "No index named 'nothing-here'" in capsys.readouterr().err
    bad = corpus.with_name("bad.csv")
    bad.write_text("title\nx\n")
    assert main(["index", "build", "--corpus", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv, line 1" in err and "hint: Fix:" in err
