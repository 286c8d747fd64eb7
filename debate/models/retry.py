"""Bounded retries with backoff for the moment a remote request is opened.

Only 429 and 5xx are worth retrying (the server may recover within seconds); a refused connection,
a bad key or an unknown model will not fix itself, so those fail at once with their own message.
Retries happen before the first token: once text has been streamed to a caller, repeating the
request would duplicate it, so a mid-stream failure is reported instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from debate.errors import RateLimited, ServerError

T = TypeVar("T")

RETRYABLE = (RateLimited, ServerError)


def attempts_default() -> int:
    return max(1, int(os.environ.get("DEBATE_RETRIES", "3")))


def call_with_retries(
    fn: Callable[[], T], *, attempts: int | None = None, initial_s: float = 0.5, max_s: float = 8.0
) -> T:
    """Run `fn` (which raises typed DebateErrors) up to `attempts` times on RateLimited/ServerError."""
    n = attempts or attempts_default()
    retrying = Retrying(
        stop=stop_after_attempt(n),
        wait=wait_exponential_jitter(initial=initial_s, max=max_s),
        retry=retry_if_exception_type(RETRYABLE),
        reraise=True,
    )
    try:
        return retrying(fn)
    except RETRYABLE as e:
        e.message = f"{e.message} (gave up after {n} attempts)"
        raise
