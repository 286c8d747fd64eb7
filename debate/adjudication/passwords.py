"""Which passwords a labelling team's account may have: long enough in characters a person can see, and
not easy to guess by zxcvbn's estimate (Dropbox's strength estimator: common passwords, names, keyboard
walks, dates, l33t spellings and repeats, weighed by how many guesses each would take).

Why visible characters: a password of eight zero-width spaces, or of blanks only, passes a bare length
check; typed on a phone or pasted from a chat it may not even be the password its owner meant. So the
length is counted after Unicode normalisation (NFKC), without spaces, controls, format characters
(U+200B, U+202E, ...), combining marks standing alone and the letters that render as nothing (Hangul
fillers, the blank Braille pattern).

Why zxcvbn and not a list of common passwords: it knows the lists (`12345678`, `password`) and also their
variations (`P@ssw0rd1`), the account's own name, and dictionary words in a row. Its score runs 0..4;
MIN_SCORE 2 means "safe against an online attack that is not throttled" (about 10^8 guesses), and sign-in
is throttled besides (accounts.MAX_FAILURES), so a guessed password costs hours, not seconds.
"""

from __future__ import annotations

import unicodedata

from debate.errors import InvalidInput

MIN_PASSWORD = 8  # visible characters
MAX_PASSWORD = 1024
MIN_SCORE = 2  # zxcvbn's 0..4
_ESTIMATED_CHARS = 72  # zxcvbn refuses longer ones (its time grows with the length); the start is judged
# categories that show nothing by themselves: controls, format (zero-width, bidi), separators, lone marks,
# unassigned and private-use code points, surrogates
_UNSEEN_CATEGORIES = frozenset(("Cc", "Cf", "Cn", "Co", "Cs", "Zs", "Zl", "Zp", "Mn", "Me"))
# letters and symbols that are drawn as blank space
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")


def visible(password: str) -> str:
    """The characters of `password` a person sees, after NFKC normalisation (see the module's docstring)."""
    return "".join(
        ch
        for ch in unicodedata.normalize("NFKC", password or "")
        if not ch.isspace() and ch not in _BLANK_GLYPHS and unicodedata.category(ch) not in _UNSEEN_CATEGORIES
    )


def check_password(password: str | None, name: str = "") -> None:
    """InvalidInput saying what is wrong with `password` for the account `name` and what to type instead;
    None when it may be used."""
    password = password or ""
    if len(password) > MAX_PASSWORD:
        raise InvalidInput(f"The password is longer than {MAX_PASSWORD} characters.", "Use a shorter one.")
    seen = visible(password)
    if not seen:
        raise InvalidInput(
            "The password has no visible characters (only spaces or invisible ones).",
            f"Use at least {MIN_PASSWORD} characters you can see, e.g. a few unrelated words.",
        )
    if len(seen) < MIN_PASSWORD:
        raise InvalidInput(
            f"The password is too short ({len(seen)} visible characters).",
            f"Use at least {MIN_PASSWORD} characters you can see, e.g. a few unrelated words.",
        )
    from zxcvbn import zxcvbn

    inputs = [w for w in name.split() if w] + ([name] if name else [])
    estimate = zxcvbn(password[:_ESTIMATED_CHARS], user_inputs=inputs)
    if estimate["score"] < MIN_SCORE:
        feedback = estimate.get("feedback") or {}
        why = str(feedback.get("warning") or "").rstrip(".")
        tips = " ".join(str(t) for t in feedback.get("suggestions") or [])
        raise InvalidInput(
            "The password is too easy to guess" + (f": {why}." if why else "."),
            (tips + " " if tips else "") + "A few unrelated words, or a password manager's, will do.",
        )
