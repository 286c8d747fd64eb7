"""Figures a turn states, and which of them no source gave: the claim, the evidence, the earlier turns.

Why: the packaged models invent precise-sounding numbers ("from 3.4 percent to 3.0 percent since
1969") that no passage holds. A figure is a number written in digits: an amount ("$5", "5 million"), a
percentage ("25%", "25 percent"), a year, a decimal. Two spellings of one value match ("3,000" and
"3000", "25%" and "25 percent", "3.0" and "3"). Bare counts below 10 ("two studies", "3 reasons",
"Agent 2") are not figures of fact and are not checked; citation marks ([E1]) and numbers inside words
or names ("COVID-19", "Qwen2.5", "GPT-4") are not figures.

One scan with a pattern that cannot backtrack (no nested repetition), over text bounded by the answer
budget.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# a number not glued to a word before it; optional currency; digits with , or . groups; optional % / percent
_FIG = re.compile(r"(?<![\w.\-/])([$€£]\s?)?(\d+(?:[.,]\d+)*)(\s?(?:%|percent\b|per cent\b))?(?![\w\-])")
SMALL = 10  # bare integers below this are counts, not figures


@dataclass(frozen=True)
class Figure:
    start: int
    end: int
    text: str
    value: str  # normalised: "3000", "3.4", "25"


def _normal(digits: str) -> str | None:
    """ "3,000" -> "3000"; "3.40" -> "3.4"; "3.0" -> "3"; "1,5" (a decimal comma) -> "1.5"."""
    if "," in digits and "." not in digits and not re.fullmatch(r"\d{1,3}(?:,\d{3})+", digits):
        digits = digits.replace(",", ".")
    digits = digits.replace(",", "")
    if digits.count(".") > 1:
        return None  # a date or version "1.2.3": not one value
    try:
        v = float(digits)
    except ValueError:
        return None
    return f"{v:.6f}".rstrip("0").rstrip(".")


def figures(text: str) -> list[Figure]:
    """Every figure stated in `text`, in order."""
    out = []
    for m in _FIG.finditer(text or ""):
        cur, digits, pct = m.group(1), m.group(2), m.group(3)
        value = _normal(digits)
        if value is None:
            continue
        if not cur and not pct and "." not in value and int(value) < SMALL and "," not in digits:
            continue
        out.append(Figure(m.start(), m.end(), m.group(0), value))
    return out


def values(texts: Iterable[str]) -> set[str]:
    """Every figure value in the sources, small counts included (a turn repeating "3 studies" is fine)."""
    out: set[str] = set()
    for t in texts:
        for m in _FIG.finditer(t or ""):
            v = _normal(m.group(2))
            if v is not None:
                out.add(v)
    return out


def unsupported(text: str, sources: Iterable[str]) -> list[Figure]:
    """The figures of `text` whose value appears in none of `sources` (claim, evidence, earlier turns)."""
    known = values(sources)
    return [f for f in figures(text) if f.value not in known]


def tally_figures(counts: dict, threshold: float | None = None) -> str:
    """The figures a council's own tally puts in front of its agents, as text a figure may come from: each
    label's share of the votes ("67%", "66.7%") and the consensus threshold ("80%"). A chair that writes
    "a consensus of 67% of the members" states the tally, not an invented figure."""
    n = sum(int(c) for c in counts.values()) or 1
    shares = [100 * int(c) / n for c in counts.values()]
    out = [f"{round(x)}% {x:.1f}%" for x in shares]
    if threshold is not None:
        out.append(f"{float(threshold) * 100:g}%")
    return " ".join(out)
