"""Scripted set-up for engine tests: a reply function keyed on what each prompt asks for."""

from __future__ import annotations

from collections.abc import Callable

from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.runner import DebateConfig, run_debate


def kind(messages) -> str:
    """Which prompt this is, from its text (system + user)."""
    u = messages[-1]["content"]
    if "Your previous answer could not be read" in u:
        return "repair"
    if "You help a fact-checker search the web" in u:
        return "questions"
    if "DECISION: CONTINUE or STOP" in u:
        return "stop"
    if "DOMAIN: {specific domain}" in u:
        return "domain"
    if "[VERDICT]:" in u:
        return "verdict"
    if "You are the Chairperson" in u:
        return "chair"
    if '{"vote":' in u:
        return "vote"
    if '{"category":' in u:
        return "judge"
    return "argue"


DEFAULTS = {
    "stop": "DECISION: CONTINUE",
    "domain": "DOMAIN: Economy",
    "verdict": "[REASON]: The evidence [E1] omits context.\n[VERDICT]: HALF-TRUE",
    "chair": '{"status": "CONSENSUS NOT REACHED", "summary": "Look at the URL again."}',
    "vote": '{"vote": "YES", "explanation": "It cites a study."}',
    "judge": '{"category": 1, "explanation": "The proponent was convincing."}',
    "argue": "My argument, citing [E1].",
    "repair": '{"vote": "YES", "explanation": "repaired"}',
    "questions": "1. What did the coffee study find?\n2. Who ran the coffee study?\n3. How many adults were followed?",
}


def scripted(
    overrides: dict[str, Callable | str] | None = None, delay_s: float = 0.0, label_probs=None
) -> tuple[ModelClient, ScriptedBackend]:
    """A client whose scripted models answer by prompt kind; overrides may be functions (model, messages)."""
    table = {**DEFAULTS, **(overrides or {})}

    def reply(messages, options):
        k = kind(messages)
        r = table[k]
        return r(messages, options) if callable(r) else r

    backend = ScriptedBackend(default=reply, delay_s=delay_s, label_probs=label_probs)
    return ModelClient({"scripted": backend}), backend


def lineup(n: int = 5) -> dict:
    return {
        "name": "scripted",
        "members": [
            {"name": f"m{i + 1}", "model": f"scripted:m{i + 1}", "temperature": 0.7, "seed": i + 1} for i in range(n)
        ],
        "judge": {"name": "judge", "model": "scripted:judge"},
        "chair": {"name": "chair", "model": "scripted:chair"},
    }


def radar_lineup(
    politician: str = "scripted:pol", scientist: str = "scripted:sci", judge: str = "scripted:judge"
) -> dict:
    """A RADAR lineup: pol (politician), sci (scientist) and judge, scripted unless other models are given."""
    lu = lineup(2)
    lu["roles"] = {"politician": {"name": "pol", "model": politician}, "scientist": {"name": "sci", "model": scientist}}
    lu["judge"] = {"name": "judge", "model": judge}
    return lu


def run(client, protocol="council", task="checkthat", category=2, n=5, cancel=None, retriever=None, **kw):
    params = kw.pop("params", {})
    cfg = DebateConfig(
        claim=kw.pop("claim", "A new study at https://nature.com/articles/x shows coffee helps."),
        protocol=protocol,
        task=task,
        category=category,
        lineup=kw.pop("lineup", lineup(n)),
        params=params,
        max_tokens=kw.pop("max_tokens", 64),
        **kw,
    )
    return list(run_debate(cfg, client, retriever=retriever, cancel=cancel))


def turns(events, kind_="turn_started"):
    return [(e.agent, e.phase, e.round) for e in events if e.type == kind_]


def by_type(events, t):
    return [e for e in events if e.type == t]


class FakeRetriever:
    name = "fake-corpus"

    def __init__(self, n: int = 3) -> None:
        self.n = n
        self.queries: list[tuple[str, int]] = []

    def search(self, query: str, k: int = 20) -> list[dict]:
        self.queries.append((query, k))
        return [
            {
                "id": f"E{i}",
                "text": f"Passage {i} about the claim.",
                "score": 1 - i / 10,
                "source": "src",
                "title": f"Doc {i}",
            }
            for i in range(1, min(k, self.n) + 1)
        ]
