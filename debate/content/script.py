"""Characters outside a task's script: an English debate answered partly in Chinese or Cyrillic.

Small multilingual models (Qwen2.5 above all) drift into another script mid-sentence ("…presented in a
neutral,客观"). English is written in the Latin script; digits, punctuation, symbols, spaces and
combining marks belong to no script and are always allowed. The check is by Unicode name of the
character's block, via `unicodedata`, so it needs no table of ranges of our own.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

LATIN_TASKS = ("en",)  # every task the engine runs today is English


@lru_cache(maxsize=4096)
def in_script(ch: str, script: str = "LATIN") -> bool:
    """Whether one character may appear in text of `script`: a letter of that script, or anything that is
    not a letter at all (digits, punctuation, symbols, spaces, marks; emoji are symbols)."""
    cat = unicodedata.category(ch)
    if not cat.startswith("L"):
        # no letter: digits of other scripts ("٣") still read as another script, other symbols do not
        return not (cat == "Nd" and not ch.isascii()) and cat not in ("Lo", "Lm")
    name = unicodedata.name(ch, "")
    return name.startswith(script + " ") or name.startswith(script + "-")  # LATIN SMALL LETTER A


def off_script(text: str, script: str = "LATIN") -> list[str]:
    """The distinct characters of `text` outside `script`, in order of first appearance (at most 20)."""
    seen: dict[str, None] = {}
    for ch in text or "":
        if ch not in seen and not in_script(ch, script):
            seen[ch] = None
            if len(seen) >= 20:
                break
    return list(seen)


def token_allowed(token_text: str, script: str = "LATIN") -> bool:
    """A vocabulary token may be generated in a `script` task: every character of its text is in the
    script. Tokens whose bytes are not whole characters (parts of a UTF-8 sequence, decoded as empty or
    as U+FFFD) are allowed: they may begin an emoji or a dash, and a byte alone is no script."""
    return all(in_script(ch, script) or ch == "\ufffd" for ch in token_text)
