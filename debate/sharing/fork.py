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

from collections.abc import Sequence
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


def rounds_of(events: Sequence[Event | dict]) -> list[int]:
    """The rounds a debate has completed speech in (what 'Fork from round N' may offer)."""
    ds = [_d(e) for e in events]
    out = sorted(
        {int(e.get("round", 0)) for e in ds if e.get("type") == "phase_started" and e.get("phase") not in NOT_ROUNDS}
    )
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
            return None, (
                f"the parent ended ({e.get('status') or e.get('message') or kind}) before round {n} was complete"
                if seen
                else f"the parent has no round {n}"
            )
    return None, f"the parent's round {n} is not complete yet"


def fork_config(
    events: list[Event | dict],
    round: int,
    say: str = "",
    lineup: str | dict | None = None,
    params: dict[str, Any] | None = None,
    debate_id: str | None = None,
):
    """A DebateConfig that continues `events` (a parent debate) after round `round`.

    Raises InvalidInput, before any model is called, when the parent cannot be forked there."""
    from debate import moderation

    ds = [_d(e) for e in events]
    started = next((e for e in ds if e.get("type") == "debate_started"), None)
    if started is None:
        raise InvalidInput(
            "These events have no debate_started event, so there is no debate to fork.",
            "Use an events file written by `python -m debate run --events` or the Library's JSON export.",
        )
    protocol = started.get("protocol", "")
    if protocol not in FORKABLE:
        raise InvalidInput(
            f"A {protocol} debate has no rounds to continue.", f"Fork a debate of one of: {', '.join(FORKABLE)}."
        )
    if started.get("task") == "checkthat" and started.get("category") is None:
        raise InvalidInput(
            "This debate decided all three CheckThat categories, each with its own rounds.",
            "Fork a debate run for one category (--category 1, 2 or 3).",
        )
    try:
        n = int(round)
    except (TypeError, ValueError):
        raise InvalidInput(f"Round {round!r} is not a whole number.", "Give the round to fork after, e.g. 1.") from None
    cut, why = cut_after_round(ds, n)
    if cut is None:
        have = rounds_of(ds)
        raise InvalidInput(
            f"Cannot fork after round {n}: {why}.", f"Rounds you can fork from: {', '.join(map(str, have)) or 'none'}."
        )
    notes = [e.get("text", "") for e in ds[:cut] if e.get("type") == "moderator" and e.get("seen", True)]
    if say and str(say).strip():
        notes.append(moderation.check_note(say))
    settings = started.get("settings") or {}
    evidence = next((e for e in ds[:cut] if e.get("type") == "evidence"), None)
    try:
        return _config(ds, cut, started, settings, evidence, n, notes, lineup, params, debate_id)
    except (TypeError, ValueError, AttributeError, KeyError) as e:  # a parent file edited by hand, or by anyone
        raise InvalidInput(
            f"The parent's recorded settings or lineup cannot be used ({type(e).__name__}: {str(e)[:200]}).",
            "Fork a debate written by `python -m debate run --events` or exported from the Library, unedited.",
        ) from None


