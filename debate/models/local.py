"""`local:` backend: llama.cpp in this process, over the packaged GGUF models or any `.gguf` path.

A model loads once per process (loading 500 MB per request would dwarf generation) and is shared by
every client; one lock per loaded model because a llama.cpp context is not thread-safe.

Speed on a few CPU cores (a live audience waits for every token) comes from asking llama.cpp for less:
- **Prefix reuse.** llama.cpp keeps the KV state of the tokens it evaluated last; a request whose prompt
  starts the same way (the few-shot block, the discussion so far, the same member prompt for every
  council member) evaluates only the new suffix. Floating-point results depend on how a prompt is cut
  into batches, so a reused prefix could change a seeded sampled draw (it did, in CI); `AlignedEval`
  therefore cuts every prompt at the same absolute positions (multiples of `ALIGN` tokens) whether or
  not a prefix is reused, and reuses only whole aligned blocks. Every answer, sampled or not, is then the
  same as from a fresh state (a test compares them with `DEBATE_PREFIX_REUSE=0`, which resets first).
- **Stop when the answer is complete** (`debate.models.stopping`): a JSON answer ends when its object
  closes; a free-text answer ends at its first repeated sentence or long run of words (a JSON one when
  one sentence repeats three times).
- **No copying an earlier turn** (`GenOptions.no_copy`, `debate.models.copyguard`): a token that would
  begin the word completing a run of n words (letters and digits, lower-cased, however tokens split them)
  of an earlier turn (another speaker's or the speaker's own) is banned at decode time, as is every token that spells the word's
  beginning, so the copy cannot go on spelled otherwise; runs of the claim and the evidence stay allowed. llama.cpp's own repeat penalty and DRY sampler do not serve
  here: both act on every token of the context (the claim and the evidence included, which a debater must
  be able to quote), and llama-cpp-python 0.3.36 exposes DRY only as a raw sampler, not in its chat API.
- **A budget kept kindly** (`GenOptions.grace_tokens`, `debate.models.stopping.KindEnd`): past
  `max_tokens` an argument may finish its sentence or paragraph within a bounded grace, and a
  grammar-constrained JSON answer closes its reason at a sentence end, with room kept for its label.
- **Figures whole** (`_StepRecorder._figure_step`): a sampled answer takes the most probable token inside
  a figure, so "$1.8 million" is not drawn as "$1. 8 million".
- **Keep an English task in English** (`GenOptions.script`): tokens with letters of another script are
  banned at decode time (a logits bias of -inf, ids computed once per model), not deleted afterwards.
- **One model at a time on the CPU.** llama.cpp's threads spin while they wait for each other, so two
  models generating at once on the same cores slow each other far more than taking turns
  (`cpu_slot`: one per `cores // n_threads`).

Label probabilities come from the next-token distribution, which a logits
processor reads while generating (the log-probability of every token that can begin a label), so no
`logits_all` buffer (n_ctx x vocab floats, what llama-cpp-python's own `logprobs` requires) is needed.
They are read at the position where the label is written (right after the answer's label key, e.g.
`[VERDICT]:`), and under greedy decoding the label written there is the most probable one of them, so
a turn's label and its probabilities cannot contradict each other (`LABEL_AT` names the cases).
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import math
import os
import threading
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

from debate.content.script import token_bytes_allowed
from debate.errors import ContextTooLong, DebateError, InvalidInput, ModelFileError, ModelNotFound
from debate.models import packaged
from debate.models.backends import BackendInfo
from debate.models.base import Backend, Chunk, Delta, Final, GenOptions, Message, ModelInfo
from debate.models.copyguard import DEFAULT_N, CopyGuard, OpeningGuard, WordIndex, Written, phrase_guards
from debate.models.labelprobs import (
    SLOT_TAIL,
    _fits,
    _label_mass,
    _matches,
    _shares,
    label_probs_from_positions,
    slot_pattern,
    spelled,
)
from debate.models.spec import ModelSpec
from debate.models.stopping import AnswerWatch, KindEnd

LABEL_SCAN_STEPS = 1024  # label positions searched among the first N generated tokens
_ROLES = ("system", "user", "assistant")


def check_request(messages: list[Message], options: GenOptions) -> None:
    """Refuse malformed requests before any backend sees them (shared by all backends)."""
    if not messages:
        raise InvalidInput("No messages to send to the model.", "Pass at least one user message.")
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in _ROLES or not isinstance(m.get("content"), str):
            raise InvalidInput(
                f"Message {i} is not a chat message: {str(m)[:80]!r}.",
                'Write each as {"role": "system"|"user"|"assistant", "content": "text"}.',
            )
    if int(options.max_tokens) < 1:
        raise InvalidInput(f"max_tokens must be at least 1, got {options.max_tokens}.", "Use e.g. 256.")
    if not 0 <= float(options.temperature) <= 2:
        raise InvalidInput(
            f"temperature must be between 0 and 2, got {options.temperature}.", "Use 0 for repeatable answers."
        )


# -- process-wide model cache ---------------------------------------------------------------------
_loaded: dict[tuple[str, int, int, str | None], tuple[Any, threading.Lock]] = {}
_load_lock = threading.Lock()


def load_llama(
    path: Path, n_ctx: int = 4096, n_threads: int = 2, chat_format: str | None = None
) -> tuple[Any, threading.Lock]:
    """The shared (Llama, lock) for a file, loading it on first use."""
    key = (str(Path(path).resolve()), n_ctx, n_threads, chat_format)
    with _load_lock:
        if key in _loaded:
            return _loaded[key]
        try:
            from llama_cpp import Llama
        except ImportError as e:
            raise DebateError(
                "llama-cpp-python is not installed, so local: models cannot run.",
                "Run `make run` (it builds llama-cpp-python with portable CPU flags).",
            ) from e
        try:
            llm = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                chat_format=chat_format,
                verbose=False,
                seed=0,
            )
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelFileError(
                f"llama.cpp could not load {path}: {e}.", "Check that the file is a complete GGUF model."
            ) from e
        _loaded[key] = (llm, threading.Lock())
        return _loaded[key]


def prefix_reuse() -> bool:
    """DEBATE_PREFIX_REUSE=0 resets llama.cpp's state before each request (the comparison baseline)."""
    return os.environ.get("DEBATE_PREFIX_REUSE", "1").strip().lower() not in ("0", "false", "off", "no")


