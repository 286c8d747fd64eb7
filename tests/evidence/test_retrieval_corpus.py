"""Corpus ingestion: every format, splitting, de-duplication, and each bad-input case naming the file,
the line and the fix. No model needed."""

from __future__ import annotations

import json

import pytest

from debate.errors import InvalidInput
from debate.retrieval.corpus import load_corpus, read_documents, split_words
from debate.retrieval.retriever import tweet_query
from tests.conftest import data_path


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


def test_jsonl_fields_and_aliases(tmp_path):
    f = write(
        tmp_path / "c.jsonl",
        "\n".join(
            [
                json.dumps(
                    {
                        "id": "a",
                        "text": "Vaccines were tested on 40,000 people.",
                        "title": "Trial",
                        "url": "https://ex.org/a",
                        "date": "2021-01-02",
                    }
                ),
                "",  # blank lines are allowed
                json.dumps({"content": "The bridge opened in 1932.", "source": "https://ex.org/b"}),
            ]
        ),
    )
    docs = read_documents(f)
    assert [d.doc_id for d in docs] == ["a", "c:3"]
    assert (docs[0].title, docs[0].source, docs[0].date) == ("Trial", "https://ex.org/a", "2021-01-02")
    assert docs[1].text == "The bridge opened in 1932." and docs[1].source == "https://ex.org/b"


def test_csv_and_tsv(tmp_path):
    csv_f = write(
        tmp_path / "c.csv",
        'Text,Title,source_url,date\n"Paris, France is a capital.",Cap,https://x/1,2020\nRome is old.,,https://x/2,\n',
    )
    tsv_f = write(tmp_path / "c.tsv", "text\tsource\nOne tab row.\thttps://y/1\n,\t\n")
    c = read_documents(csv_f)
    assert [d.text for d in c] == ["Paris, France is a capital.", "Rome is old."]
    assert c[0].title == "Cap" and c[1].source == "https://x/2"
    passages, report = load_corpus(tsv_f)
    assert [p.text for p in passages] == ["One tab row."] and report.skipped_blank == 0
    assert report.duplicates == 1  # the row "," normalises to nothing and is not a passage


def test_folder_of_text_files(tmp_path):
    (tmp_path / "sub").mkdir()
    write(tmp_path / "one.txt", "Plain text document about tides.")
    write(tmp_path / "sub" / "two.md", "# Moon facts\nThe moon causes tides.")
    write(tmp_path / "ignored.bin", "x")
    docs = read_documents(tmp_path)
    assert [d.doc_id for d in docs] == ["one.txt", "sub/two.md"]
    assert docs[1].title == "Moon facts" and docs[0].source.startswith("file://")


def test_split_with_overlap():
    text = " ".join(f"w{i}" for i in range(25))
    parts = split_words(text, max_words=10, overlap=3)
    assert parts[0].split() == [f"w{i}" for i in range(10)]
    assert parts[1].split()[:3] == ["w7", "w8", "w9"]  # 3 words shared
    assert parts[-1].split()[-1] == "w24"
    assert " ".join(dict.fromkeys(w for p in parts for w in p.split())) == text
    with pytest.raises(InvalidInput):
        split_words(text, max_words=5, overlap=5)


def test_long_document_passages_and_dedupe(tmp_path):
    long = " ".join(f"word{i}" for i in range(300))
    f = write(
        tmp_path / "c.jsonl",
        "\n".join(
            json.dumps(r)
            for r in [
                {"id": "long", "text": long},
                {"id": "x", "text": "The Eiffel Tower is 330 m tall."},
                {"id": "y", "text": "the eiffel tower is 330 m tall!!"},  # near duplicate: case/punctuation
                {"id": "x", "text": "A different text, same id."},
            ]
        ),
    )
    passages, report = load_corpus(f, max_words=100, overlap=20)
    ids = [p.passage_id for p in passages]
    assert ids[:4] == ["long#0", "long#1", "long#2", "long#3"]
    assert "y" not in ids and report.duplicates == 1
    assert len(set(ids)) == len(ids) and "x~2" in ids  # repeated ids are made unique
    assert all(p.doc_id == "long" for p in passages[:4])


