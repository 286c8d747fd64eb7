"""Few-shot baseline (TurQUaz Sec. 4.1): one model, the category description with its examples, one JSON.

The paper gives no prompt text for the baselines, only that they use the App. A.2 descriptions with
examples; template turquaz.baseline composes that with the A.3 judge's answer format.

Options for small models (asked as the paper asks, they lean to one label), each a parameter whose
default is the paper's setting:
- `answer`: `paper` (`{"category": 0 or 1, "explanation": ...}`), `reason-first` (a one-sentence reason,
  then "YES"/"NO") or `label-first` (only the label): the last two are decoded under a JSON schema, so the
  label is always readable and its probability is read where the schema forces it.
- `demos`: `paper` (the App. A.2 examples), `similar` (the `k_demos` most similar CheckThat train
  tweets with their gold labels, listed in the description; debate/aids/demos.py; never from the split being
  scored) or `dialogue` (the same tweets as earlier user/assistant turns, each answered with its label:
  what a 0.5B model copies best).
- `explain`: with label-first, `after` adds a one-sentence explanation decoded after the label (the
  prompt is unchanged, so is the label's probability).
- `calibration`: `none`, `contextual` (the same prompt with the content-free tweet "N/A"; Zhao et al.
  2021) or `threshold` (a threshold on P(YES) fitted on CheckThat train, debate/aids/fitted_thresholds.json).
  A threshold t is applied as contextual calibration with the prior (t, 1 − t), so the shown confidence
  is the calibrated probability of the shown label and never contradicts it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from debate.aids import calibration as cal
from debate.aids.demos import format_demos, similar_demos
from debate.errors import InvalidInput
from debate.events import Event
from debate.lineups import Agent, Seating
from debate.protocols import fewshot
from debate.protocols.base import DebateContext, ProtocolInfo, Steps, TurnSpec, json_answer, params
from debate.protocols.fewshot import label_first_spec
from debate.protocols.parsing import parse_label

ANSWERS = ("paper", "reason-first", "label-first")
DEMOS = ("paper", "similar", "dialogue")


def _spec(ctx: DebateContext, values: dict[str, Any], phase: str, round: int = 0) -> Steps[TurnSpec]:
    """`spec = yield from _spec(...)`: the one answer turn (or its content-free twin) in the chosen
    answer format, its prompt built by ctx.prompt like every other turn's."""
    t = ctx.task
    agent = ctx.role("baseline")
    answer = ctx.p("answer")
    parse = lambda s: parse_label(s, t.labels)
    if answer == "paper":
        msgs = yield from ctx.prompt(agent, None, "turquaz.baseline", values, phase=phase, round=round)
        return TurnSpec(
            agent,
            phase,
            round,
            msgs,
            "turquaz.baseline",
            parse=parse,
            labels=t.labels,
            answer_format=f'{{"category": {t.category_values}, "explanation": "..."}}',
            **json_answer("category", t.labels, numeric=t.binary),
        )
    explain = ctx.p("explain") == "after" and phase == "answer"
    thr = _threshold(ctx)[0] if explain and ctx.p("calibration") == "threshold" and t.binary else None
    return (
        yield from label_first_spec(
            ctx, agent, phase, round, values, reason=answer == "reason-first", explain=explain, threshold=thr
        )
    )


def _threshold(ctx: DebateContext) -> tuple[float | None, str]:
    """The threshold on P(YES) to use and where it came from ('' when none is known)."""
    given = float(ctx.p("threshold") or 0)
    if given > 0:
        return given, f"threshold {given:g} (given)"
    return fewshot.fitted_threshold(ctx, ctx.role("baseline"), str(ctx.p("answer")))


