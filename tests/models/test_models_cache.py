"""Response cache in real SQLite over the real embedded model: miss then hit, identical text, a hit
still streams, non-deterministic requests bypass it, DEBATE_CACHE=0 turns it off."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from debate.models.base import GenOptions, ModelResult
from debate.models.cache import ResponseCache, cache_key
from debate.models.client import ModelClient
from debate.models.local import LocalBackend

MSGS = [{"role": "user", "content": "Give a two-word name for a cat."}]
SPEC = "local:smollm2-135m"


@pytest.fixture()
def cached_client(tmp_path) -> ModelClient:
    return ModelClient({"local": LocalBackend()}, cache=ResponseCache(tmp_path / "cache.sqlite"))


@pytest.mark.timeout(300)
def test_miss_then_hit_identical_and_streamable(cached_client):
    opts = GenOptions(max_tokens=10, labels=("YES", "NO"))
    first = cached_client.chat(SPEC, MSGS, opts).result()
    second_stream = cached_client.chat(SPEC, MSGS, opts)
    pieces = list(second_stream)
    second = second_stream.result()
    assert first.cached is False and second.cached is True
    assert second.text == first.text and "".join(pieces) == first.text and len(pieces) >= 2
    assert (second.prompt_tokens, second.completion_tokens, second.finish_reason) == (
        first.prompt_tokens,
        first.completion_tokens,
        first.finish_reason,
    )
    assert second.label_probs == first.label_probs
    assert second.latency_s < first.latency_s
    stats = cached_client.cache.stats()
    assert stats["entries"] == 1 and stats["session_hits"] == 1 and stats["session_misses"] == 1


@pytest.mark.timeout(300)
def test_options_and_messages_change_the_key(cached_client):
    a = cached_client.chat(SPEC, MSGS, GenOptions(max_tokens=6)).result()
    b = cached_client.chat(SPEC, MSGS, GenOptions(max_tokens=7)).result()
    c = cached_client.chat(SPEC, MSGS + [{"role": "user", "content": "Another."}], GenOptions(max_tokens=6)).result()
    assert not (a.cached or b.cached or c.cached)
    assert cached_client.cache.stats()["entries"] == 3
    assert cache_key(SPEC, MSGS, GenOptions()) != cache_key("local:qwen2.5-coder-0.5b", MSGS, GenOptions())
    assert cache_key(SPEC, MSGS, GenOptions(cache=False)) == cache_key(SPEC, MSGS, GenOptions())


@pytest.mark.timeout(300)
def test_sampling_without_seed_and_cache_off_are_never_served_from_cache(cached_client, monkeypatch):
    sampled = GenOptions(max_tokens=5, temperature=0.8, seed=None)
    assert not sampled.deterministic
    cached_client.chat(SPEC, MSGS, sampled).result()
    assert cached_client.chat(SPEC, MSGS, sampled).result().cached is False
    assert cached_client.cache.stats()["entries"] == 0
    opts = GenOptions(max_tokens=5)
    cached_client.chat(SPEC, MSGS, opts).result()
    assert cached_client.chat(SPEC, MSGS, GenOptions(max_tokens=5, cache=False)).result().cached is False
    monkeypatch.setenv("DEBATE_CACHE", "0")
    assert cached_client.chat(SPEC, MSGS, opts).result().cached is False
    monkeypatch.delenv("DEBATE_CACHE")
    assert cached_client.chat(SPEC, MSGS, opts).result().cached is True


def test_sqlite_file_is_wal_threadsafe_and_clearable(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    opts = GenOptions()

    def writer(i: int) -> None:
        for j in range(20):
            cache.put(SPEC, [{"role": "user", "content": f"{i}-{j}"}], opts, ModelResult(text=f"t{i}-{j}", model=SPEC))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.stats()["entries"] == 80
    hit = cache.get(SPEC, [{"role": "user", "content": "2-7"}], opts)
    assert hit.text == "t2-7" and hit.cached is True
    mode = sqlite3.connect(tmp_path / "c.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    assert cache.clear() == 80 and cache.stats()["entries"] == 0


def test_unwritable_cache_path_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(Exception) as err:
        ResponseCache(blocker / "sub" / "c.sqlite")
    assert "cannot be opened" in str(err.value) and "DEBATE_CACHE=0" in str(err.value)
