"""The CSV exports say when an aid's label differs from the verdict's, as every other view of the verdict
does: the verdict is the label the judge wrote, the aid's label a second opinion named as such.

Debates run through the live worker into a real SQLite store; the CSV files are written as the Library's
download buttons would write them and read back with the csv module. The judge is scripted where the test
needs a given overrule (both outcomes every time), and the embedded Qwen2.5-Coder-0.5B where it is real.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from debate import live
from debate.aids import calibration as cal
from debate.runner import DebateConfig
from debate.sharing import exports
from debate.store import DebateStore
from tests.services.test_verdict_words import CLAIM, RADAR_LINEUP, _radar_client
from tests.support.fitted import fitted  # noqa: F401 (a fixture)

FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")
WEIGHTS_KEY = cal.judge_key("scripted:judge", "halftruth", "radar", "constrained")


def _stored(store: DebateStore, client, lineup, debate_id: str) -> str:
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="radar",
        task="halftruth",
        category=None,
        lineup=lineup,
        params={"rounds": 0, "early_stop": False},
        max_tokens=48,
        aids=True,
        evidence=False,
        debate_id=debate_id,
    )
    did = live.start_debate(cfg, client, None, store, wait_first_s=600)
    assert live.wait(did, 1800)
    assert store.get(did)["status"] == "completed", store.event_dicts(did)[-3:]
    return did


def _read(path: Path, text: str) -> list[dict]:
    path.write_text(text, encoding="utf-8", newline="")
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    cells = [c for r in rows for c in r]
    assert not [c for c in cells if c[:1] in FORMULA_LEADS], cells  # the formula guard, headers included
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _exports(tmp_path: Path, store: DebateStore, did: str) -> tuple[dict, dict, dict]:
    """(the verdict row and the judge's row of the per-turn CSV, the debate's row of the list CSV)."""
    turns = _read(tmp_path / f"debate-{did}.csv", exports.export_csv(store, did))
    listing = _read(tmp_path / f"debates-{did}.csv", exports.library_csv(store, store.list()))
    verdict = next(r for r in turns if r["phase"] == "verdict")
    judge = [r for r in turns if r["role"] == "judge"][-1]
    return verdict, judge, next(r for r in listing if r["id"] == did)


def _says_second_opinion(verdict: dict, judge: dict, listed: dict, written: str, given: str) -> None:
    sentence = f"Calibrated reading: {given} (class weights fitted on"
    assert judge["label"] == written == verdict["label"] == listed["verdict"]  # the verdict is what the judge wrote
    assert verdict["written_label"] == written == listed["written_label"] and verdict["reading"] == "written"
    assert verdict["calibrated_label"] == given == listed["calibrated_label"]
    assert verdict["overrule"].startswith(sentence) and listed["overrule"].startswith(sentence)
    assert "a second opinion" in verdict["overrule"]
    assert "class weights fitted on" in verdict["aid"] and verdict["aid"] == listed["aid"]


def _says_nothing_overruled(verdict: dict, judge: dict, listed: dict) -> None:
    assert verdict["label"] == judge["label"] == listed["verdict"] == verdict["calibrated_label"]
    assert verdict["written_label"] == verdict["overrule"] == ""
    assert listed["written_label"] == listed["aid"] == listed["overrule"] == listed["calibrated_label"] == ""


def test_both_csv_exports_say_when_the_fitted_weights_disagree_with_the_judge(tmp_path, fitted):
    store = DebateStore(tmp_path / "debates.sqlite")
    probs = {"TRUE": 0.55, "FALSE": 0.08, "HALF-TRUE": 0.37}  # the scripted judge writes TRUE
    fitted(WEIGHTS_KEY, {"weights": {"TRUE": 1.0, "FALSE": 12.18, "HALF-TRUE": 2.1}, "fitted_on": "liar-train, 90"})
    over = _stored(store, _radar_client(probs), RADAR_LINEUP, "overruled01")
    fitted(WEIGHTS_KEY, {"weights": {"TRUE": 1.0, "FALSE": 1.5, "HALF-TRUE": 1.0}, "fitted_on": "liar-train"})
    kept = _stored(store, _radar_client(probs), RADAR_LINEUP, "kept01")

    verdict, judge, listed = _exports(tmp_path, store, over)
    _says_second_opinion(verdict, judge, listed, "TRUE", "FALSE")
    assert "FALSE ×12.18" in verdict["aid"]
    _says_nothing_overruled(*_exports(tmp_path, store, kept))


def test_the_list_csv_names_each_category_an_aid_overruled():
    from debate.sharing.exports import list_csv

    verdicts = [
        {
            "type": "verdict",
            "category": c,
            "label": "YES",
            "written_label": "NO",
            "source": "judge",
            "aid": "=threshold fitted on train",
        }
        for c in (1, 3)
    ]
    rows = [{"id": "d1", "claim": "c", "verdict": '{"1": "YES", "2": "NO", "3": "YES"}'}, {"id": "d2", "claim": "c"}]
    out = list(csv.DictReader(list_csv(rows, {"d1": verdicts}).splitlines()))
    assert out[0]["written_label"] == "category 1: NO · category 3: NO"
    once = (
        "Calibrated reading (=threshold fitted on train), recorded before the written label became the "
        "verdict: the judge wrote NO; the calibration gives YES."
    )  # verdicts stored before the reading was a choice: the calibrated label was their answer
    assert out[0]["overrule"] == f"category 1: {once} category 3: {once}"
    assert out[0]["aid"] == "'=threshold fitted on train"  # a cell that starts like a formula is guarded
    assert out[1]["written_label"] == out[1]["aid"] == out[1]["overrule"] == ""


@pytest.mark.real_model
@pytest.mark.timeout(1800)  # one embedded RADAR (~1 min idle), then the same answers from the response cache
def test_real_judge_overruled_and_not_in_both_csv_exports(tmp_path, fitted):
    pytest.importorskip("llama_cpp")
    from debate.models.registry import default_client

    store = DebateStore(tmp_path / "debates.sqlite")
    client = default_client()  # the response cache on: the second debate reads the first one's answers
    key = cal.judge_key("local:qwen2.5-coder-0.5b", "halftruth", "radar", "constrained")

    def favour(label: str) -> None:  # weights that give `label` whatever the judge's probabilities are
        fitted(
            key,
            {
                "weights": {k: (1e6 if k == label else 1.0) for k in ("TRUE", "FALSE", "HALF-TRUE")},
                "fitted_on": "a test's own weights",
            },
        )

    favour("FALSE")
    first = _stored(store, client, "embedded", "real01")
    written = next(
        e for e in reversed(store.event_dicts(first)) if e["type"] == "turn_finished" and e["role"] == "judge"
    )["label"]
    assert written in ("TRUE", "FALSE", "HALF-TRUE")
    favour(written if written != "FALSE" else "TRUE")
    second = _stored(store, client, "embedded", "real02")
    assert any(e.get("cached") for e in store.event_dicts(second) if e["type"] == "turn_finished")
    over, kept = (first, second) if written != "FALSE" else (second, first)
    verdict, judge, listed = _exports(tmp_path, store, over)
    _says_second_opinion(verdict, judge, listed, written, "FALSE" if over == first else "TRUE")
    _says_nothing_overruled(*_exports(tmp_path, store, kept))
