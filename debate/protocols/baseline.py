"""Few-shot baseline (TurQUaz Sec. 4.1): one model, the category description with its examples, one JSON.

The paper gives no prompt text for the baselines, only that they use the App. A.2 descriptions with
examples; template turquaz.baseline composes that with the A.3 judge's answer format.
"""

from __future__ import annotations

from typing import Iterator

from debate.events import Event
from debate.parsing import parse_label
from debate.protocols.base import DebateContext, ProtocolInfo, TurnSpec, json_answer, params


def run(ctx: DebateContext) -> Iterator[Event]:
    t = ctx.task
    agent = ctx.role("baseline")
    yield ctx.phase("answer", 0, "Few-shot answer",
                    "One model reads the category description with its examples and answers in JSON.")
    msgs = yield from ctx.prompt(agent, None, "turquaz.baseline", ctx.task_values(), phase="answer")
    turn = yield from ctx.turn(TurnSpec(agent, "answer", 0, msgs, "turquaz.baseline",
                                        parse=lambda s: parse_label(s, t.labels), labels=t.labels,
                                        answer_format=f'{{"category": {t.category_values}, "explanation": "..."}}',
                                        **json_answer("category", t.labels, numeric=t.binary)))
    yield ctx.verdict(turn.label, (turn.parsed or {}).get("explanation", "") if turn.valid else
                      "The answer could not be read.", "baseline", turn.confidence)


INFO = ProtocolInfo(
    name="baseline", title="Few-shot baseline (TurQUaz Sec. 4.1)",
    one_line="One model, the category description with examples, one JSON answer.",
    roles=("baseline",),
    params=params({
        "member": (1, "Which lineup member answers (1-based)."),
        "examples": (True, "Include the App. A.2 examples (few-shot)."),
    }),
    run=run,
)
