"""When to stop generating before the token cap: the answer's JSON has closed, or the text loops.

Small models keep writing after their JSON answer ("The tweet does not contain any evidence…" until the
256-token cap) and sometimes repeat one sentence over and over, inside a JSON answer too. Every such token costs the person
watching ~20 ms on 2 cores and changes nothing the protocol reads: the parsers read the first JSON
object, and a repeated sentence adds no argument. `AnswerWatch` is fed the text as it streams, in
linear time and constant memory per character (model text is hostile input: no regex backtracking,
no re-scan of what was already seen), and says when to stop.
"""

from __future__ import annotations

from debate.content.sentences import LoopWatch


class AnswerWatch:
    """Feed streamed text with `feed(piece)`; `done` turns True once the first top-level JSON object
    has closed (when `json_answer`), or at the first repeated sentence or long run of words
    (debate.content.sentences.LoopWatch). The protocol keeps the text before the repeat: an argument's
    words, or a JSON answer's words (its label is decoded before them, and the parser reads an object the
    stop left open)."""

    def __init__(self, json_answer: bool = False) -> None:
        self.json_answer = json_answer
        self.done = False
        self.reason = ""
        self._depth = 0
        self._in_str = False
        self._esc = False
        self._prev = ""  # the last non-space character of the answer
        self.loops = LoopWatch()

    def feed(self, piece: str) -> bool:
        """Consume the next streamed piece; returns `done`."""
        for ch in piece:
            if self.done:
                break
            if self.json_answer:
                self._json(ch)
            if not self.done and self.loops.feed(ch):
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