def _config(
    ds: list[dict],
    cut: int,
    started: dict,
    settings: dict,
    evidence: dict | None,
    n: int,
    notes: list[str],
    lineup: str | dict | None,
    params: dict[str, Any] | None,
    debate_id: str | None,
):
    """fork_config's DebateConfig from the parent's events (`ds[:cut]` before the fork point) and its recorded
    settings (the caller turns what a hand-edited file makes fail here into a message)."""
    before = ds[:cut]
    from debate.runner import DebateConfig, prepare

    protocol = started.get("protocol", "")
    new_params = {**(settings.get("params") or {}), **(params or {})}
    # concurrent turns finish in any order; the protocol asks for them in the order they were started
    order = {e.get("turn_id"): i for i, e in enumerate(before) if e.get("type") == "turn_started"}
    turns = sorted(
        (e for e in before if e.get("type") == "turn_finished"), key=lambda e: order.get(e.get("turn_id"), len(order))
    )
    fork = Fork(parent_id=started.get("debate_id", ""), round=n, turns=turns, evidence=evidence, notes=notes)
    cfg = DebateConfig(
        claim=started.get("claim", ""),
        protocol=protocol,
        task=started.get("task", "checkthat"),
        category=started.get("category"),
        custom_title=settings.get("custom_title", ""),
        custom_description=settings.get("custom_description", ""),
        lineup=lineup or str(settings.get("lineup_name") or "parent"),
        params=new_params,
        evidence=settings.get("evidence"),
        top_k=int(settings.get("top_k", 20)),
        max_tokens=int(settings.get("max_tokens", 256)),
        seed=int(started.get("seed") or 0),
        gold=started.get("gold"),
        debate_id=debate_id,
        apply_cat2_rule=bool(settings.get("apply_cat2_rule", True)),
        fork=fork,
        seats=None if lineup else list(started.get("lineup") or []),
        # a person keeps their seat (the parent's seats say so; a new lineup gets it again)
        humans=(settings.get("humans") or None) if lineup else None,
        human_timeout_s=float(settings.get("human_timeout_s") or 180.0),
        # how the parent's passages entered its prompts (a debate stored before the guard: fenced now)
        evidence_guard=str(settings.get("evidence_guard") or "fence"),
        flagged_evidence=str(settings.get("flagged_evidence") or "mask"),
    )
    pp = prepare(cfg)
    if "rounds" in pp.params and n > int(pp.params["rounds"]):
        raise InvalidInput(
            f"Cannot fork after round {n} with rounds={pp.params['rounds']}.",
            f"Raise the rounds parameter (--param rounds={n + 1}) or fork from an earlier round.",
        )
    parent_roles = [a.get("role") for a in started.get("lineup") or []]
    if lineup and [a.role for a in pp.agents] != parent_roles:
        raise InvalidInput(
            "The new lineup seats different roles than the parent "
            f"({', '.join(a.role for a in pp.agents)} vs {', '.join(map(str, parent_roles))}).",
            "Use a lineup with as many members as the parent (the replayed turns need their seats).",
        )
    plan = _plan(protocol, ds, n, pp.params)
    if not plan.runs_new:  # a fork that would only copy its parent is refused, not run silently
        raise InvalidInput(plan.says, plan.argue_says or "Fork from another round.")
    return cfg


@dataclass
class ForkPlan:
    """What a fork after round `round` will do, said before it runs."""

    round: int
    runs_new: bool  # does any model answer anew after the fork point?
    says: str  # plain sentences for the person about to fork
    argue: dict[str, Any] | None = None  # parameters that make the agents argue on, where the protocol has them
    argue_says: str = ""


def fork_plan(events: list[Event | dict], round: int, params: dict[str, Any] | None = None) -> ForkPlan:
    """What forking `events` after round `round` (with `params` changed) will run, before anything runs.

    Raises InvalidInput when that fork is not possible at all (as fork_config does)."""
    from debate.runner import DebateConfig, prepare

    ds = [_d(e) for e in events]
    started = next((e for e in ds if e.get("type") == "debate_started"), {})
    settings = started.get("settings") or {}
    cfg = DebateConfig(
        claim=started.get("claim", "") or "x",
        protocol=started.get("protocol", ""),
        task=started.get("task", "checkthat"),
        category=started.get("category"),
        custom_title=settings.get("custom_title", ""),
        lineup=str(settings.get("lineup_name") or "parent"),
        params={**(settings.get("params") or {}), **(params or {})},
        seats=list(started.get("lineup") or []),
    )
    return _plan(cfg.protocol, ds, int(round), prepare(cfg).params)


def _span(a: int, b: int) -> str:
    return f"round {a}" if a == b else f"rounds {a}–{b}"


