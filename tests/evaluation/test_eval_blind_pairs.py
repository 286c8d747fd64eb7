"""The substance benchmark's reading of stored debates and the blind pairwise reading: pairs hide which
configuration wrote which debate (no model, agent or lineup name, random order), judgements are kept and
unblinded against the key."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import bench_substance  # noqa: E402
import blind_pairs  # noqa: E402

CLAIMS = ["Texas created more jobs than all other states combined.", "The Amazon makes 20 percent of our oxygen."]


def _debate(claim: str, model: str, lineup: str, words: str) -> dict:
    events = [
        {
            "type": "debate_started",
            "protocol": "radar",
            "claim": claim,
            "lineup": [{"agent": f"{model}-pol", "role": "politician", "model": f"local:{model}"}],
            "settings": {"lineup_name": lineup},
        },
        {
            "type": "turn_finished",
            "agent": f"{model}-pol",
            "role": "politician",
            "model": f"local:{model}",
            "phase": "opening",
            "text": f"As {model} I say: {words}",
            "valid": True,
        },
        {"type": "verdict", "label": "FALSE", "explanation": f"{lineup} decided.", "t": 12.5},
    ]
    return {"protocol": "radar", "item": claim[:10], "events": events}


def _write(path: Path, debates: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(d) for d in debates) + "\n")
    return path


def test_pairs_hide_the_configuration_and_unblind_afterwards(tmp_path):
    a = _write(tmp_path / "a.jsonl", [_debate(c, "qwen2.5-0.5b", "embedded", "jobs grew.") for c in CLAIMS])
    b = _write(tmp_path / "b.jsonl", [_debate(c, "smollm2-135m", "embedded-larger", "jobs fell.") for c in CLAIMS])
    pairs, key = blind_pairs.make(a, b, "t", seed=3, results=tmp_path)
    text = pairs.read_text()
    assert text.count("## Pair") == 2 and "**Politician** (opening)" in text
    for secret in ("qwen", "smollm", "embedded", "local:"):
        assert secret not in text.lower()
    k = json.loads(key.read_text())
    firsts = {p["debate_1"] for p in k["pairs"].values()}
    assert all(p["debate_2"] != p["debate_1"] for p in k["pairs"].values()) and firsts <= {"a", "b"}
    # the reader prefers the debate where jobs fell (configuration b) in both pairs; a later judgement wins
    for n, p in k["pairs"].items():
        blind_pairs.judge("t", int(n), "same", "first look", "r1", results=tmp_path)
        b_is = "1" if p["debate_1"] == "b" else "2"
        blind_pairs.judge("t", int(n), b_is, "It argues.", "r1", results=tmp_path)
    out = blind_pairs.unblind("t", results=tmp_path)
    assert (out["judgements"], out["prefer_b"], out["prefer_a"], out["share_b"]) == (2, 2, 0, 1.0)


def test_the_benchmark_reads_debates_and_events_files_and_scores_per_protocol(tmp_path):
    debates = [_debate(c, "qwen", "embedded", "The Texas State Statistical Association says so.") for c in CLAIMS]
    one_per_line = _write(tmp_path / "d.jsonl", debates)
    events = tmp_path / "e.jsonl"
    events.write_text("\n".join(json.dumps(e) for d in debates for e in d["events"]))
    for read in (bench_substance.debates_from_jsonl(one_per_line), bench_substance.debates_from_jsonl(events)):
        assert len(read) == 2
        s = bench_substance.score(read)["radar"]
        assert s["debates"] == 2 and s["run_to_verdict_median_s"] == 12.5
        assert s["turns"]["unsourced_name"] == {"count": 2, "of": 2, "share": 1.0}
        assert s["turns"]["copied"]["count"] == 0
    assert "| radar | 2 |" in bench_substance.table(bench_substance.score(read))


def _stored_council(item: str) -> dict:
    path = REPO / "bench" / "results" / "substance-council-once-2026-12-07-once-events.jsonl"
    return next(d for d in bench_substance.debates_from_jsonl(path) if d["item"] == item)


def test_a_council_is_scored_as_the_room_reads_it_beside_as_written() -> None:
    """A stored council (the members wrote one sentence round after round): as written its votes copy, as
    shown (a repeated reason stands once, "NO, for the same reason as ...") none do; a vote whose label
    differs from the sentence's first use is shown in full, so its copy still counts."""
    d = _stored_council("ct-1282-c3")
    shown = bench_substance.as_shown(d)
    assert shown["variant"].endswith("as shown") and d["events"] is not shown["events"]
    written = bench_substance.score([d])["council [once]"]["turns"]["copied"]
    as_read = bench_substance.score([shown])["council [once, as shown]"]["turns"]["copied"]
    assert written["count"] >= 4 and as_read["count"] == 0
    assert as_read["of"] < written["of"]  # the votes that say no words of their own are not counted
    # the same debate with one discussion vote turned to the other label: its copied sentence is shown
    flipped = json.loads(json.dumps(d))
    last = [
        e for e in flipped["events"] if e["type"] == "turn_finished" and e.get("round") == 2 and e["agent"] == "qwen-a"
    ][-1]
    last["label"] = "YES"
    last["parsed"] = {**last["parsed"], "vote": "YES"}
    again = bench_substance.score([bench_substance.as_shown(flipped)])["council [once, as shown]"]["turns"]["copied"]
    assert again["count"] >= 1
