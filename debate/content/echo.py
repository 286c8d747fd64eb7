"""A turn that copies its answer format's placeholder instead of answering.

The papers' answer formats put an instruction where the answer goes (TurQUaz A.3-A.5:
`"explanation": "Brief explanation of your decision, including which arguments you found most
compelling"`), and the smallest packaged model fills the field with those very words. Shown as the
member's explanation, the instruction reads like a reason; the viewer says instead that none was given.

Pure and bounded: the placeholders are read from the format text the turn was given (its template, not
the filled prompt, which quotes other agents' answers), each placeholder by a pattern of bounded length,
and a turn is compared as one string of its first words.
"""

from __future__ import annotations

import re

# a placeholder: the text inside a JSON example's free-text field, or an <angle-bracket> slot
_FIELD = re.compile(r'"(?:explanation|reason|summary|justification|rationale)"\s*:\s*"([^"\n]{12,200})"')
_SLOT = re.compile(r"<([^<>\n]{12,120})>")
_WORD = re.compile(r"[a-z]+")
HEAD_WORDS = 6  # the first words of a placeholder that must appear in order in the turn
LEFT_OVER = 8  # words of the turn besides the placeholder: the answer's keys and label, a stray word
MAX_CHARS = 20_000  # of a turn or a format text read (longer text is hostile, not an answer)


def _words(text: str) -> list[str]:
    return _WORD.findall(text[:MAX_CHARS].lower())


def placeholders(format_text: str) -> list[str]:
    """The placeholders a format text holds: an instruction written where the answer goes. A slot that is
    a variable of the template (`{tweet}`) or has fewer than four words of three letters is not one."""
    found = [m.group(1) for m in _FIELD.finditer(format_text[:MAX_CHARS])]
    found += [m.group(1) for m in _SLOT.finditer(format_text[:MAX_CHARS])]
    out: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for p in found:
        p = p.strip().strip("<>").strip()
        key = tuple(_words(p))
        if "{" in p or sum(len(w) >= 3 for w in key) < 4 or key in seen:
            continue
        seen.add(key)
        out.append(p)
    return out


def echoed_format(text: str, format_text: str) -> str:
    """The placeholder the turn copied instead of an answer, or "": its first words appear in order in
    the turn, and once they (and the rest of the placeholder that follows them) are set aside, at most
    LEFT_OVER words remain (the JSON keys and the label: `{"vote": "YES", "explanation": "Brief …"}`). A
    turn that starts like a placeholder and then says something of its own is an answer."""
    said = _words(text)
    for p in placeholders(format_text):
        pw = _words(p)
        head = pw[:HEAD_WORDS]
        for i in range(len(said) - len(head) + 1):
            if said[i : i + len(head)] != head:
                continue
            k = len(head)
            while k < len(pw) and i + k < len(said) and said[i + k] == pw[k]:
                k += 1
            if len(said) - k <= LEFT_OVER:
                return p
            break
    return ""
