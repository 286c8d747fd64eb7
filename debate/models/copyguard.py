"""No copying at decode time: the next token may not make the answer repeat another speaker's run of words.

Small debaters answer an opponent by writing the opponent's turn out again, word for word (a rebuttal
that is the other side's opening). `CopyGuard` is built once per request from texts: the earlier turns of
the other speakers (`protected`) and the texts every speaker may quote (`quotable`: the claim and the
evidence). Every run of `n` words of a protected text that is not also a run of a quotable text is put in a
table keyed by its first n-1 words; while the answer is generated, a token may not begin the word that
would complete such a run after the answer's last n-1 words. So an answer may share up to n-1 words in a
row with another speaker's turn, never n, and may quote the claim and the evidence at any length.

Words, not tokens. A word is a run of letters and digits, lower-cased (`words`), a figure ("1.8", "10,000")
one word, and neither a figure nor its unit is ever refused (`figure_at`): case, punctuation, "_" and
"-" between words do not make another word, so "Matter" for "matter" and "six_years" for "six years" go on
no copy. And a word is the same word however the model's tokens split it: comparing tokens let
"well-documented" through as "-d" + "ocumented" where the other speaker's tokens were "-", "documented".
`Written` follows the answer's text as it is generated (its complete words and the word being written);
`CopyGuard.banned` says what the next token may not begin: the rest of a banned word the current word has
begun, and a banned word where a token starts a new one, or goes on with the current word: glued on without
a space ("margin ofError", "ofMilitary", "firingstatistics": near-copies small debaters wrote once the
exact ones were banned). The backend (debate.models.local) bans every token whose letters begin one of
those, so a copy cannot go on by spelling the word in two tokens either.

Linear: the table is built in one pass over the protected words (a set of the quotable runs first), and
each step is two dictionary lookups of word tuples (exact, no hash collisions to reason about). Pure:
text in, words out.

Greedy output is unchanged wherever the model was not about to copy: tokens are banned only where the
answer's last n-1 words already stand in a protected text, and only the tokens that would continue it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence

# a word goes on across a "." or "," between digits: a figure ("1.8", "10,000") is one word
_WORD = re.compile(r"[^\W_]+(?:(?<=\d)[.,](?=\d)[^\W_]+)*")

# n in words. A run of 12 words is the copy the content benchmark counts; below ~6 words stock phrases both
# sides use ("the evidence does not support the claim that") would start to be banned too.
DEFAULT_N = 8


def words(text: str) -> list[str]:
    """The words of a text as the guard compares them: runs of letters and digits, lower-cased; a "." or ","
    between two digits goes on with the word, so a figure is one word. Were "1.8" two words, a ban could fall
    between them: a rebuttal whose words before "$1." stood in the speaker's opening was refused the "8",
    and the room read the claim's "$1.8 million" as "$1.  9 million"."""
    return _WORD.findall(text.lower())


