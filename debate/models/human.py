"""A person behind the model interface: the `human` backend answers with what a person typed.

Protocols never know who plays a seat: a turn of an agent whose model spec is `human:person` goes through
`ModelClient.chat` like any other, and this backend's stream waits on the seat the debate context opened
for that turn (debate.seats), then returns the person's accepted words as the model's text, or nothing
with finish reason "timeout" when the countdown ended first. The debate context calls it with the seat's
ticket as the model name ("<debate id>/<turn id>"), so one backend serves every debate at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from debate import seats
from debate.errors import InvalidInput
from debate.models.backends import BackendInfo
from debate.models.base import Backend, Chunk, Delta, Final, GenOptions, Message, ModelInfo
from debate.models.spec import ModelSpec


def ticket(debate_id: str, turn_id: str) -> str:
    return f"{debate_id}/{turn_id}"


class HumanBackend(Backend):
    name = "human"
    person = True  # never cached, never warmed, no logprobs: the debate context opens a seat for its turns
    supports_logprobs = False
    supports_json_schema = False
    max_parallel = 1024  # every seat waits on its own person

    def list_models(self) -> list[ModelInfo]:
        return [
            ModelInfo(
                spec=seats.PERSON_SPEC,
                backend="human",
                name="person",
                status="ready",
                detail="a person types this seat's turns (Debate page, Present, or --human on the CLI)",
            )
        ]

    def stream(self, model: str, messages: list[Message], options: GenOptions) -> Iterator[Chunk]:
        debate_id, _, turn_id = model.rpartition("/")
        seat = seats.get(debate_id, turn_id)
        if seat is None:
            raise InvalidInput(
                f"No seat is open for a person's turn {model!r}.",
                "A person's turns are asked for by a running debate; use the model spec "
                f"{seats.PERSON_SPEC} in a lineup.",
            )
        text = seat.wait()
        if text is None:
            yield Final(finish_reason="stopped" if seat.stopping() else "timeout")
            return
        yield Delta(text)
        yield Final(prompt_tokens=0, completion_tokens=len(text.split()), finish_reason="stop")


def _make(spec: ModelSpec, s: dict[str, Any], guard: Any) -> Backend:
    return HumanBackend()


INFO = BackendInfo("human", "A person", _make, "a person plays the seat", listed=False)
