"""A finished debate's turns scored for how they read: one row per model turn, from its events alone.

Used by the content benchmark (bench/bench_content.py) and its tests; every measure is one of this
package's pure functions, so the figures printed are the figures the viewer and the decoder act on.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

from debate.content.figures import tally_figures, unsupported
from debate.content.script import off_script
from debate.content.sentences import ends_mid_sentence, find_loop, shown_text

MEASURES = ("cut", "repeats", "echoed_format", "off_script", "unsupported_figure", "label_not_argmax", "unexplained")

# where a turn's probabilities were read that itself explains a written label other than their argmax (the
# bubble says which): a sampled label is one draw from them; "most-mass" read them away from the label;
# "split" is a server's likeliest token while another label's spellings add up to more
EXPLAINED_AT = ("sampled", "most-mass", "split")


def label_not_argmax(label: Any, probs: Any) -> bool | None:
    """The written label is not the most probable label of the same turn's probabilities; None when the
    turn has no label or no probabilities to hold it against."""
    if not label or not isinstance(probs, dict) or not probs:
        return None
    try:
        top = max(probs.items(), key=lambda kv: float(kv[1]))[0]
    except (TypeError, ValueError):
        return None
    return str(top).upper() != str(label).upper()


def unexplained(label: Any, probs: Any, label_at: Any, confidence: Any = None) -> bool | None:
    """The written label is not the argmax of its own probabilities and nothing on the page says why: the
    figure that must be 0. Said on the page: where the probabilities were read (EXPLAINED_AT), and a label an
    aid's fitted threshold decided (the turn's `confidence`, the number the page shows, is then the
    threshold-calibrated probability of the written label, and it leads)."""
    off = label_not_argmax(label, probs)
    if off is None or not off:
        return off
    if str(label_at or "") in EXPLAINED_AT:
        return False
    try:
        raw = float(probs.get(label, 0.0)) / (sum(float(v) for v in probs.values()) or 1.0)
        shown = None if confidence is None else float(confidence)
    except (TypeError, ValueError, AttributeError):
        return True
    return not (shown is not None and abs(shown - raw) > 1e-6 and shown >= 0.5)


def sources_of(events: Iterable[dict]) -> tuple[str, list[str]]:
    """The claim and the evidence passages the agents read, from a debate's events."""
    claim, passages = "", []
    for e in events:
        if e.get("type") == "debate_started":
            claim = str(e.get("claim") or "")
        elif e.get("type") == "evidence" and e.get("in_prompts", True):
            passages = [str(p.get("text") or "") for p in e.get("passages") or []]
    return claim, passages


def score_debate(events: list[dict]) -> list[dict]:
    """One row per finished model turn (people's turns and replayed ones are not the models' writing):
    role, words, and True/False per measure (label_not_argmax None when it does not apply)."""
    claim, passages = sources_of(events)
    said: list[str] = []  # earlier turns and the chair's summaries, in order
    rows = []
    for e in events:
        kind = e.get("type")
        if kind == "chair_summary":
            said.append(str(e.get("summary") or ""))
        if kind == "votes_tallied" and isinstance(e.get("counts"), dict):
            said.append(tally_figures(e["counts"], e.get("threshold")))
        if kind != "turn_finished":
            continue
        text = str(e.get("text") or "")
        shown = shown_text(text, e.get("parsed"), bool(e.get("valid", True)))  # what the page shows, not the JSON
        if not e.get("human") and not e.get("replayed"):
            rows.append(
                {
                    "role": e.get("role") or "",
                    "agent": e.get("agent") or "",
                    "model": e.get("model") or "",
                    "words": len(shown.split()),
                    "cut": bool(e.get("cut_off_at")) and ends_mid_sentence(shown),
                    "repeats": find_loop(shown) is not None,
                    "echoed_format": bool(e.get("echoed_format")),  # the engine read it against the turn's format
                    "off_script": bool(off_script(shown)),
                    "unsupported_figure": bool(unsupported(text, [claim, *passages, *said])),
                    "label_not_argmax": label_not_argmax(e.get("label"), e.get("label_probs")),
                    "unexplained": unexplained(
                        e.get("label"), e.get("label_probs"), e.get("label_at"), e.get("confidence")
                    ),
                    "budget_ended": bool(e.get("cut_off_at")),
                }
            )
        said.append(text)
    return rows


def summarise(rows: list[dict]) -> dict:
    """Shares per measure (of the turns it applies to), the median words and the count of turns."""
    out: dict[str, Any] = {"turns": len(rows)}
    for m in MEASURES:
        vals = [r[m] for r in rows if r.get(m) is not None]
        out[m] = (sum(map(bool, vals)), len(vals))
    out["median_words"] = statistics.median([r["words"] for r in rows]) if rows else 0
    return out