def run(ctx: DebateContext) -> Iterator[Event]:
    t = ctx.task
    answer, demos, how = ctx.p("answer"), ctx.p("demos"), ctx.p("calibration")
    if answer not in ANSWERS or demos not in DEMOS or how not in cal.CALIBRATIONS:
        raise InvalidInput(
            f"baseline: answer={answer!r}, demos={demos!r}, calibration={how!r} is not a known setting.",
            f"Use answer in {ANSWERS}, demos in {DEMOS}, calibration in {cal.CALIBRATIONS}.",
        )
    if demos == "dialogue" and answer != "label-first":
        raise InvalidInput(
            "demos=dialogue answers each demonstration with its label only, so it needs answer=label-first.",
            "Use answer=label-first, or demos=similar.",
        )
    if how == "threshold" and not t.binary:
        raise InvalidInput("calibration=threshold needs a YES/NO task.", "Use calibration=contextual.")
    values = ctx.task_values()
    note = "One model reads the category description with its examples and answers in JSON."
    if demos == "similar":
        shown = similar_demos(ctx.claim, t.task, t.category, int(ctx.p("k_demos")))
        values["category_description_and_guidelines"] = "\n\n".join(
            x for x in (t.description_and_guidelines(examples=False), format_demos(shown)) if x
        )
        note = (
            f"One model answers, shown the {len(shown)} most similar CheckThat train tweets with their "
            "labels as examples."
        )
    elif demos == "dialogue":
        k, skip, found = fewshot.view(ctx, ctx.role("baseline"))
        note = (
            f"One model answers after {k} earlier turns of the conversation: the most similar CheckThat "
            "train tweets"
            + (" by shared words" if found == "lexical" else "")
            + (f" after the {skip} nearest" if skip else "")
            + ", each answered with its gold label."
        )
    yield ctx.phase("answer", 0, "Few-shot answer", note)
    turn = yield from ctx.turn((yield from _spec(ctx, values, "answer")))
    written = (turn.parsed or {}).get("explanation", "") if turn.valid else "The answer could not be read."
    raw = cal.normalised(turn.label_probs, t.labels) if answer != "paper" else None
    label, probs, notes, aid = turn.label, raw, [], ""
    if how != "none" and raw is None:
        notes.append(
            "No label probabilities could be read, so the written label stands uncalibrated"
            + (" (answer=paper gives 0/1, not a label: use reason-first or label-first)." if answer == "paper" else ".")
        )
    elif how == "contextual":
        yield ctx.phase(
            "calibrate",
            0,
            "Content-free answer",
            f'The same prompt with the tweet replaced by "{cal.CONTENT_FREE}": its label '
            "probabilities are the prompt's own bias, divided out of the answer's.",
        )
        cf_turn = yield from ctx.turn((yield from _spec(ctx, {**values, "tweet": cal.CONTENT_FREE}, "calibrate")))
        probs = cal.contextual(raw, cf_turn.label_probs, t.labels)
        aid = "contextual calibration: divided by the content-free prompt's probabilities"
        notes.append(
            "Contextually calibrated (content-free prior "
            + ", ".join(f"{k} {v:.2f}" for k, v in (cal.normalised(cf_turn.label_probs, t.labels) or {}).items())
            + ")."
        )
    elif how == "threshold" and raw is not None:  # (raw is there: a missing one took the first branch)
        thr, where = _threshold(ctx)
        if thr is None:
            notes.append(f"Uncalibrated: {where}.")
        else:
            probs = cal.contextual(raw, {t.labels[0]: thr, t.labels[1]: 1 - thr}, t.labels)
            notes.append(f"P({t.labels[0]}) = {raw[t.labels[0]]:.2f} against a {where}.")
            aid = f"P({t.labels[0]}) {raw[t.labels[0]]:.2f} against the {where.split(' (')[0]}"
    # the answer is the label the model wrote unless the person chose the calibrated reading; the
    # calibration's label is kept beside it as a second opinion (debate.outcome.reading)
    chosen = bool(ctx.p("calibrated_reading"))
    cal_label = max(probs, key=lambda k: probs[k]) if how != "none" and probs is not None and aid else None
    if cal_label is not None and chosen:
        label = cal_label
        if turn.label is not None and label != turn.label:
            notes.append(f"The model wrote {turn.label}; its calibrated probabilities give {label}.")
    use = chosen and cal_label is not None
    confidence = (
        round(probs[label], 6)
        if use and probs is not None and label is not None and label in probs
        else turn.confidence
    )
    yield ctx.verdict(
        label,
        " ".join(x for x in [written, *notes] if x),
        "baseline",
        confidence,
        probs={k: round(v, 6) for k, v in probs.items()} if probs and use else (raw if raw and not use else None),
        written=turn.label if use else None,
        aid=aid,
        basis="calibrated" if use else "probability",
        basis_note=(aid.split(":")[0] if aid else "") if use else "",
        reading="calibrated" if use else "written",
        calibrated=cal_label,
        calibrated_confidence=round(probs[cal_label], 6) if cal_label is not None and probs is not None else None,
    )


def seating(lineup: dict[str, Any], params: dict[str, Any]) -> list[Agent]:
    """One member (the parameter `member`, 1-based), or the lineup's `baseline` role when none is asked for."""
    s = Seating(lineup)
    idx = int(params.get("member", 1)) - 1
    if not 0 <= idx < len(s.members):
        raise InvalidInput(f"The lineup has no member {idx + 1}.", f"Choose 1..{len(s.members)}.")
    entry = s.roles["baseline"] if "member" not in params and s.roles.get("baseline") else s.members[idx]
    return [s.seat(entry, "baseline", s.member_name(entry))]


INFO = ProtocolInfo(
    name="baseline",
    title="Few-shot baseline (TurQUaz Sec. 4.1)",
    one_line="One model, the category description with examples, one JSON answer.",
    roles=("baseline",),
    params=params(
        {
            "member": (1, "Which lineup member answers (1-based)."),
            "examples": (True, "Include the App. A.2 examples (few-shot)."),
            "answer": (
                "paper",
                "Answer format: paper = {category: 0 or 1, explanation} as in the paper; "
                "reason-first = a short reason, then YES/NO; label-first = only YES/NO (the "
                "last two are schema-constrained and give a readable label probability).",
            ),
            "demos": (
                "paper",
                "Examples: paper = the App. A.2 ones; similar = the k_demos most similar "
                "CheckThat train tweets with their labels (never from the scored split); "
                "dialogue = the same tweets as earlier turns of the conversation, each answered "
                "with its gold label (needs answer=label-first).",
            ),
            "k_demos": (4, "How many similar train tweets to show with demos=similar."),
            "calibration": (
                "none",
                "none = the written label; contextual = divide out a content-free "
                "input's label probabilities; threshold = P(YES) against a threshold "
                "fitted on CheckThat train (needs answer reason-first or label-first). Either can "
                "give another label than the one written: the verdict then says so.",
            ),
            "explain": (
                "none",
                "With answer=label-first: none = the label only; after = a one-sentence "
                "explanation decoded after the label (same prompt, so the label, its probability "
                "and a fitted threshold are unchanged; the reader sees why).",
            ),
            "threshold": (
                0.0,
                "Threshold on P(YES) for calibration=threshold; 0 = the one fitted on "
                "CheckThat train for this model and setting.",
            ),
            "calibrated_reading": (
                False,
                "Off: the answer is the label the model wrote, and a calibration's label is shown "
                "beside it as a second opinion. On: the calibrated label is the answer (the card says "
                "what the model wrote).",
            ),
        }
    ),
    choices={"answer": ANSWERS, "demos": DEMOS, "calibration": cal.CALIBRATIONS, "explain": ("none", "after")},
    run=run,
    seating=seating,
)
