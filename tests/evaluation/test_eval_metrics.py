"""Metrics, paired comparison and early-stop calibration against values computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import f1_score

from debate.evaluation.calibrate import calibrate, replay, stop_rounds_table
from debate.evaluation.extract import debate_stats, extract_prediction
from debate.evaluation.metrics import compare_runs, compute_metrics, macro_f1_idx, score

CT = {"name": "checkthat-dev", "task": "checkthat", "labels": ["YES", "NO"], "categories": ["1", "2", "3"]}
HT = {"name": "liar-valid", "task": "halftruth", "labels": ["TRUE", "HALF-TRUE", "FALSE"], "categories": []}


def test_binary_scores_by_hand():
    gold = ["YES", "YES", "YES", "NO", "NO", "NO", "NO", "NO"]
    pred = ["YES", "YES", "NO", "YES", "NO", "NO", "NO", None]
    s = score(gold, [p or "INVALID" for p in pred], ["YES", "NO"])
    # YES: tp2 fp1 fn1 -> 4/6; NO: tp3 fp1 fn2 (one unparsed answer) -> 6/9
    assert s["f1"]["YES"] == pytest.approx(4 / 6) and s["f1"]["NO"] == pytest.approx(6 / 9)
    assert s["macro_f1"] == pytest.approx((4 / 6 + 6 / 9) / 2)
    assert s["accuracy"] == pytest.approx(5 / 8) and s["invalid"] == 1
    assert s["confusion"] == {
        "gold_labels": ["YES", "NO"],
        "pred_labels": ["YES", "NO", "INVALID"],
        "matrix": [[2, 1, 0], [1, 3, 1]],
    }


def test_three_class_scores_by_hand_and_coverage():
    gold = ["TRUE", "TRUE", "HALF-TRUE", "FALSE", "FALSE", "FALSE"]
    pred = ["TRUE", "HALF-TRUE", "HALF-TRUE", "FALSE", "TRUE", "FALSE"]
    rows = [
        {"item_id": str(i), "status": "done", "gold": g, "prediction": p, "stats": {"tokens": 10, "rounds": 2}}
        for i, (g, p) in enumerate(zip(gold, pred))
    ]
    rows.append({"item_id": "x", "status": "failed", "gold": "TRUE", "prediction": None, "stats": {}})
    m = compute_metrics(rows, HT)
    assert m["f1"] == pytest.approx({"TRUE": 0.5, "HALF-TRUE": 2 / 3, "FALSE": 0.8})
    assert m["macro_f1"] == pytest.approx((0.5 + 2 / 3 + 0.8) / 3)
    assert m["accuracy"] == pytest.approx(4 / 6) and m["n"] == 6
    assert m["coverage"] == {"items": 7, "done": 6, "failed": 1, "pending": 0}
    assert m["debate"]["tokens_total"] == 60 and m["debate"]["rounds_mean"] == 2


def test_checkthat_macro_is_mean_of_per_category_macro_f1():
    rows = []
    golds = [("YES", "NO", "YES"), ("NO", "NO", "NO"), ("YES", "YES", "YES"), ("NO", "YES", "YES")]
    preds = [("YES", "NO", "NO"), ("NO", "YES", "NO"), ("YES", "YES", "YES"), ("YES", "YES", "YES")]
    for i, (g, p) in enumerate(zip(golds, preds)):
        rows.append(
            {
                "item_id": str(i),
                "status": "done",
                "gold": dict(zip("123", g)),
                "prediction": dict(zip("123", p)),
                "stats": {},
            }
        )
    m = compute_metrics(rows, CT)
    for c in "123":
        k = int(c) - 1
        exp = f1_score([g[k] for g in golds], [p[k] for p in preds], average="macro")
        assert m["categories"][c]["macro_f1"] == pytest.approx(exp)
    assert m["macro_f1"] == pytest.approx(np.mean([m["categories"][c]["macro_f1"] for c in "123"]))
    # category 1: gold Y N Y N, pred Y N Y Y -> YES F1 = 4/5, NO F1 = 2/3
    assert m["categories"]["1"]["f1_positive"] == pytest.approx(0.8)
    assert m["categories"]["1"]["macro_f1"] == pytest.approx((0.8 + 2 / 3) / 2)


def test_vectorised_macro_f1_matches_sklearn():
    rng = np.random.default_rng(1)
    g, p = rng.integers(0, 3, 200), rng.integers(0, 4, 200)  # 3 = invalid prediction
    exp = f1_score(g, p, labels=[0, 1, 2], average="macro", zero_division=0)
    assert float(macro_f1_idx(g, p, 3)) == pytest.approx(exp)


def test_paired_comparison_mcnemar_by_hand():
    gold = ["TRUE"] * 6 + ["FALSE"] * 6
    a = gold[:]  # A right everywhere but item 0
    a[0] = "FALSE"
    b = gold[:]  # B wrong on items 1..5 (A right there), right on item 0
    for i in range(1, 6):
        b[i] = "FALSE"
    rows = lambda preds: [
        {"item_id": str(i), "status": "done", "gold": g, "prediction": p} for i, (g, p) in enumerate(zip(gold, preds))
    ]
    res = compare_runs(rows(a), rows(b), HT, n_boot=500)
    assert res["n_items"] == 12
    assert res["mcnemar"]["a_only_correct"] == 5 and res["mcnemar"]["b_only_correct"] == 1
    assert res["mcnemar"]["p_value"] == pytest.approx(14 / 64)  # exact: 2 * P(X >= 5 | n=6, p=.5)
    fa = f1_score(gold, a, labels=["TRUE", "HALF-TRUE", "FALSE"], average="macro", zero_division=0)
    fb = f1_score(gold, b, labels=["TRUE", "HALF-TRUE", "FALSE"], average="macro", zero_division=0)
    assert res["macro_f1_diff"] == pytest.approx(fa - fb)
    lo, hi = res["ci"]
    assert lo <= res["macro_f1_diff"] <= hi and lo < hi
    same = compare_runs(rows(a), rows(a), HT, n_boot=100)
    assert same["macro_f1_diff"] == 0 and same["ci"] == [0.0, 0.0] and same["mcnemar"]["p_value"] == 1.0


def _rec(item, gold, final, checks, final_tokens=350):
    stop = [
        {
            "round": r,
            "stop_margin": m,
            "verdict_confidence": c,
            "preliminary_verdict": v,
            "tokens_so_far": r * 100,
            "decision": d,
        }
        for r, (m, c, v, d) in enumerate(checks, 1)
    ]
    return {
        "item_id": item,
        "status": "done",
        "gold": gold,
        "prediction": final,
        "stats": {"tokens": final_tokens, "rounds": len(checks), "stop_checks": stop},
    }


RECORDED = [
    _rec("1", "TRUE", "TRUE", [(0.2, 0.9, "FALSE", "c"), (0.8, 0.9, "TRUE", "c"), (0.9, 0.9, "TRUE", "c")]),
    _rec("2", "FALSE", "FALSE", [(0.9, 0.9, "FALSE", "c")] * 3),
    _rec(
        "3",
        "HALF-TRUE",
        "HALF-TRUE",
        [(0.9, 0.5, "TRUE", "c"), (0.9, 0.6, "HALF-TRUE", "c"), (0.9, 0.7, "HALF-TRUE", "c")],
    ),
]


def test_calibration_grid_by_hand():
    res = calibrate(RECORDED, HT["labels"], tau_s=[0.1, 0.5, math.inf], tau_c=[0.5, 0.6, 0.8, math.inf])
    chosen = res["chosen"]
    assert (chosen["tau_s"], chosen["tau_c"]) == (0.5, 0.6)
    assert chosen["accuracy"] == 1.0 and chosen["tokens_mean"] == pytest.approx(500 / 3)
    pt = {(p["tau_s"], p["tau_c"]): p for p in res["points"]}
    assert pt[(0.1, 0.5)]["accuracy"] == pytest.approx(1 / 3) and pt[(0.1, 0.5)]["tokens_mean"] == 100
    assert pt[(0.5, 0.8)]["tokens_mean"] == pytest.approx(650 / 3) and pt[(0.5, 0.8)]["accuracy"] == 1
    assert pt[(math.inf, math.inf)]["tokens_mean"] == 350 and pt[(math.inf, math.inf)]["stop_rate"] == 0
    flat = [v for p in res["frontier"] for v in (p["tokens_mean"], p["accuracy"])]
    assert flat == pytest.approx([100, 1 / 3, 400 / 3, 2 / 3, 500 / 3, 1.0])
    assert stop_rounds_table(RECORDED, 0.5, 0.6) == {"2": 2, "1": 1}
    # a looser accuracy requirement buys fewer tokens
    loose = calibrate(RECORDED, HT["labels"], tau_s=[0.1, 0.5], tau_c=[0.5, 0.6], tolerance=0.34)
    assert loose["chosen"]["tokens_mean"] == pytest.approx(400 / 3)


def test_calibration_flags_items_whose_recording_stopped_early():
    rec = [_rec("1", "TRUE", "TRUE", [(0.3, 0.3, "FALSE", "stop")], final_tokens=120)]
    (x,) = replay(rec, 0.5, 0.5)
    assert x["approx"] and x["pred"] == "TRUE" and not x["stopped"]
    assert calibrate([{"item_id": "a", "status": "done", "gold": "TRUE", "stats": {}}], ["TRUE"])["chosen"] is None


def test_extraction_from_events():
    evs = [
        {"type": "debate_started"},
        {"type": "phase_started", "category": 2},
        {"type": "votes_tallied", "round": 1, "votes": {"a": "YES", "b": "NO"}, "reached": False},
        {"type": "turn_finished", "prompt_tokens": 10, "completion_tokens": 5, "valid": False},
        {"type": "votes_tallied", "round": 2, "votes": {"a": "YES", "b": "YES"}, "reached": True},
        {
            "type": "stop_check",
            "round": 1,
            "stop_margin": 0.4,
            "verdict_confidence": 0.7,
            "decision": "stop",
            "preliminary_verdict": "half true",
        },
        {"type": "verdict", "label": "yes", "category": 2},
        {"type": "verdict", "label": None, "labels": {"2": "NO"}},
        {
            "type": "finished",
            "status": "completed",
            "rounds": 2,
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "wall_s": 1.5,
        },
    ]
    assert extract_prediction(evs, ("1", "2", "3"), 2) == {"2": "NO"}  # the post-rule labels win
    assert extract_prediction(evs[:-2] + evs[-1:], ("1", "2", "3"), 2) == {"2": "YES"}
    s = debate_stats(evs)
    assert s["first_vote_consensus"] is False and s["vote_changes"] == 1 and s["early_stopped"]
    assert s["stop_checks"][0]["tokens_so_far"] == 15 and s["stop_checks"][0]["preliminary_verdict"] == "HALF-TRUE"
    assert (s["tokens"], s["rounds"], s["invalid_turns"], s["wall_s"]) == (15, 2, 1, 1.5)
    labelled = [
        {"type": "turn_finished", "label": "YES", "repaired": True},
        {"type": "turn_finished", "label": "YES", "repaired": True},
        {"type": "turn_finished", "label": "NO"},
        {"type": "turn_finished", "label": None, "valid": False},
    ]
    s = debate_stats(labelled)
    assert (s["labels_repaired"], s["labels_direct"]) == ({"YES": 2}, {"NO": 1})


def _council(last_round: int, reached: bool, max_rounds: int = 2) -> list[dict]:
    start = {"type": "debate_started", "settings": {"params": {"rounds": max_rounds}}}
    tallies = [
        {"type": "votes_tallied", "round": r, "votes": {"a": "YES", "b": "NO"}, "reached": False, "stabilised": False}
        for r in range(last_round)
    ]
    last = {
        "type": "votes_tallied",
        "round": last_round,
        "votes": {"a": "YES", "b": "YES"},
        "reached": reached,
        "stabilised": False,
    }
    return [start, *tallies, last, {"type": "finished", "status": "completed", "rounds": last_round}]


def test_council_early_exit_is_consensus_before_the_round_limit():
    assert debate_stats(_council(0, True))["early_stopped"]  # consensus at the first vote: the paper's exit
    assert debate_stats(_council(1, True))["early_stopped"]  # consensus in round 1 of 2
    assert not debate_stats(_council(2, True))["early_stopped"]  # reached only in the last allowed round
    assert not debate_stats(_council(1, False))["early_stopped"]
    no_limit = _council(0, True)
    no_limit[0] = {"type": "debate_started"}
    assert not debate_stats(no_limit)["early_stopped"]


def test_both_readings_of_a_verdict_are_scored_apart_and_named():
    """The answer a debate gave is its `prediction`; where a calibration ran, the written label and the
    calibrated one are scored apart (metrics["readings"]), the older stored form (calibrated label shown,
    `written_label` beside it) read as the calibrated reading it was."""
    from debate.evaluation.report import reading_lines, reading_metrics

    new = [  # the written label is the answer; the class weights' label a second opinion
        {"type": "verdict", "label": "TRUE", "reading": "written", "calibrated_label": "FALSE", "source": "judge"}
    ]
    old = [{"type": "verdict", "label": "FALSE", "written_label": "TRUE", "aid": "w", "source": "judge"}]
    plain = [{"type": "verdict", "label": "TRUE", "source": "judge"}]
    assert extract_prediction(new) == "TRUE" and extract_prediction(new, which="calibrated") == "FALSE"
    assert extract_prediction(old) == "FALSE" and extract_prediction(old, which="written") == "TRUE"
    assert extract_prediction(plain, which="written") == "TRUE"
    assert extract_prediction(plain, which="calibrated") is None  # no calibration ran: nothing to score
    gold = ["FALSE", "FALSE", "TRUE"]
    rows = [
        {
            "item_id": str(i),
            "status": "done",
            "gold": g,
            "prediction": extract_prediction(ev),
            "stats": {f"{w}_prediction": extract_prediction(ev, which=w) for w in ("written", "calibrated")},
        }
        for i, (g, ev) in enumerate(zip(gold, (new, old, plain)))
    ]
    r = reading_metrics(rows, HT)
    assert r["items"] == 2 and r["differ"] == 2  # the plain verdict had no calibrated label
    assert r["written"]["accuracy"] == 0.0 and r["calibrated"]["accuracy"] == 1.0
    assert reading_lines(r)[0].startswith("written label vs. calibrated reading, 2 items with a calibrated label")
    assert reading_metrics(rows[2:], HT) is None
