"""The shared contracts: model specs round-trip, events round-trip, ChatStream runs a model once,
and the engine never imports Streamlit."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from debate.errors import InvalidInput
from debate.events import EVENT_TYPES, Verdict, event_from_dict
from debate.models.base import GenOptions
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.models.spec import ModelSpec

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "text",
    [
        "local:qwen2.5-coder-0.5b",
        "local:/tmp/x model.gguf",
        "ollama:qwen3:8b",
        "ollama:llama3.1:8b@http://127.0.0.1:11434",
        "openai:gpt-4o-mini",
        "openai:qwen@http://127.0.0.1:8000/v1",
        "openai:org/model@rev",
    ],
)
def test_spec_round_trips(text):
    spec = ModelSpec.parse(text)
    assert str(spec) == text
    assert ModelSpec.parse(str(spec)) == spec


def test_spec_splits_backend_model_and_url():
    s = ModelSpec.parse("ollama:llama3.1:8b@http://10.1.2.3:11434/")
    assert (s.backend, s.model, s.base_url) == ("ollama", "llama3.1:8b", "http://10.1.2.3:11434")


@pytest.mark.parametrize(
    "bad,words",
    [("", "no backend"), ("qwen", "no backend"), ("foo:bar", "Unknown backend"), ("local:", "names no model")],
)
def test_bad_specs_say_what_to_do(bad, words):
    with pytest.raises(InvalidInput) as e:
        ModelSpec.parse(bad)
    assert words in e.value.message and e.value.hint


def test_every_event_type_round_trips_through_json():
    import json

    for tag, cls in EVENT_TYPES.items():
        ev = cls(seq=7, t=1.5)
        back = event_from_dict(json.loads(json.dumps(ev.to_dict())))
        assert back == ev and back.type == tag
    v = Verdict(label="YES", labels={"1": "YES"}, seq=1)
    assert event_from_dict(v.to_dict()).labels == {"1": "YES"}


def test_chat_stream_runs_the_model_once_and_reports_usage():
    backend = ScriptedBackend({"m": ["one two three"]})
    client = ModelClient({"scripted": backend})
    stream = client.chat("scripted:m", [{"role": "user", "content": "hi there"}], GenOptions(max_tokens=5))
    assert "".join(stream) == "one two three"
    res = stream.result()
    assert res.text == "one two three" and res.completion_tokens == 3 and res.prompt_tokens == 2
    assert res.ttft_s is not None and res.latency_s >= res.ttft_s and not res.cached
    assert len(backend.calls) == 1


def test_engine_never_imports_streamlit():
    offenders = []
    for path in (REPO / "debate").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "streamlit" or n.startswith("streamlit.") for n in names):
                offenders.append(str(path.relative_to(REPO)))
    assert offenders == []
