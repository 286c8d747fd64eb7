"""Model specs a person can type, and that round-trip: `backend:model[@base_url]`.

Examples: `local:qwen2.5-0.5b`, `local:/path/to/model.gguf`, `ollama:qwen3:8b`,
`ollama:llama3.1:8b@http://10.0.0.5:11434`, `openai:gpt-4o-mini`,
`openai:qwen@http://127.0.0.1:8000/v1`, `scripted:yes-bot`.
The backend is everything before the first colon; a base URL follows the last `@` when what follows
looks like a URL (model names such as `org/model@rev` stay intact).

A URL with a user name or password in it (`http://user:pw@host/v1`) is refused: a spec is stored with
every debate and shown on pages and in exports, so a secret in it would go everywhere (and split at its
last `@`, the password was read as part of a model name and sent to the default server). A key is
saved for its URL on the Models page instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from debate.errors import InvalidInput

BACKENDS = ("local", "ollama", "openai", "scripted", "human")  # human: a person plays the seat


@dataclass(frozen=True)
class ModelSpec:
    backend: str
    model: str
    base_url: str | None = None

    def __str__(self) -> str:
        s = f"{self.backend}:{self.model}"
        return f"{s}@{self.base_url}" if self.base_url else s

    @classmethod
    def parse(cls, text: str) -> "ModelSpec":
        text = (text or "").strip()
        if ":" not in text:
            raise InvalidInput(
                f"Model spec {text!r} has no backend.",
                f"Write it as backend:model, with backend one of {', '.join(BACKENDS)} "
                "(e.g. local:qwen2.5-0.5b, ollama:qwen3:8b, openai:gpt-4o-mini@http://127.0.0.1:8000/v1).",
            )
        backend, rest = text.split(":", 1)
        backend = backend.strip().lower()
        if backend not in BACKENDS:
            raise InvalidInput(f"Unknown backend {backend!r} in model spec {text!r}.",
                               f"Use one of: {', '.join(BACKENDS)}.")
        base_url = None
        at = min((i for i in (rest.find("@http://"), rest.find("@https://")) if i >= 0), default=-1)
        if at >= 0:
            refuse_credentials(rest[at + 1:], f"The server URL in model spec {_without_secret(text)!r}")
        if "@" in rest:
            head, tail = rest.rsplit("@", 1)
            if tail.startswith(("http://", "https://")):
                rest, base_url = head, tail.rstrip("/")
        if not rest.strip():
            raise InvalidInput(f"Model spec {text!r} names no model.", "Write backend:model, e.g. local:qwen2.5-0.5b.")
        return cls(backend, rest.strip(), base_url)


def refuse_credentials(url: str, what: str) -> None:
    """InvalidInput when `url` holds a user name or password (`http://user:pw@host`), naming `what`
    without them; see the module's docstring for why."""
    netloc = (url or "").strip().split("://", 1)[-1].split("/", 1)[0]
    if "@" in netloc:
        raise InvalidInput(f"{what} holds a user name or password.",
                           "Write the URL without them (e.g. http://HOST:PORT/v1) and save the key for that URL on "
                           "the Models page (or in OPENAI_API_KEY / OLLAMA_API_KEY).")


def _without_secret(text: str) -> str:
    """The spec with what stands between `://` and the host's `@` shown as `…`."""
    return re.sub(r"(://)[^/@\s]*@", r"\1…@", text)