_cpu_slots: dict[int, threading.BoundedSemaphore] = {}


def cpu_slot(n_threads: int) -> threading.BoundedSemaphore:
    """How many local models may compute at once: the cores divided by the threads each uses (at least
    one). Shared by every LocalBackend of the process."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    n = max(1, cores // max(1, n_threads))
    with _load_lock:
        if n not in _cpu_slots:
            _cpu_slots[n] = threading.BoundedSemaphore(n)
        return _cpu_slots[n]


def unload_all() -> None:
    with _load_lock:
        _loaded.clear()


_vocab_texts: dict[str, list[str]] = {}
_label_ids: dict[tuple[str, tuple[str, ...]], tuple[Any, list[str]]] = {}


def label_token_ids(llm: Any, key: str, labels: Sequence[str]) -> tuple[Any, list[str]]:
    """Ids and texts of every vocabulary token that can begin one of `labels` (cached per model)."""
    import numpy as np

    labs = tuple(lab.upper() for lab in labels)
    texts = vocab_texts(llm, key)
    with _load_lock:
        if (key, labs) not in _label_ids:
            ids = [i for i, t in enumerate(texts) if any(_matches(t, lab) for lab in labs)]
            _label_ids[(key, labs)] = (np.array(ids, dtype=np.int64), [texts[i] for i in ids])
        return _label_ids[(key, labs)]


_script_bans: dict[tuple[str, str], Any] = {}
_word_index: dict[str, WordIndex] = {}
_quote_ids: dict[str, Any] = {}


def vocab_texts(llm: Any, key: str) -> list[str]:
    """Every vocabulary token's text (cached per model; ~1 s once for a 150k vocabulary)."""
    with _load_lock:
        if key not in _vocab_texts:
            _vocab_texts[key] = [llm.detokenize([i]).decode("utf-8", errors="ignore") for i in range(llm.n_vocab())]
        return _vocab_texts[key]


def word_index(llm: Any, key: str) -> WordIndex:
    """The model's vocabulary as the copy guard's bans look it up (copyguard.WordIndex), cached per model."""
    texts = vocab_texts(llm, key)
    with _load_lock:
        if key not in _word_index:
            _word_index[key] = WordIndex(texts)
        return _word_index[key]


def copy_bans(llm: Any, key: str, go_on: set[str], start: set[str]) -> list[int]:
    """The ids of every token that would write a banned word or its rest, a beginning of it, or the word
    made longer (copyguard.WordIndex.ids). In no order: they index the scores to refuse."""
    return list(word_index(llm, key).ids(go_on, start))


def quote_token_ids(llm: Any, key: str) -> Any:
    """Ids of the tokens that begin with a double quote (what may close a JSON string), cached per model."""
    import numpy as np

    texts = vocab_texts(llm, key)
    with _load_lock:
        if key not in _quote_ids:
            _quote_ids[key] = np.array([i for i, t in enumerate(texts) if t.startswith('"')], dtype=np.int64)
        return _quote_ids[key]


def copy_guards(options: GenOptions) -> list[CopyGuard | OpeningGuard]:
    """The request's guards: one over the words of its protected and quotable texts (`no_copy`), one per
    length of the phrases it may never complete (`no_phrases`), one for the phrases it may not open with
    (`no_openings`)."""
    guard = CopyGuard(options.no_copy, options.quotable, int(options.no_copy_n or DEFAULT_N))
    guards: list[CopyGuard | OpeningGuard] = [guard, *fixed_guards(options.no_phrases, options.no_openings)]
    return [g for g in guards if g]


@functools.lru_cache(maxsize=16)
def fixed_guards(phrases: tuple[str, ...], openings: tuple[str, ...]) -> tuple[CopyGuard | OpeningGuard, ...]:
    """The guards of phrases never to write and openings never to open with: the same lists on every turn
    (the refusals of debate.content.substance), so built once, not per request. Guards are read-only once
    built: shared between turns and threads."""
    return (*phrase_guards(phrases), OpeningGuard(openings))


