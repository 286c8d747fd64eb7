"""How a verdict and an answer read on screen: the label, its sentence in the task's terms, a calibration's
label as a second opinion (or, the calibrated reading chosen, what the model wrote), a vote counted
otherwise than written, a chair's status as the tally gives it. One place for the verdict card, the
finished bubbles and the presenter, so no page says "TRUE" where another says "FALSE" without the reason
beside it.

The words come from the engine (debate.outcome, debate.tasks.verdict_sentences / override_note /
cut_off_mark), so the exports say exactly the same; this module only adds the page's markup. Everything from a model goes
through ui.safe (escaped); the only HTML is the fixed markup built here.
"""

from __future__ import annotations

from typing import Any

from debate import outcome, tasks
from debate.aids.calibration import disagreement
from debate.content.sentences import is_json_text
from debate.models.base import LABEL_AT
from debate.tasks import (
    cut_off_mark,
    echoed_mark,
    override_note,
    reason_note,
    shortened_mark,
    verdict_sentence,
    verdict_sentences,
)
from ui.safe import escape, text_html

LABEL_COLORS = {
    "YES": "green",
    "TRUE": "green",
    "NO": "red",
    "FALSE": "red",
    "HALF-TRUE": "orange",
    "NEI": "gray",
    "NOT ENOUGH INFO": "gray",
}


def task_labels(started: Any) -> tuple[str, ...]:
    """The labels a verdict of this debate can take (what a turn's label is read against)."""
    task = getattr(started, "task", "") if started is not None else ""
    return tasks.task_labels(task)


def chip(
    label: str | None,
    confidence: float | None = None,
    valid: bool = True,
    labels: tuple[str, ...] = (),
    label_at: str | None = None,
) -> str:
    """A label badge; with a number, "YES · P 0.52": the probability the model itself gave the label it
    wrote, the hover saying where it was read (`label_at`). A label whose own probability is below another
    label's is not drawn as if it were the answer: it reads "wrote YES · P 0.00", outlined, with the reason
    (and where the probabilities were read) on hover."""
    if not valid:
        return '<span class="chip invalid" title="the answer could not be read as a vote">invalid answer</span>'
    if not label:
        return ""
    conf = f" · P {confidence:.2f}" if confidence is not None else ""
    own = labels if str(label).upper() in labels else ()  # STOP/CONTINUE, a chair's status: their own set
    odd = disagreement(label, confidence, None, own) if confidence is not None else None
    where = f" Its label probabilities were {LABEL_AT[label_at]}." if label_at in LABEL_AT else ""
    if odd:
        return (
            f'<span class="chip invalid" title="{escape(odd + where)}">wrote {escape(str(label))} · P '
            f"{confidence:.2f}</span>"
        )
    cls = LABEL_COLORS.get(str(label).upper(), "gray")
    # a bare "YES · 0.84" is a number without its meaning: the hover says what it measures and its scale
    why = (
        f' title="P({escape(str(label))}) {confidence:.2f}: the probability the model itself gave the label '
        f'it wrote, on a scale from 0 to 1.{escape(where)}"'
        if confidence is not None
        else ""
    )
    return f'<span{why} class="chip {cls}">{escape(str(label))}{conf}</span>'


def verdict_words_html(verdict: Any, started: Any, sentence_css: str = "v-sentence") -> str:
    """Under the verdict's label: its sentence(s) in the task's terms and, when the readings disagree
    (debate.outcome.reading), the calibration's label as a second opinion named as such, or (the
    calibrated reading chosen, a council counted by probabilities) what the model wrote, in the card's
    own warning style (not small print)."""
    said = "".join(f'<div class="{sentence_css}">{escape(s)}</div>' for s in verdict_sentences(verdict, started))
    apart = reason_note(verdict, started)  # the judge's own reason argues the other label: said, not hidden
    said += f'<div class="v-overruled" role="note">⚠ {escape(apart)}</div>' if apart else ""
    r = outcome.reading(verdict)
    if r.second_opinion():
        return said + f'<div class="v-second" role="note">{escape(r.second_opinion())}</div>'
    note = override_note(verdict)
    over = f'<div class="v-overruled" role="note">⚠ {escape(note)}</div>' if note else ""
    return said + over


def counted_chip(written: str | None, counted: str, confidence: float | None = None) -> str:
    """A vote the aids counted otherwise than it was written: both (with the written label's own
    probability), in one outlined tag; the card's headline gives the counts."""
    p = f" · P {confidence:.2f}" if confidence is not None else ""
    return (
        f'<span class="chip invalid" title="the tally counted the label this model\'s own probabilities give '
        f"under the small-model aids (vote_from=probs or a threshold fitted on train), not the one it wrote; the verdict card "
        f'says so in its headline">wrote {escape(str(written))}{p} · counted as {escape(counted)}</span>'
    )


