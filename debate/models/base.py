"""The one model interface every backend implements and every protocol uses.

A backend subclasses `Backend` (below: every hook with its default) and implements `list_models` and
`stream(model, messages, options)`: a generator of one `Started`, `Delta` text chunks and one `Final`
carrying usage, finish reason and (where the backend has logprobs) label probabilities. `ChatStream` wraps that generator once for everyone: it measures time to first token
and latency, lets callers iterate text deltas *or* just ask for the result, and never runs the model
twice. Caching, locks and retries live in `debate.models.client.ModelClient`, not in backends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from debate.records import Record

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}


# Model lists and availability checks use this short timeout (settings <backend>.health_timeout_s), not the
# generation timeout: a server that accepts a connection and never answers must not hold a page for minutes.
HEALTH_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class GenOptions:
    """Per-request generation options. Frozen and JSON-able so they can key the cache."""

    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 256
    stop: tuple[str, ...] = ()
    json_schema: dict[str, Any] | None = None  # constrained output where the backend supports it
    labels: tuple[str, ...] = ()  # labels to score with logprobs (e.g. ("YES", "NO"))
    cache: bool = True  # use the response cache when the request is deterministic
    stop_after_json: bool = False  # the answer is one JSON object: stop generating once it closes
    label_first: bool = False  # the schema decodes the label before any free text: read its probabilities there
    # with label_first and two labels: write labels[0] iff its probability reaches this (a threshold fitted
    # on train), so the text after the label explains the vote that is counted; where the backend can
    label_threshold: float | None = None
    # the script an answer's letters must be in ("LATIN" for an English task): the local backend bans every
    # token of the vocabulary with letters of another script at decode time; None = any script
    script: str | None = None
    # the answer's key that names the label ("verdict" in `[VERDICT]: FALSE` or `{"verdict": "FALSE"}`):
    # the label probabilities are read where the label is written after it, not wherever the labels
    # hold most mass (a reason saying "the claim is false" is not the verdict); "" = that older rule
    label_key: str = ""
    # how each label is written after label_key when not by its name, in the order of `labels` (TurQUaz's
    # judge writes `"category": 1` for YES and 0 for NO); their probabilities are read there as the labels'
    label_spellings: tuple[str, ...] = ()
    # no copying (debate.models.copyguard): the earlier turns of the other speakers, whose runs of
    # `no_copy_n` words the answer may not repeat, and the texts it may quote at any length (the claim, the
    # evidence). The embedded backend bans such a run's next token at decode time; the server backends
    # (Ollama, OpenAI-compatible) cannot see or bias tokens that way and ignore both. () = off
    no_copy: tuple[str, ...] = ()
    quotable: tuple[str, ...] = ()
    no_copy_n: int = 0  # 0 = copyguard.DEFAULT_N
    # phrases the answer may never complete (debate.models.copyguard.phrase_guards: a refusal's opening, "I
    # cannot provide"): the embedded backend bans the phrase's last word where the words before it stand;
    # servers ignore it. () = off
    no_phrases: tuple[str, ...] = ()
    no_openings: tuple[str, ...] = ()  # phrases the answer may not open with (copyguard.OpeningGuard)
    # a kind budget: past `max_tokens` the embedded backend lets a free-text answer go on for at most this
    # many tokens to finish its sentence or paragraph, and a JSON answer to end its text at a sentence and
    # close (its label never lost to the budget); servers stop a free-text answer at max_tokens and give a
    # JSON answer under a schema its grace as plain room (`debate.models.limits.server_cap`). 0 = a hard cap, as before
    grace_tokens: int = 0
    # the answer's opening, already written: the model goes on from its end (`Backend.supports_prefill`); the
    # text streamed back is what follows it. A re-read of where a label is written after the model's own
    # reasoning (radar.attribute). "" = the answer starts afresh
    prefill: str = ""

    @property
    def deterministic(self) -> bool:
        """Only deterministic requests may be answered from the cache."""
        return self.temperature == 0 or self.seed is not None

    def key_dict(self) -> dict[str, Any]:
        """The parts of the options that change the model's answer (cache key material)."""
        d = asdict(self)
        d.pop("cache")
        if not d["stop_after_json"]:
            d.pop("stop_after_json")  # keys of requests without it stay as they were
        if not d["label_first"]:
            d.pop("label_first")
        if d["label_threshold"] is None:
            d.pop("label_threshold")
        if d["script"] is None:
            d.pop("script")
        if not d["label_key"]:
            d.pop("label_key")
        if not d["prefill"]:
            d.pop("prefill")
        for k in ("no_copy", "quotable", "no_phrases", "no_openings"):
            if d[k]:
                d[k] = list(d[k])
            else:
                d.pop(k)
        for k in ("no_copy_n", "grace_tokens"):
            if not d[k]:
                d.pop(k)  # keys of requests without them stay as they were
        if self.json_schema and self.grace_tokens:
            # servers once cut such an answer at max_tokens, before its label: their answers are not replayed
            d["json_grace"] = "servers too"
        if self.no_copy or self.no_phrases or self.no_openings:
            # the guard compared tokens once, then words a glued-on word could slip past, then split
            # figures at their "." or ",": answers written under an earlier rule are not replayed
            d["no_copy_unit"] = "word, not glued, figures whole"
        if self.temperature > 0 and not self.json_schema:
            # sampled free text once drew a figure's digits too ("$1. 8 million"); now taken greedily
            d["figures"] = "greedy"
        if d["label_spellings"]:
            d["label_spellings"] = list(self.label_spellings)
        else:
            d.pop("label_spellings")
        d["stop"] = list(self.stop)
        d["labels"] = list(self.labels)
        return d