def text_fields(schema: dict[str, Any] | None) -> tuple[tuple[str, ...], int]:
    """The keys of `schema`'s free-text values (strings without an enum) and the least maxLength among them
    (0 when none sets one)."""
    props = ((schema or {}).get("properties") or {}).items()
    text = {k: v for k, v in props if isinstance(v, dict) and v.get("type") == "string" and "enum" not in v}
    lengths = [int(v["maxLength"]) for v in text.values() if v.get("maxLength")]
    return tuple(text), (min(lengths) if lengths else 0)


def script_banned_ids(llm: Any, key: str, script: str) -> Any:
    """Ids of every vocabulary token with letters outside `script` (debate.content.script), never the end
    token: computed once per model (~1 s for a 150k vocabulary) and cached, so each step only sets them
    to -inf."""
    import numpy as np

    with _load_lock:
        if (key, script) not in _script_bans:
            eos = int(llm.token_eos())
            ids = [i for i in range(llm.n_vocab()) if i != eos and not token_bytes_allowed(llm.detokenize([i]), script)]
            _script_bans[(key, script)] = np.array(ids, dtype=np.int64)
        return _script_bans[(key, script)]


class _StepRecorder:
    """Logits processor: counts prompt/completion tokens and, when labels are asked for, records the
    log-probability of every label-starting token at each step. Exact over the whole vocabulary and
    cheap (a max, a threshold and a gather), unlike a top-k over 150k logits per token.

    With a `watch` it also ends the answer once it is complete (its JSON closed, or it loops): it feeds
    the text of each accepted token to the AnswerWatch and, when that says done, leaves the end-of-
    generation token as the only choice. (llama-cpp-python's chat API takes no stopping criteria; a
    forced end token stops it the same way, with finish reason "stop".)"""

    def __init__(
        self,
        label_ids: Any = None,
        label_texts: list[str] | None = None,
        labels: Sequence[str] = (),
        threshold: float | None = None,
        key: str = "",
        greedy: bool = False,
        first: bool = False,
        spellings: Sequence[str] = (),
    ) -> None:
        self.ids = label_ids
        self.texts = label_texts or []
        # the label's own position: after `key` (or, with `first`, the first position where the labels hold
        # half the mass); under greedy decoding only the most probable label's tokens stay allowed there
        self.slot = slot_pattern(key) if key and self.texts and not first else None
        self.greedy = greedy
        self.first = first
        self.text = ""  # the answer so far (only tracked when a slot is looked for)
        self.chosen: list[str] = []  # the text of the token accepted at each step
        self.at: list[tuple[int, dict[str, float]]] = []  # (step, alternatives) where a label was written
        # threshold decoding (GenOptions.label_threshold): at the label's position, the label is the one
        # P(labels[0]) >= threshold gives, so any text after it argues for the vote that is counted
        self.threshold = threshold if threshold is not None and len(labels) == 2 and self.texts else None
        self.labels = [lab.upper() for lab in labels]
        self.names = spelled(self.labels)  # each label by its name alone (the threshold reads names)
        self.spell = spelled(labels, spellings)  # how each label may be written at its key
        self.decided = False
        self.prompt_tokens = 0
        self.steps = 0
        self.positions: list[dict[str, float]] = []
        self.watch: AnswerWatch | None = None
        self.llm: Any = None
        self.banned: Any = None  # token ids of other scripts: never generated (GenOptions.script)
        # another speaker's runs and the phrases never to write: never completed (GenOptions.no_copy, no_phrases)
        self.guards: list[CopyGuard | OpeningGuard] = []
        self.bans: Callable[[set[str], set[str]], list[int]] | None = None  # the guard's words -> the ids to ban
        self.written = Written()  # the answer's words so far (what the guard reads)
        self.utf8: Any = None  # an incremental decoder: a character split across tokens is read whole
        self.heard = 0  # how many of the answer's tokens `written` has read
        self.refused = 0  # steps where the guard banned a copy's next token
        self.kind: KindEnd | None = None  # the budget kept kindly (GenOptions.grace_tokens)
        self.quotes: Any = None  # ids of the tokens that may close a JSON string (for `kind`)
        self.max_tokens = 0  # the cap llama.cpp is given: the budget plus any grace (`_recorder`)
        self.figures = False  # sampled answers: a figure's digits and marks decoded greedily (`_figure_step`)
        self.tail = ""  # the answer's last two characters (what `_figure_step` reads)

    def __call__(self, input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]) -> npt.NDArray[np.single]:
        watched = self.watch is not None or self.slot is not None or self.kind is not None or self.figures
        if watched and self.steps > 0:
            new = input_ids[self.prompt_tokens + self.steps - 1 :]  # the token accepted since the last step
            piece = self.llm.detokenize(list(new)).decode("utf-8", errors="ignore") if len(new) else ""
            self.tail = (self.tail + piece)[-2:]
            if self.slot is not None:
                self.chosen.append(piece)
                self.text = (self.text + piece)[-SLOT_TAIL:]
            if self.kind is not None and piece:
                self.kind.feed(piece)
            if piece and self.watch is not None and self.watch.feed(piece):
                scores[:] = -math.inf
                scores[self.llm.token_eos()] = 0.0
                self.steps += 1
                return scores
        if self.steps == 0:
            self.prompt_tokens = len(input_ids)
        self.steps += 1
        if self.banned is not None and len(self.banned):
            scores[self.banned] = -math.inf  # before the labels are read: they are read as decoded
        if self.guards:
            gen = input_ids[self.prompt_tokens :]
            if self.heard < len(gen):  # one new token per step: linear over the answer
                self.written.feed(self.utf8.decode(self.llm.detokenize([int(t) for t in gen[self.heard :]])))
            self.heard = len(gen)
            go_on: set[str] = set()
            start: set[str] = set()
            for guard in self.guards:
                more_go_on, more_start = guard.banned(self.written)
                go_on |= more_go_on
                start |= more_start
            if go_on or start:
                assert self.bans is not None  # set together with the guard
                scores[self.bans(go_on, start)] = -math.inf
                self.refused += 1
        if self.ids is not None and len(self.ids) and len(self.positions) < LABEL_SCAN_STEPS:
            import numpy as np

            m = float(scores.max())
            near = scores[scores > m - 20.0]  # terms below e^-20 do not change log Z
            logz = m + math.log(float(np.exp(near - m, dtype=np.float64).sum()))
            lps = scores[self.ids] - logz
            pos: dict[str, float] = {}
            for j in np.flatnonzero(lps > -16.0).tolist():
                tok, lp = self.texts[j], float(lps[j])  # same text from two ids: add probabilities
                pos[tok] = float(np.logaddexp(pos[tok], lp)) if tok in pos else lp
            self.positions.append(pos)
            if self.threshold is not None and not self.decided or self.first and self.greedy and not self.decided:
                self._decide(scores, pos)
            elif self.slot is not None and self.slot.search(self.text):
                self._at_slot(scores, pos)
        if self.figures:
            self._figure_step(scores)
        if self.kind is not None:
            self._kindly(scores)
        return scores

    def _figure_step(self, scores: npt.NDArray[np.single]) -> None:
        """Inside a figure (the answer ends in a digit, or a digit and a "." or ","), a sampled answer takes
        the most probable token when that token goes on with the figure (a digit, a "." or a ","): a figure's
        digits are not a place for variety. Sampled at temperature 0.7, a debater once wrote the claim's
        "$1.8 million" as "$1. 8 million" (a space drawn after "1.", above min_p), and it and the other speaker
        then quoted it so for the rest of the debate. Read after the bans, so the greedy choice is one a guard
        allows; a step whose most probable token leaves the figure (a space, a word) is sampled as before."""
        import numpy as np

        t = self.tail
        if not t or not (t[-1].isdigit() or (len(t) == 2 and t[-1] in ".," and t[0].isdigit())):
            return
        top = int(np.argmax(scores))
        text = self.llm_text(top)
        if text[:1].isdigit() or text in (".", ","):
            keep = scores[top]
            scores[:] = -math.inf
            scores[top] = keep

    def _kindly(self, scores: npt.NDArray[np.single]) -> None:
        """Past the budget: the end token where the answer may end, a closing quote where a JSON answer's
        text must close (KindEnd)."""
        import numpy as np

        eos = int(self.llm.token_eos())

        def breaks() -> bool:
            top = int(np.argmax(scores))
            text = self.llm_text(top)
            return top == eos or not text or text[:1].isspace()

        what = self.kind.step(self.steps - 1, breaks) if self.kind is not None else ""
        if what == "end":
            scores[:] = -math.inf
            scores[eos] = 0.0
        elif what == "close" and self.quotes is not None and len(self.quotes):
            keep = scores[self.quotes].copy()
            scores[:] = -math.inf
            scores[self.quotes] = keep

    def _at_slot(self, scores: npt.NDArray[np.single], pos: dict[str, float]) -> None:
        """Right after the label key: when the label is about to be written here (the most probable token
        begins a label, or the labels hold half the mass), this is the label's position; greedy, only the
        most probable label's tokens stay allowed, so the label written is the argmax of what is read."""
        import numpy as np

        mass = _label_mass(pos, self.spell)
        top = int(np.argmax(scores))
        if sum(mass) < 0.5 and not any(_fits(self.llm_text(top), ways) for ways in self.spell):
            return
        self.at.append((len(self.positions) - 1, pos))
        if self.greedy:
            self._keep(scores, max(range(len(mass)), key=lambda i: mass[i]))

    def llm_text(self, token: int) -> str:
        return self.llm.detokenize([token]).decode("utf-8", errors="ignore") if self.llm is not None else ""

    def _decide(self, scores: npt.NDArray[np.single], pos: dict[str, float]) -> None:
        """At the first position where the labels hold at least half the mass (the position, and the
        mass, label_probs_from_positions(first=True) reads), keep only the label the threshold picks
        (two labels, a fitted threshold) or, greedy, the most probable one."""
        mass = _label_mass(pos, self.names)
        total = sum(mass)
        if total < 0.5:
            return
        if self.threshold is not None:
            win = 0 if mass[0] / total >= self.threshold else 1
        else:
            win = max(range(len(mass)), key=lambda i: mass[i])
        self._keep(scores, win)
        self.decided = True

    def _keep(self, scores: npt.NDArray[np.single], win: int) -> None:
        """Forbid every token that begins (a spelling of) another label and not this one."""
        lose = [
            j
            for j, tok in enumerate(self.texts)
            if not _fits(tok, self.spell[win]) and any(_fits(tok, ways) for ways in self.spell)
        ]
        if lose:
            scores[self.ids[lose]] = -math.inf

    def read(self, labels: Sequence[str], first: bool) -> tuple[dict[str, float] | None, str]:
        """(label probabilities, where they were read: a LABEL_AT key). At the last position where a label
        was written after the key (the parser reads the last `KEY: LABEL`), else the older rule."""
        done = [
            (i, pos)
            for i, pos in self.at
            if i >= len(self.chosen) or any(_fits(self.chosen[i], ways) for ways in self.spell)
        ]
        if done:
            return _shares(_label_mass(done[-1][1], self.spell), labels), "written" if self.greedy else "sampled"
        probs = label_probs_from_positions(self.positions, labels, first)
        if probs is None:
            return None, ""
        if first:
            return probs, "written" if self.greedy and self.decided else "first"
        return probs, "most-mass" if self.slot is not None else ""


