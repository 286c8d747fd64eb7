"""ModelClient: the one entry point protocols use to talk to any model.

`client.chat("local:qwen2.5-coder-0.5b", messages, GenOptions(...))` returns a `ChatStream`. The client owns
what no backend should re-implement: resolving a spec to a backend, the concurrency limit per
(backend, model) held for the whole streamed generation, the response cache and bounded retries.
Protocols never know which backend they talk to.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from debate.errors import InvalidInput
from debate.models.base import Backend, ChatStream, Chunk, GenOptions, Message, ModelInfo, Started
from debate.models.spec import ModelSpec


class ModelClient:
    def __init__(
        self,
        backends: dict[str, Backend] | None = None,
        backend_factory: Callable[[ModelSpec], Backend] | None = None,
        cache: Any | None = None,
    ) -> None:
        """`backends` maps a backend name (or "name@base_url") to an instance; `backend_factory`
        creates missing ones on first use (see registry.default_client)."""
        self._backends: dict[str, Backend] = dict(backends or {})
        self._factory = backend_factory
        self.cache = cache
        self.settings: dict[str, Any] = {}  # the settings its backends were made with (registry.known_models)
        self._sems: dict[tuple[str, str], threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()

    # -- resolution -------------------------------------------------------------------------
    def backend_for(self, spec: ModelSpec) -> Backend:
        key = spec.backend if not spec.base_url else f"{spec.backend}@{spec.base_url}"
        with self._lock:
            b = self._backends.get(key)
            if b is None and spec.backend == "human" and self._factory is None:  # a person needs no settings
                from debate.models.human import HumanBackend

                b = self._backends[key] = HumanBackend()
            if b is None:
                if self._factory is None:
                    raise InvalidInput(f"No backend {key!r} is configured.", "Check the model spec.")
                b = self._factory(spec)
                self._backends[key] = b
            return b

    def register(self, name: str, backend: Backend) -> None:
        with self._lock:
            self._backends[name] = backend

    def _semaphore(self, backend: Backend, spec: ModelSpec) -> threading.BoundedSemaphore:
        # Local models: one lock per loaded model. Remote: a bound per (backend, endpoint, model).
        key = (f"{spec.backend}@{spec.base_url or ''}", spec.model)
        with self._lock:
            if key not in self._sems:
                self._sems[key] = threading.BoundedSemaphore(max(1, int(backend.max_parallel)))
            return self._sems[key]

    # -- the call ---------------------------------------------------------------------------
    def chat(self, spec: str | ModelSpec, messages: list[Message], options: GenOptions | None = None) -> ChatStream:
        ms = spec if isinstance(spec, ModelSpec) else ModelSpec.parse(spec)
        options = options or GenOptions()
        backend = self.backend_for(ms)
        if backend.person:  # a person's words are never answered from the cache
            options = replace(options, cache=False)
        key = cache_spec(ms, backend)
        if self.cache is not None and options.cache and options.deterministic:
            hit = self.cache.get(key, messages, options)
            if hit is not None:
                return ChatStream(str(ms), self.cache.replay(hit), cached=True)
        sem = self._semaphore(backend, ms)
        on_done = []
        cache = self.cache
        if cache is not None and options.cache and options.deterministic:
            on_done.append(lambda res: cache.put(key, messages, options, res))
        return ChatStream(str(ms), self._guarded(sem, backend.stream(ms.model, messages, options)), on_done=on_done)

    @staticmethod
    def _guarded(sem: threading.BoundedSemaphore, chunks: Iterator[Chunk]) -> Iterator[Chunk]:
        with sem:
            yield Started()
            yield from chunks

    def list_models(self) -> list[ModelInfo]:
        out: list[ModelInfo] = []
        for b in list(self._backends.values()):
            out.extend(b.list_models())
        return out


def cache_spec(spec: ModelSpec, backend: Backend) -> str:
    """The spec the response cache keys an answer by: with the endpoint the backend really talks to, so
    `openai:x` asked of server A (OPENAI_BASE_URL, settings) is never answered from what server B said."""
    endpoint = backend.endpoint()
    return str(ModelSpec(spec.backend, spec.model, str(endpoint))) if endpoint else str(spec)
