"""Fork a stored debate: continue it from the state after round N, perhaps steered or recast.

Why replay and not a snapshot: a protocol's state is whatever its generator built from the turns so
far. A fork runs the same protocol code again; the parent's turns up to the fork point are handed back
in order instead of calling the models (DebateContext.replay), so the protocol rebuilds exactly the
state it had, and from the first turn after round N the models answer anew — with the moderator's
note, another lineup or other parameters. The fork's event stream is a whole debate: it starts with
`debate_started` carrying `forked_from`, holds the replayed turns (marked `replayed`), then a `fork`
phase marker, the notes, and the new rounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from debate.errors import InvalidInput
from debate.events import Event

FORKABLE = ("single", "team", "council", "radar")
# phases that close a round rather than belong to it: the fork re-runs them (after round N)
CLOSING_PHASES = ("closing", "judge", "stop-check", "round-judge")
NOT_ROUNDS = CLOSING_PHASES + ("fork", "evidence", "category", "domain")


@dataclass
class Fork:
    parent_id: str
    round: int
    turns: list[dict] = field(default_factory=list)  # the parent's TurnFinished dicts before the fork point
    evidence: dict | None = None  # the parent's evidence event: a fork argues over the same passages
    notes: list[str] = field(default_factory=list)  # moderator notes in force after the fork point


def _d(ev: Event | dict) -> dict:
    return ev.to_dict() if isinstance(ev, Event) else dict(ev)


def rounds_of(events: list[Event | dict]) -> list[int]:
    """The rounds a debate has completed speech in (what 'Fork from round N' may offer)."""
    ds = [_d(e) for e in events]
    out = sorted({int(e.get("round", 0)) for e in ds if e.get("type") == "phase_started"
                  and e.get("phase") not in NOT_ROUNDS})
    return [r for r in out if cut_after_round(ds, r)[0] is not None]


def cut_after_round(ds: list[dict], n: int) -> tuple[int | None, str]:
    """Index of the first event after round n (None, reason when round n is not complete)."""
    seen = False
    for i, e in enumerate(ds):
        kind = e.get("type")
        if kind == "phase_started" and e.get("phase") != "fork":
            r, phase = int(e.get("round", 0)), e.get("phase")
            if r > n or (phase in CLOSING_PHASES and r >= n):
                return (i, "") if seen else (None, f"the parent has no round {n}")
            if r == n and phase not in NOT_ROUNDS:
                seen = True
        elif kind == "verdict":
            return (i, "") if seen else (None, f"the parent has no round {n}")
        elif kind in ("finished", "error"):
            return None, (f"the parent ended ({e.get('status') or e.get('message') or kind}) before round {n} "
                          "was complete" if seen else f"the parent has no round {n}")
    return None, f"the parent's round {n} is not complete yet"


def fork_config(events: list[Event | dict], round: int, say: str = "", lineup: str | dict | None = None,
                params: dict[str, Any] | None = None, debate_id: str | None = None):
    """A DebateConfig that continues `events` (a parent debate) after round `round`.

    Raises InvalidInput, before any model is called, when the parent cannot be forked there."""
    from debate import moderation
    from debate.runner import DebateConfig, prepare

    ds = [_d(e) for e in events]
    started = next((e for e in ds if e.get("type") == "debate_started"), None)
    if started is None:
        raise InvalidInput("These events have no debate_started event, so there is no debate to fork.",
                           "Use an events file written by `python -m debate run --events` or the Library's JSON export.")
    protocol = started.get("protocol", "")
    if protocol not in FORKABLE:
        raise InvalidInput(f"A {protocol} debate has no rounds to continue.",
                           f"Fork a debate of one of: {', '.join(FORKABLE)}.")
    if started.get("task") == "checkthat" and started.get("category") is None:
        raise InvalidInput("This debate decided all three CheckThat categories, each with its own rounds.",
                           "Fork a debate run for one category (--category 1, 2 or 3).")
    try:
        n = int(round)
    except (TypeError, ValueError):
        raise InvalidInput(f"Round {round!r} is not a whole number.", "Give the round to fork after, e.g. 1.") from None
    cut, why = cut_after_round(ds, n)
    if cut is None:
        have = rounds_of(ds)
        raise InvalidInput(f"Cannot fork after round {n}: {why}.",
                           f"Rounds you can fork from: {', '.join(map(str, have)) or 'none'}.")
    notes = [e.get("text", "") for e in ds[:cut] if e.get("type") == "moderator" and e.get("seen", True)]
    if say and str(say).strip():
        notes.append(moderation.check_note(say))
    settings = started.get("settings") or {}
    evidence = next((e for e in ds[:cut] if e.get("type") == "evidence"), None)
    new_params = {**(settings.get("params") or {}), **(params or {})}
    # concurrent turns finish in any order; the protocol asks for them in the order they were started
    order = {e.get("turn_id"): i for i, e in enumerate(ds[:cut]) if e.get("type") == "turn_started"}
    turns = sorted((e for e in ds[:cut] if e.get("type") == "turn_finished"),
                   key=lambda e: order.get(e.get("turn_id"), len(order)))
    fork = Fork(parent_id=started.get("debate_id", ""), round=n, turns=turns, evidence=evidence, notes=notes)
    cfg = DebateConfig(claim=started.get("claim", ""), protocol=protocol, task=started.get("task", "checkthat"),
                       category=started.get("category"), custom_title=settings.get("custom_title", ""),
                       custom_description=settings.get("custom_description", ""),
                       lineup=lineup or str(settings.get("lineup_name") or "parent"), params=new_params, evidence=settings.get("evidence"),
                       top_k=int(settings.get("top_k", 20)), max_tokens=int(settings.get("max_tokens", 256)),
                       seed=int(started.get("seed") or 0), gold=started.get("gold"), debate_id=debate_id,
                       apply_cat2_rule=bool(settings.get("apply_cat2_rule", True)), fork=fork,
                       seats=None if lineup else list(started.get("lineup") or []),
                       # a person keeps their seat (the parent's seats say so; a new lineup gets it again)
                       humans=(settings.get("humans") or None) if lineup else None,
                       human_timeout_s=float(settings.get("human_timeout_s") or 180.0))
    pp = prepare(cfg)
    if "rounds" in pp.params and n > int(pp.params["rounds"]):
        raise InvalidInput(f"Cannot fork after round {n} with rounds={pp.params['rounds']}.",
                           f"Raise the rounds parameter (--param rounds={n + 1}) or fork from an earlier round.")
    parent_roles = [a.get("role") for a in started.get("lineup") or []]
    if lineup and [a.role for a in pp.agents] != parent_roles:
        raise InvalidInput("The new lineup seats different roles than the parent "
                           f"({', '.join(a.role for a in pp.agents)} vs {', '.join(map(str, parent_roles))}).",
                           "Use a lineup with as many members as the parent (the replayed turns need their seats).")
    return cfg
