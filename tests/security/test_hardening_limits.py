"""Hardening (hostile servers): a remote answer is bounded in size and time, a batch item has a deadline, and an
Ollama stream cut before its `done` line is never cached as an answer.

The servers are real loopback HTTP servers (tests/support/hostile_servers.py): one streams words for as
long as anyone reads, one closes the Ollama stream without the final line. The cache is the real
SQLite response cache; the batch runs the real engine and evaluation runner.
"""

import time

import pytest

from debate.errors import BackendTimeout
from debate.evaluation.runner import EvalOptions, run_eval
from debate.models.base import GenOptions
from debate.models.cache import ResponseCache
from debate.models.client import ModelClient
from debate.models.ollama_backend import OllamaBackend
from debate.models.openai_backend import OpenAIBackend
from tests.support.hostile_servers import recorder

ASK = [{"role": "user", "content": "Say something."}]


def _client(kind: str, srv, **kw) -> tuple[ModelClient, str]:
    if kind == "openai":
        return ModelClient({f"openai@{srv.url}": OpenAIBackend(srv.url, **kw)}), f"openai:scripted@{srv.url}"
    return ModelClient({f"ollama@{srv.host}": OllamaBackend(srv.host, **kw)}), f"ollama:scripted@{srv.host}"


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_server_ignoring_max_tokens_is_cut_at_max_tokens(kind):
    with recorder("flood") as srv:
        client, spec = _client(kind, srv)
        t = time.monotonic()
        res = client.chat(spec, ASK, GenOptions(max_tokens=20, cache=False)).result()
        assert time.monotonic() - t < 30
    assert res.finish_reason == "length"
    assert res.text.split() == ["flood"] * 20 and res.completion_tokens == 20


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_an_answer_streaming_past_the_timeout_is_stopped(kind):
    with recorder("flood", delay_s=0.01) as srv:
        client, spec = _client(kind, srv, timeout_s=1.0)
        stream = client.chat(spec, ASK, GenOptions(max_tokens=100_000, cache=False))
        t = time.monotonic()
        with pytest.raises(BackendTimeout, match="still streaming"):
            stream.result()
        assert time.monotonic() - t < 10


def test_an_ollama_stream_without_done_is_incomplete_and_never_cached(tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with recorder("no_done", reply="a cut answer") as cut, recorder("reply", reply="a whole answer") as whole:
        for srv, finish, calls in ((cut, "incomplete", 2), (whole, "stop", 1)):
            backend = OllamaBackend(srv.host)
            client = ModelClient({f"ollama@{srv.host}": backend}, cache=cache)
            spec = f"ollama:scripted@{srv.host}"
            first = client.chat(spec, ASK, GenOptions(temperature=0, max_tokens=16)).result()
            second = client.chat(spec, ASK, GenOptions(temperature=0, max_tokens=16))
            assert first.finish_reason == finish and first.text.split()[0] == "a"
            assert second.cached is (calls == 1)
            second.result()
            assert sum(r["path"].startswith("/api/chat") for r in srv.requests) == calls


def test_a_batch_item_past_its_deadline_is_stopped_and_counted_failed(tmp_path):
    with recorder("flood", delay_s=0.02) as srv:
        member = {"name": "slow", "model": f"openai:scripted@{srv.url}"}
        opts = EvalOptions(
            dataset="checkthat-dev",
            out=str(tmp_path / "run"),
            protocol="baseline",
            category=2,
            lineup={"name": "slow", "members": [member], "judge": member, "chair": member},
            limit=1,
            concurrency=1,
            retries=0,
            max_tokens=100_000,
            item_timeout_s=1.0,
            progress=False,
        )
        t = time.monotonic()
        summary = run_eval(opts, client=ModelClient({f"openai@{srv.url}": OpenAIBackend(srv.url)}))
        assert time.monotonic() - t < 60
    assert (summary.done, summary.failed) == (0, 1)
    import sqlite3

    with sqlite3.connect(tmp_path / "run" / "checkpoint.sqlite") as c:
        (err,) = c.execute("SELECT error FROM items").fetchone()
    assert err.startswith("ItemDeadline") and "1 s" in err
