"""What the audience's pages show, decided from stored rows and events: pure functions, tested alone.

A seat's phone page reads the debate's stored events (the debate's process writes them as they happen):
the person's turn is open from the `human_asked` event for their agent until that turn's `turn_finished`
or `human_timeout`, or the debate's end. The countdown is counted from the debate's start (its row's
`created_at`) plus the event's `t`, so it is close to the seat's own (within the time the debate took to
start), never longer.
"""

from __future__ import annotations

from datetime import datetime

CLOSING = ("turn_finished", "human_timeout")


def open_ask(events: list[dict], agent: str) -> dict | None:
    """The `human_asked` event of `agent`'s turn that still waits for an answer, or None."""
    asked: dict[str, dict] = {}
    for e in events:
        kind = e.get("type")
        if kind == "human_asked" and e.get("agent") == agent:
            asked[e.get("turn_id", "")] = e
        elif kind in CLOSING:
            asked.pop(e.get("turn_id", ""), None)
        elif kind == "finished":
            return None
    return list(asked.values())[-1] if asked else None


def seconds_left(created_at: str, ask: dict, now: datetime) -> int:
    """Whole seconds left of the turn's countdown (0 when over or unknown)."""
    try:
        start = datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return 0
    left = start.timestamp() + float(ask.get("t") or 0) + float(ask.get("timeout_s") or 0) - now.timestamp()
    return max(0, int(left))


def ended(events: list[dict]) -> bool:
    return any(e.get("type") == "finished" for e in events)


def results_rows(tallies: dict) -> list[dict]:
    """One row per option: its votes before and after and its swing (share after minus before), for the table."""
    swing = tallies.get("swing") or {}
    return [
        {
            "label": lab,
            "before": int((tallies.get("before") or {}).get(lab, 0)),
            "after": int((tallies.get("after") or {}).get(lab, 0)),
            "swing": "" if lab not in swing else f"{swing[lab]:+.0%}",
        }
        for lab in tallies.get("labels") or []
    ]


def person_seats(events: list[dict]) -> list[tuple[str, str]]:
    """(agent, role) of every seat a person plays in the debate, from its `debate_started` lineup."""
    from debate.seats import PERSON_SPEC

    start = next((e for e in events if e.get("type") == "debate_started"), None)
    lineup = (start or {}).get("lineup") or []
    return [(a.get("agent", ""), a.get("role", "")) for a in lineup if a.get("model") == PERSON_SPEC and a.get("agent")]
