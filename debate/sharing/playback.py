"""Recorded playback for a room: a stored debate as a sequence of beats, each shown long enough to read.

Why not replay at the recorded timestamps: the store keeps finished turns, not their tokens, so a turn
that took the CPU ten minutes would show "…" for ten minutes (two at 5×), and concurrent turns (both
openings, a council's votes) finish into one another, so a presenter that shows "the current speaker"
replaced a finished turn by the next one at once and never showed it. Here every finished turn is its
own beat, in the order the turns started; a beat lasts about as long as its text takes to read (the
recorded time when that is shorter than twice the reading time), divided by the speed, and the text is
revealed over most of it. Tallies, stop checks, notes and the verdict are short beats of their own.

A position is a float: the beat index plus the fraction of that beat already played, so that pausing,
stepping and a change of speed (which changes every beat's length) keep the place in the debate.
"""

from __future__ import annotations

from dataclasses import dataclass

BEAT_EVENTS = ("votes_tallied", "stop_check", "moderator", "verdict")  # besides turns
WORDS_PER_S = 4.0  # a room reading aloud-ish pace
REVEAL = 0.7  # share of a turn's beat over which its text appears; the rest holds the whole text


@dataclass
class Beat:
    kind: str  # "turn" or one of BEAT_EVENTS
    start: int  # index of the event that opens it (the turn's turn_started)
    end: int  # index of the event that completes it (the turn's turn_finished)
    turn_id: str = ""
    words: int = 0
    recorded_s: float = 0.0


def beats(events: list[dict]) -> list[Beat]:
    """The beats of a stored debate, in the order they began."""
    started: dict[str, int] = {}
    out: list[Beat] = []
    for i, e in enumerate(events):
        t = e.get("type")
        if t == "turn_started":
            started[str(e.get("turn_id"))] = i
        elif t == "turn_finished":
            tid = str(e.get("turn_id"))
            s = started.pop(tid, i)
            rec = max(0.0, float(e.get("t") or 0.0) - float(events[s].get("t") or 0.0))
            out.append(Beat("turn", s, i, tid, len(str(e.get("text") or "").split()), rec))
        elif t in BEAT_EVENTS:
            out.append(Beat(t, i, i))
    for tid, s in started.items():  # a turn the debate ended in the middle of
        out.append(Beat("turn", s, s, tid))
    return sorted(out, key=lambda b: (b.start, b.end))


def durations(bs: list[Beat], speed: float) -> list[float]:
    """Seconds each beat lasts at `speed` (1 = about the time to read it)."""
    speed = max(0.1, float(speed))
    out = []
    for b in bs:
        if b.kind == "turn":
            read = min(2.0 + b.words / WORDS_PER_S, 30.0)
            out.append(max(read, min(b.recorded_s, 2 * read)) / speed)
        else:
            out.append(max(0.5, 3.0 / speed))
    return out


def advance(pos: float, dt: float, durs: list[float]) -> float:
    """The position `dt` seconds after `pos`, at most len(durs) (the end)."""
    k, frac = int(pos), pos - int(pos)
    while dt > 0 and k < len(durs):
        left = (1.0 - frac) * durs[k]
        if dt < left:
            return k + frac + dt / durs[k]
        dt -= left
        k, frac = k + 1, 0.0
    return float(min(k, len(durs))) if dt > 0 or k >= len(durs) else k + frac


def step(pos: float, by: int, n: int) -> float:
    """The start of the next (by=+1) or previous (by=-1) beat; back from the middle of a beat restarts it."""
    k = int(pos)
    if by < 0 and pos - k > 0.05:
        return float(k)
    return float(min(max(k + by, 0), n))


def frame(events: list[dict], bs: list[Beat], pos: float) -> tuple[list[dict], Beat | None, float]:
    """(events to show, the beat in focus, how much of its text is shown) at position `pos`.

    Shown are the events up to the focused beat's end, except the turns of later beats (a concurrent
    turn appears in its own beat, not as a side effect of an earlier one's)."""
    if not bs:
        return list(events), None, 1.0
    k = min(int(pos), len(bs) - 1)
    frac = 1.0 if pos >= len(bs) else pos - int(pos)
    later = {b.turn_id for b in bs[k + 1 :] if b.kind == "turn"}
    upto = max(b.end for b in bs[: k + 1])
    if pos >= len(bs):
        upto = len(events) - 1
    shown = [
        e
        for e in events[: upto + 1]
        if not (e.get("type") in ("turn_started", "turn_finished", "token") and str(e.get("turn_id")) in later)
    ]
    focus = bs[k]
    reveal = 1.0 if focus.kind != "turn" else min(1.0, frac / REVEAL)
    return shown, focus, reveal
