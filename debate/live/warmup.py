"""Evaluate a debate's first prompts before Run is pressed, so its first token comes at once
(on CPU, reading a long first prompt is most of the wait a live audience sees).

On two CPU cores a council member's first prompt (instructions, the paper's examples, the claim) takes
seconds to read, and the first debate after start-up also pays for loading each model. None of that
depends on the person pressing Run: the Debate page knows the claim, protocol and lineup while they
are being chosen. `first_requests` finds the first request each model will get by running the protocol
itself against instant scripted replies (so there is no second copy of any prompt logic), and
`warm` hands those requests to backends that can read a prompt ahead (`LocalBackend.warm`). A warm-up
gives way to any real request, so it never delays a debate; what it has read stays in llama.cpp's
state and the real request reuses it (prefix reuse, debate/models/local.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from debate.events import DebateStarted
from debate.models.base import GenOptions, Message
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.models.spec import ModelSpec

MAX_CALLS = 64  # the capture stops here whatever the protocol does with instant answers
# in every instant answer of the capture: a prompt that holds it holds an earlier answer, which is not known
# before Run, so it is not read ahead as it will be sent
MARK = "\u27c2"


def first_requests(config: Any, retriever: Any = None) -> list[tuple[str, list[Message], GenOptions]]:
    """(model spec, messages, options) of every distinct prompt the debate sends before its first prompt that
    holds an earlier answer (RADAR's two openings, a single debate's two, a council's members' first votes:
    identical prompts once), in call order; then, for a model none of those reaches, its first request (the
    model is loaded and the prompt's opening read, even if the rest depends on answers). Both debaters of the
    embedded RADAR sit on one model: reading only the first request per model left the second opening to be
    read after Run. Each prompt read ahead is kept in one of llama.cpp's saved states (local.SLOTS per model).

    With `retriever`, a protocol that puts evidence into its prompts (RADAR) is given the passages the
    debate will get, so what is read ahead is its real first prompt (claim, passages and all), not one
    without evidence that shares only the claim with it. The search is the debate's own (sources cache
    their answers, the ranking is deterministic), without questions: those need a real model call."""
    from debate.runner import prepare, run_debate

    scripted = ScriptedBackend(
        default=json.dumps({"vote": "NO", "category": 0, "explanation": MARK}, ensure_ascii=False)
    )
    client = ModelClient(backend_factory=lambda spec: scripted)
    plain = replace(config, gold=None) if hasattr(config, "gold") else config
    if hasattr(plain, "questions"):
        plain = replace(plain, questions=0)
    if retriever is not None and not prepare(plain).evidence_on:
        retriever = None  # evidence shown beside a debate is not in its prompts: nothing to search ahead
    known: dict[str, tuple[str, list[Message], GenOptions]] = {}  # the prompts known before Run, by content
    first: dict[str, tuple[str, list[Message], GenOptions]] = {}  # each model's first request
    models: set[str] = set()
    answered, read = False, 0
    stream = run_debate(plain, client, retriever=retriever)
    try:
        for ev in stream:
            if isinstance(ev, DebateStarted):
                models = {str(a.get("model")) for a in ev.lineup if a.get("model")}
            calls = list(scripted.calls)
            for call in calls[read:]:
                spec = _spec_of(call["model"], models)
                request = (spec, call["messages"], call["options"])
                answered = answered or any(MARK in str(m.get("content", "")) for m in call["messages"])
                if not answered:
                    known.setdefault(json.dumps([spec, call["messages"]], sort_keys=True), request)
                first.setdefault(spec, request)
            read = len(calls)
            if (answered and models and models <= set(first)) or read >= MAX_CALLS:
                break
    finally:
        stream.close()
    reached = {spec for spec, _, _ in known.values()}
    return list(known.values()) + [r for spec, r in first.items() if spec not in reached]


def _spec_of(model: str, specs: set[str]) -> str:
    """The lineup's spec for a bare model name the scripted backend saw ("qwen2.5-coder-0.5b" → "local:…")."""
    for s in sorted(specs):
        try:
            if ModelSpec.parse(s).model == model:
                return s
        except Exception:  # noqa: BLE001 - a spec the lineup check will report; not ours to judge here
            continue
    return model


def warm(
    config: Any,
    client: ModelClient,
    give_way: Callable[[], bool] | None = None,
    retriever: Any = None,
    on_step: Callable[[str, int, int], None] | None = None,
) -> list[dict]:
    """Read each first prompt ahead on the backends that can; one row per request, for logs and tests.
    `give_way()` True stops it at the next block (the page was set up for another debate meanwhile);
    `on_step(model spec, i, n)` is told before the i-th of n prompts is read (the page says what it waits for)."""
    rows = []
    requests = first_requests(config, retriever)
    for i, (spec, messages, options) in enumerate(requests, 1):
        if on_step is not None:
            on_step(spec, i, len(requests))
        try:
            ms = ModelSpec.parse(spec)
            backend = client.backend_for(ms)
        except Exception:  # noqa: BLE001 - an unknown model: Run will say so with its hint
            continue
        done = backend.warm(ms.model, messages, options, give_way=give_way)
        if done is None:  # nothing to warm on this backend
            continue
        rows.append({"model": spec, "done": done})
        if not done:  # a real request came: stop warming
            break
    return rows
