"""A labelling team's adjudication — own data in a dataset's own format (CheckThat 4a TSV with
soft labels, AVeriTeC JSON, LIAR TSV) through eval, upload and export; blind queues; the reviewer's
resolution; Krippendorff's alpha against Krippendorff's published worked examples; judge vs adjudicated
gold; versioned guidelines. Real SQLite stores, real files made from the shared datasets' rows."""

from __future__ import annotations

import ast
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from debate.adjudication import agreement
from debate.adjudication.annotations import AnnotationStore, blind_events, visibility
from debate.adjudication.hardcases import from_upload
from debate.datasets import SPLIT, load_checkthat, load_dataset, load_liar, sniff_format
from debate.errors import InvalidInput
from debate.evaluation.metrics import compute_metrics
from debate.events import DebateFinished, TurnFinished, Verdict, VotesTallied
from tests.conftest import data_path

REPO = Path(__file__).resolve().parents[2]
nan = np.nan


# -- helpers: small files in each dataset's own format, made from real rows ------------------------------
def checkthat_file(path: Path, n_yes: int = 2, n_no: int = 2, split_cat: str = "2") -> Path:
    """A CheckThat 4a TSV that is not a bundled split: train rows, the first positive's cat `split_cat` soft."""
    items = load_checkthat(data_path("checkthat2025_4a/ct_train.tsv"))
    yes = [i for i in items if i.gold[split_cat] == "YES"][:n_yes]
    no = [i for i in items if i.gold[split_cat] == "NO"][:n_no]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(["index", "text", "labels"])
        for n, it in enumerate(yes + no):
            vals = [1.0 if it.gold[c] == "YES" else 0.0 for c in "123"]
            if n == 0:
                vals[int(split_cat) - 1] = 0.5  # the annotators split on this one
            w.writerow([it.id, it.text, str(vals)])
    return path


def averitec_bytes(n: int = 3) -> bytes:
    return json.dumps(json.loads(data_path("averitec/dev.json").read_text())[:n]).encode()


def liar_bytes(n: int = 3) -> bytes:
    return "".join(data_path("liar/valid.tsv").read_text(encoding="utf-8").splitlines(keepends=True)[:n]).encode()


# -- Krippendorff's alpha: the published worked examples ---------------------------------------------------
# Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011): 4 observers, 12 units, values 1-5.
KRIPP_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]
# ibid., section A: two observers, ten units, binary data: alpha = 0.095
KRIPP_BINARY = [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]]


