"""Label probabilities read from token alternatives: how likely each label was where the answer writes it.

Shared by every backend that reports them: the embedded models read the alternatives while generating
(local.py's logits processor), the Ollama and OpenAI-compatible servers return them with each generated
token (`TOP_K` alternatives per position), and both read them the same way: at the position right after
the answer's label key (`[VERDICT]:`, `"verdict": "`) where a label is written, else at the position
whose alternatives hold the most label mass (`label_probs_at_key`; `LABEL_AT` in base.py names the cases).
Pure functions over text and numbers: no model, no server.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

TOP_K = 20  # alternatives asked of remote servers per generated position (OpenAI's maximum)
_STRIP = " \t\r\n\"'`*_:[({<>-.,"
SLOT_TAIL = 64  # characters of the answer so far searched for "the label comes next" (bounded per token)


def _matches(token: str, label: str) -> bool:
    """A token can begin `label`: "YES", " Yes", "Y" → YES; "Note", "Nothing" do not count as NO."""
    t = token.strip(_STRIP).upper()
    return bool(t) and label.startswith(t)


def _fits(token: str, ways: tuple[str, ...]) -> bool:
    """A token can begin any of a label's spellings (see `spelled`)."""
    return any(_matches(token, s) for s in ways)


def spelled(labels: Sequence[str], spellings: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """Per label, the upper-cased ways it may be written at its key: its name, and `spellings[i]` where the
    answer format writes it otherwise. TurQUaz's judge answers `{"category": 1 or 0}`: without its digits
    no label is ever written at the key, and the probabilities would be read wherever YES/NO happened to
    hold the most mass in the explanation, which need not agree with the digit written."""
    return [
        (lab.upper(), *((str(spellings[i]).upper(),) if i < len(spellings) and spellings[i] else ()))
        for i, lab in enumerate(labels)
    ]


def _label_mass(pos: Mapping[str, float], norm: Sequence[tuple[str, ...]]) -> list[float]:
    """Probability mass per label (its spellings, see `spelled`) at one position; a token fitting several
    labels is split."""
    mass = [0.0] * len(norm)
    for tok, lp in pos.items():  # " Yes", "Yes" and "yes" are distinct tokens: all count
        hits = [i for i, lab in enumerate(norm) if _fits(tok, lab)]
        p = math.exp(lp) if lp is not None and lp > -1e9 else 0.0
        for i in hits:
            mass[i] += p / len(hits)
    return mass


# what stands between a label's key and the label: `]: `, `:** [`, `": "` (possessive runs: linear time)
_BEFORE_LABEL = r"[\s*\"']*+(?:\][\s*]*+)?[:=\-][\s*\"'\[]*+"


def slot_pattern(key: str) -> re.Pattern[str]:
    """The answer so far ends where `key`'s label is written: `[VERDICT]: `, `**Verdict:** [`,
    `"verdict": "` (the shapes parsing.parse_label reads), matched against a bounded tail."""
    return re.compile(rf"{re.escape(key)}{_BEFORE_LABEL}$", re.I)


def answer_before_label(text: str, key: str, labels: Sequence[str], spellings: Sequence[str] = ()) -> str | None:
    """The answer up to where its last label is written at `key` (`... "verdict": "` of `{"reason": ..., "verdict":
    "TRUE"}`), or None when no label is written there. A re-read that continues from this text reads the label
    where the model wrote it, after its own reasoning (radar.attribute). One regex pass, possessive runs of
    separators: linear in the answer's length."""
    ways = sorted({w for group in spelled(labels, spellings) for w in group}, key=len, reverse=True)
    if not key or not ways:
        return None
    label = "|".join(re.escape(w) for w in ways)
    found = None
    for m in re.finditer(rf"{re.escape(key)}{_BEFORE_LABEL}(?=(?:{label}))", text, re.I):
        found = m
    return text[: found.end()] if found else None


def normalised_mass(
    pos: Mapping[str, float], labels: Sequence[str], spellings: Sequence[str] = ()
) -> dict[str, float] | None:
    """The labels' share of the probability at one position (each label's spellings summed), normalised
    over the labels."""
    return _shares(_label_mass(pos, spelled(labels, spellings)), labels)


def _shares(mass: Sequence[float], labels: Sequence[str]) -> dict[str, float] | None:
    total = sum(mass)
    return {lab: m / total for lab, m in zip(labels, mass)} if total > 0 else None


def label_probs_from_positions(
    positions: Sequence[Mapping[str, float]], labels: Sequence[str], first: bool = False
) -> dict[str, float] | None:
    """Probability per label at the generated position whose alternatives best cover the labels.

    `positions` holds, per generated token, {token_text: logprob} of its alternatives. A token
    counts for a label when, stripped of spaces/quotes/markup and upper-cased, it is a prefix of the
    label: "YES", " Yes", "Y" → YES. Mass of a token that fits several labels
    is split between them. The chosen position is the one with the most label mass (the earliest
    on ties), which skips JSON scaffolding such as `{"vote": "` and free text that merely contains
    "no". With `first` (the answer's schema decodes the label before any free text) it is the earliest
    position where the labels hold at least half the mass: a later sentence that opens with "No" must
    not stand in for the vote. Returns None when no position offers any label.
    """
    norm = spelled(labels)
    if not norm:
        return None
    best: tuple[float, int, list[float]] | None = None
    for pos in positions:
        mass = _label_mass(pos, norm)
        total = sum(mass)
        if first and total >= 0.5:
            return {lab: m / total for lab, m in zip(labels, mass)}
        covered = sum(1 for m in mass if m > 0)
        score = total + 0.01 * covered
        if total > 0 and (best is None or score > best[0] + 1e-9):
            best = (score, covered, mass)
    if best is None:
        return None
    total = sum(best[2])
    return {lab: m / total for lab, m in zip(labels, best[2])}


def label_probs_at_key(
    chosen: Sequence[str],
    positions: Sequence[Mapping[str, float]],
    labels: Sequence[str],
    key: str = "",
    first: bool = False,
    greedy: bool = False,
    spellings: Sequence[str] = (),
) -> tuple[dict[str, float] | None, str]:
    """(label probabilities, where they were read: a LABEL_AT key) from a finished answer's tokens, for
    servers that return each generated token (`chosen`) with its alternatives (`positions`).

    The same reading as the embedded models' (the `_StepRecorder`): at the last position right after
    `key` (`[VERDICT]:`, `"verdict": "`) where the token written begins a label, the label the parser
    reads. A server cannot be kept to the argmax label there, so when the written token's label is not
    the most probable label read at that position (its mass split over spellings, or sampled) the key
    says so ("split", "sampled"). Without `key`, or with no label written after it, the older rule
    (`label_probs_from_positions`) with "most-mass" or "first". At the key a label may also be written
    as its `spellings` (see `spelled`). Linear: the tail searched is bounded."""
    norm = spelled(labels, spellings)
    if not norm or not positions:
        return None, ""
    if key and not first and len(chosen) == len(positions):
        slot, text, hit = slot_pattern(key), "", None
        for i, tok in enumerate(chosen):
            if slot.search(text) and any(_fits(tok, lab) for lab in norm):
                hit = i
            text = (text + str(tok))[-SLOT_TAIL:]
        if hit is not None:
            probs = normalised_mass(positions[hit], labels, spellings)
            if probs is not None:
                written = [lab for lab, ways in zip(labels, norm) if _fits(chosen[hit], ways)]
                top = max(probs, key=probs.__getitem__)
                if not greedy:
                    return probs, "sampled"
                return probs, "written" if top in written else "split"
    probs = label_probs_from_positions(positions, labels, first)
    if probs is None:
        return None, ""
    return probs, ("first" if first else "most-mass" if key else "")