class WarmAborted(Exception):
    """A warm-up gave way to a real request."""


# Real requests waiting for the CPU: a warm-up (LocalBackend.warm) never starts while one waits, and
# stops at its next block when one arrives, so evaluating ahead never delays a debate by more than a block.
_waiting = 0
_waiting_lock = threading.Lock()


_served = 0  # real requests started: a warm-up done before the last one is no longer in llama.cpp's state


def _real_request_waiting() -> bool:
    return _waiting > 0


def served() -> int:
    return _served


SLOTS = 4  # saved states per model (~12 kB per token for Qwen2.5-0.5B: a 2,000-token state is ~25 MB)
ALIGN = 64  # prompt block size: reuse granularity vs batch efficiency (64 costs ~10 % of prompt speed vs 512)


class AlignedEval:
    """Evaluates each prompt in blocks that start at multiples of ALIGN (absolute positions), and reuses
    only whole blocks a previous prompt evaluated the same way.

    Why: llama.cpp's logits for a token depend (in the last bits) on the batch it was evaluated in. Its
    own prefix reuse evaluates "whatever suffix is new", so the same prompt is cut differently after
    different histories, and a seeded sampled answer can change. With fixed cut points every token is
    always computed in the same batch at the same position over the same cached keys, so an answer does
    not depend on what the model was asked before. Installed on the Llama instance by wrapping `eval`:
    the first `eval` after `expect_prompt` is the prompt (llama-cpp-python's `generate` has already
    dropped the prefix it matched); later calls are single generated tokens and pass through."""

    def __init__(self, llm: Any) -> None:
        self.llm, self.inner = llm, llm.eval
        self.clean = 0  # tokens [0, clean) were evaluated in whole aligned blocks of a prompt
        self.body: tuple[int, ...] | None = None  # the last prompt but its final token, evaluated as below
        self.slots: list[tuple[tuple[int, ...], tuple[int, ...] | None, Any]] = []  # (clean prefix, body,
        # saved state), newest last
        self.pending = False
        self.reused = 0
        self.abort: Any = None  # a warm-up's "give way" check, asked between blocks
        llm.eval = self

    @classmethod
    def of(cls, llm: Any) -> AlignedEval:
        ev = getattr(llm, "eval", None)
        return ev if isinstance(ev, AlignedEval) else cls(llm)

    def expect_prompt(self) -> None:
        self.pending, self.reused = True, 0
        if hasattr(self.llm, "_requires_eval"):
            # never sample from logits left by an earlier request: the prompt's last token is always evaluated
            self.llm._requires_eval = True

    def __call__(self, tokens: Sequence[int]) -> None:
        """A prompt is always cut the same way: all but its last token in blocks ending at multiples of
        ALIGN (and at the end of that body), then the last token alone. So the same prompt again (the
        next council member's, or the real request after a warm-up) reuses everything but that token,
        and a prompt sharing a prefix reuses the whole blocks of it."""
        if not self.pending:
            self.inner(tokens)
            return
        self.pending = False
        llm = self.llm
        matched = int(llm.n_tokens)  # generate() matched these with the new prompt (0 after a reset)
        prompt = [int(t) for t in llm.input_ids[:matched]] + [int(t) for t in tokens]
        body = tuple(prompt[:-1])
        if self.body == body and matched >= len(body):
            start = len(body)
        else:
            start = min(matched, self.clean) // ALIGN * ALIGN
        if prefix_reuse():  # (without it the state was reset: a fresh start is the point)
            start = self._restore(prompt, body, start)
        llm.n_tokens = start  # the inner eval drops the cached state from here on
        self.reused = start
        if start < len(body):
            self.clean, self.body = start, None
        pos = start
        while pos < len(body):
            if self.abort is not None and self.abort():
                raise WarmAborted()  # the blocks evaluated so far stay cached (and clean)
            end = min((pos // ALIGN + 1) * ALIGN, len(body))
            self.inner(list(body[pos:end]))
            pos = end
            if pos % ALIGN == 0:
                self.clean = pos
        self.body = body
        if self.abort is not None and self.abort():
            raise WarmAborted()
        self.inner(prompt[-1:])
        return None

    # -- saved states: one per prompt family (members, chair, judge…) --------------------------------
    def save(self) -> None:
        """Keep the current state under its clean prefix, so a later prompt of the same family (the
        next round's member prompt after the chair spoke in between) reuses it. A saved prefix that
        the new one extends is dropped; at most SLOTS are kept, the least recently used go first."""
        if self.clean < 2 * ALIGN or not prefix_reuse():
            return
        key = tuple(int(t) for t in self.llm.input_ids[: self.clean])
        self.slots = [sl for sl in self.slots if not (len(sl[0]) <= len(key) and key[: len(sl[0])] == sl[0])]
        self.slots.append((key, self.body, _get_state(self.llm)))
        del self.slots[:-SLOTS]

    def _restore(self, prompt: list[int], body: tuple[int, ...], start: int) -> int:
        """Load the saved state that lets `prompt` skip the most (its whole body if a saved state read
        exactly that body, else its longest aligned prefix), if it beats the current state's `start`;
        the position to evaluate from."""
        best, best_i = start, None
        for i, (key, saved_body, _) in enumerate(self.slots):
            if saved_body == body:
                common = len(body)
            else:
                n = min(len(key), len(prompt) - 1)
                common = next((j for j in range(n) if key[j] != prompt[j]), n) // ALIGN * ALIGN
            if common > best:
                best, best_i = common, i
        if best_i is None:
            return start
        slot = self.slots.pop(best_i)
        self.slots.append(slot)
        key, saved_body, state = slot
        if not _set_state(self.llm, state):
            self.clean, self.body = 0, None
            return 0
        self.clean, self.body = len(key), saved_body
        return best


def _get_state(llm: Any) -> tuple[bytes, Any, int]:
    """llama.cpp's own state (the KV cache, ~12 kB per token here) with the tokens it holds. Not
    `Llama.save_state`, which also copies a logits buffer of n_batch x vocabulary floats (311 MB for
    Qwen2.5-0.5B, 0.5 s to save and 0.9 s to load); the last block of a prompt is always evaluated
    again, so no saved logits are ever needed."""
    import ctypes

    import llama_cpp

    size = int(llama_cpp.llama_state_get_size(llm._ctx.ctx))
    buf = (ctypes.c_uint8 * size)()
    n = int(llama_cpp.llama_state_get_data(llm._ctx.ctx, buf, size))
    return bytes(buf)[:n], llm.input_ids[: llm.n_tokens].copy(), int(llm.n_tokens)


def _set_state(llm: Any, state: tuple[bytes, Any, int]) -> bool:
    import ctypes

    import llama_cpp

    data, ids, n = state
    buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
    if int(llama_cpp.llama_state_set_data(llm._ctx.ctx, buf, len(data))) != len(data):
        llm.reset()  # could not restore: evaluate from the start (slower, never wrong)
        return False
    llm.input_ids[:n] = ids
    llm.n_tokens = n
    return True


class LocalBackend(Backend):
    name = "local"
    supports_logprobs = True
    supports_json_schema = True
    supports_prefill = True
    max_parallel = 1

    def __init__(self, n_ctx: int = 4096, n_threads: int = 2, models: Mapping[str, str] | None = None) -> None:
        """`models` names extra user .gguf files: {"my-model": "/path/to/file.gguf"}."""
        self.n_ctx = int(os.environ.get("DEBATE_N_CTX", n_ctx))
        self.n_threads = int(os.environ.get("DEBATE_N_THREADS", n_threads))
        self.user_models = {k: str(Path(v).expanduser()) for k, v in (models or {}).items()}

    def resolve(self, model: str) -> tuple[Path, str | None]:
        if model in packaged.CATALOGUE:
            entry = packaged.CATALOGUE[model]
            return packaged.ensure(entry), entry.chat_format
        path = Path(self.user_models.get(model, model)).expanduser()
        if path.suffix.lower() == ".gguf" or model in self.user_models:
            if not path.is_file():
                raise ModelFileError(
                    f"Model file {path} does not exist.",
                    "Give the full path of a .gguf file, e.g. local:/models/qwen.gguf.",
                )
            return path, None
        names = ", ".join(list(packaged.CATALOGUE) + list(self.user_models))
        raise ModelNotFound(
            f"No local model named {model!r}.",
            f"Use one of: {names}, or a path to a .gguf file (local:/path/model.gguf).",
        )

    def list_models(self) -> list[ModelInfo]:
        rows = []
        for m in packaged.CATALOGUE.values():
            st, why, path = packaged.status(m)
            rows.append(
                ModelInfo(
                    spec=f"local:{m.name}",
                    backend="local",
                    name=m.name,
                    status=st,
                    detail=why,
                    size_bytes=m.size,
                    license=m.license,
                    extra={
                        "title": m.title,
                        "path": str(path) if path else "",
                        "notes": m.notes,
                        "optional": m.optional,
                        # usable, but its file is put together (and hashed) by the first
                        # request that needs it: not ready to answer at once
                        "on_first_use": st == "ready" and why != "verified",
                    },
                )
            )
        for name, p in self.user_models.items():
            ok = Path(p).is_file()
            rows.append(
                ModelInfo(
                    spec=f"local:{name}",
                    backend="local",
                    name=name,
                    status="ready" if ok else "missing",
                    detail=p if ok else f"file {p} does not exist",
                    size_bytes=Path(p).stat().st_size if ok else None,
                    extra={"path": p},
                )
            )
        return rows

    def stream(self, model: str, messages: list[Message], options: GenOptions) -> Iterator[Chunk]:
        check_request(messages, options)
        return self._generate(model, messages, options)

    def context_window(self, model: str) -> int | None:
        return self.n_ctx  # every embedded model is loaded with the same window

    def warm(
        self, model: str, messages: list[Message], options: GenOptions, give_way: Callable[[], bool] | None = None
    ) -> bool:
        """Evaluate this request's prompt ahead of time (load the model, read its label vocabulary, fill
        llama.cpp's state), so the real request later re-evaluates at most its last block and its first
        token comes at once. Gives way to any real request: it does not start while one waits for the
        CPU, and stops at the next block boundary when one arrives. True if the whole prompt was read."""
        check_request(messages, options)
        stop: Callable[[], bool] = (
            (lambda: _real_request_waiting() or give_way()) if give_way else _real_request_waiting
        )
        if stop():
            return False
        try:
            for _ in self._generate(model, messages, replace(options, max_tokens=1, grace_tokens=0), warm=stop):
                pass
        except WarmAborted:
            return False
        return True

    def _generate(
        self, model: str, messages: list[Message], options: GenOptions, warm: Callable[[], bool] | None = None
    ) -> Iterator[Chunk]:
        """`warm`: this is a warm-up, which stops (WarmAborted) as soon as `warm()` says so."""
        path, chat_format = self.resolve(model)
        llm, lock = load_llama(path, self.n_ctx, self.n_threads, chat_format)
        with contextlib.ExitStack() as held:
            self._hold(held, lock, warm)
            aligned = AlignedEval.of(llm)
            if not prefix_reuse():
                llm.reset()
            aligned.expect_prompt()
            aligned.abort = warm
            rec = _recorder(llm, str(path), options)
            kwargs = _request(messages, options, rec)
            if options.prefill:
                kwargs = _continued(llm, kwargs, options.prefill)
            finish = yield from self._completion(llm, path, kwargs)
            aligned.save()
            probs, at = rec.read(options.labels, options.label_first) if options.labels else (None, "")
            yield Final(
                prompt_tokens=rec.prompt_tokens,
                completion_tokens=rec.steps,
                finish_reason=finish,
                label_probs=probs,
                model_id=path.name,
                prompt_reused_tokens=aligned.reused,
                label_at=at,
            )

    def _hold(self, held: contextlib.ExitStack, lock: threading.Lock, warm: Callable[[], bool] | None) -> None:
        """Take the CPU slot and the model's lock, released when `held` closes. A warm-up never queues
        behind anything (a busy CPU means a debate is running): WarmAborted instead."""
        global _waiting, _served
        if warm:
            for sem in (cpu_slot(self.n_threads), lock):
                if warm() or not sem.acquire(blocking=False):
                    raise WarmAborted()
                held.callback(sem.release)
            return
        with _waiting_lock:
            _waiting += 1
            _served += 1
        try:
            held.enter_context(cpu_slot(self.n_threads))
            held.enter_context(lock)
        finally:
            with _waiting_lock:
                _waiting -= 1

    def _completion(self, llm: Any, path: Path, kwargs: dict[str, Any]) -> Generator[Chunk, None, str]:
        """llama.cpp's streamed answer as Deltas; returns its finish reason. Its errors as typed ones."""
        finish = "stop"
        try:
            answer = llm.create_completion if "prompt" in kwargs else llm.create_chat_completion
            for chunk in answer(**kwargs):
                choice = chunk["choices"][0]
                text = choice["text"] if "text" in choice else choice.get("delta", {}).get("content")
                if text:
                    yield Delta(text)
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
        except ValueError as e:
            if "context window" in str(e) or "exceed" in str(e):
                raise ContextTooLong(
                    f"The prompt is too long for {path.name}: {e}.",
                    f"Shorten the messages, or raise n_ctx (now {self.n_ctx}; "
                    "set DEBATE_N_CTX or settings local.n_ctx).",
                ) from e
            raise DebateError(
                f"llama.cpp failed on {path.name}: {e}.", "Try a shorter prompt, other options, or another model."
            ) from e
        return finish


def _recorder(llm: Any, key: str, options: GenOptions) -> _StepRecorder:
    """The request's logits processor: label probabilities, the script ban, the answer watch, the copy
    guard and the kind budget, as `options` ask (its `max_tokens` is the cap llama.cpp is given)."""
    rec = (
        _StepRecorder(
            *label_token_ids(llm, key, (*options.labels, *options.label_spellings)),
            options.labels,
            options.label_threshold,
            options.label_key,
            float(options.temperature) == 0.0,
            options.label_first,
            options.label_spellings,
        )
        if options.labels
        else _StepRecorder()
    )
    rec.llm = llm
    # free text only: under a grammar the one token kept might be one the grammar refuses (llama.cpp then
    # aborts the process: "Unexpected empty grammar stack after accepting piece")
    rec.figures = float(options.temperature) > 0.0 and not options.json_schema
    if options.script:
        rec.banned = script_banned_ids(llm, key, options.script)
    if not options.json_schema:  # a grammar decides where a constrained answer may end
        rec.watch = AnswerWatch(json_answer=options.stop_after_json)
    if options.no_copy or options.no_phrases or options.no_openings:
        rec.guards = copy_guards(options)
        rec.bans = lambda go_on, start: copy_bans(llm, key, go_on, start)
        rec.utf8 = codecs.getincrementaldecoder("utf-8")(errors="ignore")
    rec.max_tokens = int(options.max_tokens)
    grace = max(0, int(options.grace_tokens or 0))
    # free text, or JSON under a grammar (which writes the label once its text is closed); a JSON
    # answer without one keeps the hard cap: closing its text would not make it close the object
    if grace and (options.json_schema or not options.stop_after_json):
        keys, chars = text_fields(options.json_schema)
        rec.kind = KindEnd(rec.max_tokens, grace, bool(options.json_schema), chars, keys)
        if options.json_schema:
            rec.quotes = quote_token_ids(llm, key)
        rec.max_tokens += grace
    return rec


def _request(messages: list[Message], options: GenOptions, rec: _StepRecorder) -> dict[str, Any]:
    """llama.cpp's chat-completion arguments for this request, `rec` as its logits processor."""
    # lazy, so loading counts in the caller's latency and runs inside the client's model slot
    from llama_cpp import LogitsProcessorList

    kwargs: dict[str, Any] = dict(
        messages=messages,
        temperature=options.temperature,
        max_tokens=rec.max_tokens,
        stop=list(options.stop) or None,
        stream=True,
        logits_processor=LogitsProcessorList([rec]),
    )
    if options.seed is not None:
        kwargs["seed"] = options.seed
    if options.json_schema:
        kwargs["response_format"] = {"type": "json_object", "schema": options.json_schema}
    return kwargs


def chat_formatter(llm: Any) -> Any:
    """llama-cpp-python's formatter of `llm`'s chat format (the GGUF's own template, or a named format such
    as "gemma"): messages -> the prompt text create_chat_completion would evaluate. None when the format has
    no formatter to call (a handler-only format)."""
    from llama_cpp import llama_chat_format as lcf

    name = str(llm.chat_format or "")
    if name.startswith("chat_template."):
        template = llm.metadata.get(
            "tokenizer." + name if name != "chat_template.default" else "tokenizer.chat_template"
        )
        if not template:
            return None
        eos, bos = llm.token_eos(), llm.token_bos()
        return lcf.Jinja2ChatFormatter(
            template=template,
            eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
            bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
            stop_token_ids=[eos],
        )
    return getattr(lcf, "format_" + name.replace("-", "_"), None)


def _continued(llm: Any, kwargs: dict[str, Any], prefill: str) -> dict[str, Any]:
    """The chat request as a completion of its formatted prompt followed by `prefill` (the answer's opening,
    GenOptions.prefill): the prompt is tokenized as the chat handler tokenizes it, so llama.cpp's state from
    the same prompt is reused, and the model goes on from the prefill's last character."""
    fmt = chat_formatter(llm)
    if fmt is None:
        raise DebateError(
            f"This model's chat format ({llm.chat_format}) cannot continue an answer already begun.",
            "Read the label afresh instead (no prefill).",
        )
    formatted = fmt(messages=kwargs.pop("messages"))
    prompt = llm.tokenize(
        (formatted.prompt + prefill).encode("utf-8"), add_bos=not formatted.added_special, special=True
    )
    stop = list(kwargs.get("stop") or [])
    if formatted.stop:
        stop += formatted.stop if isinstance(formatted.stop, list) else [formatted.stop]
    kwargs.pop("response_format", None)  # a grammar would start at the answer's first character, not here
    return {**kwargs, "prompt": prompt, "stop": stop or None}


def _make(spec: ModelSpec, s: dict[str, Any], guard: Any) -> Backend:
    return LocalBackend(n_ctx=int(s.get("n_ctx", 4096)), n_threads=int(s.get("n_threads", 2)), models=s.get("models"))


INFO = BackendInfo(
    "local", "Embedded (llama.cpp)", _make, "the packaged GGUF models, or any .gguf file, in this process"
)
