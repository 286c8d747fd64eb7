"""The ollama: backend through the `ollama` client, against the stand-in (Ollama's REST API over a
real embedded model on loopback) and against a real Ollama whenever OLLAMA_HOST answers."""

from __future__ import annotations

import json
import os
import urllib.request

import pytest

from debate.errors import BackendUnavailable, ModelNotFound
from debate.models import packaged
from debate.models.base import GenOptions
from debate.models.ollama_backend import OllamaBackend
from debate.models.registry import default_client
from tests.support.servers import closed_port, start_ollama_standin

ASK = [{"role": "system", "content": "Answer with one word: YES or NO."}, {"role": "user", "content": "Is ice cold?"}]
SCHEMA = {"type": "object", "properties": {"vote": {"type": "string", "enum": ["YES", "NO"]}}, "required": ["vote"]}


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    srv = start_ollama_standin(
        {"smollm2:135m": packaged.ensure_model("smollm2-135m")}, tmp_path_factory.mktemp("ollama")
    )
    yield srv
    srv.stop()


@pytest.fixture()
def client(standin, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", standin.url)
    return default_client(cache=False)


@pytest.mark.timeout(300)
def test_streams_with_usage_from_the_server(client):
    stream = client.chat("ollama:smollm2:135m", ASK, GenOptions(max_tokens=8))
    pieces = list(stream)
    res = stream.result()
    assert pieces and "".join(pieces) == res.text and res.text.strip()
    assert res.prompt_tokens > 5 and res.completion_tokens >= 1 and res.model_id == "smollm2:135m"


@pytest.mark.timeout(300)
def test_host_named_in_the_spec(standin, monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    res = default_client(cache=False).chat(f"ollama:smollm2:135m@{standin.url}", ASK, GenOptions(max_tokens=3)).result()
    assert res.text and res.model == f"ollama:smollm2:135m@{standin.url}"


@pytest.mark.timeout(300)
def test_logprobs_give_label_probabilities(client):
    res = client.chat("ollama:smollm2:135m", ASK, GenOptions(max_tokens=4, labels=("YES", "NO"))).result()
    assert set(res.label_probs) == {"YES", "NO"}
    assert sum(res.label_probs.values()) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.timeout(300)
def test_json_schema_via_format(client):
    res = client.chat("ollama:smollm2:135m", ASK, GenOptions(max_tokens=24, json_schema=SCHEMA)).result()
    assert json.loads(res.text)["vote"] in ("YES", "NO")


REASON_FIRST = {
    "type": "object",
    "properties": {"reason": {"type": "string", "maxLength": 200}, "vote": {"type": "string", "enum": ["YES", "NO"]}},
    "required": ["reason", "vote"],
}


@pytest.mark.timeout(300)
def test_a_json_answer_under_a_schema_gets_its_grace_so_its_label_comes(client):
    """The judge's way with the small-model aids: its reason first, the label after it. A server cannot close
    the reason kindly, so the answer's grace is room in num_predict; cut at max_tokens, the label never came."""
    ask = [{"role": "user", "content": "Is ice cold? Explain at length, then vote."}]
    res = client.chat("ollama:smollm2:135m", ask, GenOptions(max_tokens=8, json_schema=REASON_FIRST, grace_tokens=88))
    assert json.loads(res.result().text)["vote"] in ("YES", "NO"), (res.result().text, res.result().completion_tokens)
    free = client.chat("ollama:smollm2:135m", ask, GenOptions(max_tokens=8, grace_tokens=88)).result()
    assert free.completion_tokens <= 8  # free text keeps the hard cap on a server


def test_lists_installed_models(standin):
    rows = OllamaBackend(standin.url).list_models()
    assert [(r.name, r.status) for r in rows] == [("smollm2:135m", "ready")]
    assert rows[0].size_bytes == 98_362_432


def test_unknown_model_says_pull_and_lists_installed(client):
    with pytest.raises(ModelNotFound) as err:
        client.chat("ollama:qwen3:8b", ASK, GenOptions(max_tokens=2)).result()
    assert "`ollama pull qwen3:8b`" in err.value.hint and "installed: smollm2:135m" in err.value.hint


def test_unreachable_says_start_ollama(monkeypatch):
    host = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("OLLAMA_HOST", host)
    with pytest.raises(BackendUnavailable) as err:
        default_client(cache=False).chat("ollama:llama3.1:8b", ASK).result()
    assert host in err.value.message and "ollama serve" in err.value.hint
    rows = OllamaBackend().list_models()
    assert rows[0].status == "unreachable" and "ollama serve" in rows[0].detail


def _real_ollama() -> str | None:
    host = os.environ.get("OLLAMA_HOST")
    if not host:
        return None
    host = host if host.startswith("http") else f"http://{host}"
    try:
        with urllib.request.urlopen(f"{host}/api/version", timeout=2) as r:
            body = r.read()
        return host if b"version" in body and b"standin" not in body else None
    except Exception:  # noqa: BLE001 - no server: skip
        return None


@pytest.mark.timeout(600)
def test_real_ollama_when_one_answers():
    host = _real_ollama()
    if host is None:
        pytest.skip("no Ollama answers at OLLAMA_HOST")
    backend = OllamaBackend(host)
    names = backend.model_names()
    if not names:
        pytest.skip(f"Ollama at {host} has no models installed")
    client = default_client({"ollama": {"host": host}}, cache=False)
    res = client.chat(f"ollama:{names[0]}", ASK, GenOptions(max_tokens=8, labels=("YES", "NO"))).result()
    assert res.text.strip() and res.completion_tokens >= 1
    if res.label_probs is not None:
        assert sum(res.label_probs.values()) == pytest.approx(1.0, abs=1e-6)
