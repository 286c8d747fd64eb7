"""No copying at decode time: the next token may not make the answer repeat another speaker's run.

Small debaters answer an opponent by writing the opponent's turn out again, word for word (a rebuttal
that is the other side's opening). `CopyGuard` is built once per request from token ids: the earlier
turns of the other speakers (`protected`) and the texts every speaker may quote (`quotable`: the claim
and the evidence). Every run of `n` tokens of a protected text that is not also a run of a quotable text
is put in a table keyed by its first n-1 tokens; while the answer is generated, the tokens that would
complete such a run after the answer's last n-1 tokens are banned (their logits set to -inf). So an
answer may share up to n-1 tokens in a row with another speaker's turn, never n, and may quote the
claim and the evidence at any length.

Tokens are compared by the word they spell, not by id: the embedded backend (debate.models.local) feeds
each token as `spelling(text)`, its letters and digits lower-cased, and tokens that spell nothing
(punctuation, "_", spaces) are skipped on every side. So a copy cannot go on by writing "Matter" where
the other speaker wrote "matter" (another token id), nor by joining or splitting words with punctuation
("six_years", "margin ofError" for "six years", "margin of error": the near-copies a small debater wrote
once the exact ones were banned); the backend then bans every token that spells the banned word or its
beginning.

Linear: the table is built in one pass over the protected tokens (a set of the quotable runs first), and
each step is one dictionary lookup of the last n-1 tokens (a tuple: exact, no hash collisions to reason
about). Pure: tokens in, tokens out.

Greedy output is unchanged wherever the model was not about to copy: tokens are banned only where the
answer's last n-1 tokens already stand in a protected text, and only the tokens that would continue it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

SKIP = ""  # a token that spells nothing: not part of any run


def spelling(text: str) -> str:
    """What a token says for the guard: its letters and digits, lower-cased ("" for punctuation)."""
    return "".join(c for c in text.lower() if c.isalnum())


def _spoken(seq: Iterable[Hashable]) -> list[Hashable]:
    return [t for t in seq if t != SKIP]


# n in tokens that spell something. A run of 12 words (the copy the content benchmark counts) is at least
# 12 such tokens, so n = 10 forbids it with a margin of two tokens for a word the copy tokenizes otherwise;
# below ~8 tokens (~6 words) stock phrases both sides use ("the evidence does not support the claim that")
# would start to be banned too.
DEFAULT_N = 10


class CopyGuard:
    """Which tokens may not come next, given the answer's tokens so far (see the module doc)."""

    def __init__(
        self, protected: Iterable[Sequence[Hashable]], quotable: Iterable[Sequence[Hashable]] = (), n: int = DEFAULT_N
    ):
        if n < 2:
            raise ValueError(f"n must be at least 2, got {n}")
        self.n = n
        quoted = {tuple(q[i : i + n]) for q in map(_spoken, quotable) for i in range(len(q) - n + 1)}
        self.table: dict[tuple[Hashable, ...], set[Any]] = {}
        for p in map(_spoken, protected):
            for i in range(len(p) - n + 1):
                run = tuple(p[i : i + n])
                if run not in quoted:
                    self.table.setdefault(run[:-1], set()).add(run[-1])

    def __bool__(self) -> bool:
        return bool(self.table)

    def banned(self, answer: Sequence[Hashable]) -> set[Any]:  # token ids, or token texts
        """The tokens that would make the answer's last n tokens a protected run (empty when none); tokens
        that spell nothing (SKIP) are passed over, so the key is the last n-1 that do."""
        k = self.n - 1
        last: list[Hashable] = []
        for t in reversed(answer):
            if t != SKIP:
                last.append(t)
                if len(last) == k:
                    return self.table.get(tuple(reversed(last)), set())
        return set()


def copied_run(answer: Sequence[Hashable], protected: Iterable[Sequence[Hashable]], n: int = DEFAULT_N) -> bool:
    """Does `answer` contain a run of n tokens that stands in a protected text? (For tests and checks.)"""
    runs = {tuple(p[i : i + n]) for p in map(_spoken, protected) for i in range(len(p) - n + 1)}
    spoken = _spoken(answer)
    return any(tuple(spoken[i : i + n]) in runs for i in range(len(spoken) - n + 1))
