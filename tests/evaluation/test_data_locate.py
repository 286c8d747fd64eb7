"""The data search order and what each feature says when a dataset is not there (unit level; the
whole product without its data is tests/real_model/test_lonely_clone.py).

`clone_without_sibling` points the repository root at a folder that holds only the shipped data/, so
the folder beside the checkout is absent, as on a user's machine."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from debate import config
from debate.data import locate
from debate.errors import InvalidInput
from tests.conftest import REPO
from tests.support.engine import by_type, run, scripted


@pytest.fixture
def clone_without_sibling(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "lonely" / "repo"
    shutil.copytree(REPO / "data", root / "data")
    monkeypatch.setattr(config, "REPO_ROOT", root)
    monkeypatch.setenv("DEBATE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DEBATE_SHARED_DATA", str(tmp_path / "empty"))
    (tmp_path / "empty").mkdir()
    return root


def test_the_order_is_env_then_fetched_then_shipped_then_beside_and_file_by_file(
    clone_without_sibling, tmp_path, monkeypatch
):
    names = [n for n, _ in locate.search_roots()]
    assert names == ["DEBATE_SHARED_DATA", "fetched", "shipped", "beside the checkout"]
    rel = "checkthat2025_4a/ct_dev.tsv"
    assert locate.where(rel) == ("shipped", clone_without_sibling / "data" / rel)  # an empty env folder: next one
    fetched = locate.fetched_dir() / rel
    fetched.parent.mkdir(parents=True)
    fetched.write_bytes((clone_without_sibling / "data" / rel).read_bytes())
    assert locate.find(rel) == fetched
    own = tmp_path / "empty" / rel
    own.parent.mkdir(parents=True)
    own.write_text("index\ttext\n1\tmine\n")
    assert locate.find(rel) == own  # DEBATE_SHARED_DATA first
    assert locate.find("liar/train.tsv") is None
    monkeypatch.delenv("DEBATE_SHARED_DATA")
    assert [n for n, _ in locate.search_roots()][0] == "fetched"


def test_a_missing_named_split_says_what_works_without_it_and_how_to_get_it(clone_without_sibling):
    from debate.datasets import load_dataset

    assert len(load_dataset("checkthat-train")) == 1229  # shipped
    with pytest.raises(InvalidInput) as e:
        load_dataset("averitec-dev")
    assert "AVeriTeC dev (averitec/dev.json, CC BY-NC 4.0) is not on this machine" in e.value.message
    assert "no local corpus" in e.value.message and "../shared" not in e.value.message + e.value.hint
    assert "python -m debate data fetch averitec" in e.value.hint and "DEBATE_SHARED_DATA" in e.value.hint


def test_the_local_index_without_its_corpus_says_no_local_corpus(clone_without_sibling):
    from debate.retrieval.multi import MultiRetriever
    from debate.retrieval.retriever import Retriever
    from debate.retrieval.sources.local import LocalSource

    r = Retriever()
    assert r.unavailable().startswith("No local corpus: AVeriTeC dev")
    ok, why = LocalSource(r).health(fresh=True)
    assert not ok and why.startswith("No local corpus")
    use, skipped, note = MultiRetriever(sources=[LocalSource(r)]).active()
    assert use == [] and skipped[0]["state"] == "unavailable" and skipped[0]["note"].startswith("No local corpus")
    with pytest.raises(InvalidInput, match="No local corpus"):
        r.load()


def test_examples_name_the_sources_that_are_missing(clone_without_sibling):
    from ui.examples import load_examples, missing_sources

    assert missing_sources("checkthat") == []
    assert missing_sources("halftruth") == ["LIAR valid", "AVeriTeC dev"]
    assert missing_sources("custom") == ["LIAR valid"]
    assert load_examples("halftruth") == [] and load_examples("checkthat")  # CheckThat ships


def test_a_radar_judge_without_fitted_weights_says_its_written_label_is_used():
    judge = '{"reason": "The evidence [E1] agrees.", "verdict": "TRUE"}'
    client, backend = scripted(
        {"verdict": judge},
        label_probs=lambda t, o: {"TRUE": 0.2, "HALF-TRUE": 0.3, "FALSE": 0.5} if "verdict" in t else None,
    )
    backend.supports_json_schema = True
    params = {"rounds": 0, "early_stop": False, "judge_answer": "constrained", "judge_calibration": "fitted"}
    v = by_type(run(client, protocol="radar", task="halftruth", category=None, params=params), "verdict")[-1]
    assert v.label == "TRUE" and v.probs is None
    assert "class weights not available" in v.explanation and "the judge's written label is used" in v.explanation