@dataclass
class Delta:
    """A piece of generated text, in order."""

    text: str


# Where a turn's label probabilities were read (Final.label_at), in words the page shows beside them:
LABEL_AT = {
    "written": "read where the label is written, which under greedy decoding is the most probable label",
    "sampled": "read where the label is written; the label was sampled from them (temperature > 0)",
    "most-mass": "no label was written after the answer's label key, so they were read where the labels "
    "held the most probability, which need not be where the written label is",
    "first": "read at the first position where the labels hold most of the probability",
    "split": "read where the label is written; the server wrote the likeliest token, but the labels' "
    "probability is split over several spellings, so another label adds up to more",
}


@dataclass
class Final:
    """What a backend reports when generation ends."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    label_probs: dict[str, float] | None = None
    model_id: str = ""  # the backend's own name for the model, if it differs from the spec
    prompt_reused_tokens: int = 0  # prompt tokens whose state the backend kept from its last request
    label_at: str = ""  # where label_probs were read (a LABEL_AT key); "" = not said


@dataclass
class Started:
    """Emitted by the client once the model's concurrency slot is held: latency and time to first
    token are measured from here, so waiting for a busy local model is not counted as model time."""


Chunk = Delta | Final | Started


@dataclass
class ModelResult(Record):
    """A finished model call. `text` is never empty-as-an-answer: empty output is reported as such."""

    text: str
    model: str  # the spec, e.g. "local:qwen2.5-coder-0.5b"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ttft_s: float | None = None
    latency_s: float = 0.0
    finish_reason: str = "stop"
    cached: bool = False
    label_probs: dict[str, float] | None = None
    model_id: str = ""
    prompt_reused_tokens: int = 0
    label_at: str = ""  # where label_probs were read (see Final)


@dataclass
class ModelInfo:
    """One row of `python -m debate models`."""

    spec: str
    backend: str
    name: str
    status: str  # "ready" | "missing" | "unreachable" | "error"
    detail: str = ""
    size_bytes: int | None = None
    license: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class Backend:
    """A model backend: every hook the engine calls, each with its default, in one place. Implementations
    (local.py, ollama_backend.py, openai_backend.py, scripted.py, human.py) subclass it and override what
    they have; the engine reads these and nothing else (no probing for attributes a backend may lack).

    Required: `name`, `list_models` and `stream` (yielding one `Started`, text `Delta`s, one `Final`)."""

    name: str = ""  # the spec's prefix: "local" | "ollama" | "openai" | "scripted" | "human"
    supports_logprobs: bool = False  # label probabilities (`GenOptions.labels`) where the model gives them
    supports_json_schema: bool = False  # answers constrained to `GenOptions.json_schema`
    max_parallel: int = 1  # how many requests this backend serves at once (per model for local)
    person: bool = False  # a person answers: never answered from the cache, never warmed
    supports_prefill: bool = False  # continues an answer already begun (`GenOptions.prefill`)

    def list_models(self) -> list[ModelInfo]:
        raise NotImplementedError

    def stream(self, model: str, messages: list[Message], options: GenOptions) -> Iterator[Chunk]:
        raise NotImplementedError

    def endpoint(self) -> str | None:
        """The server's URL, part of the response cache's key (two servers never share answers); None for a
        backend that talks to no server."""
        return None

    def context_window(self, model: str) -> int | None:
        """The model's context window in tokens (prompts are shortened to fit it); None when unknown."""
        return None

    def warm(
        self, model: str, messages: list[Message], options: GenOptions, give_way: Callable[[], bool] | None = None
    ) -> bool | None:
        """Read this prompt ahead of the real request (debate/live/warmup.py): True when it was read, False
        when a real request came first, None when the backend has nothing to warm."""
        return None


