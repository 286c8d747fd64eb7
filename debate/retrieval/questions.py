"""Questions for the search, written by a model (AVeriTeC / RADAR style), off by default.

The claim alone is a poor web query for a long tweet; fact-checkers and the AVeriTeC systems instead ask
what would settle it ("What did the Harvard study find?") and search for each question. Here the
lineup's judge model writes 1-3 of them; they are extra queries beside the claim's, never instead of it,
and the ranking still scores every passage against the claim.

The model's answer is hostile text: read at most MAX_ANSWER_CHARS of it in one linear pass, control and
bidirectional characters dropped, at most MAX_QUESTIONS questions of at most MAX_QUESTION_CHARS each. A
reply with no usable question gives none, and the caller searches with the claim alone and says so.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from debate import prompts
from debate.errors import InvalidInput
from debate.sanitize import strip_terminal

MAX_QUESTIONS = 3
MAX_QUESTION_CHARS = 200
MAX_ANSWER_CHARS = 2000
MAX_TOKENS = 120  # three short questions; also what bounds the call's time on the embedded models
PROMPT_ID = "engine.evidence_questions"

# a line's leading list marker: "1.", "2)", "Q3:", "-", "*", "•" (each part bounded: linear on any line)
_MARKER = re.compile(r"^\s{0,8}(?:(?:q(?:uestion)?\s{0,2})?\d{1,2}\s{0,2}[.):\-]|[-*•·])\s{0,8}", re.IGNORECASE)
_SPACE = re.compile(r"\s+")


def check_count(n: object) -> int:
    """0-3 questions; anything else is refused with what to give."""
    text = str(n).strip()
    value = int(text) if text.isdigit() and len(text) <= 2 else -1
    if not 0 <= value <= MAX_QUESTIONS:
        raise InvalidInput(
            f"Questions for the search: {n!r} is not a number from 0 to {MAX_QUESTIONS}.",
            f"Give 0 (the claim alone, no model call) up to {MAX_QUESTIONS}.",
        )
    return value


def messages(claim: str, n: int) -> list[dict]:
    return [{"role": "user", "content": prompts.render(PROMPT_ID, n=n, claim=claim)}]


def _clean(text: str) -> str:
    """Printable text on one line: control, format (bidi) and other non-printing characters dropped."""
    return "".join(
        ch if ch.isprintable() or ch == " " else " "
        for ch in text
        if unicodedata.category(ch) not in ("Cf", "Cc", "Cs", "Co") or ch in "\t\n"
    )


def parse(text: str, n: int, claim: str = "") -> list[str]:
    """Up to `n` distinct questions from a model's answer, in order (possibly none)."""
    out: list[str] = []
    seen = {_SPACE.sub(" ", claim).strip().lower()} if claim else set()
    for line in strip_terminal((text or "")[:MAX_ANSWER_CHARS]).splitlines():
        line = _SPACE.sub(" ", _clean(line)).strip()
        line = _MARKER.sub("", line, count=1).strip().strip('"“”').strip()
        if "?" not in line:
            continue
        q = line[: line.index("?") + 1].strip()
        if len(q) > MAX_QUESTION_CHARS or len(q.split()) < 3:
            continue
        key = q.lower()
        if key in seen:
            continue
        seen.add(key)
        out.append(q)
        if len(out) >= n:
            break
    return out


@dataclass
class Written:
    questions: list[str] = field(default_factory=list)
    note: str = ""  # why there are fewer than asked (or none), for the evidence panel
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False


def write(client, model: str, claim: str, n: int, stopping: Callable[[], bool] = lambda: False) -> Written:
    """Ask `model` (the lineup's judge) for `n` questions; never raises for the model's sake: a failed
    or unreadable answer gives no questions and a note, and the claim alone is searched."""
    from debate.errors import Cancelled, DebateError
    from debate.models.base import GenOptions

    out = Written(model=str(model))
    if n <= 0:
        return out
    try:
        stream = client.chat(model, messages(claim, n), GenOptions(temperature=0.0, seed=0, max_tokens=MAX_TOKENS))
        for _ in stream:
            if stopping():
                stream.close()
                raise Cancelled("The debate was stopped.")
        result = stream.result()
    except DebateError as e:
        if isinstance(e, Cancelled):
            raise
        out.note = f"The judge model could not write questions ({e.message}): the claim alone was searched."
        return out
    out.prompt_tokens, out.completion_tokens = result.prompt_tokens, result.completion_tokens
    out.cached = bool(stream.cached)
    out.questions = parse(result.text, n, claim)
    if not out.questions:
        out.note = "The judge model wrote no usable question: the claim alone was searched."
    elif len(out.questions) < n:
        out.note = f"The judge model wrote {len(out.questions)} usable question(s) of the {n} asked for."
    return out
