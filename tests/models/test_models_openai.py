"""The openai: backend against a real `python -m llama_cpp.server` on loopback (started once for the
module), plus scripted failing servers for retries, and the messages a person sees on each failure."""

from __future__ import annotations

import json

import pytest

from debate.errors import (
    AuthError,
    BackendTimeout,
    BackendUnavailable,
    ContextTooLong,
    InvalidInput,
    ModelNotFound,
    RateLimited,
    ServerError,
)
from debate.models import packaged
from debate.models.base import GenOptions
from debate.models.client import ModelClient
from debate.models.openai_backend import OpenAIBackend
from debate.models.registry import default_client
from tests.support.servers import closed_port, flaky_openai, start_llama_server

ASK = [
    {"role": "system", "content": "Answer with one word: YES or NO."},
    {"role": "user", "content": "Is the sun hot?"},
]
SCHEMA = {
    "type": "object",
    "properties": {"vote": {"type": "string", "enum": ["YES", "NO"]}, "why": {"type": "string", "maxLength": 40}},
    "required": ["vote", "why"],
}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = start_llama_server(
        packaged.ensure_model("smollm2-135m"), "smollm2", tmp_path_factory.mktemp("llama-server"), n_ctx=512
    )
    yield srv
    srv.stop()


@pytest.fixture()
def client(server) -> ModelClient:
    return default_client(cache=False)


@pytest.mark.timeout(300)
def test_streams_through_the_openai_client(client, server):
    stream = client.chat(f"openai:smollm2@{server.url}", ASK, GenOptions(max_tokens=8))
    pieces = list(stream)
    res = stream.result()
    assert pieces and "".join(pieces) == res.text and res.text.strip()
    assert res.completion_tokens >= 1 and res.finish_reason in ("stop", "length")
    assert res.model == f"openai:smollm2@{server.url}" and res.model_id == "smollm2"
    assert 0 < res.ttft_s <= res.latency_s


@pytest.mark.timeout(300)
def test_logprobs_give_label_probabilities(client, server):
    res = client.chat(f"openai:smollm2@{server.url}", ASK, GenOptions(max_tokens=4, labels=("YES", "NO"))).result()
    assert set(res.label_probs) == {"YES", "NO"}
    assert sum(res.label_probs.values()) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.timeout(300)
def test_json_schema_output(client, server):
    res = client.chat(
        f"openai:smollm2@{server.url}",
        ASK + [{"role": "user", "content": "Answer in JSON."}],
        GenOptions(max_tokens=60, json_schema=SCHEMA),
    ).result()
    data = json.loads(res.text)
    assert data["vote"] in ("YES", "NO") and len(data["why"]) <= 40


@pytest.mark.timeout(300)
def test_json_form_falls_back_to_what_the_server_accepts_and_sticks(server):
    """llama.cpp answers HTTP 500 to OpenAI's json_schema form (what vLLM/LM Studio want): auto moves on."""
    backend = OpenAIBackend(server.url)
    assert backend._json_forms[0] == "json_schema"
    client = ModelClient({"openai": backend})
    opts = GenOptions(max_tokens=40, json_schema=SCHEMA)
    res = client.chat("openai:smollm2", ASK + [{"role": "user", "content": "Answer in JSON."}], opts).result()
    assert json.loads(res.text)["vote"] in ("YES", "NO")
    assert backend._json_forms[0] == "llama.cpp"  # kept for the next calls: no second refusal
    fixed = ModelClient({"openai": OpenAIBackend(server.url, json_format="json_schema", retries=0)})
    with pytest.raises(ServerError) as e:  # a fixed form is not second-guessed: the refusal is reported
        fixed.chat("openai:smollm2", ASK, opts).result()
    assert "HTTP 500" in e.value.message
    with pytest.raises(InvalidInput) as e:
        OpenAIBackend(server.url, json_format="xml")
    assert "json_format" in e.value.hint


