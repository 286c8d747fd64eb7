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
    return name.startswith((script + " ", script + "-"))  # LATIN SMALL LETTER A


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


# UTF-8 lead bytes whose every character is a letter of another script than Latin (or CJK punctuation):
# 0xD0-0xDF U+0400-U+07FF (Cyrillic, Armenian, Hebrew, Arabic, Syriac, Thaana, NKo), 0xE0 U+0800-U+0FFF
# (Indic, Thai, Tibetan), 0xE3-0xED U+3000-U+DFFF (kana, CJK, Hangul, Yi). Lead bytes of ranges that hold
# Latin letters, combining marks, punctuation or emoji (0xC2-0xCF, 0xE1, 0xE2, 0xEE-0xF4) are allowed.
_FOREIGN_LEADS = frozenset(range(0xD0, 0xE1)) | frozenset(range(0xE3, 0xEE))


def token_bytes_allowed(raw: bytes, script: str = "LATIN") -> bool:
    """A vocabulary token (its raw bytes) may be generated in a Latin-script task. A token that is whole
    characters is judged by them (`token_allowed`); one that holds part of a character (byte-level BPE
    splits rare characters into bytes) is refused when it holds the lead byte of a non-Latin letter, so
    the model cannot spell a CJK or Cyrillic character out of bytes either."""
    try:
        return token_allowed(raw.decode("utf-8"), script)
    except UnicodeDecodeError:
        return script != "LATIN" or not any(b in _FOREIGN_LEADS for b in raw)


def script_of(text: str) -> str | None:
    """The script a debate on `text` must answer in: "LATIN" when every letter of it is Latin (English and
    every task the engine ships), None for a claim in another script (no restriction)."""
    letters = [ch for ch in text or "" if unicodedata.category(ch).startswith("L")]
    return "LATIN" if letters and all(in_script(ch, "LATIN") for ch in letters) else None