def chair_chip(tag: outcome.ChairTag) -> str:
    """A chair's status read from the tally it was shown (debate.outcome.chair_tag); when the chair's own
    status field said otherwise, a second outlined tag says the tally decides."""
    cls = "green" if tag.label == "CONSENSUS REACHED" else "gray"
    out = f'<span class="chip {cls}" title="{escape(tag.why)}">{escape(tag.label)}</span>'
    if tag.wrote:
        out += (
            f' <span class="chip invalid" title="its own status field said {escape(tag.wrote)}; {escape(tag.why)}; '
            f'the tally decides">its own status field disagrees</span>'
        )
    return out


def turn_sentence(turn: Any, started: Any, category: int | None = None) -> str:
    """A finished turn's answer as a person reads it: "TRUE — the claim is true", when its label is one of
    the task's verdict labels (votes, judges, the baseline); empty for arguments, stop checks, chairs."""
    if not turn.done or not turn.valid or not turn.label or str(turn.label).upper() not in task_labels(started):
        return ""
    task = getattr(started, "task", "") if started is not None else ""
    settings = (getattr(started, "settings", None) or {}) if started is not None else {}
    cat = category if category is not None else getattr(started, "category", None)
    return verdict_sentence(task, cat, turn.label, settings.get("custom_title", ""))


def turn_reads_html(turn: Any, started: Any, category: int | None = None) -> str:
    sentence = turn_sentence(turn, started, category)
    return f'<div class="reads">{escape(sentence)}</div>' if sentence else ""


def turn_words(turn: Any, started: Any) -> str:
    """The answer in words for large type (Present): the sentence and the explanation, never the JSON."""
    if not (turn.done and turn.valid and is_json_answer(turn)):
        return ""
    sentence = turn_sentence(turn, started, getattr(turn, "category", None))
    reason = "(It gave no reason of its own.)" if getattr(turn, "echoed_format", "") else turn.words()
    reason += f" ({turn.cut_note()})" if turn.cut_note() else ""  # a reason the budget cut says so here too
    return " ".join(x for x in (f"{sentence}." if sentence else "", reason) if x)


def is_json_answer(turn: Any) -> bool:
    """The model answered in JSON (votes, judges under a schema): shown as words, the JSON on demand."""
    return is_json_text(turn.text)


def flagged_in(turn: Any) -> set[str]:
    """What the bubble underlines: the figures and the named sources no claim, evidence or earlier turn gave."""
    return set(getattr(turn, "unsupported_figures", None) or ()) | set(getattr(turn, "unsourced_names", None) or ())


def answer_body_html(turn: Any, explanation: str, *, debate_id: str, known: set[str]) -> str:
    """The body of a finished bubble: the explanation in words with the raw JSON folded away, or the
    text as written; then the token-budget mark when the answer was cut."""
    parts = []
    echoed = getattr(turn, "echoed_format", "")
    words = turn.words()  # the answer as every view shows it (debate.view.TurnView.words)
    if is_json_answer(turn) and turn.valid:
        parts.append(text_html(words, debate_id=debate_id, known=known, flagged=flagged_in(turn)))
        parts.append(
            f'<details class="raw"><summary>Raw answer (JSON)</summary>'
            f"{text_html(turn.text, debate_id=debate_id, known=known, css='txt raw-json')}</details>"
        )
    else:
        flagged = flagged_in(turn)
        parts.append(
            text_html(
                words,
                debate_id=debate_id,
                known=known,
                css="txt" + ("" if turn.valid else " invalid-text"),
                flagged=flagged,
            )
        )
    if echoed:
        parts.append(f'<div class="cut-off echoed">{escape(echoed_mark(echoed))}</div>')
    how = getattr(turn, "shortened", "")
    if how and getattr(turn, "full_text", ""):
        parts.append(
            f'<details class="shortened-turn"><summary class="cut-off">{escape(shortened_mark(how))} · '
            f"show the full text</summary>{text_html(turn.full_text, debate_id=debate_id, known=known, css='txt full-text')}"
            "</details>"
        )
    elif getattr(turn, "cut_off_at", None):
        parts.append(f'<div class="cut-off">{escape(cut_off_mark(turn.cut_off_at))}</div>')
    return "".join(parts)
