"""The debate store on real SQLite: schema, append/fold, filters, interrupted debates, exports."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import threading

import pytest

from debate.errors import InvalidInput
from debate.events import (
    DebateFinished,
    DebateStarted,
    EvidenceRetrieved,
    PhaseStarted,
    TokenDelta,
    TurnFinished,
    TurnStarted,
    Verdict,
    VotesTallied,
)
from debate.sharing import exports
from debate.store import MIGRATIONS, DebateStore


def _debate(
    store: DebateStore,
    debate_id: str,
    claim: str = "Vaccines cause autism <b>",
    protocol: str = "council",
    finish: str | None = "completed",
    label: str = "NO",
    gold: str | None = "NO",
) -> None:
    store.create_debate(
        {"claim": claim, "protocol": protocol, "task": "checkthat", "category": 1, "lineup": "embedded", "gold": gold},
        debate_id,
    )
    evs = [
        DebateStarted(
            debate_id=debate_id,
            protocol=protocol,
            task="checkthat",
            category=1,
            claim=claim,
            lineup=[{"agent": "A", "role": "member", "model": "local:x"}],
            gold=gold,
        ),
        EvidenceRetrieved(
            query=claim, passages=[{"id": "E1", "text": "passage one", "score": 0.9, "source": "http://s"}]
        ),
        PhaseStarted(phase="vote", round=0, title="Initial votes"),
        TurnStarted(turn_id="t1", agent="A", role="member", model="local:x", phase="vote"),
        TokenDelta(turn_id="t1", agent="A", text="No, "),
        TokenDelta(turn_id="t1", agent="A", text="see [E1]."),
        TurnFinished(
            turn_id="t1",
            agent="A",
            role="member",
            model="local:x",
            phase="vote",
            text="No, see [E1].",
            label=label,
            confidence=0.7,
            citations=["E1"],
            prompt_tokens=10,
            completion_tokens=4,
        ),
        VotesTallied(round=0, votes={"A": label}, counts={label: 1}, consensus_share=1.0, reached=True, majority=label),
    ]
    if finish:
        evs += [
            Verdict(label=label, explanation="because", source="majority", gold=gold, correct=(label == gold)),
            DebateFinished(
                status=finish,
                stop_reason="consensus",
                label=label,
                prompt_tokens=10,
                completion_tokens=4,
                model_calls=1,
                wall_s=1.5,
            ),
        ]
    for i, ev in enumerate(evs):
        ev.seq = i
        store.append_event(debate_id, ev)


def test_schema_migrations_recorded(tmp_path):
    store = DebateStore(tmp_path / "s.sqlite")
    rows = store._q("SELECT id, name FROM schema_migrations ORDER BY id")
    assert [(r[0], r[1]) for r in rows] == [(n, name) for n, name, _ in MIGRATIONS]
    cols = {r[1] for r in store._q("PRAGMA table_info(debates)")}
    assert {
        "id",
        "created_at",
        "updated_at",
        "status",
        "protocol",
        "task",
        "category",
        "claim",
        "lineup",
        "config",
        "verdict",
        "gold",
        "tokens",
        "wall_s",
    } <= cols
    assert {r[1] for r in store._q("PRAGMA table_info(events)")} == {"debate_id", "seq", "type", "json"}
    assert store._q("PRAGMA journal_mode")[0][0] == "wal"
    # reopening applies nothing twice
    assert DebateStore(tmp_path / "s.sqlite").migrate() == []


def test_append_folds_into_row_and_events_round_trip(tmp_path):
    store = DebateStore(tmp_path / "s.sqlite")
    _debate(store, "d1")
    row = store.get("d1")
    assert row["status"] == "completed" and row["verdict"] == "NO" and row["gold"] == "NO"
    assert row["correct"] is True and row["tokens"] == 14 and row["model_calls"] == 1 and row["wall_s"] == 1.5
    evs = store.events("d1")
    assert [e.seq for e in evs] == list(range(10))
    assert evs[0].claim == "Vaccines cause autism <b>" and evs[-1].type == "finished"
    assert [e.type for e in store.events("d1", after_seq=7)] == ["verdict", "finished"]
    # seq is assigned when the event has none
    assert store.append_event("d1", {"type": "error", "message": "late"}) == 10


def test_duplicate_seq_is_refused(tmp_path):
    from debate.errors import StoreError

    store = DebateStore(tmp_path / "s.sqlite")
    _debate(store, "d1", finish=None)
    with pytest.raises(StoreError):
        store.append_event("d1", TokenDelta(turn_id="t1", text="x", seq=3))


def test_list_filters_and_delete(tmp_path):
    store = DebateStore(tmp_path / "s.sqlite")
    _debate(store, "a", claim="The moon is made of cheese", protocol="council", label="NO")
    _debate(store, "b", claim="Study shows 100% of cats", protocol="radar", label="YES", gold="NO")
    _debate(store, "c", claim="50%_off", protocol="single", finish=None)
    assert [r["id"] for r in store.list()] == ["c", "b", "a"]
    assert [r["id"] for r in store.list(search="moon")] == ["a"]
    assert [r["id"] for r in store.list(search="100%")] == ["b"]  # LIKE wildcards are literal
    assert [r["id"] for r in store.list(search="%_")] == ["c"]
    assert [r["id"] for r in store.list(protocol="radar")] == ["b"]
    assert [r["id"] for r in store.list(verdict="NO")] == ["a"]
    assert [r["id"] for r in store.list(status="running")] == ["c"]
    today = store.get("a")["created_at"][:10]
    assert len(store.list(date_from=today, date_to=today)) == 3
    assert store.list(date_to="2000-01-01") == []
    assert store.distinct("protocol") == ["council", "radar", "single"]
    assert store.get("b")["correct"] is False
    assert store.delete("b") and store.get("b") is None and store.events("b") == []
    assert not store.delete("b")


def test_interrupted_debate_kept_with_partial_transcript(tmp_path):
    """A debate left running by a process that died is marked interrupted; its events stay."""
    path = tmp_path / "s.sqlite"
    code = (
        "import sys; sys.path.insert(0, sys.argv[2]);"
        "from debate.store.debates import DebateStore; from debate.events import DebateStarted, TokenDelta;"
        "s = DebateStore(sys.argv[1]); s.create_debate({'claim': 'c', 'protocol': 'council'}, 'dead');"
        "s.append_event('dead', DebateStarted(debate_id='dead', claim='c', seq=0));"
        "s.append_event('dead', TokenDelta(turn_id='t', agent='A', text='half a sent', seq=1))"
    )
    import debate

    repo = str(__import__("pathlib").Path(debate.__file__).parent.parent)
    subprocess.run([sys.executable, "-c", code, str(path), repo], check=True)
    store = DebateStore(path)
    store.create_debate({"claim": "mine", "protocol": "council"}, "alive")  # this process: not touched
    store.mark_interrupted(stale_s=0)
    assert store.get("dead")["status"] == "interrupted"  # at the writer's exit, or by its stopped heartbeat
    assert store.get("alive")["status"] == "running"
    assert [e.type for e in store.events("dead")] == ["debate_started", "token"]


def test_stopped_debate_keeps_status_and_events(tmp_path):
    store = DebateStore(tmp_path / "s.sqlite")
    _debate(store, "s", finish="stopped")
    assert store.get("s")["status"] == "stopped"
    assert len(store.events("s")) == 10


def test_exports(tmp_path):
    store = DebateStore(tmp_path / "s.sqlite")
    _debate(store, "d1")
    data = json.loads(exports.export_json(store, "d1"))
    assert data["debate"]["id"] == "d1" and len(data["events"]) == 10
    assert data["events"][6]["text"] == "No, see [E1]."
    md = exports.export_markdown(store, "d1")
    assert "# Debate d1" in md and "> Vaccines cause autism &lt;b&gt;" in md
    assert "### A (member, local:x) — **NO** (P(NO) 0.70)" in md and "consensus 100%" in md
    assert "## Verdict" in md and "Gold: NO — right" in md and "[E1]" in md
    rows = list(csv.DictReader(io.StringIO(exports.export_csv(store, "d1"))))
    assert rows[0]["phase"] == "evidence" and rows[0]["agent"] == "E1" and rows[0]["flag"] == ""  # one row a passage
    rows = rows[1:]
    assert len(rows) == 2 and rows[0]["agent"] == "A" and rows[0]["label"] == "NO"
    assert rows[1]["phase"] == "verdict" and rows[1]["label"] == "NO" and rows[1]["overrule"] == ""  # not overruled
    assert rows[0]["text"] == "No, see [E1]." and rows[0]["citations"] == "E1"
    listing = list(csv.DictReader(io.StringIO(exports.library_csv(store, store.list()))))
    assert listing[0]["id"] == "d1" and listing[0]["verdict"] == "NO"
    with pytest.raises(InvalidInput):
        exports.export_json(store, "nope")


def test_lineups_saved(tmp_path):
    store = DebateStore(tmp_path / "s.sqlite")
    store.save_lineup("mine", {"members": ["local:a"]})
    assert store.lineups() == {"mine": {"members": ["local:a"]}}
    with pytest.raises(InvalidInput):
        store.save_lineup("  ", {})
    store.delete_lineup("mine")
    assert store.lineups() == {}


def test_concurrent_writers_do_not_mix(tmp_path):
    store = DebateStore(tmp_path / "s.sqlite")
    for d in ("x", "y"):
        store.create_debate({"claim": d}, d)

    def write(d: str) -> None:
        for i in range(200):
            store.append_event(d, TokenDelta(turn_id=d, agent=d, text=f"{d}{i}", seq=i))

    threads = [threading.Thread(target=write, args=(d,)) for d in ("x", "y")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for d in ("x", "y"):
        evs = store.events(d)
        assert [e.seq for e in evs] == list(range(200)) and {e.agent for e in evs} == {d}


def test_opening_the_store_again_in_one_process_keeps_the_first_connection_working(tmp_path):
    """The live worker and every page open the same database in one process: opening it again must never
    drop the locks of a connection already open on it (SQLite then fails with "disk I/O error")."""
    first = DebateStore(tmp_path / "s.sqlite")
    _debate(first, "d1")
    for i in range(5):
        again = DebateStore(tmp_path / "s.sqlite")  # as a page rerun does while the worker writes
        _debate(first, f"w{i}")
        _debate(again, f"p{i}")
    assert {r["id"] for r in first.list()} == {"d1", *(f"w{i}" for i in range(5)), *(f"p{i}" for i in range(5))}
    assert (tmp_path / "s.sqlite").stat().st_mode & 0o777 == 0o600