@pytest.mark.parametrize(
    "name,content,line,fix",
    [
        ("bad.jsonl", '{"text": "ok"}\n{"text": "broken"\n', 2, "one JSON object"),
        ("list.jsonl", '{"text": "ok"}\n[1, 2]\n', 2, "JSON object"),
        ("notext.jsonl", '{"text": "ok"}\n{"title": "no body"}\n', 2, '"text" field'),
        ("nocol.csv", "title,url\nA,https://x\n", 1, 'column named "text"'),
        ("nocol.tsv", "title\turl\nA\thttps://x\n", 1, "tab-separated header"),
        ("extra.csv", "text,url\na,b,c\n", 2, "quote cells"),
    ],
)
def test_bad_structure_names_file_line_and_fix(tmp_path, name, content, line, fix):
    f = write(tmp_path / name, content)
    with pytest.raises(InvalidInput) as e:
        load_corpus(f)
    msg = str(e.value)
    assert name in msg and f"line {line}" in msg and "Fix:" in e.value.hint and fix in e.value.hint


def test_wrong_encoding_names_the_line(tmp_path):
    f = write(tmp_path / "latin.csv", "text\nfine row\ncaf\u00e9 row\n", encoding="latin-1")
    with pytest.raises(InvalidInput) as e:
        load_corpus(f)
    assert "latin.csv, line 3" in str(e.value) and "UTF-8" in str(e.value) and "iconv" in e.value.hint


@pytest.mark.parametrize(
    "make",
    [
        lambda p: write(p / "empty.jsonl", ""),
        lambda p: write(p / "spaces.csv", "  \n\n"),
        lambda p: write(p / "blank.csv", "text,url\n,https://x\n"),
        lambda p: (p / "emptydir").mkdir() or p / "emptydir",
        lambda p: write(p / "data.xlsx", "x"),
        lambda p: p / "missing.jsonl",
    ],
)
def test_empty_unknown_or_missing_input(tmp_path, make):
    path = make(tmp_path)
    with pytest.raises(InvalidInput) as e:
        load_corpus(path)
    assert path.name in str(e.value) and e.value.hint.startswith("Fix:")


def test_averitec_default_corpus_uses_answers_not_justification():
    data_path("averitec/dev.json")
    from debate.retrieval import averitec

    claims = averitec.load_claims()
    docs = averitec.documents()
    texts = {d.text for d in docs}
    assert len(claims) == 500 and 1200 < len(docs) < 1400
    # every passage is an evidence answer (or a Boolean answer's explanation) of its own claim; the
    # `justification` field is never read (a few annotators copied an answer into it, hence no text test)
    for d in docs:
        answers = [a for q in claims[d.meta["claim_id"]]["questions"] for a in q["answers"]]
        assert d.text in {a["answer"].strip() for a in answers} | {
            (a.get("boolean_explanation") or "").strip() for a in answers
        }
    assert "No answer could be found." not in texts and "No" not in texts
    assert all(d.meta["claim_id"] == int(d.doc_id.split("/")[1]) for d in docs)
    assert sum(d.source.startswith("http") for d in docs) > 0.9 * len(docs)


def test_tweet_query_adds_url_path_words():
    q = tweet_query(
        "Wow!! https://www.theguardian.com/world/2020/apr/06/report-blames-syria-chemical-attacks "
        "via https://t.co/AbC12xYz"
    )
    assert "http" not in q and q.startswith("Wow!! via")
    assert q.endswith("world apr report blames syria chemical attacks")
    assert "abc12xyz" not in q.lower()
    assert tweet_query("no links here") == "no links here"