@pytest.mark.timeout(300)
def test_base_url_from_environment_and_model_listing(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    backend = OpenAIBackend()
    assert backend.api_key  # a loopback server needs no key: a dummy one is used
    rows = backend.list_models()
    assert [(r.spec, r.status) for r in rows] == [("openai:smollm2", "ready")]


def test_unknown_model_lists_what_exists(client, server):
    with pytest.raises(ModelNotFound) as err:
        client.chat(f"openai:gpt-9@{server.url}", ASK, GenOptions(max_tokens=2)).result()
    assert "gpt-9" in err.value.message and "smollm2" in err.value.hint


@pytest.mark.timeout(300)
def test_context_too_long_is_reported_not_an_empty_answer(client, server):
    with pytest.raises(ContextTooLong) as err:
        client.chat(
            f"openai:smollm2@{server.url}", [{"role": "user", "content": "word " * 800}], GenOptions(max_tokens=4)
        ).result()
    assert "maximum context length is 512" in err.value.message
    # the server is still usable afterwards
    assert client.chat(f"openai:smollm2@{server.url}", ASK, GenOptions(max_tokens=2)).result().text


def test_unreachable_server_says_how_to_start_one(client):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(BackendUnavailable) as err:
        client.chat(f"openai:any@{url}", ASK, GenOptions(max_tokens=2)).result()
    assert url in err.value.message and "python -m llama_cpp.server" in err.value.hint
    rows = OpenAIBackend(url).list_models()  # listing never raises
    assert rows[0].status == "unreachable" and "Cannot reach" in rows[0].detail


def test_no_key_for_api_openai_com_is_explained():
    rows = OpenAIBackend().list_models()
    assert rows[0].status == "unreachable" and "OPENAI_API_KEY" in rows[0].detail
    with pytest.raises(AuthError, match="OPENAI_API_KEY"):
        default_client(cache=False).chat("openai:gpt-4o-mini", ASK).result()


@pytest.mark.timeout(300)
def test_bad_api_key_is_an_auth_error(tmp_path):
    srv = start_llama_server(packaged.ensure_model("smollm2-135m"), "smollm2", tmp_path, api_key="right-key", n_ctx=512)
    try:
        wrong = ModelClient({f"openai@{srv.url}": OpenAIBackend(srv.url, "wrong-key")})
        with pytest.raises(AuthError) as err:
            wrong.chat(f"openai:smollm2@{srv.url}", ASK, GenOptions(max_tokens=2)).result()
        assert "rejected the API key" in err.value.message and "OPENAI_API_KEY" in err.value.hint
        right = ModelClient({f"openai@{srv.url}": OpenAIBackend(srv.url, "right-key")})
        assert right.chat(f"openai:smollm2@{srv.url}", ASK, GenOptions(max_tokens=2)).result().text
    finally:
        srv.stop()


def test_5xx_is_retried_with_backoff_then_succeeds():
    with flaky_openai(fail_times=2, status=500) as srv:
        backend = OpenAIBackend(srv.url, retries=3)
        res = ModelClient({f"openai@{srv.url}": backend}).chat(f"openai:flaky@{srv.url}", ASK).result()
        assert res.text.strip() == "hello there" and srv.chat_calls == 3


def test_5xx_and_429_give_up_after_bounded_retries():
    with flaky_openai(fail_times=99, status=503) as srv:
        client = ModelClient({f"openai@{srv.url}": OpenAIBackend(srv.url, retries=2)})
        with pytest.raises(ServerError) as err:
            client.chat(f"openai:flaky@{srv.url}", ASK).result()
        assert "HTTP 503" in err.value.message and "gave up after 2 attempts" in err.value.message
        assert srv.chat_calls == 2
    with flaky_openai(fail_times=99, status=429) as srv:
        client = ModelClient({f"openai@{srv.url}": OpenAIBackend(srv.url, retries=2)})
        with pytest.raises(RateLimited, match="rate-limiting") as err:
            client.chat(f"openai:flaky@{srv.url}", ASK).result()
        assert "max_parallel" in err.value.hint and srv.chat_calls == 2


def test_timeout_is_reported():
    with flaky_openai(fail_times=0, delay_s=3) as srv:
        client = ModelClient({f"openai@{srv.url}": OpenAIBackend(srv.url, timeout_s=0.5, retries=1)})
        with pytest.raises(BackendTimeout, match="did not answer within"):
            client.chat(f"openai:flaky@{srv.url}", ASK).result()


@pytest.mark.timeout(300)
def test_a_judge_answer_is_read_where_its_label_is_written(client, server):
    ask = [
        {"role": "system", "content": "Copy the user's line exactly, nothing else."},
        {"role": "user", "content": "[VERDICT]: TRUE"},
        {"role": "assistant", "content": "[VERDICT]: TRUE"},
        {"role": "user", "content": "[REASON]: none"},
        {"role": "assistant", "content": "[REASON]: none"},
        {"role": "user", "content": "[VERDICT]: FALSE"},
    ]
    opts = GenOptions(max_tokens=12, labels=("TRUE", "FALSE"), label_key="verdict")
    res = client.chat(f"openai:smollm2@{server.url}", ask, opts).result()
    assert "[VERDICT]: FALSE" in res.text, res.text  # the model copies the line: its label slot is known
    assert res.label_at in ("written", "split") and set(res.label_probs) == {"TRUE", "FALSE"}
    if res.label_at == "written":  # greedy: the written label is the most probable one read there
        assert res.label_probs["FALSE"] > res.label_probs["TRUE"]


def test_a_json_answer_under_a_schema_is_given_its_grace_and_free_text_is_not():
    """As on Ollama (tests/models/test_models_ollama.py, on a real stand-in): a server cannot close a JSON
    answer's reason kindly, so its grace is room in max_tokens; the label after the reason is not lost."""
    from debate.models.openai_backend import OpenAIBackend

    backend = OpenAIBackend("http://127.0.0.1:9/v1", "sk-no-key")
    schema = {"type": "object", "properties": {"vote": {"type": "string"}}}
    ask = [{"role": "user", "content": "Vote."}]
    assert (
        backend._request("m", ask, GenOptions(max_tokens=24, json_schema=schema, grace_tokens=64))["max_tokens"] == 88
    )
    assert backend._request("m", ask, GenOptions(max_tokens=24, grace_tokens=64))["max_tokens"] == 24
