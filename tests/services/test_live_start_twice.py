"""A debate started twice (a second click on Run while the first one starts) is one debate, and a store error
names its real cause: a record refused as a duplicate is not a disk problem. Real SQLite store, the real
runner on scripted models."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from debate import live
from debate.errors import StoreError
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.runner import DebateConfig
from debate.store import DebateStore
from debate.store.sqlite import explain

VOTE = '{"vote": "YES", "explanation": "A study is cited."}'
LINEUP = {
    "name": "t",
    "members": [{"name": m, "model": f"scripted:{m}"} for m in ("a", "b", "c")],
    "judge": {"model": "scripted:judge"},
    "chair": {"model": "scripted:judge"},
}


def test_a_second_start_of_a_running_id_is_the_first_debate(tmp_path):
    store = DebateStore(tmp_path / "d.sqlite")
    client = ModelClient({"scripted": ScriptedBackend(default=lambda m, o: VOTE, delay_s=0.02)})
    cfg = DebateConfig(claim="Coffee cures colds.", protocol="council", lineup=LINEUP, params={"rounds": 1})
    did = live.new_debate_id()
    assert live.start_debate(cfg, client, None, store, debate_id=did) == did
    assert live.is_running(did)
    assert live.start_debate(cfg, client, None, store, debate_id=did) == did  # no error, nothing new
    assert live.wait(did, 60)
    assert [r["id"] for r in store.list()] == [did] and store.get(did)["status"] == "completed"
    starts = [e for e in store.events(did) if e.type == "debate_started"]
    assert len(starts) == 1


def test_a_duplicate_row_is_told_as_a_duplicate_not_a_disk_error(tmp_path):
    store = DebateStore(tmp_path / "d.sqlite")
    store.create_debate({"claim": "x", "protocol": "council"}, "same-id")
    with pytest.raises(StoreError) as err:
        store.create_debate({"claim": "x", "protocol": "council"}, "same-id")
    said = f"{err.value.message} {err.value.hint}"
    assert "already holds this record" in said and "UNIQUE constraint failed: debates.id" in said
    assert "disk" not in said.lower() and "permission" not in said.lower()
    assert [r["id"] for r in store.list()] == ["same-id"]


@pytest.mark.parametrize(
    "error, expect",
    [
        (sqlite3.OperationalError("database is locked"), "busy"),
        (sqlite3.OperationalError("database or disk is full"), "disk is full"),
        (sqlite3.OperationalError("attempt to write a readonly database"), "permissions"),
        (sqlite3.IntegrityError("NOT NULL constraint failed: debates.claim"), "inconsistent record"),
    ],
)
def test_each_sqlite_failure_names_its_cause(error, expect):
    message, hint = explain(error, "debate store", Path("/x/debates.sqlite"), "written")
    assert expect in f"{message} {hint}" and str(error) in message
