"""A person in a seat of the debate: the open questions of running debates, and their answers.

Why a registry keyed by (debate id, turn id), like debate.moderation: the debate runs in a worker thread
the page cannot reach into. When the protocol reaches a turn whose agent is a person (model spec
`human:person`, backend debate.models.human), the debate context opens a `Seat` here with what the
role's prompt shows and the parser the turn's answer must pass; the page (or the command line) lists
the open seats of a debate and hands an answer to `answer`, which checks it with the same parser the
model's answer would go through, so an answer that is not a vote is refused at once with a message and
the person may try again until the countdown ends. The person backend waits on the seat and returns
the accepted words as the model's text, so the protocol reads them like any model's turn.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from debate.errors import InvalidInput

PERSON_SPEC = "human:person"  # the model spec of a seat a person plays
DEFAULT_TIMEOUT_S = 180.0  # a person's time for one turn; then the turn passes and the debate goes on
MAX_ANSWER_CHARS = 4000  # a person's turn goes into every later prompt: keep small context windows usable
MAX_PROMPT_CHARS = 40000  # what the seat shows of the role's prompt (a judge's prompt holds the whole debate)


@dataclass
class Seat:
    """One turn waiting for a person."""

    debate_id: str
    turn_id: str
    agent: str
    role: str
    phase: str
    round: int
    prompt: str  # the role's prompt as the model would read it
    answer_format: str  # what the answer must look like, in words a person can follow
    timeout_s: float
    parse: Callable[[str], object] | None = None  # ParseResult-returning; None = free text
    labels: tuple[str, ...] = ()
    stopping: Callable[[], bool] = lambda: False
    opened: float = field(default_factory=time.monotonic)
    answer: str | None = None
    answered_at: float | None = None  # time.perf_counter() when the answer was accepted (measurements)
    refused: int = 0
    closed: bool = False
    _done: threading.Event = field(default_factory=threading.Event)

    @property
    def deadline(self) -> float:
        return self.opened + self.timeout_s

    def remaining_s(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    @property
    def open(self) -> bool:
        return not self.closed and self.answer is None and self.remaining_s() > 0

    def wait(self) -> str | None:
        """Block until the person answers (their words), the countdown ends or the debate stops (None)."""
        while True:
            left = self.remaining_s()
            if self._done.wait(min(0.1, left)) or self.answer is not None:
                return self.answer
            if left <= 0 or self.stopping():
                with _LOCK:
                    self.closed = True
                return self.answer


_SEATS: dict[tuple[str, str], Seat] = {}
_LOCK = threading.Lock()


def open_seat(seat: Seat) -> Seat:
    with _LOCK:
        _SEATS[(seat.debate_id, seat.turn_id)] = seat
    return seat


def get(debate_id: str, turn_id: str) -> Seat | None:
    with _LOCK:
        return _SEATS.get((debate_id, turn_id))


def close(seat: Seat) -> None:
    """The turn is over (answered, timed out or stopped): the seat leaves the registry."""
    with _LOCK:
        seat.closed = True
        _SEATS.pop((seat.debate_id, seat.turn_id), None)


def waiting(debate_id: str) -> list[Seat]:
    """The seats of a debate that wait for a person's answer now, in the order they opened."""
    with _LOCK:
        seats = [s for (d, _), s in _SEATS.items() if d == debate_id]
    return sorted((s for s in seats if s.open), key=lambda s: s.opened)


def check_answer(seat: Seat, text: str) -> str:
    """The answer as it will be recorded, or InvalidInput saying why it is refused and what to write."""
    answer = str(text or "").strip()
    if not answer:
        raise InvalidInput("Your answer is empty.", f"Write your turn as the {seat.role}: {seat.answer_format}")
    if len(answer) > MAX_ANSWER_CHARS:
        raise InvalidInput(
            f"Your answer has {len(answer):,} characters; at most {MAX_ANSWER_CHARS:,} are allowed.",
            "Shorten it: every later prompt carries it.",
        )
    if seat.parse is not None and not getattr(seat.parse(answer), "ok", False):
        what = f"one of {', '.join(seat.labels)}" if seat.labels else "an answer in the required format"
        kind = {"vote": "a vote", "judge": "a verdict"}.get(seat.phase, "an answer this turn can count")
        raise InvalidInput(
            f"Refused: this turn needs {kind} ({what}) and none could be read from your answer.",
            f"Write it as: {seat.answer_format}",
        )
    return answer


def answer(debate_id: str, turn_id: str, text: str) -> str:
    """Hand a person's answer to an open seat; returns it as recorded, or raises InvalidInput (the seat
    stays open, so the person can correct it within the countdown)."""
    seat = get(debate_id, turn_id)
    if seat is None or not seat.open:
        raise InvalidInput(
            "This turn is no longer waiting for an answer.",
            "Its countdown ended or the debate moved on; the transcript says what happened.",
        )
    try:
        accepted = check_answer(seat, text)
    except InvalidInput:
        with _LOCK:
            seat.refused += 1
        raise
    with _LOCK:
        if seat.answer is not None or seat.closed:
            raise InvalidInput("This turn is no longer waiting for an answer.", "Someone else answered first.")
        seat.answer, seat.answered_at = accepted, time.perf_counter()
    seat._done.set()
    return accepted


def for_person(labels: tuple[str, ...], parse: Callable[[str], object] | None, model_format: str) -> str:
    """The answer format shown to a person: a short form the turn's own parser accepts (tried here, so the
    advice is never one the parser then refuses), then the format the model is asked for."""
    if parse is None:
        return "Free text: your turn in your own words."
    if labels:
        for form in (
            "ANSWER: {L} — your reason",
            "VOTE: {L} — your reason",
            "[REASON]: your reason\n[VERDICT]: {L}",
            '{{"vote": "{L}", "explanation": "your reason"}}',
        ):
            sample = form.format(L=labels[0])
            if getattr(parse(sample), "ok", False):
                shown = form.replace("{L}", "/".join(labels)).replace("{{", "{").replace("}}", "}")
                return f"{shown}" + (f"  (the model is asked for: {model_format})" if model_format else "")
    return model_format or "an answer the turn can read"


def prompt_text(messages: list[dict]) -> str:
    """The messages of a prompt as one text a person can read, bounded in size."""
    parts = []
    for m in messages:
        who = {"system": "Instructions", "user": "Prompt", "assistant": "Earlier answer"}.get(m.get("role", ""), "")
        parts.append(f"[{who}]\n{str(m.get('content', '')).strip()}")
    text = "\n\n".join(parts)
    if len(text) > MAX_PROMPT_CHARS:
        text = text[:MAX_PROMPT_CHARS] + "\n… (cut here: the prompt is longer)"
    return text
