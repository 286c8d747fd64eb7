"""Loaders on the real data files (the full sets, found in the data search order), including their traps."""

from __future__ import annotations

import csv
import json
from collections import Counter

import pytest

from debate.data import locate
from debate.datasets import load_averitec, load_checkthat, load_dataset, load_liar, load_table
from debate.errors import InvalidInput
from tests.conftest import data_path

# CheckThat! is shipped (data/checkthat2025_4a): its tests and the ones on files they write always run;
# only the tests of the fetched sets skip where AVeriTeC and LIAR are not on this machine
fetched = pytest.mark.skipif(
    any(locate.find(r) is None for r in ("averitec/dev.json", "liar/train.tsv", "liar/valid.tsv")),
    reason="AVeriTeC and LIAR are not on this machine (python -m debate data fetch)",
)


@pytest.mark.parametrize(
    "name,n,pos", [("checkthat-train", 1229, (333, 224, 306)), ("checkthat-dev", 137, (26, 26, 34))]
)
def test_checkthat_counts_match_the_task(name, n, pos):
    ds = load_dataset(name)
    assert len(ds) == n and ds.categories == ("1", "2", "3") and ds.task == "checkthat"
    assert tuple(sum(it.gold[c] == "YES" for it in ds.items) for c in "123") == pos
    assert len({it.id for it in ds.items}) == n


def test_checkthat_csv_quoting_is_undone():
    # the TSV was written with CSV quoting: a tweet that starts with a quote is stored as """..."""
    items = {it.id: it for it in load_dataset("checkthat-train").items}
    assert items["724"].text.startswith("\"What's crucial") and not items["724"].text.startswith('""')
    test = {it.id: it for it in load_dataset("checkthat-test").items}
    assert test["t_14"].text.startswith('"Relevance matters" - a framework')


def test_checkthat_test_has_no_gold():
    ds = load_dataset("checkthat-test")
    assert len(ds) == 240 and not ds.has_gold and all(it.gold is None for it in ds.items)
    with pytest.raises(InvalidInput) as e:
        load_checkthat(data_path("checkthat2025_4a/ct_test.tsv"), labelled=True)
    assert "no `labels` column" in e.value.message


@fetched
def test_liar_needs_quote_none_and_maps_six_labels_to_three():
    path = data_path("liar/train.tsv")
    with open(path, newline="", encoding="utf-8") as fh:
        naive = list(csv.reader(fh, delimiter="\t"))
    assert len(naive) < 10269  # the trap: default quoting swallows rows
    train = load_liar(path)
    assert len(train) == 10269
    valid = load_dataset("liar-valid")
    assert len(valid) == 1284 and valid.labels == ("TRUE", "HALF-TRUE", "FALSE")
    assert Counter(it.gold for it in valid.items) == {"TRUE": 169, "HALF-TRUE": 248 + 251, "FALSE": 263 + 237 + 116}


@fetched
def test_liar_credit_history_never_reaches_items():
    ds = load_dataset("liar-valid")
    for it in ds.items:
        assert not any(k.endswith("_ct") for k in it.meta)
    # the first row's counts are "1 0 1 0 0": none of the raw count columns survive anywhere
    first = ds.items[0]
    assert first.id == "12134.json" and first.meta["speaker"] == "vicky-hartzler"
    assert set(first.meta) <= {"subject", "speaker", "job", "state", "party", "context", "label6"}


@fetched
def test_averitec_four_and_three_classes_without_leaks():
    ds4 = load_dataset("averitec-dev")
    assert len(ds4) == 500
    assert Counter(it.gold for it in ds4.items) == {"FALSE": 305, "TRUE": 122, "NEI": 35, "HALF-TRUE": 38}
    ds3 = load_dataset("averitec-dev-3")
    assert len(ds3) == 465 and "NEI" not in {it.gold for it in ds3.items} and ds3.task == "halftruth"
    raw = json.loads(data_path("averitec/dev.json").read_text())
    for it, rec in zip(ds4.items, raw):
        d = it.to_dict()
        assert "justification" not in json.dumps(d) and "fact_checking_article" not in json.dumps(d)
        d["meta"] = {k: v for k, v in d["meta"].items() if k != "gold_evidence"}  # QA answers may quote it
        if rec["justification"] not in rec["claim"]:  # some justifications merely restate the claim
            assert rec["justification"] not in json.dumps(d)
    assert ds4.items[0].meta["gold_evidence"]  # the full-evidence setting's QA answers


def test_malformed_files_name_file_line_and_fix(tmp_path):
    bad = tmp_path / "ct.tsv"
    bad.write_text("index\ttext\tlabels\n1\tok tweet\t[0.0, 1.0, 1.0]\n2\tbad tweet\t[1.0, 2.0]\n")
    with pytest.raises(InvalidInput) as e:
        load_checkthat(bad)
    assert f"{bad}, line 3" in e.value.message and "[0.0, 1.0, 1.0]" in e.value.hint
    short = tmp_path / "liar.tsv"
    short.write_text("1.json\ttrue\tA statement\tsubj\n")
    with pytest.raises(InvalidInput) as e:
        load_liar(short)
    assert "line 1" in e.value.message and "14" in e.value.message
    lab = tmp_path / "liar2.tsv"
    lab.write_text("\t".join(["1.json", "sorta-true", "S"] + [""] * 11) + "\n")
    with pytest.raises(InvalidInput) as e:
        load_liar(lab)
    assert "sorta-true" in e.value.message
    broken = tmp_path / "a.json"
    broken.write_text('[{"claim": "x", "label": "Supported"},\n {"claim": }]')
    with pytest.raises(InvalidInput) as e:
        load_averitec(broken)
    assert "line 2" in e.value.message
    with pytest.raises(InvalidInput) as e:
        load_dataset("checkthat-dev", path=tmp_path / "missing.tsv")
    assert "does not exist" in e.value.message


def test_custom_csv_and_jsonl_with_column_mapping(tmp_path):
    c = tmp_path / "mine.csv"
    c.write_text('tweet,verdict,key\n"Hello, world",true,a\nSecond,false,b\n')
    items = load_table(c, text="tweet", label="verdict", id="key")
    assert [(i.id, i.text, i.gold) for i in items] == [("a", "Hello, world", "TRUE"), ("b", "Second", "FALSE")]
    j = tmp_path / "mine.jsonl"
    j.write_text('{"text": "one", "label": "supported"}\n\n{"text": "two", "label": "refuted"}\n')
    ds = load_dataset(str(j), task="halftruth")
    assert ds.task == "halftruth" and [i.gold for i in ds.items] == ["SUPPORTED", "REFUTED"]
    assert [i.id for i in ds.items] == ["0", "1"]
    mapped = load_table(j, label_map={"supported": "TRUE", "refuted": "FALSE"})
    assert [i.gold for i in mapped] == ["TRUE", "FALSE"]
    with pytest.raises(InvalidInput) as e:
        load_table(c, text="body")
    assert "no column 'body'" in e.value.message and "--text-col" in e.value.hint
    j.write_text('{"text": "one"}\nnot json\n')
    with pytest.raises(InvalidInput) as e:
        load_table(j)
    assert "line 2" in e.value.message
