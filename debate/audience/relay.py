"""Hands turns typed on phones to the seats of a debate running in this process.

The audience server only writes a typed turn into the seat inbox (links.py); the seat itself, with the
turn's parser and the countdown, lives in the memory of the process that runs the debate (debate.seats).
While such a debate runs, a small thread here reads the inbox a few times a second and gives each pending
answer to `seats.answer`, exactly as the Debate page's box does, then writes back whether the seat
accepted it or why it refused it. An answer for a seat of another agent than the link's, or for a turn no
longer waiting, is refused: a seat's link answers that seat's turns only.
"""

from __future__ import annotations

import threading
from pathlib import Path

from debate import seats
from debate.audience.links import AudienceStore, store_at
from debate.errors import DebateError, InvalidInput

RELAY_EVERY_S = 0.25  # a typed turn reaches its seat within this (plus one SQLite read)


def relay_once(store: AudienceStore, debate_id: str) -> int:
    """Hand every pending answer of the debate to its seat; returns how many were decided."""
    rows = store.pending(debate_id)
    for row in rows:
        seat = seats.get(debate_id, row["turn_id"])
        if seat is None or seat.agent != row["agent"] or not seat.open:
            store.decide(
                row["id"],
                "refused",
                "This turn is no longer waiting for an answer: its countdown ended or the debate moved on.",
            )
            continue
        try:
            seats.answer(debate_id, row["turn_id"], row["text"])
        except InvalidInput as e:
            store.decide(row["id"], "refused", f"{e.message} {e.hint}".strip())
        else:
            store.decide(row["id"], "accepted")
    return len(rows)


def start(path: str | Path, debate_id: str, done: threading.Event) -> threading.Thread:
    """Relay the debate's inbox until `done` is set (the debate ended)."""

    def loop() -> None:
        store = store_at(path)
        while not done.wait(RELAY_EVERY_S):
            try:
                relay_once(store, debate_id)
            except DebateError:  # a busy or closed store: try again on the next tick
                pass

    t = threading.Thread(target=loop, name=f"seat-relay-{debate_id}", daemon=True)
    t.start()
    return t
