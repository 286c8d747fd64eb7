"""Which servers a model spec typed on a page may reach.

A page takes model specs as text (`openai:m@http://HOST:PORT/v1`, the "Run every seat on" box, a saved
lineup), and the app then connects wherever the text says, from the presenter's machine: to a service on
127.0.0.1, on the local network or a cloud's metadata address, none of which the typist could reach
themselves, and the server's error text came back to the page. So the app's client (ui/resources.py)
lets a page name only:

- the servers the presenter configured: the Ollama host and OpenAI-compatible base URL in the settings
  (the Models page), every URL a key was saved for there (`ollama.keys`, `openai.keys`), OLLAMA_HOST and
  OPENAI_BASE_URL, and the defaults (Ollama on 127.0.0.1:11434, api.openai.com) -- compared by origin
  (scheme, host, port);
- any other address only through the guard web pages go through (retrieval.sources.http.PageGuard):
  public addresses only, checked when the backend is made (so the page says why at once) and at every
  connection, to the address checked (so a DNS answer that changes cannot swap in 127.0.0.1). Such a
  backend shows no server text in its errors ("failed with HTTP 500"), only the status.

The command line and batch runs are the presenter at their own terminal: they use `make_backend` without
this, as before.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlparse

from debate.errors import InvalidInput

DEFAULT_OLLAMA = "http://127.0.0.1:11434"


def _origin(url: str | None) -> tuple[str, str, int | None] | None:
    text = (url or "").strip()
    if not text:
        return None
    if "://" not in text:  # OLLAMA_HOST is often host:port
        text = "http://" + text
    p = urlparse(text)
    try:
        port = p.port or {"http": 80, "https": 443}.get(p.scheme.lower())
    except ValueError:
        return None
    host = (p.hostname or "").lower()
    if host in ("localhost", "0.0.0.0"):  # this machine, as OLLAMA_HOST often spells it
        host = "127.0.0.1"
    return (p.scheme.lower(), host, port) if host else None


def configured_origins(
    settings: Mapping[str, Any] | None, env: Mapping[str, str] | None = None
) -> set[tuple[str, str, int | None]]:
    """The origins of every server the presenter configured (see the module's docstring)."""
    from debate.models.openai_backend import DEFAULT_BASE_URL

    env = os.environ if env is None else env
    urls: list[Any] = [DEFAULT_OLLAMA, DEFAULT_BASE_URL, env.get("OLLAMA_HOST"), env.get("OPENAI_BASE_URL")]
    for name, field in (("ollama", "host"), ("openai", "base_url")):
        section = (settings or {}).get(name)
        if isinstance(section, Mapping):
            urls.append(section.get(field))
            keys = section.get("keys")
            if isinstance(keys, Mapping):
                urls.extend(keys)
    return {o for o in (_origin(str(u)) for u in urls if u) if o}


def page_guard(
    url: str, settings: Mapping[str, Any] | None, allow: Iterable[str] = (), env: Mapping[str, str] | None = None
) -> Any:
    """None when `url` is a server the presenter configured (connect as usual); else the PageGuard every
    connection to it must go through, after checking it now: InvalidInput when its address is not public,
    saying what to do."""
    from debate.retrieval.sources.http import PageGuard, SourceError

    origin = _origin(url)
    if origin is not None and origin in configured_origins(settings, env):
        return None
    guard = PageGuard(allow)
    if origin is None:
        raise InvalidInput(f"The server address {url[:200]!r} could not be read.", "Write it as http://HOST:PORT/v1.")
    try:
        guard.vetted(origin[1], origin[2] or 80)
    except SourceError as e:
        why = e.message.removeprefix("Not fetched: ").rstrip(".")
        raise InvalidInput(
            f"The server at {url[:200]} is not one configured for this app, and {why}: not contacted.",
            "A page may name only the servers set on the Models page (the Ollama host, the OpenAI-compatible "
            "base URL, a URL a key is saved for), in OLLAMA_HOST / OPENAI_BASE_URL, or a public address. "
            "Add it on the Models page first.",
        ) from None
    return guard
