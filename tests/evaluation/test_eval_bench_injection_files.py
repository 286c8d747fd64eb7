"""The injection benchmark's results files: a file says which server its `server` lineup ran on, and two
servers' runs are never reused or merged as one (llama_cpp.server answers a prompt depending on the
request before it; llama-server with --no-cache-prompt does not, so their figures are not one sample)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("bench_injection", REPO / "bench" / "bench_injection.py")
bi = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bi)


def row(claim: str, clean: str, direct: str, plant: str = "TRUE", held: bool = False) -> dict:
    run = {"turns": ["t"], "flags": [["order"]], "plant_flagged": True, "plant_held": held}
    return {
        "claim": claim,
        "gold": "FALSE",
        "plant": plant,
        "runs": {"off/clean": {**run, "label": clean}, "off/direct": {**run, "label": direct}},
    }


def write(path: Path, rows: list[dict], server: str | None) -> str:
    saved = {"results": [{"lineup": "server", "rows": rows}], "claims": [{"claim": r["claim"]} for r in rows]}
    if server:
        saved["server"] = server
    path.write_text(json.dumps(saved), encoding="utf-8")
    return str(path)


def test_two_servers_runs_are_two_lineups_never_one(tmp_path):
    old = write(tmp_path / "old.json", [row("a", "FALSE", "TRUE")], None)  # written before files said
    new = write(
        tmp_path / "new.json", [row("a", "FALSE", "FALSE"), row("b", "FALSE", "FALSE")], bi.SERVERS["llama-server"]
    )
    merged = bi.merged_rows([old, new])
    assert set(merged) == {"server · llama_cpp.server", "server · llama-server --no-cache-prompt"}
    assert [r["claim"] for r in merged["server · llama-server --no-cache-prompt"]] == ["a", "b"]
    assert [r["runs"]["off/direct"]["label"] for r in merged["server · llama_cpp.server"]] == ["TRUE"]


def test_reuse_refuses_another_servers_file_and_takes_its_own(tmp_path):
    old = write(tmp_path / "old.json", [row("a", "FALSE", "TRUE")], None)
    with pytest.raises(SystemExit, match="ran on llama_cpp.server, this run on llama-server --no-cache-prompt"):
        bi.earlier_runs(old, "server", bi.SERVERS["llama-server"])
    assert bi.earlier_runs(old, "server", bi.SERVERS["llama_cpp"])["a"]["off/direct"]["label"] == "TRUE"
    assert bi.earlier_runs(old, "embedded", bi.SERVERS["llama-server"]) == {}  # no embedded rows in it


def test_a_success_on_a_held_back_plant_is_counted_apart(tmp_path):
    rows = [row("a", "FALSE", "TRUE", held=True), row("b", "FALSE", "TRUE"), row("c", "FALSE", "FALSE")]
    args = type("A", (), {"guards": ["off"], "styles": ["direct"], "placebo": False})()
    (s,) = bi.summarise({"lineup": "server", "rows": rows}, args)
    assert (s["succeeded"], s["attacks"], s["held_back_successes"]) == (2, 3, 1)


def test_the_held_out_plants_are_the_frozen_ones():
    """The held-out families were written before any defence change; a figure on them means nothing if they
    were edited after (add a new file instead)."""
    import hashlib

    assert hashlib.sha256(bi.HELDOUT_FILE.read_bytes()).hexdigest() == bi.HELDOUT_SHA256
    styles = bi.expand_styles(["held-out"])
    assert len({s.split("/")[1] for s in styles if bi.family(s) == "languages"}) >= 10
    assert {bi.family(s) for s in styles} == {"languages", "advice", "obfuscation", "split", "paraphrased-rating"}
    assert len(bi.planted_texts("split/order", "c", "FALSE")) == 2
    assert "FALSE" in bi.planted_text("languages/ja", "c", "FALSE") and "{name}" not in bi.planted_text(
        "advice/evaluator", "c", "TRUE"
    )
    assert bi.expand_styles(["dev", "direct", "obfuscation/rot13"]) == [*bi.STYLES, "obfuscation/rot13"]
    with pytest.raises(ValueError, match="unknown style"):
        bi.expand_styles(["klingon"])


def test_attack_success_is_reported_per_family_and_held_out_apart():
    per_style = {
        "direct": [2, 1],
        "languages/ja": [2, 2],
        "languages/ru": [2, 0],
        "advice/evaluator": [1, 0],
        "placebo": [2, 2],
    }
    assert bi.per_family(per_style) == {"direct": "1/2 = 0.50", "languages": "2/4 = 0.50", "advice": "0/1 = 0.00"}
    assert bi.by_kind(per_style) == {"development": "1/2 = 0.50", "held-out": "2/5 = 0.40"}


def test_the_attribution_figures_count_named_successes_false_alarms_and_time():
    def run(label, rests, contested=False, s=5.0):
        a = {"status": "done", "rests_on": rests, "plant_ids": ["E3"], "contested": contested, "s": s}
        return {"label": label, "verdict_t": 10.0, "attribution": a}

    rows = [
        {"plant": "TRUE", "runs": {"fence/clean": run("FALSE", []), "fence/direct": run("TRUE", ["E3"], True)}},
        {"plant": "TRUE", "runs": {"fence/clean": run("FALSE", ["E1"], True), "fence/direct": run("TRUE", ["E1"])}},
        {
            "plant": "TRUE",
            "runs": {"fence/clean": run("TRUE", []), "fence/direct": run("TRUE", ["E3"])},
        },  # not an attack
    ]
    got = bi.attribution_figures(rows, "fence", ["direct"])
    assert got == {
        "successes_named": "1/2",
        "successes_contested": "1/2",
        "clean_contested": "1/3",
        "attribution_ratio": 0.5,
    }
