"""A person's seat on the command line: `run --human ROLE` answers from the terminal, `--human-file F`
from a file of answers (scripted classes, tests).

The debate streams in the main thread; when it asks a seat this person plays (a `human_asked` event),
`Answerer.on_event` shows what the role's prompt shows and hands the answer to debate.seats, which
checks it with the turn's own parser. A refused answer prints the reason and the person (or the next
answer in the file) tries again until the countdown ends; then the engine passes the turn.
"""

from __future__ import annotations

import select
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO

from debate import seats
from debate.errors import InvalidInput

SEPARATOR = "---"  # a line with only this separates two answers in a --human-file


def read_answers(path: str) -> list[str]:
    """The answers of a --human-file, in order: blocks of text separated by lines holding only `---`."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise InvalidInput(
            f"The answers file {path} does not exist.",
            f"Write one answer per block, blocks separated by a line '{SEPARATOR}'.",
        )
    blocks: list[str] = []
    cur: list[str] = []
    for line in p.read_text(encoding="utf-8").splitlines():
        if line.strip() == SEPARATOR:
            blocks.append("\n".join(cur).strip())
            cur = []
        else:
            cur.append(line)
    blocks.append("\n".join(cur).strip())
    answers = [b for b in blocks if b]
    if not answers:
        raise InvalidInput(
            f"The answers file {path} holds no answer.",
            f"Write one answer per block, blocks separated by a line '{SEPARATOR}'.",
        )
    return answers


class Answerer:
    """Answers the seats a person plays in one CLI debate, from a file or from the terminal."""

    def __init__(
        self,
        answers: list[str] | None = None,
        stdin: IO[str] | None = None,
        out: Callable[[str], None] | None = None,
        show_prompt: bool = True,
    ) -> None:
        self.answers = list(answers) if answers is not None else None
        self.stdin = stdin or sys.stdin
        self.out = out or (lambda s: (sys.stderr.write(s), sys.stderr.flush()))
        self.show_prompt = show_prompt
        self.debate_id = ""

    def on_event(self, ev) -> None:
        if ev.type == "debate_started":
            self.debate_id = ev.debate_id
        elif ev.type == "human_asked":
            self._answer(ev)

    def _answer(self, ev) -> None:
        from debate.sanitize import clean_for_terminal

        seat = seats.get(self.debate_id, ev.turn_id)
        if seat is None:
            return
        head = f"\n=== Your turn: {ev.agent} ({ev.role}, {ev.phase}" + (f" {ev.round}" if ev.round else "") + ") ==="
        body = f"\n{clean_for_terminal(ev.prompt)}\n" if self.show_prompt else ""
        self.out(f"{head}{body}\nAnswer format: {ev.answer_format}\nYou have {seat.remaining_s():.0f} s.\n")
        while seat.open:
            text = self._next(seat)
            if text is None:
                self.out("No answer given: the turn passes when its countdown ends.\n")
                return
            try:
                seats.answer(self.debate_id, ev.turn_id, text)
                self.out("Answer accepted.\n")
                return
            except InvalidInput as e:
                self.out(f"{e.message}\n{e.hint}\n")

    def _next(self, seat: seats.Seat) -> str | None:
        if self.answers is not None:
            return self.answers.pop(0) if self.answers else None
        self.out("> (one line; Enter sends)\n")
        try:  # wait for a line only as long as the seat's countdown (a pipe or a terminal can be polled)
            ready, _, _ = select.select([self.stdin], [], [], seat.remaining_s())
        except (ValueError, OSError, TypeError):  # not pollable (e.g. a StringIO): read at once
            ready = [self.stdin]
        if not ready:
            return None
        line = self.stdin.readline()
        return line.strip() if line else None  # an empty line is refused (and asked again); EOF ends
