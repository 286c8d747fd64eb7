"""When to stop generating before the token cap: the answer's JSON has closed, or the text loops.

Small models keep writing after their JSON answer ("The tweet does not contain any evidence…" until the
256-token cap) and sometimes repeat one sentence over and over. Every such token costs the person
watching ~20 ms on 2 cores and changes nothing the protocol reads: the parsers read the first JSON
object, and a repeated sentence adds no argument. `AnswerWatch` is fed the text as it streams, in
linear time and constant memory per character (model text is hostile input: no regex backtracking,
no re-scan of what was already seen), and says when to stop.
"""

from __future__ import annotations

from debate.content.sentences import LoopWatch

REPEAT_MIN_CHARS = 24  # a "sentence" shorter than this (e.g. "}" or "Yes.") may legitimately recur
REPEAT_LIMIT = 3  # the same sentence seen this many times: the answer is looping
_ENDS = ".!?\n"


class AnswerWatch:
    """Feed streamed text with `feed(piece)`; `done` turns True once the first top-level JSON object
    has closed (when `json_answer`), or, in free text, at the first repeated sentence or long run of words
    (debate.content.sentences.LoopWatch: the protocol then keeps the text before the repeat), or, in a JSON
    answer, once one sentence has been repeated REPEAT_LIMIT times (a JSON answer cut before it closes
    would not be read, so it is given more rope)."""

    def __init__(self, json_answer: bool = False, repeat_limit: int = REPEAT_LIMIT) -> None:
        self.json_answer = json_answer
        self.repeat_limit = repeat_limit
        self.done = False
        self.reason = ""
        self._depth = 0
        self._in_str = False
        self._esc = False
        self._prev = ""  # the last non-space character of the answer
        self._sentence: list[str] = []
        self._seen: dict[int, int] = {}
        self.loops = None if json_answer else LoopWatch()

    def feed(self, piece: str) -> bool:
        """Consume the next streamed piece; returns `done`."""
        for ch in piece:
            if self.done:
                break
            if self.json_answer:
                self._json(ch)
                self._repeat(ch)
            elif self.loops is not None and self.loops.feed(ch):
                self.done, self.reason = True, "repetition"
        return self.done

    def _json(self, ch: str) -> None:
        prev = self._prev
        if not ch.isspace():
            self._prev = "\\" if self._in_str and self._esc else ch  # an escaped quote is text
        if self._in_str:
            if ch == "}" and prev == '"' and self._depth == 1 and not self._esc:
                # `"}` with the scan inside a string: small models leave quotes unescaped inside their
                # explanation ("it's a "study."}), which flips the strict string state; a quote right
                # before the closing brace of the top-level object ends the answer either way
                self._depth, self._in_str = 0, False
                self.done, self.reason = True, "json closed"
                return
            if self._esc:
                self._esc = False
            elif ch == "\\":
                self._esc = True
            elif ch == '"':
                self._in_str = False
            return
        if ch == '"' and self._depth > 0:
            self._in_str = True
        elif ch == "{":
            self._depth += 1
        elif ch == "}" and self._depth > 0:
            self._depth -= 1
            if self._depth == 0:
                self.done, self.reason = True, "json closed"

    def _repeat(self, ch: str) -> None:
        if ch not in _ENDS:
            if len(self._sentence) < 400:  # a sentence longer than this is not a loop we can see
                self._sentence.append(ch)
            return
        text = "".join(self._sentence).strip().lower()
        self._sentence.clear()
        if len(text) < REPEAT_MIN_CHARS:
            return
        key = hash(text)
        self._seen[key] = n = self._seen.get(key, 0) + 1
        if n >= self.repeat_limit:
            self.done, self.reason = True, "repetition"
