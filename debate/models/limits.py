"""Client-side bounds on what a remote server may send for one answer.

A server is not trusted to honour max_tokens or to ever finish: one that streams without end would fill
the store with a row per token and the page with text to re-render, for ever. Every remote answer passes
through `capped`: at most `server_cap` text deltas (max_tokens, plus a JSON answer's grace; servers send about one token per delta) and
MAX_CHARS_PER_TOKEN characters per token, then it ends as a length-cut answer; and no longer than the
backend's timeout in all, then it fails with BackendTimeout (a read timeout alone never fires while a
server keeps dripping tokens).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from debate.errors import BackendTimeout
from debate.models.base import Chunk, Delta, Final, GenOptions

MAX_CHARS_PER_TOKEN = 32  # tokens of real text are far shorter; a delta of megabytes is not one token


def server_cap(options: GenOptions) -> int:
    """The token cap a server backend is given. A server cannot end an answer kindly as the embedded backend
    does (debate.models.stopping.KindEnd: a JSON answer's text closed at a sentence end, room kept for its
    label), so a JSON answer under a schema gets its grace as plain room: the schema's maxLength bounds its
    text, and its label comes after it. Cut at max_tokens, a small judge's reason (written first, so the label
    follows it) ran past a 64-token cap on an Ollama server, its repair too, and the debate had no verdict."""
    grace = max(0, int(options.grace_tokens or 0)) if options.json_schema else 0
    return options.max_tokens + grace


def capped(chunks: Iterator[Chunk], options: GenOptions, *, deadline_s: float, where: str) -> Iterator[Chunk]:
    """`chunks` with the answer bounded in tokens, characters and total time (see the module doc)."""
    n = chars = 0
    cap = server_cap(options)  # the cap the server was given (a JSON answer's grace included)
    max_chars = max(1, cap) * MAX_CHARS_PER_TOKEN
    t0 = time.monotonic()
    try:
        for chunk in chunks:
            if isinstance(chunk, Delta):
                if n >= cap or chars + len(chunk.text) > max_chars:
                    room = max(0, max_chars - chars) if n < cap else 0
                    if room:
                        yield Delta(chunk.text[:room])
                    yield Final(completion_tokens=n + bool(room), finish_reason="length")
                    return
                if time.monotonic() - t0 > deadline_s:
                    raise BackendTimeout(
                        f"{where} was still streaming one answer after {deadline_s:g} s.",
                        "Lower max_tokens, or raise the backend's timeout_s in settings.",
                    )
                n += 1
                chars += len(chunk.text)
            yield chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()  # stop reading: the server's connection is closed, not drained
