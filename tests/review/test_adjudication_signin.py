"""A labelling team's identities on real SQLite files: Argon2 password accounts (the admin's CLI too),
one identity per name whatever its case, others' labels withheld by the store on blind queues, label
changes after the reveal kept as revisions, exports that never mix the dataset's gold with new labels,
and a judge comparison that says when there is nothing to compare."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from debate.adjudication import agreement
from debate.adjudication.accounts import MAX_FAILURES, AccountStore, fold_name
from debate.adjudication.annotations import MIGRATIONS, AnnotationStore
from debate.adjudication.hardcases import from_upload, shown_reasons
from debate.errors import InvalidInput

REPO = Path(__file__).resolve().parents[2]


def _queue(store: AnnotationStore, blind: bool = True) -> str:
    data = (
        b"id,claim,label,verdict,confidence\nc1,The deficit fell 15%.,HALF-TRUE,TRUE,0.9\n"
        b"c2,Vaccines cause autism.,FALSE,FALSE,0.8\nc3,Crime doubled.,TRUE,,\n"
    )
    return store.create_queue(from_upload("cases.csv", data, task="halftruth"), {"blind": blind})


# -- accounts ----------------------------------------------------------------------------------------
def test_password_accounts_hash_verify_and_persist(tmp_path):
    db = tmp_path / "debates.sqlite"
    acc = AccountStore(db)
    assert not acc.team()
    ident = acc.add("  Alice ", "correct horse", email="Alice@Example.org")
    assert (ident.name, ident.reviewer, ident.via) == ("alice", False, "password")
    acc.add("Rita", "reviewer pass 1", reviewer=True)
    acc.close()

    acc = AccountStore(db)  # a new connection (a restarted app) finds both
    assert acc.team() and acc.has_passwords()
    assert acc.verify("ALICE", "correct horse").name == "alice"  # one identity whatever the case
    assert acc.verify("rita", "reviewer pass 1").reviewer
    raw = db.read_bytes() + Path(str(db) + "-wal").read_bytes() if Path(str(db) + "-wal").exists() else db.read_bytes()
    assert b"correct horse" not in raw  # only the hash is kept
    stored = (
        sqlite3.connect(db).execute("SELECT password_hash FROM annotator_accounts WHERE name='alice'").fetchone()[0]
    )
    assert stored.startswith("$argon2id$")
    with pytest.raises(InvalidInput, match="Wrong name or password") as wrong:
        acc.verify("alice", "wrong horse")
    with pytest.raises(InvalidInput, match="Wrong name or password") as unknown:
        acc.verify("mallory", "correct horse")
    assert wrong.value.message == unknown.value.message  # which of the two is not told
    assert acc.by_email("ALICE@example.org").name == "alice" and acc.by_email("x@example.org") is None
    assert [a["name"] for a in acc.accounts()] == ["alice", "rita"]
    assert "password_hash" not in acc.accounts()[0]


def test_account_errors_lockout_and_admin_changes(tmp_path):
    acc = AccountStore(tmp_path / "d.sqlite")
    acc.add("bob", "bobs password")
    with pytest.raises(InvalidInput, match="exists already"):
        acc.add("BOB", "another password")
    with pytest.raises(InvalidInput, match="too short"):
        acc.add("carol", "short")
    with pytest.raises(InvalidInput, match="neither a password nor an e-mail"):
        acc.add("dave", None)
    with pytest.raises(InvalidInput, match="name is empty"):
        acc.add("   ", "long enough pw")
    for _ in range(MAX_FAILURES):
        with pytest.raises(InvalidInput, match="Wrong"):
            acc.verify("bob", "guess guess")
    with pytest.raises(InvalidInput, match="Wrong name or password"):  # even the right one waits now,
        acc.verify("bob", "bobs password")  # told as any failed sign-in is (which account is locked is not said)
    acc.set_password("bob", "a new password")  # the admin unlocks by setting a new one
    assert acc.verify("bob", "a new password").name == "bob"
    acc.set_reviewer("bob", True)
    assert acc.get("Bob").reviewer
    oidc_only = acc.add("erin", None, email="erin@example.org")
    assert oidc_only.via == "oidc"
    with pytest.raises(InvalidInput, match="Wrong"):  # no password: no password sign-in
        acc.verify("erin", "")
    acc.remove("bob")
    assert acc.get("bob") is None
    with pytest.raises(InvalidInput, match="No account"):
        acc.set_reviewer("bob", False)


def test_cli_adds_lists_and_changes_accounts(tmp_path):
    db = tmp_path / "team.sqlite"
    env = {"DEBATE_STORE_DB": str(db), "DEBATE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "debate", "annotators", *args],
            input=stdin,
            text=True,
            capture_output=True,
            cwd=REPO,
            env=env,
            timeout=120,
        )

    r = cli("add", "Rita", "--reviewer", "--password-stdin", stdin="rita's password\n")
    assert r.returncode == 0, r.stderr
    assert "added rita (reviewer)" in r.stdout
    assert cli("add", "alice", "--password-stdin", stdin="alice password\n").returncode == 0
    r = cli("add", "ALICE", "--password-stdin", stdin="alice password\n")
    assert r.returncode == 2 and "exists already" in r.stderr and "Traceback" not in r.stderr
    r = cli("add", "bob", "--password-stdin", stdin="short\n")
    assert r.returncode == 2 and "too short" in r.stderr
    r = cli("add", "bob")  # no terminal and no --password-stdin: told what to do
    assert r.returncode == 2 and "--password-stdin" in r.stderr
    assert cli("add", "erin", "--no-password", "--email", "erin@example.org").returncode == 0
    r = cli("list")
    assert [line.split()[:2] for line in r.stdout.splitlines()] == [
        ["alice", "annotator"],
        ["erin", "annotator"],
        ["rita", "reviewer"],
    ]
    assert cli("role", "alice", "--reviewer").returncode == 0
    assert cli("passwd", "alice", "--password-stdin", stdin="new alice password\n").returncode == 0
    acc = AccountStore(db)
    assert acc.verify("alice", "new alice password").reviewer
    assert cli("remove", "erin").returncode == 0 and acc.get("erin") is None


# -- one identity per name ---------------------------------------------------------------------------
def test_names_are_one_identity_whatever_the_case(tmp_path):
    s = AnnotationStore(tmp_path / "d.sqlite")
    qid = _queue(s, blind=False)
    s.set_label(qid, "c1", "Alice", "TRUE")
    s.set_label(qid, "c2", " alice  ", "FALSE")
    s.set_note(qid, "c1", "ALICE", "checked the budget office")
    assert s.progress(qid)["annotators"] == ["alice"]
    assert s.mine(qid, "aLiCe")["c1"]["note"] == "checked the budget office"
    assert fold_name("Ｂob") == fold_name("bob")  # full-width letters too (NFKC)
    assert fold_name("al\u200bice\u202e") == fold_name("ALICE") == "alice"  # no invisible look-alike


def test_an_older_file_with_two_spellings_merges_into_one_annotator(tmp_path):
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE annotation_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    for num, name, sql in MIGRATIONS[:2]:
        con.executescript(sql)
        con.execute("INSERT INTO annotation_migrations VALUES (?, ?, 'then')", (num, name))
    con.execute(
        "INSERT INTO annotation_queues (id, name, task, labels, dataset, source, created_at) VALUES "
        "('q1', 'old', 'halftruth', '[\"TRUE\", \"FALSE\"]', '', '{}', 'then')"
    )
    con.execute(
        "INSERT INTO annotation_items VALUES ('q1', 'c1', 0, 'c1', NULL, 'a claim', NULL, "
        '\'{"item_id": "c1", "text": "a claim"}\')'
    )
    con.execute(
        "INSERT INTO annotations (queue_id, key, annotator, label, note, updated_at) VALUES "
        "('q1', 'c1', 'Alice', 'TRUE', 'first try', '2026-01-01'), "
        "('q1', 'c1', 'alice', 'FALSE', 'second look', '2026-01-02'), "
        "('q1', 'c1', 'Bob', 'TRUE', '', '2026-01-01')"
    )
    con.commit()
    con.close()
    s = AnnotationStore(db)
    rows = s.annotations("q1")
    assert [(a["annotator"], a["label"], a["note"]) for a in rows] == [
        ("alice", "FALSE", "second look"),
        ("bob", "TRUE", ""),
    ]
    merged = s.revisions("q1")  # the older spelling's label is kept, not lost
    assert [(r["annotator"], r["old_label"], r["kind"]) for r in merged] == [("alice", "TRUE", "merged spelling")]
    assert "first try" in merged[0]["detail"]


# -- blind queues: what the store hands out, revisions after the reveal -------------------------------
def test_blind_queue_withholds_others_labels_until_one_has_labelled(tmp_path):
    s = AnnotationStore(tmp_path / "d.sqlite")
    qid = _queue(s, blind=True)
    s.set_label(qid, "c1", "alice", "FALSE")
    assert s.others_for(qid, "c1", "bob") == {}  # bob has not labelled c1
    assert s.others_for(qid, "c1", "ALICE") == {}  # nobody else labelled it
    s.skip(qid, "c1", "bob")
    assert s.others_for(qid, "c1", "bob") == {}  # a skip is no way to peek
    s.set_label(qid, "c1", "bob", "TRUE")
    assert s.others_for(qid, "c1", "bob") == {"alice": "FALSE"}
    open_q = _queue(s, blind=False)
    s.set_label(open_q, "c1", "alice", "FALSE")
    assert s.others_for(open_q, "c1", "bob") == {"alice": "FALSE"}


def test_a_change_after_the_reveal_is_a_revision_and_agreement_uses_the_first_label(tmp_path):
    s = AnnotationStore(tmp_path / "d.sqlite")
    qid = _queue(s, blind=True)
    s.set_label(qid, "c1", "alice", "FALSE")
    s.set_label(qid, "c1", "bob", "TRUE")  # bob now sees alice's FALSE ...
    s.set_label(qid, "c1", "bob", "FALSE")  # ... and follows her
    s.set_label(qid, "c1", "bob", "FALSE")  # the same label again is no change
    revs = s.revisions(qid)
    assert [(r["annotator"], r["old_label"], r["new_label"], r["others_seen"]) for r in revs] == [
        ("bob", "TRUE", "FALSE", 1)
    ]
    assert s.mine(qid, "bob")["c1"]["label"] == "FALSE"  # the change stands for the final label ...
    indep = {a["annotator"]: a["label"] for a in s.independent_labels(qid)}
    assert indep == {"alice": "FALSE", "bob": "TRUE"}  # ... but agreement is on what each said first
    assert agreement.summary(s.independent_labels(qid))["cohen"][0]["agreement"] == 0.0
    review = {r["key"]: r for r in s.review(qid, include_agreed=True)}
    assert {a["annotator"]: a["revised"] for a in review["c1"]["annotations"]}["bob"] == "TRUE → FALSE"
    s.skip(qid, "c1", "bob")  # withdrawing the label is recorded too; the case stays revealed to bob
    assert s.revisions(qid)[-1]["kind"] == "withdrawn by a skip"
    assert s.others_for(qid, "c1", "bob") == {"alice": "FALSE"}


# -- exports: the file's own labels kept, the new ones added beside them ----------------------------------
def test_native_checkthat_export_keeps_the_file_labels_and_adds_the_adjudicated(tmp_path):
    import ast
    import csv

    from debate.datasets import load_checkthat

    tsv = (
        "index\ttext\tlabels\n"
        "101\tNew study in Nature: sleep loss raises blood pressure\t[1.0, 0.5, 1.0]\n"
        "102\tGreat game tonight, what a finish\t[0.0, 0.0, 0.0]\n"
        "103\tAn untouched tweet\t[0.0, 0.33, 1.0]\n"
    )
    spec = from_upload("batch.tsv", tsv.encode())
    s = AnnotationStore(tmp_path / "d.sqlite")
    qid = s.create_queue(spec)
    split = spec.cases[0]  # gold 0.5 in the file
    assert split.gold_split and split.item_id == "101" and split.category == 2
    s.set_label(qid, split.key, "alice", "YES")
    s.skip(qid, split.key, "bob")  # one label and one skip: alice's label is the majority
    tie = next(c for c in spec.cases if not c.gold_split)
    s.set_label(qid, tie.key, "alice", "YES")
    s.set_label(qid, tie.key, "bob", "NO")
    out = tmp_path / "back.tsv"
    out.write_text(s.export(qid, "native"))
    rows = {r["index"]: r for r in csv.DictReader(out.open(), delimiter="\t")}
    assert list(next(csv.reader(out.open(), delimiter="\t"))) == ["index", "text", "labels", "adjudicated"]
    # the file's own labels exactly as they were (an untouched soft 0.33 included); ours beside them
    assert {k: r["labels"] for k, r in rows.items()} == {
        "101": "[1.0, 0.5, 1.0]",
        "102": "[0.0, 0.0, 0.0]",
        "103": "[0.0, 0.33, 1.0]",
    }
    added = {k: ast.literal_eval(r["adjudicated"]) for k, r in rows.items()}
    assert added["101"] == [None, 1.0, None]
    assert all(v is None for vals in (added["102"], added["103"]) for v in vals)  # a tie, untouched: empty
    assert {i.id: i.gold for i in load_checkthat(out)} == {i.id: i.gold for i in load_checkthat(out, labelled=True)}
    assert load_checkthat(out)[0].gold == {"1": "YES", "2": "SPLIT", "3": "YES"}  # our loader: the file's own


def test_shown_reasons_hide_what_tells_the_gold():
    reasons = ["annotators split", "low confidence", "wrong", "uploaded"]
    assert shown_reasons(reasons, gold_shown=False) == ["low confidence"]
    assert shown_reasons(reasons, gold_shown=True) == ["annotators split", "low confidence", "wrong"]
    assert shown_reasons(["uploaded"], False) == shown_reasons(["annotators split", "uploaded"], False) == []


def test_judge_against_gold_says_when_there_is_nothing_to_compare():
    none = agreement.judge_vs_gold(
        [("TRUE", None, None), ("FALSE", None, None), ("TRUE", None, None)], ["TRUE", "FALSE"]
    )
    assert (none["n"], none["n_judged"], none["accuracy"]) == (3, 0, None)  # not 0.000 over nothing
    empty = agreement.judge_vs_gold([(None, "TRUE", 0.9)], ["TRUE", "FALSE"])
    assert (empty["n"], empty["accuracy"]) == (0, None)
    some = agreement.judge_vs_gold([("TRUE", "TRUE", 0.9), ("FALSE", None, None)], ["TRUE", "FALSE"])
    assert (some["n"], some["n_judged"], some["accuracy"]) == (2, 1, 1.0)
