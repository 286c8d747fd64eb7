"""The runner's contract: event order and seq, JSON round trip, replay, cancel, errors, cache, concurrency."""

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from debate.errors import BackendUnavailable, InvalidInput
from debate.lineups import PRESETS, load_lineup
from debate.models.cache import ResponseCache
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.protocols import resolve_agents, validate_lineup
from debate.runner import DebateConfig, run_debate
from debate.transcript import read_events, render_text, write_event
from debate.view import build_view
from tests.conftest import REPO
from tests.support.engine import FakeRetriever, by_type, lineup, run, scripted


def strip(ev):
    d = ev.to_dict()
    d.pop("t")
    for k in ("debate_id", "created_at", "latency_s", "ttft_s", "wall_s"):
        d.pop(k, None)
    return d


def test_events_round_trip_through_json_and_replay_identically(tmp_path):
    client, _ = scripted()
    ev = run(client, "radar", task="halftruth", category=None, retriever=FakeRetriever(), params={"rounds": 1})
    path = tmp_path / "ev.jsonl"
    with path.open("w") as fh:
        for e in ev:
            write_event(fh, e)
    back = read_events(path)
    assert [e.to_dict() for e in back] == [json.loads(json.dumps(e.to_dict())) for e in ev]
    assert render_text(back) == render_text(ev) and "VERDICT: HALF-TRUE" in render_text(ev)
    tr = build_view(back)
    assert tr.verdict_view.label == "HALF-TRUE" and tr.evidence and tr.finished.status == "completed"
    assert tr.sections[0].phase == "opening" and any(s.phase == "stop-check" for s in tr.sections)


