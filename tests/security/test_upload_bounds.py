"""An uploaded file of cases is bounded: Streamlit refuses one past the project's maxUploadSize (not its
200 MB default), and the parser bounds the bytes, the rows and each cell, with a message naming the limit
and what to do (the CLI and tests call the parser directly)."""

from __future__ import annotations

import html
import json
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from debate.adjudication.hardcases import MAX_CELL_CHARS, MAX_UPLOAD_BYTES, MAX_UPLOAD_CASES, MAX_UPLOAD_MB, from_upload
from debate.errors import InvalidInput

LABELS = ["YES", "NO"]
REPO = Path(__file__).resolve().parents[2]


def _refused(name: str, data: bytes) -> str:
    with pytest.raises(InvalidInput) as e:
        from_upload(name, data, labels=LABELS)
    return f"{e.value.message} {e.value.hint}"


def test_the_streamlit_config_bounds_uploads_as_the_parser_does():
    cfg = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert cfg["server"]["maxUploadSize"] == MAX_UPLOAD_MB < 200


def test_a_file_past_the_byte_bound_is_refused_before_it_is_read():
    said = _refused("big.csv", b"text\n" + b"a" * MAX_UPLOAD_BYTES)
    assert f"at most {MAX_UPLOAD_MB} MB" in said and "Split the file" in said


@pytest.mark.parametrize(
    "name,row",
    [
        ("long.csv", lambda v: v.encode()),
        ("long.tsv", lambda v: v.encode()),
        ("long.jsonl", lambda v: json.dumps({"text": v}).encode()),
    ],
)
def test_a_cell_past_the_bound_is_refused_naming_line_and_limit(name, row):
    header = b"" if name.endswith(".jsonl") else b"text\n"
    just = header + row("b" * MAX_CELL_CHARS) + b"\n"
    assert from_upload(name, just, labels=LABELS).cases[0].text == "b" * MAX_CELL_CHARS  # at the bound: read
    for size in (MAX_CELL_CHARS + 1, 200_000):  # 200,000 is past the csv module's own 131,072 too
        said = _refused(name, header + row("c" * size) + b"\n")
        assert f"at most {MAX_CELL_CHARS:,}" in said and ("line 2" in said or "line 1" in said), said


def test_a_field_past_the_csv_modules_own_limit_is_told_not_raised():
    said = _refused("quote.csv", b'text\n"' + b"d" * 10_000_001 + b"\n")  # an unclosed quote reads on
    assert "cannot be read as CSV/TSV" in said and "unclosed quote" in said


def test_rows_past_the_bound_are_refused_at_the_first_one_too_many():
    ok = b"id,text\n" + b"".join(b"%d,claim %d\n" % (i, i) for i in range(MAX_UPLOAD_CASES))
    assert len(from_upload("rows.csv", ok, labels=LABELS).cases) == MAX_UPLOAD_CASES
    said = _refused("rows.csv", ok + b"x,one more\n")
    assert f"more than {MAX_UPLOAD_CASES:,} rows" in said and f"line {MAX_UPLOAD_CASES + 2}" in said


@pytest.mark.timeout(300)
def test_the_adjudicate_page_reads_the_bound_and_tells_an_oversize_cell():
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=120)
    at.query_params.update({"who": "ann"})
    at.run()
    at.segmented_control(key="adj_view").set_value("New queue").run()
    at.radio(key="adj_src").set_value("Uploaded file").run()
    assert at.get("file_uploader")[0].proto.max_upload_size_mb == MAX_UPLOAD_MB  # the project's config is read
    at.file_uploader(key="adj_up").upload("long.csv", b"text\n" + b"e" * 200_000 + b"\n", "text/csv").run()
    at.button(key="adj_build_up").click().run()
    assert not at.exception, [e.message for e in at.exception]
    errors = [html.unescape(e.value) for e in at.error]
    assert any("long.csv" in e and f"at most {MAX_CELL_CHARS:,}" in e for e in errors), errors
