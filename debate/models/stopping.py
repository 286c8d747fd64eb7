"""When to stop generating before the token cap: the answer's JSON has closed, or the text loops.

Small models keep writing after their JSON answer ("The tweet does not contain any evidence…" until the
256-token cap) and sometimes repeat one sentence over and over, inside a JSON answer too. Every such token costs the person
watching ~20 ms on 2 cores and changes nothing the protocol reads: the parsers read the first JSON
object, and a repeated sentence adds no argument. `AnswerWatch` is fed the text as it streams, in
linear time and constant memory per character (model text is hostile input: no regex backtracking,
no re-scan of what was already seen), and says when to stop.
"""

from __future__ import annotations

from collections.abc import Callable

from debate.content.sentences import LoopWatch, sentence_ends

JSON_RESERVE = 24  # tokens kept for what follows a JSON answer's text: `", "verdict": "HALF-TRUE"}` is ~10
TAIL = 80  # characters of the answer (or of the JSON string being written) a sentence end is looked for in


class AnswerWatch:
    """Feed streamed text with `feed(piece)`; `done` turns True once the first top-level JSON object
    has closed (when `json_answer`), or at the first repeated sentence or long run of words
    (debate.content.sentences.LoopWatch). The protocol keeps the text before the repeat: an argument's
    words, or a JSON answer's words (its label is decoded before them, and the parser reads an object the
    stop left open)."""

    def __init__(self, json_answer: bool = False, loops: bool = True) -> None:
        self.json_answer = json_answer
        self.check_loops = loops  # False: only follow the JSON (a grammar decides where the answer ends)
        self.done = False
        self.reason = ""
        self._depth = 0
        self._in_str = False
        self._esc = False
        self._prev = ""  # the last non-space character of the answer
        self._prev_outside = ""  # the last non-space character before the string being written
        self.loops = LoopWatch()
        self.string = ""  # the tail of the top-level string value being written ("" outside one)
        self.string_chars = 0  # its length so far
        self.key = ""  # the key of the value being written

    @property
    def in_string(self) -> bool:
        """Inside a string value of the top-level object (a reason, an explanation), not a key."""
        return self._in_str and self._depth == 1 and self._prev_outside == ":"

    def feed(self, piece: str) -> bool:
        """Consume the next streamed piece; returns `done`."""
        for ch in piece:
            if self.done:
                break
            if self.json_answer:
                self._json(ch)
            if not self.done and self.check_loops and self.loops.feed(ch):
                self.done, self.reason = True, "repetition"
        return self.done

    def _json(self, ch: str) -> None:
        prev = self._prev
        if self._in_str:
            self.string = (self.string + ch)[-TAIL:]
            self.string_chars += 1
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
                if self._prev_outside in "{,":
                    self.key = self.string[:-1]  # a key just closed: the value after it is its
            return
        if ch == '"' and self._depth > 0:
            self._in_str = True
            self._prev_outside = prev  # ':' before a value's opening quote, '{' or ',' before a key's
            self.string, self.string_chars = "", 0
        elif ch == "{":
            self._depth += 1
        elif ch == "}" and self._depth > 0:
            self._depth -= 1
            if self._depth == 0:
                self.done, self.reason = True, "json closed"


def at_sentence_end(text: str) -> bool:
    """`text` (a bounded tail) ends with a complete sentence: its end mark and closing quotes, then at most
    spaces. "3." counts (the next token decides whether it was "3.5": see KindEnd)."""
    t = text.rstrip(" \t")
    ends = sentence_ends(t)
    return bool(ends) and ends[-1] == len(t)


class KindEnd:
    """A token budget told to the model and kept kindly: where an answer may stop once it has used it.

    A budget that cuts an argument mid-sentence leaves a half-sentence to cut back (a shortened turn); one
    that cuts a judge's reason can cost the label after it. So the budget has a bounded grace:
    - free text: from `budget` tokens on, the answer ends at the first sentence end followed by a new word
      (the next token starts with a space or a line break, so "3.5" is not cut after "3.") or at a line
      break (the end of a paragraph or a list item), at most `grace` tokens later (then the hard cap,
      and the turn is shortened to its last full sentence as before);
    - a JSON answer under a grammar: its text value (a reason, one of `text_keys`) is closed at its first sentence end once
      it has used a quarter of `text_chars` (the schema's maxLength, which would otherwise cut it mid-word)
      or the budget less JSON_RESERVE; and closed whatever it says JSON_RESERVE tokens before the hard cap,
      so the grammar always has room to write the label after it.
    `step(steps, next_breaks)` says "" (go on), "end" (the end token next) or "close" (a closing quote next).
    """

    def __init__(
        self, budget: int, grace: int, json_answer: bool = False, text_chars: int = 0, text_keys: tuple[str, ...] = ()
    ) -> None:
        self.budget, self.hard = int(budget), int(budget) + max(0, int(grace))
        self.text_keys = text_keys  # the keys whose values are free text (never a label: closing one early
        # would write a label the grammar does not allow)
        self.json = AnswerWatch(json_answer=True, loops=False) if json_answer else None
        self.text_chars = int(text_chars or 0)
        self.tail = ""

    def feed(self, piece: str) -> None:
        self.tail = (self.tail + piece)[-TAIL:]
        if self.json is not None:
            self.json.feed(piece)

    def step(self, steps: int, next_breaks: Callable[[], bool]) -> str:
        """What the next token must be after `steps` tokens; `next_breaks()` says whether the most probable
        next token begins with white space or is the end token (asked only at a sentence end)."""
        if self.json is None:
            if steps < self.budget or not self.tail.strip():
                return ""
            if self.tail.endswith("\n") or (at_sentence_end(self.tail) and next_breaks()):
                return "end"
            return ""
        if self.json.done or not self.json.in_string or self.json.key not in self.text_keys:
            return ""
        if steps >= self.hard - JSON_RESERVE:
            return "close"
        long = self.text_chars and self.json.string_chars >= self.text_chars // 4
        if (long or steps >= self.budget - JSON_RESERVE) and at_sentence_end(self.json.string):
            return "close"
        return ""
