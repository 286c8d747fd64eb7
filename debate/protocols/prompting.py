"""Prompt assembly: the one place where an agent's messages are built from a template and the debate.

Every protocol hands `DebateContext.prompt()` a template pair, the plain values, and the parts of the
debate the template shows (`slots`: the transcript for a judge, the team's discussion, the council's
discussion, RADAR's opening/rebuttal/closing slots). The whole debate goes in — the papers' judges read
"[FULL DEBATE DISCUSSION]" — and only when the finished prompt would not fit the model's context window
is it shortened, here, by `fit()`: the oldest turns are cut to their opening sentences first (an
extractive summary of the oldest rounds), the newest turns stay whole, and only if that is not enough
are the oldest turns left out. The caller turns the returned report into a TranscriptShortened event
that the viewer shows.

Hooks that change every prompt (a moderator's note, a max-token or stop rule) belong in `assemble()`.
These functions are pure: no model is called, and they run in time linear in the prompt's length.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from debate import prompts
from debate.models.base import Message

CHARS_PER_TOKEN = 3.5  # conservative: a TurQUaz judge prompt measured 4.75 (Qwen2.5) and 4.41 (SmolLM2) chars per token
# (scripts/measure_chars_per_token.py); the margin covers chat-template tokens and less common text
ANSWER_MARGIN_TOKENS = 32  # chat-template tokens around the messages
HEAD_CHARS = 240  # a condensed turn keeps about its first two sentences
KEEP_RECENT = 2  # the newest turns of a prompt are condensed only when leaving out all older ones is not enough
MIN_KEEP = 80  # and then keep at least their first words
CONDENSED_MARK = " […]"
OMITTED_TEXT = "(omitted: the debate was too long for this model's context window)"
_SENTENCE_END = re.compile(r"[.!?](?=\s)")


@dataclass(frozen=True)
class Said:
    """One earlier answer as another agent's prompt shows it: `prefix` + `text`.

    `order` places it in the debate (older is smaller), so the oldest turns are shortened first even
    when a template spreads the debate over several slots (RADAR's openings, rebuttals, closings)."""

    text: str
    prefix: str = ""
    order: int = 0


@dataclass(frozen=True)
class Slot:
    """A template variable filled with earlier answers, joined by `sep`; `empty` when there are none."""

    entries: tuple[Said, ...] = ()
    sep: str = "\n\n"
    empty: str = "None"
    lead: str = ""  # fixed text before the entries (kept when shortening)

    def render(self) -> str:
        if not self.entries:
            return self.lead + self.empty if self.lead else self.empty
        return self.lead + self.sep.join(f"{e.prefix}{e.text.strip() or '(no answer)'}" for e in self.entries)


@dataclass
class FitReport:
    budget_chars: int
    original_chars: int
    final_chars: int = 0
    condensed: int = 0
    omitted: int = 0
    reason: str = ""


Build = Callable[[dict[str, Slot]], list[Message]]


class Prompt(list[Message]):
    """A turn's messages that remember how `fit` built them (`build` over the unshortened `slots`).

    A prompt that adds to a turn's messages afterwards (the repair after an unreadable answer) needs
    room the turn's own fit did not leave: with this it can fit the earlier messages again, by the same
    rule, for a smaller budget. Everywhere else it is the plain list of messages."""

    def __init__(
        self, messages: list[Message], build: Build | None = None, slots: dict[str, Slot] | None = None
    ) -> None:
        super().__init__(messages)
        self.build = build
        self.slots = slots or {}

    def then(self, change: Callable[[list[Message]], list[Message]]) -> Prompt:
        """These messages changed by `change` (e.g. a moderator's note added), and re-fitted with it too."""
        build = self.build
        return Prompt(change(list(self)), None if build is None else (lambda s: change(build(s))), self.slots)

    def refit(self, budget: int) -> tuple[list[Message], FitReport | None]:
        """The same messages fitted to `budget` from the whole debate (as `fit` does)."""
        if self.build is None:
            return list(self), None
        return fit(self.build, self.slots, budget)


def order_of(turn_id: str, fallback: int = 0) -> int:
    """Turn ids are "t<n>" in the order turns were started: that order is the debate's order."""
    digits = turn_id[1:] if turn_id[:1] == "t" else ""
    return int(digits) if digits.isdigit() else fallback


def head(text: str, limit: int = HEAD_CHARS) -> str:
    """The opening sentences of `text` within `limit` characters, marked as cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    ends = [m.end() for m in _SENTENCE_END.finditer(cut)]
    if ends and ends[-1] >= limit // 4:
        cut = cut[: ends[-1]]
    elif " " in cut[limit // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut + CONDENSED_MARK


def budget_chars(n_ctx: int | None, max_tokens: int, explicit_chars: int = 0) -> int | None:
    """How many characters a whole prompt may have: an explicit limit, else what the model's context
    window leaves after the answer, else None (the backend reports no window: send everything)."""
    if explicit_chars > 0:
        return explicit_chars
    if not n_ctx:
        return None
    return max(0, int((int(n_ctx) - int(max_tokens) - ANSWER_MARGIN_TOKENS) * CHARS_PER_TOKEN))


def assemble(
    system_id: str | None,
    user_id: str,
    values: dict[str, Any],
    slots: dict[str, Slot] | None = None,
    *,
    history: list[Message] | None = None,
    addendum: str = "",
) -> list[Message]:
    """The messages of one turn: [history...] or [system], then the user template filled with `values`
    and the rendered `slots`; `addendum` (an engine instruction, if switched on) after the template."""
    filled = {**values, **{k: s.render() for k, s in (slots or {}).items()}}
    if history:
        msgs = list(history)
        user = prompts.render(user_id, **filled)
        msgs.append({"role": "user", "content": f"{user}\n\n{addendum}" if addendum else user})
        return msgs
    return prompts.messages(system_id, user_id, filled, addendum=addendum)


def lead_with(lead: str, msgs: list[Message]) -> list[Message]:
    """`lead` as the very start of the prompt: before the system text (merged into that message, so
    the chat template's own default system prompt cannot come first), or as the system message."""
    if msgs and msgs[0].get("role") == "system":
        return [{**msgs[0], "content": f"{lead}\n\n{msgs[0]['content']}"}, *msgs[1:]]
    return [{"role": "system", "content": lead}, *msgs]


def note_in_system(note: str, msgs: list[Message]) -> list[Message]:
    """`note` at the end of the system text (a system message of its own when there is none), once: a
    conversation that carries it already (a debater's memory) is left as it is."""
    if msgs and msgs[0].get("role") == "system":
        if note in str(msgs[0].get("content", "")):
            return msgs
        return [{**msgs[0], "content": f"{msgs[0]['content']}\n\n{note}"}, *msgs[1:]]
    return [{"role": "system", "content": note}, *msgs]


def size(messages: list[Message]) -> int:
    return sum(len(str(m.get("content", ""))) for m in messages)


def fit(build: Build, slots: dict[str, Slot], budget: int | None) -> tuple[Prompt, FitReport | None]:
    """`build(slots) -> messages`; shorten the slots' oldest entries until the messages fit `budget`.

    Steps, oldest turn first, never touching the newest KEEP_RECENT turns until the last step:
    1. cut a turn to its opening sentences (`head`); 2. leave a turn out; 3. cut the newest turns too
    (down to MIN_KEEP characters). What is left over is the template itself: the backend's error then says so.
    Returns the messages (a Prompt that can be fitted again) and a report, or None when nothing had to change."""
    msgs = Prompt(build(slots), build, slots)
    total = size(msgs)
    if budget is None or total <= budget:
        return msgs, None
    refs = sorted(((e.order, name, i) for name, s in slots.items() for i, e in enumerate(s.entries)))
    if not refs:  # no debate in it to shorten: the backend's own "context too long" error says what to do
        return msgs, None
    report = FitReport(budget_chars=budget, original_chars=total)
    entries = {name: list(s.entries) for name, s in slots.items()}
    excess = total - budget
    older = refs[:-KEEP_RECENT] if len(refs) > KEEP_RECENT else []
    newest = refs[len(older) :]

    def shrink(ref: tuple[int, str, int], new_text: str) -> int:
        _, name, i = ref
        old = entries[name][i]
        entries[name][i] = replace(old, text=new_text)
        return len(old.text) - len(new_text)

    for ref in older:  # 1. condense
        if excess <= 0:
            break
        e = entries[ref[1]][ref[2]]
        short = head(e.text)
        if len(short) < len(e.text):
            excess -= shrink(ref, short)
    for ref in older:  # 2. omit
        if excess <= 0:
            break
        if len(entries[ref[1]][ref[2]].text) > len(OMITTED_TEXT):
            excess -= shrink(ref, OMITTED_TEXT)
    for ref in newest:  # 3. the newest turns keep their opening sentences
        if excess <= 0:
            break
        e = entries[ref[1]][ref[2]]
        keep = max(MIN_KEEP, len(e.text) - excess - len(CONDENSED_MARK))  # the mark counts too
        if keep < len(e.text):
            excess -= shrink(ref, head(e.text, keep))
    for name, s in slots.items():
        for old, new in zip(s.entries, entries[name]):
            if new.text == OMITTED_TEXT != old.text:
                report.omitted += 1
            elif new.text != old.text:
                report.condensed += 1
    new_slots = {name: replace(s, entries=tuple(entries[name])) for name, s in slots.items()}
    msgs = Prompt(build(new_slots), build, slots)
    report.final_chars = size(msgs)
    report.reason = (
        f"the whole prompt ({total:,} characters) is longer than the model's context window allows "
        f"({budget:,} characters)"
    )
    return msgs, report


REPAIR_ANSWER_EMPTY = "(empty answer)"


def repair(
    messages: list[Message], answer: str, answer_format: str, budget: int | None
) -> tuple[list[Message], FitReport | None]:
    """The repair prompt after an unreadable answer: the turn's own messages, its answer, and the
    engine.repair template with the format to use, fitted to `budget` (the window less the repair's
    own answer budget). The earlier messages were fitted for the turn's answer budget, so the echoed
    answer is shortened first, its opening kept; when that is not enough and `messages` is a Prompt,
    the earlier messages are fitted again for the room the answer and the template leave, by the
    rule every turn follows (oldest turns condensed first). One report covers both."""
    ask = prompts.render("engine.repair", answer_format=answer_format)
    earlier = list(messages)

    def build(s: dict[str, Slot]) -> list[Message]:
        return [*earlier, {"role": "assistant", "content": s["answer"].render()}, {"role": "user", "content": ask}]

    answer_slot = {"answer": Slot((Said(answer),) if answer.strip() else (), empty=REPAIR_ANSWER_EMPTY)}
    msgs, report = fit(build, answer_slot, budget)
    if budget is None or size(msgs) <= budget or not isinstance(messages, Prompt):
        return msgs, report
    tail = list(msgs[len(earlier) :])
    again, second = messages.refit(max(0, budget - size(tail)))
    if second is None:  # nothing left in the earlier messages to shorten: the backend's error says so
        return msgs, report
    out = [*again, *tail]
    first = report or FitReport(budget_chars=budget, original_chars=size(msgs))
    return out, FitReport(
        budget_chars=budget,
        original_chars=first.original_chars,
        final_chars=size(out),
        condensed=first.condensed + second.condensed,
        omitted=second.omitted,
        reason=(
            f"the whole prompt ({first.original_chars:,} characters) is longer than the "
            f"model's context window allows ({budget:,} characters)"
        ),
    )
