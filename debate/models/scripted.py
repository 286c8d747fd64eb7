"""A scripted backend for unit tests of protocol logic (never the only test of a feature).

`ScriptedBackend(replies)` answers each call with the next queued reply for that model, or with a
function of the messages. It records every call so tests can check the exact sequence of model calls
a protocol prescribes. `delay_s` per token simulates a backend that serves requests in parallel.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from typing import Any

from debate.errors import ModelNotFound
from debate.models.backends import BackendInfo
from debate.models.base import Backend, Chunk, Delta, Final, GenOptions, Message, ModelInfo
from debate.models.spec import ModelSpec

Reply = str | Callable[[list[Message], GenOptions], str]


class ScriptedBackend(Backend):
    name = "scripted"
    supports_logprobs = False
    supports_json_schema = False

    def __init__(
        self,
        replies: dict[str, list[Reply] | Reply] | None = None,
        *,
        default: Reply | None = None,
        delay_s: float = 0.0,
        max_parallel: int = 64,
        label_probs: Callable[[str, GenOptions], dict[str, float] | None] | None = None,
        n_ctx: int | None = None,
    ) -> None:
        self.n_ctx = n_ctx  # a context window to report (tests of prompts shortened to fit one); None: unknown
        self._queues: dict[str, deque[Reply]] = defaultdict(deque)
        self._fixed: dict[str, Reply] = {}
        for model, r in (replies or {}).items():
            if isinstance(r, list):
                self._queues[model].extend(r)
            else:
                self._fixed[model] = r
        self.default = default
        self.delay_s = delay_s
        self.max_parallel = max_parallel
        self._label_probs = label_probs
        self.calls: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def context_window(self, model: str) -> int | None:
        return self.n_ctx

    def enqueue(self, model: str, *replies: Reply) -> None:
        self._queues[model].extend(replies)

    def list_models(self) -> list[ModelInfo]:
        names = set(self._queues) | set(self._fixed)
        return [ModelInfo(spec=f"scripted:{n}", backend="scripted", name=n, status="ready") for n in sorted(names)]

    def _next(self, model: str, messages: list[Message], options: GenOptions) -> str:
        with self._lock:
            self.calls.append({"model": model, "messages": messages, "options": options})
            if self._queues.get(model):
                r = self._queues[model].popleft()
            elif model in self._fixed:
                r = self._fixed[model]
            elif self.default is not None:
                r = self.default
            else:
                raise ModelNotFound(
                    f"Scripted model {model!r} has no reply queued.", "Queue one with ScriptedBackend.enqueue()."
                )
        return r(messages, options) if callable(r) else r

    def stream(self, model: str, messages: list[Message], options: GenOptions) -> Iterator[Chunk]:
        text = self._next(model, messages, options)
        words = text.split(" ")
        for i, w in enumerate(words):
            if self.delay_s:
                time.sleep(self.delay_s)
            yield Delta(w if i == 0 else " " + w)
        probs = self._label_probs(text, options) if self._label_probs else None
        yield Final(
            prompt_tokens=sum(len(m["content"].split()) for m in messages),
            completion_tokens=len(words),
            finish_reason="stop",
            label_probs=probs,
        )


def _make(spec: ModelSpec, s: dict[str, Any], guard: Any) -> Backend:
    return ScriptedBackend(default=s.get("default", "YES"))


INFO = BackendInfo("scripted", "Scripted", _make, "fixed answers, for tests", listed=False)
