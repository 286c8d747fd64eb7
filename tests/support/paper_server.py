"""The paper's council on one loopback server, shared by the CLI, AppTest and browser tests of `--server`
and the "Run every seat on" box: the five members' and the chair's model names, the maps that put them
onto the two packaged models, and an Ollama stand-in serving those two under Ollama's own tags.

Two different models behind one server is the smallest set-up where a wrong mapping shows: each seat's
turn must come from the model it was mapped to.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.servers import ServerProcess, start_ollama_standin

PAPER = ("gemma3:12b", "qwen3:8b", "deepseek-r1:8b", "phi4:14b", "mistral:7b")
MEMBERS = ("Gemma3", "Qwen3", "DeepSeek-R1", "Phi4", "Mistral")
# onto a llama.cpp server's two aliases (tests/support/servers.py::start_llama_multi_server)
MAP = {
    "gemma3:12b": "qwen",
    "qwen3:8b": "smol",
    "deepseek-r1:8b": "smol",
    "phi4:14b": "smol",
    "mistral:7b": "smol",
    "llama3.1:8b": "qwen",
}
# onto Ollama's own tags for the two packaged models
OLLAMA_MAP = {
    "gemma3:12b": "qwen2.5:0.5b",
    "qwen3:8b": "smollm2:135m",
    "deepseek-r1:8b": "smollm2:135m",
    "phi4:14b": "smollm2:135m",
    "mistral:7b": "smollm2:135m",
    "llama3.1:8b": "qwen2.5:0.5b",
}
CLAIM = "New study in Nature shows that drinking coffee lowers the risk of heart disease by 20%."


def map_text(mapping: dict[str, str]) -> str:
    """The map as a person types it into the server box (one name=name per line)."""
    return "\n".join(f"{k}={v}" for k, v in mapping.items())


def start_paper_ollama(log_dir: Path, n_ctx: int = 2048) -> ServerProcess:
    """The Ollama stand-in serving Qwen2.5-Coder-0.5B and SmolLM2-135M as qwen2.5:0.5b and smollm2:135m (loaded
    on their first chat); `.requests` is its log of every chat request (model, messages, options)."""
    from debate.models import packaged

    requests = log_dir / "requests.jsonl"
    models = {
        "qwen2.5:0.5b": packaged.ensure_model("qwen2.5-coder-0.5b"),
        "smollm2:135m": packaged.ensure_model("smollm2-135m"),
    }
    before = os.environ.get("OLLAMA_STANDIN_LOG")
    os.environ["OLLAMA_STANDIN_LOG"] = str(requests)  # read by the stand-in process when it starts
    try:
        srv = start_ollama_standin(models, log_dir, n_ctx=n_ctx)
    finally:
        if before is None:
            del os.environ["OLLAMA_STANDIN_LOG"]
        else:
            os.environ["OLLAMA_STANDIN_LOG"] = before
    srv.requests = requests  # type: ignore[attr-defined]
    return srv


def council_ran(evs: list[dict], url: str, backend: str, mapping: dict[str, str]) -> list[dict]:
    """The events of a council run with every seat on one server: each of the five members on the model it
    was mapped to, first votes parsed, a tally of all five, a verdict, a completed end. Returns the events."""
    started = evs[0]
    assert started["type"] == "debate_started" and url in started["settings"]["lineup_name"]
    seats = {a["agent"]: a for a in started["lineup"]}
    members = [a for a in started["lineup"] if a["role"] == "member"]
    assert [a["agent"] for a in members] == list(MEMBERS)
    assert {a["agent"]: a["model"] for a in members} == {
        m: f"{backend}:{mapping[p]}@{url}" for m, p in zip(MEMBERS, PAPER)
    }
    assert seats["chair"]["model"] == f"{backend}:{mapping['llama3.1:8b']}@{url}"
    votes = [e for e in evs if e["type"] == "turn_finished" and e.get("role") == "member"]
    assert {e["agent"] for e in votes} == set(MEMBERS)
    assert all(e["model"] == seats[e["agent"]]["model"] for e in votes)  # each answered by the model it was given
    assert all(e["label"] in ("YES", "NO") for e in votes[:5])  # the first votes, parsed
    assert all(e["text"].strip() for e in votes)  # the model's own words, not an empty stream
    tallies = [e for e in evs if e["type"] == "votes_tallied"]
    assert tallies and set(tallies[0]["votes"]) == set(MEMBERS)
    verdict = next(e for e in evs if e["type"] == "verdict")
    assert verdict["label"] in ("YES", "NO")
    assert evs[-1]["type"] == "finished" and evs[-1]["status"] == "completed"
    return evs
