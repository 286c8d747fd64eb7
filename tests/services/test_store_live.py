"""The background worker: debates run in threads, write every event to the real SQLite store,
stop on request, never mix, and keep what was said when something fails."""

from __future__ import annotations

import threading

import pytest

from debate import live
from debate.errors import InvalidInput
from debate.events import DebateStarted, TokenDelta
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.runner import DebateConfig
from debate.store import DebateStore

VOTE = '{"vote": "YES", "explanation": "A study is cited."}'


def _lineup(*models: str) -> dict:
    return {
        "name": "t",
        "members": [{"name": m, "model": f"scripted:{m}"} for m in models],
        "judge": {"model": "scripted:judge"},
        "chair": {"model": "scripted:judge"},
    }


@pytest.fixture
def store(tmp_path):
    return DebateStore(tmp_path / "live.sqlite")


def test_two_debates_at_once_do_not_mix(store):
    backend = ScriptedBackend(default=lambda msgs, o: VOTE, delay_s=0.01)
    client = ModelClient({"scripted": backend})
    ids = []
    for claim in ("Claim about apples", "Claim about pears"):
        cfg = DebateConfig(claim=claim, protocol="council", lineup=_lineup("a", "b", "c"), params={"rounds": 1})
        ids.append(live.start_debate(cfg, client, None, store))
    assert len(set(ids)) == 2
    for d in ids:
        assert live.wait(d, 60)
    for d, word in zip(ids, ("apples", "pears")):
        evs = store.events(d)
        assert evs[0].claim.endswith(word) and evs[-1].type == "finished"
        assert [e.seq for e in evs] == list(range(len(evs)))
        assert store.get(d)["status"] == "completed" and store.get(d)["verdict"] == "YES"


def test_invalid_config_raises_before_any_row_is_left(store):
    client = ModelClient({"scripted": ScriptedBackend(default=VOTE)})
    with pytest.raises(InvalidInput) as err:
        live.start_debate(DebateConfig(claim="x", protocol="nope", lineup=_lineup("a")), client, None, store)
    assert "protocol" in err.value.message.lower() and err.value.hint
    with pytest.raises(InvalidInput):
        live.start_debate(DebateConfig(claim="   ", lineup=_lineup("a")), client, None, store)
    assert store.list() == []


def test_stop_ends_with_status_stopped_and_keeps_events(store):
    backend = ScriptedBackend(default=lambda msgs, o: "word " * 400 + VOTE, delay_s=0.01)
    client = ModelClient({"scripted": backend})
    d = live.start_debate(DebateConfig(claim="c", lineup=_lineup("a", "b")), client, None, store)
    assert live.is_running(d) and d in live.running()
    threading.Event().wait(0.3)
    assert live.stop(d)
    assert live.wait(d, 30)
    assert not live.is_running(d) and not live.stop(d)
    assert store.get(d)["status"] == "stopped"
    kinds = [e.type for e in store.events(d)]
    assert "token" in kinds and kinds[-1] == "finished"


def test_engine_crash_mid_stream_is_recorded_not_lost(store):
    def run(config, client, retriever=None, cancel=None):
        yield DebateStarted(debate_id=config.debate_id, claim=config.claim, seq=0)
        yield TokenDelta(turn_id="t1", agent="A", text="half", seq=1)
        raise RuntimeError("boom")

    d = live.start_debate(DebateConfig(claim="c"), None, None, store, run=run)
    assert live.wait(d, 10)
    row = store.get(d)
    assert row["status"] == "error" and "boom" in row["stop_reason"]
    assert [e.type for e in store.events(d)] == ["debate_started", "token", "error", "finished"]


def test_engine_ending_without_closing_event_is_marked(store):
    def run(config, client, retriever=None, cancel=None):
        yield DebateStarted(debate_id=config.debate_id, claim=config.claim, seq=0)

    d = live.start_debate(DebateConfig(claim="c"), None, None, store, run=run)
    assert live.wait(d, 10)
    assert store.get(d)["status"] == "error"
