"""Adjudication: agreement statistics (hand-computed), hard-case selection from real run checkpoints and
uploads, and the annotation store (real SQLite, labels survive a new connection, exports in dataset formats)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from debate.adjudication import agreement as ag
from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import HardCase, QueueSpec, from_runs, from_upload
from debate.errors import InvalidInput
from debate.evaluation.checkpoint import Checkpoint


# -- agreement -----------------------------------------------------------------------------------
def test_cohen_kappa_hand_computed():
    a = list("YYNNYNYYNN")
    b = list("YNNNYNYYYN")
    # p_o = 8/10, p_e = .5*.5 + .5*.5 = .5  ->  (0.8 - 0.5) / 0.5 = 0.6
    assert ag.cohen_kappa(a, b) == pytest.approx(0.6)
    assert ag.percent_agreement(a, b) == pytest.approx(0.8)


def test_cohen_kappa_three_labels_hand_computed():
    a = ["T", "T", "F", "F", "H", "H"]
    b = ["T", "F", "F", "F", "H", "T"]
    # p_o = 4/6; marginals a: T2 F2 H2, b: T2 F3 H1 -> p_e = (2*2 + 2*3 + 2*1) / 36 = 12/36
    expected = (4 / 6 - 12 / 36) / (1 - 12 / 36)
    assert ag.cohen_kappa(a, b) == pytest.approx(expected)


def test_kappa_undefined_and_errors():
    assert ag.cohen_kappa(["Y", "Y"], ["Y", "Y"]) is None  # 0/0: perfect but uninformative
    assert ag.cohen_kappa([], []) is None
    with pytest.raises(ValueError):
        ag.cohen_kappa(["Y"], ["Y", "N"])
    assert ag.fleiss_kappa([["Y"]]) is None  # one rater per item is no agreement at all


def test_fleiss_kappa_small_hand_computed():
    # P_i = 1, 1/3, 1 -> P̄ = 7/9; p_Y = 5/9, p_N = 4/9 -> P_e = 41/81; kappa = 22/40
    assert ag.fleiss_kappa([["Y", "Y", "Y"], ["Y", "Y", "N"], ["N", "N", "N"]]) == pytest.approx(0.55)


def test_fleiss_kappa_wikipedia_example():
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    items = [[str(j) for j, n in enumerate(row) for _ in range(n)] for row in table]
    assert ag.fleiss_kappa(items) == pytest.approx(0.210, abs=5e-4)


def test_summary_human_vs_judge_and_disagreements():
    anns = [
        {"item": "1", "annotator": "ann", "label": "YES"},
        {"item": "1", "annotator": "bob", "label": "YES"},
        {"item": "2", "annotator": "ann", "label": "NO"},
        {"item": "2", "annotator": "bob", "label": "YES"},
        {"item": "3", "annotator": "ann", "label": "NO"},
        {"item": "3", "annotator": "bob", "label": "NO"},
        {"item": "4", "annotator": "ann", "label": None},  # skipped: not a rating
    ]
    judge = {"1": "YES", "2": "NO", "3": "YES", "4": "NO"}
    s = ag.summary(anns, judge)
    assert s["annotators"] == ["ann", "bob"] and s["items_labelled"] == 3
    pair = s["cohen"][0]
    # ann YNN vs bob YYN: p_o 2/3; ann Y1 N2, bob Y2 N1 -> p_e = 4/9 -> (2/3 - 4/9)/(5/9) = 0.4
    assert pair["n"] == 3 and pair["kappa"] == pytest.approx(0.4)
    vs = {r["annotator"]: r for r in s["vs_judge"]}
    # ann: Y N N vs judge Y N Y -> agreement 2/3; majority: 1 YES, 2 tie (left out), 3 NO -> 1 of 2
    assert vs["ann"]["agreement"] == pytest.approx(2 / 3)
    assert vs["(majority)"]["n"] == 2 and vs["(majority)"]["agreement"] == pytest.approx(0.5)
    d = {x["item"]: x for x in ag.disagreements(anns, judge, gold={"1": "NO"})}
    assert set(d) == {"1", "2", "3"}
    assert d["2"]["reasons"] == ["annotators disagree"] and d["2"]["majority"] is None
    assert d["3"]["reasons"] == ["human ≠ judge"]
    assert d["1"]["reasons"] == ["human ≠ gold"]


# -- hard cases from real run checkpoints ----------------------------------------------------------
def _council_events(votes_r1: dict, votes_last: dict, label: str, conf: float | None, category: int | None = None):
    ev = [{"type": "debate_started", "seq": 0, "protocol": "council", "task": "checkthat", "category": category}]
    share = max(list(votes_last.values()).count(v) for v in set(votes_last.values())) / len(votes_last)
    for agent, lab in votes_last.items():
        ev.append(
            {
                "type": "turn_finished",
                "seq": len(ev),
                "agent": agent,
                "role": "member",
                "model": "m",
                "round": 1,
                "label": lab,
                "confidence": 0.7,
                "valid": True,
            }
        )
    ev.append(
        {
            "type": "votes_tallied",
            "seq": len(ev),
            "round": 1,
            "votes": votes_last,
            "consensus_share": share,
            "threshold": 0.8,
            "reached": share >= 0.8,
        }
    )
    ev.append(
        {
            "type": "verdict",
            "seq": len(ev),
            "label": label,
            "confidence": conf,
            "source": "majority",
            "category": category,
        }
    )
    ev.append({"type": "finished", "seq": len(ev), "status": "completed"})
    return ev


def _make_run(
    path,
    protocol: str,
    preds: dict,
    golds: dict,
    confs: dict,
    splits: set,
    dataset="liar-valid",
    task="halftruth",
    labels=("TRUE", "HALF-TRUE", "FALSE"),
):
    cp = Checkpoint(path)
    cp.set_meta("dataset", {"name": dataset, "task": task, "labels": list(labels), "categories": []})
    cp.set_meta("options", {"protocol": protocol, "category": None})
    cp.add_items((iid, n, f"claim {iid}", golds[iid]) for n, iid in enumerate(preds))
    for iid, pred in preds.items():
        votes = {"a": pred, "b": pred, "c": "FALSE" if iid in splits else pred}
        cp.finish(iid, status="done", prediction=pred, events=_council_events(votes, votes, pred, confs[iid]), stats={})
    cp.close()
    return path


def test_hard_cases_from_two_runs(tmp_path):
    golds = {"1": "TRUE", "2": "FALSE", "3": "TRUE", "4": "HALF-TRUE"}
    a = _make_run(
        tmp_path / "council",
        "council",
        {"1": "TRUE", "2": "FALSE", "3": "TRUE", "4": "HALF-TRUE"},
        golds,
        {"1": 0.9, "2": 0.9, "3": 0.9, "4": 0.3},
        splits={"1"},
    )
    b = _make_run(
        tmp_path / "radar",
        "radar",
        {"1": "TRUE", "2": "TRUE", "3": "TRUE", "4": "HALF-TRUE"},
        golds,
        {"1": 0.9, "2": 0.9, "3": 0.9, "4": 0.9},
        splits=set(),
    )
    spec = from_runs([a, b], consensus_below=0.8, confidence_below=0.5)
    got = {c.item_id: c for c in spec.cases}
    assert set(got) == {"1", "2", "4"}  # 3: every run right, confident and unanimous
    assert set(got["2"].reasons) == {"protocols disagree", "wrong"}
    assert got["1"].reasons == ["low consensus"] and got["1"].consensus == pytest.approx(2 / 3)
    assert got["4"].reasons == ["low confidence"] and got["4"].confidence == pytest.approx(0.3)
    assert spec.cases[0].item_id == "2"  # most reasons first
    assert [v["protocol"] for v in got["2"].verdicts] == ["council", "radar"]
    assert {v["agent"] for v in got["2"].votes} == {"a", "b", "c"}
    assert spec.labels == ["TRUE", "HALF-TRUE", "FALSE"] and spec.dataset == "liar-valid"
    only_wrong = from_runs([a, b], criteria=["wrong"])
    assert [c.item_id for c in only_wrong.cases] == ["2"]
    with pytest.raises(InvalidInput, match="criteria"):
        from_runs([a], criteria=["nonsense"])
    with pytest.raises(InvalidInput, match="not an evaluation run"):
        from_runs([tmp_path / "nowhere"])
    with pytest.raises(InvalidInput, match="No evaluation run"):
        from_runs([])


def test_hard_cases_checkthat_per_category(tmp_path):
    cp = Checkpoint(tmp_path / "ct")
    cp.set_meta(
        "dataset",
        {"name": "checkthat-dev", "task": "checkthat", "labels": ["YES", "NO"], "categories": ["1", "2", "3"]},
    )
    cp.set_meta("options", {"protocol": "council", "category": None})
    cp.add_items([("7", 0, "a tweet", {"1": "YES", "2": "NO", "3": "NO"})])
    events = []
    for cat, lab in ((1, "YES"), (2, "YES"), (3, "NO")):
        events += [
            {"type": "phase_started", "phase": "vote", "round": 1, "category": cat},
            {"type": "verdict", "label": lab, "confidence": 0.9, "category": cat},
        ]
    cp.finish("7", status="done", prediction={"1": "YES", "2": "YES", "3": "NO"}, events=events, stats={})
    cp.close()
    spec = from_runs([tmp_path / "ct"])
    assert [(c.key, c.gold, c.reasons) for c in spec.cases] == [("7#cat2", "NO", ["wrong"])]


# -- uploads ---------------------------------------------------------------------------------------
def test_upload_csv_and_jsonl():
    spec = from_upload(
        "cases.csv",
        b"id,claim,label,verdict,confidence\n1,The sky is green,FALSE,TRUE,0.4\n2,Water is wet,TRUE,,\n",
        task="halftruth",
    )
    assert [c.item_id for c in spec.cases] == ["1", "2"]
    assert spec.cases[0].verdicts[0]["label"] == "TRUE" and spec.cases[0].confidence == 0.4
    assert spec.labels == ["TRUE", "FALSE", "HALF-TRUE"]
    spec = from_upload("x.jsonl", b'{"text": "a", "label": "yes", "debate_id": "d1"}\n\n{"text": "b"}\n')
    assert spec.labels == ["YES"] and spec.cases[0].debates == [{"debate_id": "d1"}] and spec.cases[1].item_id == "1"


@pytest.mark.parametrize(
    "name,data,match",
    [
        ("a.csv", b"id,foo\n1,x\n", "no text column"),
        ("a.csv", b"id,text\n1,\n", "line 2: empty"),
        ("a.csv", b"id,text\n1,a\n1,b\n", "duplicate id"),
        ("a.jsonl", b'{"text": "a"}\nnot json\n', "line 2: invalid JSON"),
        ("a.jsonl", b"[1, 2]\n", "not a JSON object"),
        ("a.xlsx", b"PK..", "unsupported file type"),
        ("a.csv", b"", "no rows"),
        ("a.csv", b"\xff\xfe\x00bad", "not UTF-8"),
        ("a.csv", b"text,confidence\nx,high\n", "not a number"),
        ("a.csv", b"text\nx\n", "no label set"),
        ("a.csv", b"text,label\nx,MAYBE\n", "not in the task's labels"),
    ],
)
def test_upload_errors_are_clear(name, data, match):
    with pytest.raises(InvalidInput, match=match) as ei:
        from_upload(name, data, task="halftruth" if "MAYBE" in data.decode("latin-1") else "custom")
    assert ei.value.hint


# -- the annotation store -------------------------------------------------------------------------
def _spec(dataset="liar-valid", task="halftruth", labels=("TRUE", "HALF-TRUE", "FALSE"), cats=(None,)):
    cases = [
        HardCase(
            item_id=str(i), text=f"claim {i}", category=c, gold="TRUE", verdicts=[{"label": "TRUE", "confidence": 0.5}]
        )
        for i in range(3)
        for c in cats
    ]
    return QueueSpec(name="q", task=task, labels=list(labels), cases=cases, dataset=dataset)


def test_labels_persist_across_connections(tmp_path):
    db = tmp_path / "debates.sqlite"
    s = AnnotationStore(db)
    qid = s.create_queue(_spec())
    s.set_label(qid, "0", "ann", "TRUE")
    s.set_label(qid, "0", "ann", "FALSE")  # a change of mind overwrites
    s.set_note(qid, "0", "ann", "see the second source")
    s.set_flag(qid, "1", "ann", True)
    s.skip(qid, "2", "ann")
    s.set_label(qid, "0", "bob", "FALSE")
    s.close()
    s2 = AnnotationStore(db)  # a reload: a new connection finds everything
    assert s2.migrate() == []
    mine = s2.mine(qid, "ann")
    assert mine["0"]["label"] == "FALSE" and mine["0"]["note"] == "see the second source"
    assert mine["1"]["flagged"] and mine["2"]["skipped"]
    p = s2.progress(qid, "ann")
    assert (p["total"], p["labelled"], p["skipped"], p["flagged"], p["done"]) == (3, 1, 1, 1, 2)
    assert s2.progress(qid)["annotators"] == ["ann", "bob"]
    with pytest.raises(InvalidInput, match="not a label"):
        s2.set_label(qid, "0", "ann", "MAYBE")
    with pytest.raises(InvalidInput, match="name is empty"):
        s2.set_label(qid, "0", "  ", "TRUE")
    with pytest.raises(InvalidInput, match="No case"):
        s2.set_label(qid, "99", "ann", "TRUE")
    with pytest.raises(InvalidInput, match="empty"):
        s2.create_queue(QueueSpec(name="e", task="halftruth", labels=["TRUE"], cases=[]))


def test_shares_the_debate_store_file(tmp_path):
    from debate.store import DebateStore

    db = tmp_path / "debates.sqlite"
    ds = DebateStore(db)
    s = AnnotationStore(db)
    s.create_queue(_spec())
    ds.migrate()
    names = {r[0] for r in ds._q("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "debates",
        "events",
        "annotations",
        "annotation_queues",
        "annotation_migrations",
        "schema_migrations",
    } <= names


def test_export_liar_and_averitec(tmp_path):
    s = AnnotationStore(tmp_path / "d.sqlite")
    qid = s.create_queue(_spec())
    s.set_label(qid, "0", "ann", "HALF-TRUE")
    s.set_label(qid, "1", "ann", "TRUE")
    s.set_label(qid, "1", "bob", "FALSE")  # tie: no adjudicated label
    rows = list(csv.DictReader(io.StringIO(s.export(qid, "csv"))))
    assert rows == [{"id": "0", "label": "half-true"}, {"id": "1", "label": ""}, {"id": "2", "label": ""}]
    assert list(csv.DictReader(io.StringIO(s.export(qid, "csv", annotator="bob"))))[1]["label"] == "false"
    lines = [json.loads(x) for x in s.export(qid, "jsonl").splitlines()]
    assert lines[1]["label"] is None and lines[1]["annotations"]["1"]["bob"]["label"] == "FALSE"
    q2 = s.create_queue(_spec(dataset="averitec-dev", task="averitec"))
    s.set_label(q2, "2", "ann", "HALF-TRUE")
    assert s.export(q2, "csv").splitlines()[3] == "2,Conflicting Evidence/Cherrypicking"
    with pytest.raises(InvalidInput):
        s.export(q2, "xml")


def test_export_checkthat_index_cat_columns(tmp_path):
    s = AnnotationStore(tmp_path / "d.sqlite")
    qid = s.create_queue(_spec(dataset="checkthat-dev", task="checkthat", labels=("YES", "NO"), cats=(1, 3)))
    s.set_label(qid, "0#cat1", "ann", "YES")
    s.set_label(qid, "0#cat3", "ann", "NO")
    s.set_label(qid, "2#cat3", "ann", "YES")
    text = s.export(qid, "csv")
    assert text.splitlines() == ["index,cat1,cat2,cat3", "0,1,,0", "1,,,", "2,,,1"]
    first = json.loads(s.export(qid, "jsonl").splitlines()[0])
    assert (first["index"], first["cat1"], first["cat3"]) == ("0", 1, 0)
