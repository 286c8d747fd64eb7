"""Single debate (TurQUaz Alg. 1): proponent and opponent, R rebuttal rounds, closings, a judge's JSON.

Openings (lines 5-6) and closings (13-14) do not depend on each other and run concurrently (the transcript
of line 7/15 is updated after both); in each rebuttal round the proponent answers the opponent's last
argument and the opponent then answers the proponent's new one (lines 9-10), so those two are sequential.
Prompts: App. A.1 system prompts with the A.3 user prompts; "Previous Discussion" and the judge's
"Debate Transcript" hold the whole transcript so far (shortened only when the model's context window cannot
hold it, see prompting.py). The brief strings of Alg. 1 "only explain the prompt" (Sec. 3.1), so they are
not sent unless `step_instruction` is switched on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from debate.events import Event, TurnFinished
from debate.protocols.base import (
    JUDGE_REASON_CHARS,
    DebateContext,
    ProtocolInfo,
    Slot,
    Steps,
    TurnSpec,
    entries,
    json_answer,
    params,
)
from debate.protocols.parsing import parse_label

SIDES = {"proponent": "Proponent", "opponent": "Opponent"}


def steps(phrase: str) -> dict[tuple[str, str], str]:
    """The brief prompts of Alg. 1, as the step each Generate() call performs."""
    return {
        ("proponent", "opening"): f"Opening statement: argue that the tweet {phrase}.",
        ("opponent", "opening"): f"Opening statement: argue that the tweet does NOT {phrase}.",
        ("proponent", "rebuttal"): "Rebuttal: rebut the opponent's latest argument.",
        ("opponent", "rebuttal"): "Rebuttal: rebut the proponent's latest argument.",
        ("proponent", "closing"): "Closing statement: provide your closing statement.",
        ("opponent", "closing"): "Closing statement: provide your closing statement.",
    }


def transcript(turns: list[TurnFinished]) -> Slot:
    """The debate so far as "Proponent (rebuttal 2): ..." paragraphs."""

    def who(t: TurnFinished) -> str:
        when = t.phase if t.phase != "rebuttal" else f"rebuttal {t.round}"
        return f"{SIDES.get(t.role, t.role)} ({when}): "

    return Slot(entries(turns, who))


JUDGE_ANSWERS = ("paper", "constrained")
JUDGE_LABELS = ("digits", "words")
JUDGE_ANSWER: dict[str, tuple[Any, str]] = {
    "judge_answer": (
        "paper",
        "paper: the judge writes its JSON freely, the category first (repaired under a JSON schema when "
        "unreadable); constrained: decoded under that schema from the first token, its explanation first and "
        "the category after it, so the label follows the judge's reason.",
    ),
    "judge_labels": (
        "digits",
        'digits: the paper\'s "category": 1 or 0 for a yes/no question; words: "YES" or "NO", in the prompt '
        "and the answer, so the label is the word the judge's reason would lead to, not a code for it.",
    ),
}
JUDGE_CHOICES = {"judge_answer": JUDGE_ANSWERS, "judge_labels": JUDGE_LABELS}


def judge_spec(ctx: DebateContext, user_id: str, slot: Slot) -> Steps[TurnSpec]:
    """`spec = yield from judge_spec(...)`: the judge's prompt over the whole transcript `slot`."""
    t = ctx.task
    judge = ctx.role("judge")
    values = ctx.task_values()
    # words (an option, off: measured and not adopted, docs/content-benchmark.md): the label as YES/NO, not the
    # paper's 1/0 code; a 0.5B judge wrote "The tweet contains several scientific claims" and then 0 (P 0.51)
    words = t.binary and ctx.p("judge_labels") == "words"
    if words:
        values["category_values"] = t.labels_or
    msgs = yield from ctx.prompt(
        judge, "turquaz.system.judge", user_id, values, {"transcript": slot}, phase="judge", round=ctx.rounds
    )
    return TurnSpec(
        judge,
        "judge",
        ctx.rounds,
        msgs,
        user_id,
        parse=lambda s: parse_label(s, t.labels),
        labels=t.labels,
        answer_format=f'{{"category": {values["category_values"]}, "explanation": "..."}}',
        # constrained (a small-model aid): the reason decoded first, then the label, under the schema the
        # repair uses; the 0.5B judge wrote its label first and then a reason for the other one ("category":
        # 0 beside "It is a direct reference to a study by Stanford University, which is a scientific study")
        constrain=ctx.p("judge_answer") == "constrained",
        **json_answer("category", t.labels, numeric=t.binary and not words, text_chars=JUDGE_REASON_CHARS),
    )


