"""Which passages a verdict rests on, and when that makes the verdict contested: pure arithmetic.

A planted page can be written in any language and any wording; a list of phrasings is always one phrasing
short. What does not depend on the wording is whether the verdict would stand without the page. After the
verdict, the judge's label probabilities are read again with each passage left out (`radar.attribute`);
these functions turn those readings into what the card, the panel and the exports say.

- `leave_one_out` compares each reading with the reading over every passage: a passage "changes" the
  verdict when the judge's most probable label without it is another one, and the verdict "rests on" it
  when it changes the verdict or its removal lowers the verdict's probability by more than THRESHOLD.
  Why 0.2: the label probabilities of a small judge wander by a few hundredths when a neutral passage is
  added or taken away (the benchmark's placebo); a fifth of the probability mass is a move no neutral
  passage made there, and it takes a verdict at RADAR's confidence bar (τc = 0.8) down to 0.6, a near coin
  toss between two labels. Only a fall counts: a passage whose removal makes the judge surer argued
  against the verdict; the verdict does not rest on it.
- `contested_reasons` applies the policy for a verdict that rests on one suspicious passage: a passage whose
  removal alone changes the verdict, and that is flagged (an order or a rating), written in another
  language than the claim, or far less relevant than the others (its score under LOW_RELEVANCE times the
  median of the others') makes the verdict "contested". POLICIES: "suspicious" (that, the default),
  "strict" (any passage that alone changes the verdict), "off".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any

from debate.models.labelprobs import answer_before_label, spelled

THRESHOLD = 0.2
LOW_RELEVANCE = 0.5
POLICIES = ("suspicious", "strict", "off")
# how each passage is left out: the judge's answer continued up to its verdict, or the judge's answer anew
READINGS = ("continue", "regenerate")
DEFAULT_POLICY = "suspicious"
# a language read from fewer letters than this is not trusted to say a passage is foreign
MIN_LETTERS_FOR_LANGUAGE = 20


def continued_answer(
    answer: str, label: str | None, labels: Sequence[str], key: str, spellings: Sequence[str] = ()
) -> str | None:
    """The judge's answer up to where it wrote `label` at `key`, for re-reads that continue it; None when the
    answer writes no label there or another one than `label` (a calibrated reading chose the verdict: the
    written label's position is not the verdict's, so the re-read is made label-first instead)."""
    before = answer_before_label(answer, key, labels, spellings)
    if before is None or label is None:
        return None
    ways = dict(zip(labels, spelled(labels, spellings)))
    after = answer[len(before) :].lstrip().upper()
    best = max((w for group in ways.values() for w in group if after.startswith(w)), key=len, default="")
    return before if best and best in ways.get(label, ()) else None


def normalised(probs: Mapping[str, float] | None, labels: Sequence[str]) -> dict[str, float] | None:
    """`probs` over `labels` only, summing to one (None when there is no mass on them)."""
    if not probs:
        return None
    vals = {lab: max(0.0, float(probs.get(lab, 0.0) or 0.0)) for lab in labels}
    total = sum(vals.values())
    return {k: v / total for k, v in vals.items()} if total > 0 else None


def top(probs: Mapping[str, float] | None) -> str | None:
    """The most probable label (the first in order on a tie), None without probabilities."""
    return max(probs, key=lambda k: probs[k]) if probs else None


def leave_one_out(
    verdict: str | None,
    full: Mapping[str, float] | None,
    without: Mapping[str, Mapping[str, float] | None],
    labels: Sequence[str],
    threshold: float = THRESHOLD,
) -> tuple[list[dict], list[str]]:
    """Rows {id, label, probs, p, drop, changes, rests} for each passage left out (in the order given) and
    the ids the verdict rests on. `full` is the reading over every passage; `verdict` the label on the card
    (its probability is the one whose fall is measured; None: the reading's own top label)."""
    ref = normalised(full, labels)
    ref_label = top(ref)
    target = verdict if verdict in labels else ref_label
    rows: list[dict[str, Any]] = []
    rests: list[str] = []
    for pid, probs in without.items():
        p = normalised(probs, labels)
        if ref is None or p is None or target is None:
            rows.append(
                {"id": pid, "label": None, "probs": None, "p": None, "drop": None, "changes": False, "rests": False}
            )
            continue
        label = top(p)
        drop = ref[target] - p[target]
        changes = label != ref_label
        rest = changes or drop > threshold
        rows.append(
            {
                "id": pid,
                "label": label,
                "probs": {k: round(v, 4) for k, v in p.items()},
                "p": round(p[target], 4),
                "drop": round(drop, 4),
                "changes": changes,
                "rests": rest,
            }
        )
        if rest:
            rests.append(pid)
    return rows, rests


def _is_foreign(passage: Mapping, claim_lang: str) -> bool:
    lang = str(passage.get("lang") or "")
    letters = sum(ch.isalpha() for ch in str(passage.get("text") or ""))
    return bool(lang and claim_lang and lang != claim_lang and letters >= MIN_LETTERS_FOR_LANGUAGE)


def _low_relevance(passage: Mapping, others: Sequence[Mapping]) -> bool:
    def score(p: Mapping) -> float | None:
        s = p.get("score")
        return float(s) if isinstance(s, (int, float)) and not isinstance(s, bool) else None

    mine, theirs = score(passage), [s for s in (score(p) for p in others) if s is not None]
    if mine is None or not theirs:
        return False
    med = median(theirs)
    return med > 0 and mine < LOW_RELEVANCE * med


def suspicion(passage: Mapping, others: Sequence[Mapping], claim_lang: str) -> list[str]:
    """Why a passage is suspicious, in words (empty: it is not)."""
    out = []
    if passage.get("flags"):
        out.append("it reads like an order")
    if passage.get("ratings"):
        out.append("it states a checker's rating")
    if _is_foreign(passage, claim_lang):
        out.append(
            f"it is written in {language_name(str(passage.get('lang')))}, the claim in {language_name(claim_lang)}"
        )
    if _low_relevance(passage, others):
        out.append("it is far less relevant to the claim than the other passages")
    return out


def contested_reasons(
    rows: Sequence[Mapping], passages: Sequence[Mapping], claim_lang: str = "", policy: str = DEFAULT_POLICY
) -> list[dict]:
    """[{id, label_without, reasons}] for each passage that alone changes the verdict and, under the
    "suspicious" policy, is suspicious (`suspicion`); under "strict" every such passage, under "off" none."""
    if policy == "off":
        return []
    by_id = {str(p.get("id")): p for p in passages}
    out = []
    for r in rows:
        if not r.get("changes") or str(r.get("id")) not in by_id:
            continue
        p = by_id[str(r["id"])]
        others = [q for q in passages if q is not p]
        reasons = suspicion(p, others, claim_lang)
        if policy == "strict" and not reasons:
            reasons = ["the verdict changes without it"]
        if reasons:
            out.append({"id": str(r["id"]), "label_without": r.get("label"), "reasons": reasons})
    return out


# -- what the card, the panel and the exports say ------------------------------------------------------

_LANGUAGES = {
    "en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "pl": "Polish", "ru": "Russian", "uk": "Ukrainian", "tr": "Turkish", "ar": "Arabic",
    "fa": "Persian", "hi": "Hindi", "bn": "Bengali", "ur": "Urdu", "ja": "Japanese", "ko": "Korean",
    "zh": "Chinese", "vi": "Vietnamese", "id": "Indonesian", "ms": "Malay", "sv": "Swedish", "da": "Danish",
    "no": "Norwegian", "fi": "Finnish", "el": "Greek", "he": "Hebrew", "cs": "Czech", "ro": "Romanian",
    "hu": "Hungarian", "th": "Thai", "sw": "Swahili", "ta": "Tamil",
}  # fmt: skip


def language_name(code: str) -> str:
    """A language code in words ("ja" -> "Japanese"; an unknown code as itself)."""
    return _LANGUAGES.get(str(code), str(code) or "an unknown language")


def _row_phrase(r: Mapping, label: str | None) -> str:
    p, drop = r.get("p"), r.get("drop")
    moved = (
        f"{label} {float(p) + float(drop):.2f} → {float(p):.2f}" if label and p is not None and drop is not None else ""
    )
    if r.get("changes"):
        return f"without {r.get('id')} the judge gives {r.get('label')}" + (f" ({moved})" if moved else "")
    return f"without {r.get('id')} {moved}"


def rests_sentence(ev: Mapping) -> str:
    """One line for the verdict card and every export: which passages the verdict rests on ("" when the
    attribution was not run; a reason when it could not be)."""
    status = ev.get("status", "done")  # the event's default: a stored dict may leave it out
    if status != "done":
        return f"Which passages the verdict rests on: not computed ({ev.get('note') or status})."
    every = [r for r in ev.get("without") or [] if isinstance(r, Mapping)]
    rows = [r for r in every if r.get("label") is not None]
    unread = [str(r.get("id")) for r in every if r.get("label") is None]
    tail = f" ({', '.join(unread)}: not read, the backend gave no label probabilities)" if unread else ""
    rests = [r for r in rows if r.get("rests")]
    if not every:
        return "Which passages the verdict rests on: no passage to leave out."
    ref = top(ev.get("probs")) if isinstance(ev.get("probs"), Mapping) else None
    if ref is not None and ref != ev.get("label"):
        # the written verdict came after the judge's free-text reason; read label first, the judge gives
        # another label: what it rests on cannot be read this way, and the card must not pretend it can
        return (
            f"Which passages the verdict rests on: not known. Read again label first, the judge gives {ref} "
            f"({float(ev['probs'][ref]):.2f}), not the {ev.get('label')} it wrote after its reasoning; "
            + (
                f"leaving out {', '.join(str(r.get('id')) for r in rests)} changes that reading."
                if rests
                else "no single passage left out changes that reading."
            )
            + tail
        )
    if not rests:
        return (
            f"The verdict rests on no single passage: leaving out any one of the {len(rows)} keeps "
            f"{ev.get('label')} within {float(ev.get('threshold') or THRESHOLD):.2f}{tail}."
        )
    ids = ", ".join(str(r.get("id")) for r in rests)
    parts = "; ".join(_row_phrase(r, ev.get("label")) for r in rests)
    return f"The verdict rests on {ids}: {parts}{tail}."


def contested_sentence(ev: Mapping) -> str:
    """The card's line for a contested verdict, with both verdicts and why ("" when it is not contested)."""
    if not ev.get("contested"):
        return ""
    bits = []
    for c in ev.get("contested_reasons") or []:
        if isinstance(c, Mapping):
            why = "; ".join(str(x) for x in c.get("reasons") or [])
            bits.append(f"with {c.get('id')} {ev.get('label')}, without it {c.get('label_without')} ({why})")
    return "Contested: the verdict turns on one suspicious passage: " + " · ".join(bits) + "."


def passage_note(ev: Mapping | None, pid: str) -> str:
    """The evidence panel's line on one passage ("" when the verdict does not rest on it)."""
    if not ev or ev.get("status", "done") != "done":
        return ""
    for r in ev.get("without") or []:
        if isinstance(r, Mapping) and str(r.get("id")) == str(pid) and r.get("rests"):
            contested = any(isinstance(c, Mapping) and c.get("id") == pid for c in ev.get("contested_reasons") or [])
            return (
                "the verdict rests on this passage: "
                + _row_phrase(r, ev.get("label"))
                + (" · contested" if contested else "")
            )
    return ""
