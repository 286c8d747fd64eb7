"""No copying at decode time: the next token may not make the answer repeat another speaker's run.

Small debaters answer an opponent by writing the opponent's turn out again, word for word (a rebuttal
that is the other side's opening). `CopyGuard` is built once per request from token ids: the earlier
turns of the other speakers (`protected`) and the texts every speaker may quote (`quotable`: the claim
and the evidence). Every run of `n` tokens of a protected text that is not also a run of a quotable text
is put in a table keyed by its first n-1 tokens; while the answer is generated, the tokens that would
complete such a run after the answer's last n-1 tokens are banned (their logits set to -inf). So an
answer may share up to n-1 tokens in a row with another speaker's turn, never n, and may quote the
claim and the evidence at any length.

Linear: the table is built in one pass over the protected tokens (a set of the quotable runs first), and
each step is one dictionary lookup of the last n-1 tokens (a tuple of ints: exact, no hash collisions to
reason about). Pure: tokens in, tokens out. The embedded backend (debate.models.local) feeds it each token
as its lower-cased text, so a copy cannot go on by writing "matter" where the other speaker wrote
"Matter" (another token id), and bans every token of a banned text.

Greedy output is unchanged wherever the model was not about to copy: tokens are banned only where the
answer's last n-1 tokens already stand in a protected text, and only the tokens that would continue it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

# n in tokens. A run of 12 words (the copy the content benchmark counts) is at least 12 tokens, so n = 10
# forbids it with a margin of two tokens for an opening word the copy tokenizes otherwise ("The" at the
# start of a sentence, " the" inside one); below ~8 tokens (~6 words) stock phrases both sides use
# ("the evidence does not support the claim that") would start to be banned too.
DEFAULT_N = 10


class CopyGuard:
    """Which tokens may not come next, given the answer's tokens so far (see the module doc)."""

    def __init__(
        self, protected: Iterable[Sequence[Hashable]], quotable: Iterable[Sequence[Hashable]] = (), n: int = DEFAULT_N
    ):
        if n < 2:
            raise ValueError(f"n must be at least 2, got {n}")
        self.n = n
        quoted = {tuple(q[i : i + n]) for q in quotable for i in range(len(q) - n + 1)}
        self.table: dict[tuple[Hashable, ...], set[Any]] = {}
        for p in protected:
            p = list(p)
            for i in range(len(p) - n + 1):
                run = tuple(p[i : i + n])
                if run not in quoted:
                    self.table.setdefault(run[:-1], set()).add(run[-1])

    def __bool__(self) -> bool:
        return bool(self.table)

    def banned(self, answer: Sequence[Hashable]) -> set[Any]:  # token ids, or token texts
        """The tokens that would make the answer's last n tokens a protected run (empty when none)."""
        k = self.n - 1
        if len(answer) < k:
            return set()
        return self.table.get(tuple(answer[len(answer) - k :]), set())


def copied_run(answer: Sequence[int], protected: Iterable[Sequence[int]], n: int = DEFAULT_N) -> bool:
    """Does `answer` contain a run of n tokens that stands in a protected text? (For tests and checks.)"""
    runs = {tuple(p[i : i + n]) for p in protected for i in range(len(p) - n + 1)}
    return any(tuple(answer[i : i + n]) in runs for i in range(len(answer) - n + 1))