def test_alpha_matches_krippendorffs_worked_examples():
    assert agreement.alpha_matrix(KRIPP_2011, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert agreement.alpha_matrix(KRIPP_2011, "ordinal") == pytest.approx(0.815, abs=5e-4)
    assert agreement.alpha_matrix(KRIPP_2011, "interval") == pytest.approx(0.849, abs=5e-4)
    assert agreement.alpha_matrix(KRIPP_BINARY, "nominal") == pytest.approx(0.095, abs=5e-4)
    # the same data as the page's {item: {annotator: label}} ratings, ordered 1 < 2 < ... < 5
    ratings = {
        f"u{j}": {f"o{i}": str(int(row[j])) for i, row in enumerate(KRIPP_2011) if not np.isnan(row[j])}
        for j in range(12)
    }
    assert agreement.krippendorff_alpha(ratings, "nominal") == pytest.approx(0.743, abs=5e-4)
    order = {str(v): v for v in range(1, 6)}
    assert agreement.krippendorff_alpha(ratings, "ordinal", order) == pytest.approx(0.815, abs=5e-4)


def test_ordinal_alpha_credits_near_misses_and_undefined_cases():
    # the two annotators disagree only by one step (TRUE vs HALF-TRUE) on two of six claims
    r = {
        "a": {"x": "TRUE", "y": "TRUE"},
        "b": {"x": "FALSE", "y": "FALSE"},
        "c": {"x": "HALF-TRUE", "y": "HALF-TRUE"},
        "d": {"x": "TRUE", "y": "HALF-TRUE"},
        "e": {"x": "FALSE", "y": "FALSE"},
        "f": {"x": "HALF-TRUE", "y": "TRUE"},
    }
    nominal, ordinal = agreement.krippendorff_alpha(r, "nominal"), agreement.krippendorff_alpha(r, "ordinal")
    assert 0 < nominal < ordinal < 1
    assert agreement.krippendorff_alpha({**r, "g": {"x": "NEI", "y": "NEI"}}, "ordinal") is None  # NEI has no place
    assert agreement.krippendorff_alpha({"a": {"x": "YES", "y": "YES"}}, "nominal") is None  # one value: 0/0
    assert agreement.krippendorff_alpha({"a": {"x": "YES"}, "b": {"y": "NO"}}, "nominal") is None  # nothing pairable
    s = agreement.summary(
        [{"item": i, "annotator": w, "label": lab} for i, d in r.items() for w, lab in d.items()],
        labels=["TRUE", "HALF-TRUE", "FALSE"],
    )
    (pair,) = s["cohen"]
    assert pair["alpha_nominal"] == pytest.approx(nominal) and pair["alpha_ordinal"] == pytest.approx(ordinal)
    per = {p["label"]: p for p in s["per_label"]}
    assert per["FALSE"]["fleiss"] == pytest.approx(1.0) and per["FALSE"]["alpha"] == pytest.approx(1.0)
    assert per["TRUE"]["fleiss"] < 1 and per["TRUE"]["used"] == 4
    # one-vs-rest Fleiss equals Fleiss' kappa of the binarised ratings, computed by hand:
    # TRUE-or-not pairs: (1,1) (0,0) (0,0) (1,0) (0,0) (0,1): P_bar = 4/6, p(TRUE) = 4/12 -> P_e = 5/9
    assert per["TRUE"]["fleiss"] == pytest.approx((4 / 6 - 5 / 9) / (1 - 5 / 9))


def test_judge_vs_adjudicated_gold_confusion_and_calibration():
    from sklearn.calibration import calibration_curve

    pairs = [
        ("TRUE", "TRUE", 0.9),
        ("TRUE", "FALSE", 0.8),
        ("FALSE", "FALSE", 0.55),
        ("FALSE", "FALSE", 0.95),
        ("HALF-TRUE", "TRUE", 0.3),
        ("HALF-TRUE", None, None),
        (None, "TRUE", 0.9),
    ]
    jv = agreement.judge_vs_gold(pairs, ["TRUE", "HALF-TRUE", "FALSE"], n_bins=5)
    assert jv["n"] == 6 and jv["columns"] == ["TRUE", "HALF-TRUE", "FALSE", "NONE"]
    assert jv["matrix"] == [[1, 0, 1, 0], [1, 0, 0, 1], [0, 0, 2, 0]]
    assert jv["n_judged"] == 5 and jv["accuracy"] == pytest.approx(3 / 5)  # a missing verdict is no wrong one
    cal = jv["calibration"]
    conf = [0.9, 0.8, 0.55, 0.95, 0.3]
    right = [1, 0, 1, 1, 0]
    frac, mean = calibration_curve(right, conf, n_bins=5)
    assert [b["accuracy"] for b in cal["bins"]] == pytest.approx(list(frac))
    assert [b["confidence"] for b in cal["bins"]] == pytest.approx(list(mean))
    assert [b["n"] for b in cal["bins"]] == [1, 1, 1, 2]  # bins [.2,.4) [.4,.6) [.6,.8) [.8,1]
    assert cal["ece"] == pytest.approx((0.3 + 0.45 + 0.8 + 2 * abs(0.925 - 1.0)) / 5)  # gaps x counts / n
    assert cal["brier"] == pytest.approx(np.mean([(c - y) ** 2 for c, y in zip(conf, right)]))


# -- own data in a dataset's own format ----------------------------------------------------------------------
def test_own_checkthat_file_loads_like_a_named_split_with_soft_labels(tmp_path):
    f = checkthat_file(tmp_path / "my_tweets.tsv")
    assert sniff_format(f) == "checkthat"
    ds = load_dataset(str(f))
    assert ds.categories == ("1", "2", "3") and ds.task == "checkthat" and ds.format == "checkthat" and ds.has_gold
    assert ds.items[0].gold["2"] == SPLIT and {i.gold["2"] for i in ds.items[1:]} == {"YES", "NO"}
    # metrics: the split decision is left out of F1 and counted
    rows = [{"item_id": it.id, "status": "done", "gold": it.gold, "prediction": {"2": "YES"}} for it in ds.items]
    m = compute_metrics(rows, {"name": ds.name, "task": "checkthat", "labels": ["YES", "NO"], "categories": ["2"]})
    assert m["categories"]["2"]["n"] == 3 and m["categories"]["2"]["split_excluded"] == 1 and m["split_excluded"] == 1
    # bad soft values still get a clear error
    bad = tmp_path / "bad.tsv"
    bad.write_text("index\ttext\tlabels\n1\thello\t[1.0, 2.0, 0.0]\n")
    with pytest.raises(InvalidInput, match="line 2.*between 0 and 1"):
        load_dataset(str(bad))


def test_other_formats_are_recognised_from_content(tmp_path):
    (tmp_path / "claims.json").write_bytes(averitec_bytes())
    (tmp_path / "statements.tsv").write_bytes(liar_bytes())
    (tmp_path / "plain.tsv").write_text("id\ttext\tlabel\n1\ta claim\tTRUE\n")
    av, li = load_dataset(str(tmp_path / "claims.json")), load_dataset(str(tmp_path / "statements.tsv"))
    assert (av.format, av.task, len(av)) == ("averitec", "averitec", 3) and "NEI" in av.labels
    assert (li.format, li.task, len(li)) == ("liar", "halftruth", 3)
    assert load_dataset(str(tmp_path / "plain.tsv")).format == "table"


def test_checkthat_upload_one_case_per_tweet_and_category_and_native_export(tmp_path):
    f = checkthat_file(tmp_path / "mine.tsv")
    spec = from_upload("mine.tsv", f.read_bytes())
    assert spec.format == "checkthat" and spec.task == "checkthat" and spec.labels == ["YES", "NO"]
    assert len(spec.cases) == 4 * 3
    first = spec.cases[0]  # the soft case comes first
    assert first.category == 2 and first.gold_split and first.gold is None and first.reasons == ["annotators split"]
    by_key = {c.key: c for c in spec.cases}
    ids = list(dict.fromkeys(c.item_id for c in spec.cases if not c.gold_split))
    s = AnnotationStore(tmp_path / "a.db")
    qid = s.create_queue(spec, {"blind": True})
    assert s.queue(qid)["settings"] == {"blind": True, "show_transcript": False, "format": "checkthat"}
    soft, other = first.key, f"{ids[1]}#cat1"
    s.set_label(qid, soft, "ann", "YES")
    s.set_label(qid, soft, "bob", "NO")  # a tie: stays split
    s.set_label(qid, other, "ann", "NO" if by_key[other].gold == "YES" else "YES")  # overrules the file
    out = tmp_path / "back.tsv"
    out.write_text(s.export(qid, "native"))
    back = {i.id: i.gold for i in load_checkthat(out, labelled=True)}  # our own loader reads it back
    orig = {i.id: i.gold for i in load_checkthat(f)}
    assert back == orig  # the file's own labels, as they came (its soft 0.5 included)
    added = {r["index"]: ast.literal_eval(r["adjudicated"]) for r in csv.DictReader(out.open(), delimiter="\t")}
    assert added[first.item_id][1] is None  # a tie is left empty, as the page's caption says
    assert added[ids[1]][0] == (0.0 if orig[ids[1]]["1"] == "YES" else 1.0)
    # nothing of the file's own gold is passed off as adjudicated: every category nobody labelled is empty
    assert all(v is None for k, vals in added.items() for c, v in enumerate(vals) if (k, c) != (ids[1], 0))
    s.resolve(qid, soft, "rita", "YES", "The tweet links the paper it cites.")
    out.write_text(s.export(qid, "native"))
    row = next(csv.DictReader(out.open(), delimiter="\t"))
    assert ast.literal_eval(row["adjudicated"])[1] == 1.0 and "0.5" in row["labels"]  # settled, the split kept


def test_averitec_and_liar_uploads_export_in_their_own_format(tmp_path):
    s = AnnotationStore(tmp_path / "a.db")
    av = from_upload("dev_part.json", averitec_bytes())
    qa = s.create_queue(av)
    assert av.format == "averitec" and av.labels == ["TRUE", "HALF-TRUE", "FALSE", "NEI"]
    s.set_label(qa, av.cases[0].key, "ann", "NEI")
    records = json.loads(s.export(qa, "native"))
    orig = json.loads(averitec_bytes())
    assert [r["adjudicated"] for r in records] == ["Not Enough Evidence", None, None]  # unlabelled: empty
    assert [{k: v for k, v in r.items() if k != "adjudicated"} for r in records] == orig  # the file's own, kept

    li = from_upload("valid_part.tsv", liar_bytes())
    ql = s.create_queue(li)
    six = [line.split("\t")[1] for line in liar_bytes().decode().splitlines()]
    keep = li.cases[0].gold  # agreeing with the file keeps LIAR's six-way label
    s.set_label(ql, li.cases[0].key, "ann", keep)
    flip = "TRUE" if li.cases[1].gold != "TRUE" else "FALSE"
    s.set_label(ql, li.cases[1].key, "ann", flip)
    out = tmp_path / "liar_back.tsv"
    out.write_text(s.export(ql, "native"))
    written = [line.split("\t") for line in out.read_text().splitlines()]
    assert [r[:14] for r in written] == [line.split("\t") for line in liar_bytes().decode().splitlines()]
    assert [r[14] for r in written] == [six[0], flip.lower(), ""]  # added: six-way kept, flipped, unlabelled
    assert [i.gold for i in load_liar(out)] == [c.gold for c in li.cases]  # LIAR's reader: the file's own
    with pytest.raises(InvalidInput, match="dataset's own file format"):
        q3 = s.create_queue(from_upload("c.csv", b"id,claim,label\n1,x,TRUE\n", task="halftruth"))
        s.export(q3, "native")


def test_an_older_annotation_file_migrates_without_loss(tmp_path):
    import sqlite3

    from debate.adjudication.annotations import MIGRATIONS

    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE annotation_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    con.executescript(MIGRATIONS[0][2])
    con.execute("INSERT INTO annotation_migrations VALUES (1, 'annotations', 'then')")
    con.execute(
        "INSERT INTO annotation_queues VALUES ('q1', 'old', 'halftruth', '[\"TRUE\", \"FALSE\"]', '', '{}', 'then')"
    )
    con.execute(
        "INSERT INTO annotation_items VALUES ('q1', 'c1', 0, 'c1', NULL, 'a claim', NULL, "
        '\'{"item_id": "c1", "text": "a claim"}\')'
    )
    con.execute("INSERT INTO annotations VALUES ('q1', 'c1', 'ann', 'TRUE', 'old note', 0, 0, 'then')")
    con.commit()
    con.close()
    s = AnnotationStore(db)
    assert s.queue("q1")["settings"]["blind"] is False and s.guideline("q1")["version"] == 0
    assert s.mine("q1", "ann")["c1"]["label"] == "TRUE" and s.mine("q1", "ann")["c1"]["guideline_version"] is None
    assert s.set_guideline("q1", "Be careful.") == 1


# -- blind queues, reviewer, guidelines --------------------------------------------------------------------
def test_visibility_rules():
    assert all(visibility({"blind": False}, False).values())
    v = visibility({"blind": True, "show_transcript": False}, labelled=False)
    assert v == {"others": False, "verdict": False, "gold": False, "transcript": False}
    assert visibility({"blind": True, "show_transcript": True}, False)["transcript"]
    assert all(visibility({"blind": True}, labelled=True).values())


def test_blind_events_drop_the_decision():
    evs = [
        TurnFinished(agent="a", text="I think it cites a study. VOTE: YES", label="YES"),
        VotesTallied(counts={"YES": 2}),
        Verdict(label="YES", confidence=0.9),
        DebateFinished(label="YES"),
    ]
    out = blind_events(evs)
    assert [e.type for e in out] == ["turn_finished", "finished"] and out[-1].label is None
    assert evs[-1].label == "YES"  # the stored events are not changed
    assert [e["type"] for e in blind_events([e.to_dict() for e in evs])] == ["turn_finished", "finished"]


def test_reviewer_resolution_guidelines_and_exports(tmp_path):
    data = (
        b"id,claim,label,verdict,confidence\n"
        b"c1,The deficit fell 15%.,HALF-TRUE,TRUE,0.9\nc2,Vaccines cause autism.,FALSE,FALSE,0.8\n"
        b"c3,Crime doubled.,TRUE,FALSE,0.6\n"
    )
    s = AnnotationStore(tmp_path / "a.db")
    spec = from_upload("cases.csv", data, task="halftruth", labels=["TRUE", "HALF-TRUE", "FALSE"])
    qid = s.create_queue(spec, {"blind": True, "show_transcript": True}, guideline="Half-true = true but misleading.")
    assert s.guideline(qid)["version"] == 1
    s.set_label(qid, "c1", "ann", "HALF-TRUE")
    s.set_note(qid, "c1", "ann", "true number, wrong period")
    assert s.set_guideline(qid, "Half-true = true but misleading.") == 1  # unchanged: same version
    assert s.set_guideline(qid, "Half-true = true but misleading by omission.", "rita") == 2
    s.set_label(qid, "c1", "bob", "TRUE")
    s.set_note(qid, "c1", "bob", "the number is right")
    s.set_label(qid, "c2", "ann", "FALSE")
    s.set_label(qid, "c2", "bob", "FALSE")
    s.set_label(qid, "c3", "ann", "TRUE")
    assert [a["guideline_version"] for a in s.annotations(qid) if a["key"] == "c1"] == [1, 2]  # ann, bob
    review = {r["key"]: r for r in s.review(qid)}
    assert set(review) == {"c1", "c3"}  # c2: all agree with each other and the judge
    assert review["c1"]["why"] == ["annotators disagree"] and review["c3"]["why"] == ["annotators ≠ judge"]
    assert {a["annotator"]: a["note"] for a in review["c1"]["annotations"]}["ann"] == "true number, wrong period"
    with pytest.raises(InvalidInput, match="needs a reason"):
        s.resolve(qid, "c1", "rita", "HALF-TRUE", "  ")
    with pytest.raises(InvalidInput, match="not a label"):
        s.resolve(qid, "c1", "rita", "MAYBE", "x")
    s.resolve(qid, "c1", "rita", "HALF-TRUE", "Right number, but for another year.")
    assert s.review(qid)[0]["resolution"]["label"] == "HALF-TRUE"
    rows = {r["key"]: r for r in csv.DictReader(io.StringIO(s.export(qid, "cases")))}
    assert rows["c1"]["final"] == "HALF-TRUE" and rows["c1"]["final_source"] == "reviewer"
    assert rows["c1"]["reason"].startswith("Right number") and rows["c1"]["judge"] == "TRUE"
    assert rows["c1"]["label:bob"] == "TRUE" and rows["c1"]["rationale:ann"] == "true number, wrong period"
    assert rows["c1"]["guideline:bob"] == "2" and rows["c2"]["final_source"] == "majority"
    assert rows["c3"]["final"] == "TRUE" and rows["c3"]["gold"] == "TRUE"
    line = json.loads(s.export(qid, "jsonl").splitlines()[0])
    assert line["label"] == "HALF-TRUE" and line["decisions"]["c1"]["final_source"] == "reviewer"
    assert line["annotations"]["c1"]["bob"]["label"] == "TRUE"
    # the judge against the final labels
    jv = agreement.judge_vs_gold(s.judge_pairs(qid), ["TRUE", "HALF-TRUE", "FALSE"])
    assert jv["n"] == 3 and jv["matrix"] == [[0, 0, 1], [1, 0, 0], [0, 0, 1]]
    assert s.update_settings(qid, blind=False)["blind"] is False
    with pytest.raises(InvalidInput):
        s.update_settings(qid, colour=True)


# -- the command line on a CheckThat-format file that is not a bundled split (real embedded model) ---------
llama = pytest.importorskip("llama_cpp")


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_cli_eval_on_own_checkthat_file_with_category(tmp_path):
    f = checkthat_file(tmp_path / "team_batch.tsv", n_yes=2, n_no=1)
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "debate",
        "eval",
        "--dataset",
        str(f),
        "--category",
        "2",
        "--protocol",
        "baseline",
        "--lineup",
        "embedded",
        "--param",
        "member=2",
        "--param",
        "examples=false",
        "--max-tokens",
        "48",
        "--concurrency",
        "1",
        "--no-progress",
        "--out",
        str(out),
    ]
    p = subprocess.run(
        cmd, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=880
    )
    assert p.returncode == 0, p.stderr[-3000:]
    assert "category 2:" in p.stdout and "n=2  (1 with annotators split, left out of F1)" in p.stdout, p.stdout
    m = json.loads((out / "metrics.json").read_text())
    assert m["categories"]["2"]["n"] == 2 and m["split_excluded"] == 1
    assert set(m["categories"]) == {"2"} and m["coverage"]["done"] == 3
    assert "annotators split" in (out / "report.html").read_text()
    preds = list(csv.DictReader(io.StringIO((out / "predictions.csv").read_text())))  # the task's submission format
    assert len(preds) == 3 and set(preds[0]) == {"index", "cat1_pred", "cat2_pred", "cat3_pred"}
    # the split tweet makes a hard case of the run, with no gold to be "wrong" against
    from debate.adjudication.hardcases import from_runs

    spec = from_runs([out], criteria=["annotators split"])
    (case,) = spec.cases
    assert case.gold_split and case.gold is None and case.category == 2 and spec.format == "checkthat"
