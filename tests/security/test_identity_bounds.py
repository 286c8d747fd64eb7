"""Names people type for who they are (an annotator, an account) and names they save (a lineup, its
seats) are bounded, with a message naming the limit: a long annotator name was cut silently at 80
characters, so two people whose names differ past the cut labelled as one."""

from __future__ import annotations

import html

import pytest
from streamlit.testing.v1 import AppTest

from debate.adjudication.accounts import MAX_NAME, AccountStore
from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import from_upload
from debate.errors import InvalidInput
from debate.lineups import MAX_SEAT_NAME, load_lineup
from debate.store import DebateStore
from debate.store.debates import MAX_LINEUP_NAME

CASES = b"id,claim,label\nc1,The deficit fell 15% last year.,HALF-TRUE\nc2,Vaccines cause autism.,FALSE\n"


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "store.sqlite"
    monkeypatch.setenv("DEBATE_STORE_DB", str(path))
    return path


def _queue(db) -> str:
    return AnnotationStore(db).create_queue(from_upload("cases.csv", CASES, task="halftruth"), {"blind": False})


def test_an_annotator_name_past_the_bound_is_refused_not_cut(db):
    store, qid = AnnotationStore(db), _queue(db)
    store.set_label(qid, "c1", "A" * MAX_NAME, "FALSE")  # at the bound: stored as typed (folded)
    for long in ("b" * (MAX_NAME + 1), "c" * 10_000):
        with pytest.raises(InvalidInput) as e:
            store.set_label(qid, "c1", long, "FALSE")
        assert f"at most {MAX_NAME}" in e.value.message and "shorter name" in e.value.hint
    with pytest.raises(InvalidInput) as e:
        store.set_label(qid, "c1", "\u200b\u200b", "FALSE")  # only invisible characters
    assert "empty" in e.value.message
    assert {a["annotator"] for a in store.annotations(qid)} == {"a" * MAX_NAME}


def test_an_account_name_past_the_bound_is_refused(db):
    with pytest.raises(InvalidInput) as e:
        AccountStore(db).add("d" * (MAX_NAME + 1), "a long password")
    assert f"at most {MAX_NAME}" in e.value.message


def test_lineup_and_seat_names_past_the_bound_are_refused(db):
    members = [{"name": "s" * (MAX_SEAT_NAME + 1), "model": "scripted:yes"}]
    with pytest.raises(InvalidInput) as e:
        load_lineup({"name": "x", "members": members})
    assert "members[0]" in e.value.message and f"at most {MAX_SEAT_NAME}" in e.value.message
    assert load_lineup({"name": "x", "members": [{"name": "s" * MAX_SEAT_NAME, "model": "scripted:yes"}]})
    store = DebateStore(db)
    with pytest.raises(InvalidInput) as e:
        store.save_lineup("L" * (MAX_LINEUP_NAME + 1), {"members": []})
    assert f"at most {MAX_LINEUP_NAME}" in e.value.message and "L" * (MAX_LINEUP_NAME + 1) not in store.lineups()


@pytest.mark.timeout(300)
def test_the_adjudicate_page_bounds_the_name_box_and_tells_a_long_name_from_the_address(db):
    qid = _queue(db)
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=90)
    at.query_params.update({"who": "e" * 500, "q": qid})  # a typed address is not held by the box's limit
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.text_input(key="adj_annotator").proto.max_chars == MAX_NAME
    at.button(key="adj_lab_0").click().run()
    assert not at.exception, [e.message for e in at.exception]
    errors = [html.unescape(e.value) for e in at.error]
    assert any(f"at most {MAX_NAME}" in e for e in errors), errors
    assert AnnotationStore(db).annotations(qid) == []  # nothing stored under a cut name