class Written:
    """The answer's words as it is generated, fed piece by piece: the complete words, and the word being
    written (`partial`, "" after a space or a mark). A "." or "," right after a digit is kept at the end of
    `partial` until the next character says whether it is a figure's ("1.8") or the end of the word ("in
    2021."); `words` reads the same. Linear in the text fed."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.partial = ""

    def feed(self, piece: str) -> None:
        for ch in piece.lower():
            if self.partial[-1:] in (".", ","):
                if ch.isdigit():
                    self.partial += ch
                    continue
                self.words.append(self.partial[:-1])
                self.partial = ""
            if ch.isalnum():
                self.partial += ch
            elif self.partial:
                if ch in ".," and self.partial[-1].isdigit():
                    self.partial += ch  # a figure's separator, or the word's end: the next character says
                else:
                    self.words.append(self.partial)
                    self.partial = ""


def figure_at(run: Sequence[str], i: int) -> bool:
    """Is run[i] a figure (a word that begins with a digit), or the word right after one (its unit: "million", "percent")? Such a word is
    never refused: the speaker would write another figure in its place ("$1.8 billion" for the claim's
    "$1.8 million", "$2." for "$1.8"), a misquote where the guard meant a rephrasing. The copy goes on a
    word or two further and is refused at the next word that is neither."""
    return any(w[:1].isdigit() for w in run[max(0, i - 1) : i + 1])


def rests(banned: Iterable[str], begun: str) -> set[str]:
    """What a token that goes on with the word being written may not begin: the rest of each banned word
    that word has begun (a banned word equal to it is complete already: nothing left to refuse)."""
    return {w[len(begun) :] for w in banned if w.startswith(begun) and len(w) > len(begun)}


class CopyGuard:
    """What the next token may not begin, given the answer written so far (see the module doc)."""

    def __init__(self, protected: Iterable[str], quotable: Iterable[str] = (), n: int = DEFAULT_N):
        if n < 2:
            raise ValueError(f"n must be at least 2, got {n}")
        self.n = n
        quoted = {tuple(q[i : i + n]) for q in map(words, quotable) for i in range(len(q) - n + 1)}
        self.table: dict[tuple[str, ...], set[str]] = {}
        for p in map(words, protected):
            for i in range(len(p) - n + 1):
                run = tuple(p[i : i + n])
                if run not in quoted and not figure_at(run, n - 1):
                    self.table.setdefault(run[:-1], set()).add(run[-1])

    def __bool__(self) -> bool:
        return bool(self.table)

    def next_words(self, done: Sequence[str]) -> set[str]:
        """The words that may not follow these complete words (empty when none)."""
        k = self.n - 1
        return self.table.get(tuple(done[-k:]), set()) if len(done) >= k else set()

    def banned(self, written: Written) -> tuple[set[str], set[str]]:
        """(what a token that goes on with the current word may not begin: the rest of each banned word the
        word being written has begun; what a token that starts a new word may not begin: each banned word
        after the current one ends). A token that begins with a letter goes on with the current word; one
        that begins with a space or a mark ends it and starts the next."""
        p = written.partial
        if not p:
            now = self.next_words(written.words)
            return now, now
        if p[-1] in ".,":  # "1." : a digit goes on with the figure; anything else starts the next word
            return rests(self.next_words(written.words), p), self.next_words([*written.words, p[:-1]])
        k = self.n - 1
        done = (*written.words[-(k - 1) :], p) if k > 1 else (p,)
        after = self.table.get(done, set()) if len(done) == k else set()
        # `after` also for a token that goes on: written without a space ("ofMilitary", "firingstatistics")
        # the banned word would be glued to the current one, a copy's way round the guard that the
        # benchmark's transcripts showed once words were banned
        return rests(self.next_words(written.words), p) | after, after


EXTEND_MIN = 4  # a banned word of at least this many letters also bans the tokens that write it longer


class WordIndex:
    """A vocabulary's tokens by the letters each writes first, lower-cased: what a guard's banned words
    turn into token ids. A token that begins with a letter or digit goes on with the word being written
    (`go_on`); one that begins with a space or a mark starts the next word (`start`).

    `ids(go_on, start)` gives every token that writes a banned word (or rest of a word), any beginning of it
    ("econ" for "economy": otherwise the copy goes on spelled in two tokens), or — for a word of EXTEND_MIN
    letters or more — the word made longer ("narratives" for "narrative", "informational" for "information":
    a small debater kept copying by changing a word's ending once the word itself was banned). Shorter words
    are not extended: "the" would ban "there" and "they". Sorted leads and a bisection: each lookup costs
    the word's length and the tokens it finds."""

    def __init__(self, texts: Sequence[str]):
        go_on: dict[str, list[int]] = {}
        start: dict[str, list[int]] = {}
        for i, t in enumerate(texts):
            low = t.lower()
            begins = low[:1].isalnum()
            j = 0 if begins else next((k for k, c in enumerate(low) if c.isalnum()), -1)
            if j < 0:
                continue  # spaces and marks only: they end a word, never begin one
            k = j
            while k < len(low) and low[k].isalnum():
                k += 1
            (go_on if begins else start).setdefault(low[j:k], []).append(i)
        self.maps = (go_on, start)
        self.sorted = (sorted(go_on), sorted(start))

    def ids(self, go_on: Iterable[str], start: Iterable[str]) -> set[int]:
        out: set[int] = set()
        for index, leads, banned, longest in zip(self.maps, self.sorted, (go_on, start), (3, EXTEND_MIN)):
            for w in banned:
                for k in range(1, len(w) + 1):
                    out.update(index.get(w[:k], ()))
                if len(w) >= longest:
                    i = bisect.bisect_right(leads, w)
                    while i < len(leads) and leads[i].startswith(w):
                        out.update(index[leads[i]])
                        i += 1
        return out


def phrase_guards(phrases: Iterable[str]) -> list[CopyGuard]:
    """Guards that refuse the last word of each phrase (of two words or more) wherever the answer has
    written the words before it: one CopyGuard per phrase length, the phrases as its protected texts.
    (What a debater may never write, e.g. a refusal's opening, "I cannot provide".)"""
    by_n: dict[int, list[str]] = {}
    for p in phrases:
        n = len(words(p))
        if n >= 2:
            by_n.setdefault(n, []).append(p)
    return [g for n, ps in sorted(by_n.items()) if (g := CopyGuard(ps, n=n))]


class OpeningGuard:
    """What an answer may not open with: each phrase's last word is refused where the answer's words so far
    are exactly the words before it ("I cannot", "As an AI" as a debater's first words). A refusal opens the
    answer; anchoring the phrase there lets a debater write "I cannot agree with my opponent" later on.
    Same interface as CopyGuard.banned; after the longest phrase's words it costs a length check."""

    def __init__(self, phrases: Iterable[str]):
        self.table: dict[tuple[str, ...], set[str]] = {}
        for p in map(words, phrases):
            if p:
                self.table.setdefault(tuple(p[:-1]), set()).add(p[-1])
        self.longest = max((len(k) for k in self.table), default=-1)

    def __bool__(self) -> bool:
        return bool(self.table)

    def banned(self, written: Written) -> tuple[set[str], set[str]]:
        if len(written.words) > self.longest:
            return set(), set()
        done, p = tuple(written.words), written.partial
        if not p:
            now = self.table.get(done, set())
            return now, now
        after = self.table.get((*done, p), set())
        return rests(self.table.get(done, ()), p) | after, after  # glued on too ("Icannot"), as in CopyGuard


def copied_run(answer: str, protected: Iterable[str], n: int = DEFAULT_N) -> bool:
    """Does `answer` contain a run of n words that stands in a protected text? (For tests and checks.)"""
    runs = {tuple(p[i : i + n]) for p in map(words, protected) for i in range(len(p) - n + 1)}
    said = words(answer)
    return any(tuple(said[i : i + n]) in runs for i in range(len(said) - n + 1))
