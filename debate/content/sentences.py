"""Sentence ends and loops in model text, in one linear pass and bounded memory.

Why here and not in a regex: model text is hostile input (a megabyte without a full stop must not make
a pattern backtrack), and the same scan runs while a turn streams, a character at a time.
"""

from __future__ import annotations

from collections import deque

ENDS = ".!?…"
_CLOSERS = "\"'”’)]*"  # may follow a sentence end: `He said "no."` ends after the quote
REPEAT_MIN_CHARS = 24  # a sentence shorter than this ("Yes.", "}") may legitimately recur
NGRAM = 20  # words: the same 20-word run twice in one turn is a loop, not a turn of phrase
MAX_SENTENCE = 400  # characters kept of one sentence for comparison (a longer one is not a loop we can see)


def _is_abbreviation(text: str, i: int) -> bool:
    """The '.' at i ends a number's decimals ("3.4"), an initial ("U.S.") or "e.g.", not a sentence."""
    nxt = text[i + 1] if i + 1 < len(text) else ""
    prev = text[i - 1] if i > 0 else ""
    if prev.isdigit() and nxt.isdigit():
        return True
    if nxt and not nxt.isspace() and nxt not in _CLOSERS:
        return True  # "U.S.A", "e.g.,", "example.com"
    j = i - 1
    while j >= 0 and text[j].isalpha():
        j -= 1
    word = text[j + 1 : i]
    return len(word) == 1 and word.isupper()  # an initial: "J. Smith"


def sentence_ends(text: str) -> list[int]:
    """Offsets just after each complete sentence (its end mark and closing quotes/brackets), in order."""
    out: list[int] = []
    n = len(text)
    i = 0
    while i < n:
        ch = text[i]
        if ch in ENDS and not (ch == "." and _is_abbreviation(text, i)):
            j = i + 1
            while j < n and (text[j] in ENDS or text[j] in _CLOSERS):
                j += 1
            if j >= n or text[j].isspace():
                out.append(j)
            i = j
            continue
        if ch == "\n" and i > 0 and text[i - 1] == "\n":
            out.append(i - 1)  # a blank line ends a paragraph (lists, headings) even without a full stop
        i += 1
    return out


def ends_mid_sentence(text: str) -> bool:
    """The text stops inside a sentence: its last non-space character ends none. JSON answers (which end
    with "}") and lists count as ended."""
    t = (text or "").rstrip()
    if not t:
        return False
    if t[-1] in "}]":
        return False
    ends = sentence_ends(t)
    return not ends or ends[-1] < len(t)


def last_full_sentence(text: str) -> str:
    """`text` up to the end of its last complete sentence; the whole text when it has none (a turn with
    no full sentence is kept as written, and marked as cut by the caller)."""
    t = (text or "").rstrip()
    ends = sentence_ends(t)
    return t[: ends[-1]].rstrip() if ends else t


PROSE_KEYS = ("explanation", "summary")  # the words of a JSON answer: what the page shows and the others read


def is_json_text(text: str | None) -> bool:
    """The answer was written as a JSON object (its words are then read from it, not shown as written)."""
    return (text or "").lstrip().startswith("{")


def json_prose(parsed: dict | None) -> str:
    """A parsed answer's words: its first non-blank PROSE_KEYS value; "" for a vote given without words."""
    for key in PROSE_KEYS:
        value = (parsed or {}).get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def shown_text(text: str, parsed: dict | None, valid: bool = True) -> str:
    """What a page shows of an answer: a readable JSON answer's words (its explanation or summary; none
    for a vote given without words), any other answer as written."""
    if not (valid and isinstance(parsed, dict) and is_json_text(text)):
        return text or ""
    return json_prose(parsed)


class LoopWatch:
    """Fed streamed text, says where a loop begins: the second time a sentence of at least
    REPEAT_MIN_CHARS characters appears, or the second time a run of NGRAM words appears. `cut` is the
    offset (in all the text fed) where the repeated part starts, so the turn keeps what came before.

    Constant work per character: sentences and n-grams are compared by hash, the window of words is a
    deque of NGRAM hashes (a rolling tuple, not a re-scan of the text)."""

    def __init__(self, ngram: int = NGRAM, min_chars: int = REPEAT_MIN_CHARS) -> None:
        self.ngram, self.min_chars = ngram, min_chars
        self.pos = 0
        self.cut: int | None = None
        self.reason = ""
        self._sent: list[str] = []
        self._sent_start = 0
        self._sentences: set[int] = set()
        self._word: list[str] = []
        self._word_start = 0
        self._window: deque[tuple[int, int]] = deque(maxlen=ngram)  # (hash of a word, where it started)
        self._grams: set[int] = set()

    def feed(self, piece: str) -> bool:
        """Consume the next piece; True once a loop was found (then `cut` and `reason` say where and why)."""
        for ch in piece:
            if self.cut is not None:
                return True
            self._char(ch)
            self.pos += 1
        return self.cut is not None

    def _char(self, ch: str) -> None:
        if ch.isalnum() or ch in "'’":  # (a hyphen separates: small models loop in hyphen-joined runs too)
            if not self._word:
                self._word_start = self.pos
            if len(self._word) < 40:
                self._word.append(ch.lower())
        elif self._word:
            self._end_word()
        if ch in ENDS or ch == "\n":
            self._end_sentence()
        else:
            if not self._sent:
                if ch.isspace():
                    return
                self._sent_start = self.pos
            if len(self._sent) < MAX_SENTENCE:
                self._sent.append(ch.lower())

    def _end_word(self) -> None:
        self._window.append((hash("".join(self._word)), self._word_start))
        self._word.clear()
        if len(self._window) == self.ngram:
            key = hash(tuple(h for h, _ in self._window))
            if key in self._grams:
                self.cut, self.reason = self._window[0][1], f"a run of {self.ngram} words repeated"
            self._grams.add(key)

    def _end_sentence(self) -> None:
        text = "".join(self._sent).strip()
        self._sent.clear()
        if len(text) < self.min_chars:
            return
        key = hash(text)
        if key in self._sentences and self.cut is None:
            self.cut, self.reason = self._sent_start, "a sentence repeated"
        self._sentences.add(key)


def find_loop(text: str) -> tuple[int, str] | None:
    """(offset where the repeated part starts, why) for a text that repeats a sentence or a long word
    run; None when it does not."""
    w = LoopWatch()
    w.feed(text or "")
    w.feed("\n")  # a last sentence without its full stop is still compared
    return (w.cut, w.reason) if w.cut is not None else None