def test_cli_run_and_replay_print_the_same_transcript(tmp_path):
    lu = tmp_path / "lineup.json"
    lu.write_text(
        json.dumps({"members": [{"model": "scripted:a"}, {"model": "scripted:b"}], "judge": {"model": "scripted:j"}})
    )
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "DEBATE_CACHE": "0", "PYTHONPATH": str(REPO)}
    live = subprocess.run(
        [
            sys.executable,
            "-m",
            "debate",
            "run",
            "--protocol",
            "single",
            "--rounds",
            "1",
            "--lineup",
            str(lu),
            "--no-check",
            "--events",
            str(out),
            "A study says X",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert live.returncode == 0, live.stderr
    replay = subprocess.run(
        [sys.executable, "-m", "debate", "replay", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
    )
    assert replay.returncode == 0 and replay.stdout == live.stdout
    assert "\x1b[" not in live.stdout  # no colour when not on a terminal
    assert "Opening statements" in live.stdout and "VERDICT · category 1: YES" in live.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "debate", "run", "--protocol", "council", "--param", "theta=high", "x"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
    )
    assert bad.returncode == 2 and "theta='high' is not a number" in bad.stderr and "Traceback" not in bad.stderr
    listing = subprocess.run(
        [sys.executable, "-m", "debate", "protocols", "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
    )
    info = json.loads(listing.stdout)
    assert set(info) == {"single", "team", "council", "baseline", "radar", "radar-single"}
    assert info["council"]["params"]["theta"]["default"] == 0.8 and info["council"]["params"]["rounds"]["default"] == 5


def test_invalid_config_raises_before_the_first_event():
    client, _ = scripted()
    cases = [
        (dict(claim="  "), "claim is empty"),
        (dict(claim="x", protocol="duel"), "Unknown protocol"),
        (dict(claim="x", params={"theta": 2}), "between 0 and 1"),
        (dict(claim="x", params={"nope": 1}), "has no parameter 'nope'"),
        (dict(claim="x", protocol="radar", params={"debaters": 5}), "not allowed"),
        (dict(claim="x", category=7), "no category 7"),
        (dict(claim="x", task="quiz"), "Unknown task"),
        (dict(claim="x", lineup="nobody"), "Unknown lineup"),
        (dict(claim="x", lineup={"members": [{"model": "gpt"}]}), "has no backend"),
    ]
    for kw, msg in cases:
        with pytest.raises(InvalidInput, match=msg):
            run_debate(DebateConfig(**kw), client)


def test_backend_failure_mid_debate_ends_cleanly():
    def judge(m, o):
        raise BackendUnavailable("Cannot reach the judge.", "Start it.")

    client, _ = scripted({"judge": judge})
    ev = run(client, "single", params={"rounds": 1})
    err, fin = ev[-2], ev[-1]
    assert err.type == "error" and err.hint == "Start it." and err.error == "BackendUnavailable"
    assert err.message == "Member judge (scripted:judge, backend scripted) failed: Cannot reach the judge."
    assert (err.agent, err.model, err.backend) == ("judge", "scripted:judge", "scripted")
    assert fin.status == "error" and fin.label is None
    assert len(by_type(ev, "turn_finished")) == 6  # what was said is kept
    assert [e.seq for e in ev] == list(range(len(ev)))


def test_cancel_mid_stream_stops_between_tokens():
    client, backend = scripted({"vote": " ".join(["word"] * 200) + ' {"vote": "YES"}'}, delay_s=0.005)
    cancel = threading.Event()
    cfg = DebateConfig(claim="x", protocol="council", category=2, lineup=lineup(5), max_tokens=300)
    events, t0 = [], time.perf_counter()
    for e in run_debate(cfg, client, cancel=cancel):
        events.append(e)
        if sum(1 for x in events if x.type == "token") == 20:
            cancel.set()
    assert time.perf_counter() - t0 < 1.0  # not the ~1 s a full member answer takes
    fin = events[-1]
    assert fin.type == "finished" and fin.status == "stopped" and fin.label is None
    assert not by_type(events, "turn_finished") and [e.seq for e in events] == list(range(len(events)))
    assert by_type(events, "turn_started") and len(backend.calls) == 5


def test_concurrent_turns_interleave_and_overlap_in_time():
    """Five members answer at once: each one's tokens arrive while the others' still stream (order of events,
    not a wall-clock bound: a timed assertion failed whenever another test shared the cores)."""
    client, backend = scripted({"vote": "a b c d e f g h i j " + '{"vote": "YES"}'}, delay_s=0.02)
    ev = run(client, "council", params={"rounds": 0})
    tokens = by_type(ev, "token")
    agents = [e.agent for e in tokens]
    assert len(set(agents[:10])) > 1  # tokens of different members interleave
    spans = {
        a: (min(e.seq for e in tokens if e.agent == a), max(e.seq for e in tokens if e.agent == a)) for a in set(agents)
    }
    assert len(spans) == 5
    # every two answers overlap in time: each began before the other ended (one after another, none would)
    assert all(s1[0] < s2[1] and s2[0] < s1[1] for s1 in spans.values() for s2 in spans.values() if s1 != s2), spans
    started = [e.seq for e in by_type(ev, "turn_started")]
    assert started == list(range(started[0], started[0] + 5))  # all five announced before any token


def test_cached_rerun_gives_the_identical_event_stream(tmp_path):
    backend = ScriptedBackend(default=lambda m, o: '{"vote": "YES", "explanation": "x"}')
    client = ModelClient({"scripted": backend}, cache=ResponseCache(tmp_path / "cache.sqlite"))
    cfg = dict(claim="x", protocol="council", category=None, lineup=lineup(3), debate_id="fixed")
    first = list(run_debate(DebateConfig(**cfg), client))
    second = list(run_debate(DebateConfig(**cfg), client))
    third = list(run_debate(DebateConfig(**cfg), client))
    assert second[-1].cache_hits == second[-1].model_calls == 9
    assert [strip(e) for e in second] == [strip(e) for e in third]
    # the first (uncached) run interleaves concurrently, so only what was decided must match
    assert [(v.category, v.label, v.labels) for v in by_type(first, "verdict")] == [
        (v.category, v.label, v.labels) for v in by_type(second, "verdict")
    ]
    assert len(backend.calls) == 9


def test_lineups_presets_resolution_and_validation():
    emb = load_lineup("embedded")
    models = {m["model"] for m in emb["members"]}
    assert models == {"local:qwen2.5-coder-0.5b", "local:smollm2-135m"}
    assert len({(m["temperature"], m["seed"]) for m in emb["members"]}) == len(emb["members"])
    paper = load_lineup("paper-council-ollama")
    assert [m["model"] for m in paper["members"]] == [
        "ollama:gemma3:12b",
        "ollama:qwen3:8b",
        "ollama:deepseek-r1:8b",
        "ollama:phi4:14b",
        "ollama:mistral:7b",
    ]
    assert paper["chair"]["model"] == "ollama:llama3.1:8b"
    council = resolve_agents(paper, "council")
    assert [a.role for a in council] == ["member"] * 5 + ["chair"]
    team = resolve_agents(load_lineup("paper-debate-ollama"), "team", {"config": "different"})
    assert [a.model.split(":")[1] for a in team if a.role == "proponent"] == ["gemma3", "qwen3", "mistral"]
    assert [a.model.split(":")[1] for a in team if a.role == "opponent"] == ["deepseek-r1", "phi4", "llama3.1"]
    radar = resolve_agents(emb, "radar", {"debaters": 3})
    assert [a.role for a in radar] == ["politician", "scientist", "journalist", "judge", "stop-agent"]
    assert set(PRESETS) >= {"embedded", "paper-council-ollama", "paper-debate-ollama"}

    backend = ScriptedBackend({"m1": "x", "judge": "y", "chair": "z"})
    client = ModelClient({"scripted": backend})
    rows = {r["model"]: r for r in validate_lineup(lineup(2), client, "council")}
    assert rows["scripted:m1"]["ok"] and not rows["scripted:m2"]["ok"]
    assert "does not list 'm2'" in rows["scripted:m2"]["detail"] and rows["scripted:m2"]["agents"] == ["m2"]
    down = validate_lineup(
        "paper-council-ollama",
        ModelClient(
            backend_factory=lambda spec: (_ for _ in ()).throw(BackendUnavailable("Cannot reach Ollama.", "Start it."))
        ),
    )
    assert all(r["status"] == "unreachable" and "Cannot reach Ollama" in r["detail"] for r in down)


def test_the_larger_embedded_preset_puts_the_1_5b_where_one_model_carries_the_debate():
    """ "Embedded, larger (slower)": RADAR's debaters and judge and the council's chair on the 1.5B, the
    members and the stop agent small; the Debate page's caption states the time to expect."""
    from ui.catalog import preset_title

    lu = load_lineup("embedded-larger")
    big = "local:qwen2.5-coder-1.5b"
    assert {a.role: a.model for a in resolve_agents(lu, "radar", {})} == {
        "politician": big,
        "scientist": big,
        "judge": big,
        "stop-agent": "local:qwen2.5-coder-0.5b",
    }
    council = resolve_agents(lu, "council", {})
    assert [a.model for a in council if a.role == "chair"] == [big]
    assert [a.model for a in council if a.role == "member"] == [m["model"] for m in PRESETS["embedded"]["members"]]
    assert preset_title("embedded-larger") == "Embedded, larger (slower)"
    assert "Measured on 2 CPU cores" in lu["description"] and "66 s" in lu["description"]


@pytest.mark.parametrize("preset", ["embedded", "embedded-larger"])
def test_smollm2_votes_in_the_embedded_lineups_and_speaks_in_no_seat(preset):
    """Every seat of the embedded lineups that argues in words is a Qwen: SmolLM2-135M's turns looped, wandered
    off the claim, argued the other side or said nothing in RADAR, the single and the team debate
    (docs/content-benchmark.md), so it keeps only its vote in the council (and answers there without words)."""
    from debate.protocols import PROTOCOLS

    lu = load_lineup(preset)
    smol = "local:smollm2-135m"
    for name in PROTOCOLS:
        seated = {a.agent: a for a in resolve_agents(lu, name, {})}
        speaking = {k: a.model for k, a in seated.items() if a.role not in ("member",)}
        assert smol not in speaking.values(), (name, speaking)
    members = [a for a in resolve_agents(lu, "council", {}) if a.model == smol]
    assert members and all(a.role == "member" for a in members)
    assert next(m for m in lu["members"] if m["model"] == smol).get("explain") is False
