"""Model specs a person can type, and that round-trip: `backend:model[@base_url]`.

Examples: `local:qwen2.5-coder-0.5b`, `local:/path/to/model.gguf`, `ollama:qwen3:8b`,
`ollama:llama3.1:8b@http://10.0.0.5:11434`, `openai:gpt-4o-mini`,
`openai:qwen@http://127.0.0.1:8000/v1`, `scripted:yes-bot`.
The backend is everything before the first colon; a base URL follows the last `@` when what follows
looks like a URL (model names such as `org/model@rev` stay intact).

A URL with a user name or password in it (`http://user:pw@host/v1`) is refused: a spec is stored with
every debate and shown on pages and in exports, so a secret in it would go everywhere (and split at its
last `@`, the password was read as part of a model name and sent to the default server). A key is
saved for its URL on the Models page instead.

One spec names one server. To spread a model over several servers, a router in front of them (a LiteLLM
proxy, docs/several-servers.md) takes the requests at one URL; a spec or lineup entry that names several
(a list, or specs joined with `|`, as an older version read them) is refused with that advice, never read
as one odd model name.

The same holds for a server URL that does not come from a spec: a host or base URL in settings.json
(written by an older version, or by hand), OPENAI_BASE_URL, OLLAMA_HOST, a lineup's `--server`. Such a
URL is refused where a backend or server is made from it (`server_url`), not used-but-hidden: a backend
puts its URL into every error, health line, model list and cache key, and a debate stores what it ran
on, so one missed sink would show the password; refusing means no backend ever holds it. The refusal,
and any page that shows such a saved value (the Models page's settings form), show it through
`redacted`, which replaces the user name and password by `***`. The fix is always the same: write the
URL without them and save the key for it on the Models page (or OPENAI_API_KEY / OLLAMA_API_KEY).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from debate.errors import InvalidInput
from debate.models import backends


def _joined(text: str) -> bool:
    """`a|ollama:b`: several specs in one (any registered backend's name after the bar)."""
    return any(re.search(rf"\|\s*{re.escape(name)}:", text) for name in backends.names()) if "|" in text else False


def several_servers(what: str) -> InvalidInput:
    """The refusal of a spec or lineup entry naming several servers for one seat (see the module's docstring)."""
    return InvalidInput(
        f"{what} names several servers for one model; a seat talks to one URL.",
        "Put a router in front of the servers (e.g. a LiteLLM proxy, see docs/several-servers.md) "
        "and name its URL, e.g. openai:qwen3:8b@http://router:4000/v1 or --server "
        "openai@http://router:4000/v1.",
    )


@dataclass(frozen=True)
class ModelSpec:
    backend: str
    model: str
    base_url: str | None = None

    def __str__(self) -> str:
        s = f"{self.backend}:{self.model}"
        return f"{s}@{self.base_url}" if self.base_url else s

    @classmethod
    def parse(cls, text: str) -> ModelSpec:
        text = (text or "").strip()
        if _joined(text):
            raise several_servers(f"Model spec {redacted(text)[:200]!r}")
        if ":" not in text:
            raise InvalidInput(
                f"Model spec {text!r} has no backend.",
                f"Write it as backend:model, with backend one of {', '.join(backends.names())} "
                "(e.g. local:qwen2.5-coder-0.5b, ollama:qwen3:8b, openai:gpt-4o-mini@http://127.0.0.1:8000/v1).",
            )
        backend, rest = text.split(":", 1)
        backend = backend.strip().lower()
        if backend not in backends.names():
            raise InvalidInput(
                f"Unknown backend {backend!r} in model spec {text!r}.", f"Use one of: {', '.join(backends.names())}."
            )
        base_url = None
        at = min((i for i in (rest.find("@http://"), rest.find("@https://")) if i >= 0), default=-1)
        if at >= 0:
            refuse_credentials(rest[at + 1 :], f"The server URL in model spec {redacted(text)!r}")
        if "@" in rest:
            head, tail = rest.rsplit("@", 1)
            if tail.startswith(("http://", "https://")):
                rest, base_url = head, tail.rstrip("/")
        if not rest.strip():
            raise InvalidInput(
                f"Model spec {text!r} names no model.", "Write backend:model, e.g. local:qwen2.5-coder-0.5b."
            )
        model = rest.strip()
        if backend == "local":  # a packaged model's old name is read as its own (debate.models.packaged.ALIASES)
            from debate.models.packaged import canonical

            model = canonical(model)
        return cls(backend, model, base_url)


def names_model(specs: str, model: str) -> bool:
    """Whether `specs` (comma-separated model specs, e.g. "local:smollm2-135m", or names without their
    backend; "none" names none) names `model`: one matcher for every setting that lists models."""
    wanted = {w.strip().lower() for w in specs.split(",") if w.strip()} - {"none"}
    m = str(model).lower()
    return m in wanted or m.split(":", 1)[-1] in wanted


def refuse_credentials(url: str, what: str) -> None:
    """InvalidInput when `url` holds a user name or password (`http://user:pw@host`), naming `what`
    without them; see the module's docstring for why."""
    if has_credentials(url):
        raise InvalidInput(
            f"{what} holds a user name or password.",
            "Write the URL without them (e.g. http://HOST:PORT/v1) and save the key for that URL on "
            "the Models page (or in OPENAI_API_KEY / OLLAMA_API_KEY).",
        )


def has_credentials(url: str | None) -> bool:
    """Whether `url` (with or without a scheme: OLLAMA_HOST is often `host:port`) has a userinfo part."""
    netloc = (url or "").strip().split("://", 1)[-1]
    return "@" in re.split(r"[/?#]", netloc, maxsplit=1)[0]


def server_url(url: str | None, what: str) -> str | None:
    """`url` unchanged when it holds no user name or password; else InvalidInput naming `what` and the
    URL as `redacted` shows it (the module's docstring says why it is refused rather than hidden)."""
    if has_credentials(url):
        refuse_credentials(url or "", f"{what} ({redacted(url or '')})")
    return url


def settings_url(spec: ModelSpec, section: dict[str, Any], field: str, setting: str, env: str, what: str) -> str | None:
    """The URL a server backend is made for (the spec's, else the settings', else the environment's),
    refused when it holds a user name or password, saying where it came from (spec.py's docstring says why)."""
    if spec.base_url:
        return spec.base_url  # ModelSpec.parse already refused one with a password
    if section.get(field):
        return server_url(section[field], f"{what} in the settings ({setting}, Models page)")
    return server_url(os.environ.get(env), f"{what} in {env}")


# what stands between `://` and a host's `@`; quotes, brackets and backslashes end it, so that in JSON or
# HTML text the match never runs from one URL into the next string
_USERINFO = re.compile(r"(://)[^/?#@\s\"'<>\\]*@")
_BARE_USERINFO = re.compile(r"[^/?#@\s\"'<>\\:]+(:[^/?#@\s\"'<>\\]*)?@[^/?#@\s\"'<>\\]+(/\S*)?")


def redacted(text: str) -> str:
    """`text` (a URL, `host:port`, a spec ending in `@URL`, or JSON holding them) as a page, an export or a
    stored record may show it: a user name or password before a host replaced by `***` (`http://***@host:port/v1`)."""
    if not text or "@" not in text:  # the common case, e.g. every stored event read for a page
        return text or ""
    out = _USERINFO.sub(r"\1***@", text)
    if "://" not in text and _BARE_USERINFO.fullmatch(text):  # OLLAMA_HOST as `user:pw@host:port`
        out = "***@" + text.split("@", 1)[1]
    return out