class ChatStream:
    """Iterate for text deltas; call `.result()` for the finished `ModelResult` (drains if needed).

    Wraps a backend's chunk generator exactly once, so the UI, the store and the cache can all read
    the same call without a second generation.
    """

    def __init__(
        self, spec: str, chunks: Iterator[Chunk], *, cached: bool = False, on_done: list[Any] | None = None
    ) -> None:
        self.spec = spec
        self._chunks = chunks
        self._cached = cached
        self._parts: list[str] = []
        self._result: ModelResult | None = None
        self._t0 = time.perf_counter()
        self._ttft: float | None = None
        self._on_done = on_done or []

    def __iter__(self) -> Generator[str, None, None]:
        if self._result is not None:
            if self._parts:
                yield "".join(self._parts)
            return
        final = Final()
        for chunk in self._chunks:
            if isinstance(chunk, Started):
                self._t0 = time.perf_counter()
                continue
            if isinstance(chunk, Delta):
                if not chunk.text:
                    continue
                if self._ttft is None:
                    self._ttft = time.perf_counter() - self._t0
                self._parts.append(chunk.text)
                yield chunk.text
            else:
                final = chunk
        latency = time.perf_counter() - self._t0
        self._result = ModelResult(
            text="".join(self._parts),
            model=self.spec,
            prompt_tokens=final.prompt_tokens,
            completion_tokens=final.completion_tokens,
            ttft_s=self._ttft,
            latency_s=latency,
            finish_reason=final.finish_reason,
            cached=self._cached,
            label_probs=final.label_probs,
            model_id=final.model_id,
            prompt_reused_tokens=final.prompt_reused_tokens,
            label_at=final.label_at,
        )
        for cb in self._on_done:
            cb(self._result)

    @property
    def cached(self) -> bool:
        """True when the answer comes from the response cache (known before iterating)."""
        return self._cached

    @property
    def done(self) -> bool:
        return self._result is not None

    def close(self) -> None:
        """Abandon an unfinished generation now (e.g. on Stop), releasing the model's lock at once
        instead of when the generator is garbage-collected."""
        if self._result is None:
            close = getattr(self._chunks, "close", None)
            if close:
                close()

    def result(self) -> ModelResult:
        if self._result is None:
            for _ in self:
                pass
        assert self._result is not None
        return self._result
