"""Few-shot answers for small models (the small-model aids), shared by the baseline and the council.

With `demos=dialogue` a model first reads the task text as a system message, then the `k_demos` CheckThat
**train** tweets most similar to this one as earlier turns of the conversation (each answered with its gold
label, debate/aids/demos.py), then the tweet. The answer is decoded under a JSON schema with the label first, so
its probability is read at a forced position and can be held against a threshold fitted on train
(debate/aids/calibration.py). The council's initial votes use exactly the baseline's prompt, so one fitted
threshold per model serves both; later rounds keep the same system message and demonstrations (a shared
prefix the local backend reuses) and end with the paper's council member prompt.
"""

from __future__ import annotations

from typing import Any

from debate import prompts
from debate.aids import calibration as cal
from debate.aids.demos import dialogue, similar_demos
from debate.lineups import Agent
from debate.models.base import Message
from debate.protocols.base import REPAIR_TEXT_CHARS, DebateContext, Steps, TurnSpec, json_answer
from debate.protocols.parsing import parse_label

LABEL_KEY = "category"
# One sentence that ends: a length cap alone (maxLength) cut small models' explanations mid-phrase
# ("... this was due to the"). No quotes or backslashes, so the JSON around it stays valid.
ONE_SENTENCE = r'^[^."\\\n]{12,' + str(REPAIR_TEXT_CHARS + 40) + r"}[.]$"


def dialogue_values(ctx: DebateContext, values: dict[str, Any]) -> dict[str, Any]:
    """The task values with the description alone: the demonstrations replace the App. A.2 examples."""
    return {**values, "category_description_and_guidelines": ctx.task.description_and_guidelines(examples=False)}


def view(ctx: DebateContext, agent: Agent | None) -> tuple[int, int, str]:
    """(k, skip, neighbours): how many of the tweet's nearest train tweets this agent reads, after passing
    over how many, found by which search. The protocol's k_demos and the semantic search unless the lineup
    gave the agent its own view (lineups.py)."""
    k = int(getattr(agent, "k_demos", 0) or 0) or int(ctx.p("k_demos"))
    return k, int(getattr(agent, "demo_skip", 0) or 0), str(getattr(agent, "neighbours", "") or "semantic")


def dialogue_history(
    ctx: DebateContext, values: dict[str, Any], response_format: str, agent: Agent | None = None
) -> list[Message]:
    """System message (task text and answer format), then the similar train tweets as answered turns
    (the agent's own slice of them when the lineup gives it one)."""
    t = ctx.task
    key = ("demos", t.category, *view(ctx, agent))
    if key not in ctx.memo:  # every member and round with this view shows the same tweets: select once
        ctx.memo[key] = similar_demos(ctx.claim, t.task, t.category, key[2], skip=key[3], neighbours=key[4])
    shown = ctx.memo[key]
    system = prompts.render("small.fewshot.system", **{**values, "response_format": response_format})
    return [{"role": "system", "content": system}, *dialogue(shown, LABEL_KEY)]


def json_answer_format(labels: tuple[str, ...]) -> str:
    """The label-first answer format line (the system message's, the same in every round)."""
    shown: str = json_answer(LABEL_KEY, labels, text_key=None)["schema_format"]
    return shown


def label_first_spec(
    ctx: DebateContext,
    agent: Agent,
    phase: str,
    round: int,
    values: dict[str, Any],
    reason: bool = False,
    explain: bool = False,
    threshold: float | None = None,
) -> Steps[TurnSpec]:
    """`spec = yield from label_first_spec(...)`: one schema-constrained answer, `{"category": label}`
    (or with `reason`, a short explanation first), after the demonstrations when demos=dialogue, else
    in the small.baseline layout.

    With `explain` the schema continues after the label with a short explanation, so a reader sees why.
    The prompt stays word for word the label-only one and the label is still decoded first, so its
    probability (and a threshold fitted on it) is unchanged; the explanation can only follow it. With a
    `threshold` the label written is the one the threshold picks (TurnSpec.threshold), so the explanation
    argues for the label that is counted, never against it."""
    t = ctx.task
    fields = json_answer(LABEL_KEY, t.labels, text_key="explanation" if reason else None)
    filled = {**values, "response_format": fields["schema_format"]}
    if explain and not reason:
        fields = vote_first_fields(LABEL_KEY, t.labels)
    template, history = "small.baseline", None
    if ctx.p("demos") == "dialogue":
        template, filled = "small.fewshot.tweet", dialogue_values(ctx, filled)
        history = dialogue_history(ctx, filled, filled["response_format"], agent)
    msgs = yield from ctx.prompt(agent, None, template, filled, phase=phase, round=round, history=history)
    return TurnSpec(
        agent,
        phase,
        round,
        msgs,
        template,
        parse=lambda s: parse_label(s, t.labels),
        labels=t.labels,
        answer_format=fields["schema_format"],
        constrain=True,
        threshold=threshold,
        **fields,
    )


def vote_first_fields(key: str, labels: tuple[str, ...]) -> dict[str, Any]:
    """Schema fields for the council's `{"vote": ..., "explanation": ...}` with the vote decoded first,
    as the paper's format has it, so its probability is read before any argument is written."""
    schema = {
        "type": "object",
        "properties": {
            key: {"type": "string", "enum": list(labels)},
            "explanation": {"type": "string", "pattern": ONE_SENTENCE},
        },
        "required": [key, "explanation"],
    }
    shown = "<one of " + ", ".join(f'"{v}"' for v in labels) + ">"
    return {"schema": schema, "schema_format": f'{{"{key}": {shown}, "explanation": "<one short sentence>"}}'}


def fitted_threshold(ctx: DebateContext, agent: Agent, answer: str = "label-first") -> tuple[float | None, str]:
    """The threshold on P(YES) fitted on CheckThat train for this agent's model with this answer format
    and these demonstrations (its own slice of them, if any), and where it came from (or why there is none)."""
    t = ctx.task
    k, skip, found = view(ctx, agent) if ctx.p("demos") == "dialogue" else (int(ctx.p("k_demos")), 0, "semantic")
    key = cal.setting_key(agent.model, t.task, t.category, answer, str(ctx.p("demos")), k, skip, found)
    entry = cal.fitted_threshold(key)
    if entry is None:
        return None, f"no threshold fitted on CheckThat train for {key}"
    f1 = entry.get("train_macro_f1")  # at most 3 decimals (P(YES) beside it has 2): 0.482472 was false precision
    f1_text = f"{round(f1, 3):g}" if isinstance(f1, (int, float)) else "?"
    return float(entry["threshold"]), (
        f"threshold {round(float(entry['threshold']), 3):g} fitted on "
        f"{entry.get('fitted_on', 'train')} (train macro-F1 {f1_text})"
    )