def run(ctx: DebateContext) -> Iterator[Event]:
    v = ctx.task_values()
    ctx.sides_as_votes()  # shown against the verdict: what the sides alone (no debate) would decide
    step = steps(ctx.task.phrase)
    said: list[TurnFinished] = []

    def spec(side: str, phase: str, rnd: int) -> Steps[TurnSpec]:
        msgs = yield from ctx.prompt(
            ctx.role(side),
            f"turquaz.system.{side}",
            f"turquaz.single.{side}",
            v,
            {"context": transcript(said)},
            phase=phase,
            round=rnd,
            addendum=ctx.step(step[(side, phase)]),
        )
        return TurnSpec(ctx.role(side), phase, rnd, msgs, f"turquaz.single.{side}")

    def both(phase: str, rnd: int) -> Steps[list[TurnFinished]]:
        specs = [(yield from spec("proponent", phase, rnd)), (yield from spec("opponent", phase, rnd))]
        return (yield from ctx.turns(specs))

    yield ctx.phase(
        "opening",
        0,
        "Opening statements",
        "Alg. 1 lines 5-6: the proponent argues the tweet has the property, the opponent that it "
        "has not; both speak at once.",
    )
    said += yield from both("opening", 0)
    for r in range(1, int(ctx.p("rounds")) + 1):
        ctx.rounds = r
        yield ctx.phase(
            "rebuttal",
            r,
            f"Rebuttal round {r}",
            "Alg. 1 lines 9-10: the proponent rebuts the opponent's last argument, then the opponent "
            "rebuts the proponent's.",
        )
        said.append((yield from ctx.turn((yield from spec("proponent", "rebuttal", r)))))
        said.append((yield from ctx.turn((yield from spec("opponent", "rebuttal", r)))))
    yield ctx.phase("closing", ctx.rounds, "Closing statements", "Alg. 1 lines 13-14: both sides sum up.")
    said += yield from both("closing", ctx.rounds)
    yield ctx.phase(
        "judge",
        ctx.rounds,
        "Judge's decision",
        "Alg. 1 line 16: the judge reads the whole transcript and answers in JSON.",
    )
    j = yield from ctx.turn((yield from judge_spec(ctx, "turquaz.single.judge", transcript(said))))
    yield ctx.verdict(
        j.label,
        (j.parsed or {}).get("explanation", "") if j.valid else "The judge's answer could not be read.",
        "judge",
        j.confidence,
    )


INFO = ProtocolInfo(
    name="single",
    title="Single debate (TurQUaz Alg. 1)",
    one_line="A proponent and an opponent argue over R rebuttal rounds and close; a judge decides in JSON.",
    roles=("proponent", "opponent", "judge"),
    sides=(("proponent", "opponent"),),
    params=params(
        {
            "rounds": (3, "Rebuttal rounds R (TurQUaz Sec. 4.1: 3 for single debates)."),
            "step_instruction": (
                False,
                "Append Alg. 1's brief step string ('Current step: ...') to each prompt. The "
                "paper: those strings only explain the prompt (Sec. 3.1), so off.",
            ),
            **JUDGE_ANSWER,
        }
    ),
    run=run,
    choices=JUDGE_CHOICES,
)
