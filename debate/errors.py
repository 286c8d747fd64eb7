"""Typed failures with a message a person can act on.

Every error the engine raises on purpose is a DebateError: `message` says what happened and `hint`
says what to do about it. Backends translate SDK/HTTP exceptions into these at their boundary, so
pages and the command line can show `str(err)` and never a stack trace.
"""

from __future__ import annotations


class DebateError(Exception):
    """Base class: what happened (`message`) and what to do about it (`hint`)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()

    def to_dict(self) -> dict:
        return {"error": type(self).__name__, "message": self.message, "hint": self.hint}


class InvalidInput(DebateError):
    """A claim, parameter, spec or file given by the user is not usable."""


def checked_text(text: object, max_chars: int, what: str, empty_hint: str, long_hint: str) -> str:
    """A person's short text (a note, a reason) on one line, or InvalidInput saying what is wrong with it:
    it goes into prompts or exports, so it must say something and stay small."""
    out = " ".join(str(text or "").split())
    if not out:
        raise InvalidInput(f"{what} is empty.", empty_hint)
    if len(out) > max_chars:
        raise InvalidInput(f"{what} has {len(out):,} characters; at most {max_chars:,} are allowed.", long_hint)
    return out


class BackendUnavailable(DebateError):
    """The server behind a backend does not answer (not started, wrong host/port)."""


class ModelNotFound(DebateError):
    """The backend answers but does not have this model."""


class ModelFileError(DebateError):
    """A local model file is missing, incomplete or fails its SHA-256 check."""


class BackendTimeout(DebateError):
    """The backend took longer than the configured timeout."""


class ResponseTooLarge(DebateError):
    """A server sent more for one response than any answer needs (it does not end its answers)."""


class RateLimited(DebateError):
    """HTTP 429 after the bounded retries."""


class ServerError(DebateError):
    """HTTP 5xx after the bounded retries."""


class AuthError(DebateError):
    """Missing or rejected API key."""


class ContextTooLong(DebateError):
    """Prompt plus completion exceed the model's context window."""


class Cancelled(DebateError):
    """The user stopped the debate."""


class MemberFailed(DebateError):
    """One debater's model call failed: which member, on which backend, and the backend's own error.

    The debate ends there (a protocol never goes on with fewer members than it was given, so no verdict
    is a partial one); `error_name` keeps the cause's class so batch runs and the event file name the
    real failure (BackendUnavailable, ServerError, ...), not this wrapper."""

    def __init__(self, agent: str, model: str, cause: DebateError) -> None:
        self.agent = agent
        self.model = model
        self.backend = model.split(":", 1)[0] if ":" in model else model
        self.cause = cause
        self.error_name = type(cause).__name__
        super().__init__(f"Member {agent} ({model}, backend {self.backend}) failed: {cause.message}", cause.hint)


class StoreError(DebateError):
    """The SQLite store could not be read or written."""