def _plan(protocol: str, ds: list[dict], n: int, p: dict[str, Any]) -> ForkPlan:
    """The plan of a fork after round n with the (typed, complete) parameters p."""
    rounds = int(p.get("rounds", 0))
    replay = f"The fork replays {_span(0, n)} as they were said (no model is asked again)"
    note = f"a moderator's note is read from round {n + 1} on" if n < rounds else ""
    if protocol == "council":
        from debate.protocols.decisions import consensus_reached, consensus_share, votes_stabilised

        tallies = [e for e in ds if e.get("type") == "votes_tallied" and int(e.get("round", 0)) <= n]
        votes = dict(tallies[-1].get("votes") or {}) if tallies else {}
        theta, min_rounds = float(p.get("theta", 0.8)), int(p.get("min_rounds", 0))
        why = ""
        if n >= rounds:
            why = f"round {n} was the council's last (rounds={rounds})"
        elif votes and consensus_reached(votes, theta):
            why = f"the members agreed at round {n} ({consensus_share(votes):.0%} ≥ θ {theta:.0%})"
        elif votes_stabilised([dict(t.get("votes") or {}) for t in tallies], int(p.get("stable_rounds", 2))):
            why = f"the votes had stabilised by round {n}"
        if why and n >= min_rounds:
            argue = {"min_rounds": n + 1, **({"rounds": n + 1} if n >= rounds else {})}
            return ForkPlan(
                n,
                False,
                f"A fork after round {n} would run nothing new: {why}, so the council stops "
                "there again with the same verdict, and no agent would read a moderator's note.",
                argue,
                f"Make them argue: hold one more discussion round ({', '.join(f'{k}={v}' for k, v in argue.items())}): "
                "the chairperson summarises and every member votes again, reading your note.",
            )
        return ForkPlan(
            n,
            True,
            f"{replay}; then the chairperson summarises and the members vote again from "
            f"round {n + 1} (at most {rounds} rounds, until {theta:.0%} agree"
            f"{f', at least {min_rounds} rounds' if min_rounds > n else ''}); {note}.",
        )
    if protocol == "radar":
        early = bool(p.get("early_stop", True))
        checks = [e for e in ds if e.get("type") == "stop_check" and int(e.get("round", -1)) == n]
        said_stop = bool(checks) and checks[-1].get("decision") == "stop"
        if n >= rounds:
            return ForkPlan(
                n,
                True,
                f"{replay}; round {n} was the last (rounds={rounds}), so only the closing "
                "statements and the judge's verdict are made anew.",
                {"rounds": n + 1},
                f"Make them argue: one more rebuttal round (rounds={n + 1}).",
            )
        if early:
            then = (
                "it said STOP in the parent: if it says so again, only the closing statements and the judge follow"
                if said_stop
                else f"rebuttal rounds from {n + 1} follow (at most {rounds}) until it "
                "says STOP, then the closing statements and the judge"
            )
            return ForkPlan(
                n,
                True,
                f"{replay}; then the stop check after round {n} is made anew — {then}; {note}.",
                {"early_stop": False} if said_stop else None,
                f"Make them argue: early stopping off (early_stop=false), so {_span(n + 1, rounds)} "
                "are argued before the closing statements."
                if said_stop
                else "",
            )
        return ForkPlan(
            n,
            True,
            f"{replay}; then {_span(n + 1, rounds)} are argued anew, followed by the closing "
            f"statements and the judge; {note}.",
        )
    ends = "the judge decides" if protocol == "team" else "both sides sum up and the judge decides"
    if n >= rounds:
        return ForkPlan(
            n,
            True,
            f"{replay}; round {n} was the last (rounds={rounds}), so only the end — {ends} — is made anew.",
            {"rounds": n + 1},
            f"Make them argue: one more rebuttal round (rounds={n + 1}).",
        )
    return ForkPlan(n, True, f"{replay}; then {_span(n + 1, rounds)} are argued anew and {ends}; {note}.")
