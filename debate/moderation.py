"""A person steering a running debate: notes typed between rounds reach the next prompts.

Why a registry keyed by debate id: the debate runs in a worker thread (debate.live.worker) that the page cannot
reach into, and run_debate's contract stays (config, client, retriever, cancel). The page posts a note
here; the runner takes pending notes at the next round or phase boundary, records each as a `moderator`
event and from then on appends them to every prompt (protocols.base.with_moderator).
"""

from __future__ import annotations

import threading

from debate.errors import checked_text

MAX_NOTE_CHARS = 1000  # a note goes into every later prompt: keep small context windows usable

_PENDING: dict[str, list[str]] = {}
_LOCK = threading.Lock()


def check_note(text: str) -> str:
    """The note as it will be sent, or InvalidInput saying what is wrong with it."""
    return checked_text(
        text,
        MAX_NOTE_CHARS,
        "The moderator's note",
        "Type what the debaters should consider.",
        "Shorten it: it is added to every prompt from the next round on.",
    )


def post(debate_id: str, text: str) -> str:
    """Queue a note for a running debate; it is applied at the next round boundary."""
    note = check_note(text)
    with _LOCK:
        _PENDING.setdefault(debate_id, []).append(note)
    return note


def take(debate_id: str) -> list[str]:
    """The notes posted since the last call (the runner's side)."""
    with _LOCK:
        return _PENDING.pop(debate_id, [])


def pending(debate_id: str) -> list[str]:
    with _LOCK:
        return list(_PENDING.get(debate_id, []))
