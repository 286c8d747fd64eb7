"""Builds the ModelClient everyone uses, and the list of every model a person could pick.

Settings (all optional; environment variables fill the gaps):

    {"local":  {"n_ctx": 4096, "n_threads": 2, "models": {"my-model": "/path/file.gguf"}},
     "ollama": {"host": "http://127.0.0.1:11434", "max_parallel": 2, "timeout_s": 300, "num_ctx": 8192,
                "api_key": "...", "keys": {"http://host:11434": "..."}},
     "openai": {"base_url": "...", "api_key": "...", "keys": {"http://host:8000/v1": "..."},
                "max_parallel": 4, "timeout_s": 120, "retries": 3}}

A key goes only to the base URL it was saved for (openai_backend.key_for, ollama_backend.key_for), and so
do OPENAI_ORG_ID / OPENAI_PROJECT_ID (the transport strips what the SDKs add from the environment).

Backends are created on first use from the spec, so `openai:qwen@http://127.0.0.1:8000/v1` and
`ollama:llama3.1:8b@http://10.0.0.5:11434` work without any settings. Listing never raises: a backend
that is down becomes a row saying why.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from debate import config
from debate.errors import DebateError, InvalidInput
from debate.models.base import HEALTH_TIMEOUT_S, Backend, ModelInfo
from debate.models.client import ModelClient
from debate.models.spec import ModelSpec, server_url


def _section(settings: dict[str, Any] | None, name: str) -> dict[str, Any]:
    s = (settings or {}).get(name) or {}
    if not isinstance(s, dict):
        raise InvalidInput(
            f"Settings section {name!r} must be a mapping, got {type(s).__name__}.",
            f'Write it as {{"{name}": {{...}}}}.',
        )
    return s


def _checked(spec: ModelSpec, section: dict[str, Any], field: str, setting: str, env: str, what: str) -> str | None:
    """The URL a backend is made for (the spec's, else the settings', else the environment's), refused
    when it holds a user name or password, saying where it came from (spec.py's docstring says why)."""
    if spec.base_url:
        return spec.base_url  # ModelSpec.parse already refused one with a password
    if section.get(field):
        return server_url(section[field], f"{what} in the settings ({setting}, Models page)")
    return server_url(os.environ.get(env), f"{what} in {env}")


def make_backend(
    spec: ModelSpec, settings: dict[str, Any] | None = None, *, from_page: bool = False, allow: tuple[str, ...] = ()
) -> Backend:
    """A backend instance for a spec (its base URL, if any, overrides the settings). `from_page`: the spec
    was typed on a page, so its base URL may name only a server the presenter configured or a public
    address (reach.py; `allow`: exact addresses let through anyway, for tests' loopback stand-ins)."""
    guard = None
    if from_page and spec.base_url and spec.backend in ("ollama", "openai"):
        from debate.models.reach import page_guard

        guard = page_guard(spec.base_url, settings, allow)
    if spec.backend == "local":
        from debate.models.local import LocalBackend

        s = _section(settings, "local")
        return LocalBackend(
            n_ctx=int(s.get("n_ctx", 4096)), n_threads=int(s.get("n_threads", 2)), models=s.get("models")
        )
    if spec.backend == "ollama":
        from debate.models.ollama_backend import DEFAULT_NUM_CTX, OllamaBackend
        from debate.models.ollama_backend import key_for as ollama_key

        s = _section(settings, "ollama")
        host = _checked(spec, s, "host", "ollama.host", "OLLAMA_HOST", "The Ollama host")
        return OllamaBackend(
            host,
            max_parallel=int(s.get("max_parallel", 2)),
            timeout_s=float(s.get("timeout_s", 300)),
            retries=s.get("retries"),
            url_in_spec=bool(spec.base_url),
            health_timeout_s=float(s.get("health_timeout_s", HEALTH_TIMEOUT_S)),
            api_key=ollama_key(host or "", s),  # a key only for the host it was saved for
            num_ctx=int(s.get("num_ctx", DEFAULT_NUM_CTX)),
            guard=guard,
        )
    if spec.backend == "openai":
        from debate.models.openai_backend import DEFAULT_BASE_URL, OpenAIBackend, key_for

        s = _section(settings, "openai")
        url = (
            _checked(spec, s, "base_url", "openai.base_url", "OPENAI_BASE_URL", "The OpenAI-compatible base URL")
            or DEFAULT_BASE_URL
        )
        return OpenAIBackend(
            url,
            key_for(url, s),  # a key only for the URL it was saved for
            max_parallel=int(s.get("max_parallel", 4)),
            timeout_s=float(s.get("timeout_s", 120)),
            retries=s.get("retries"),
            url_in_spec=bool(spec.base_url),
            json_format=s.get("json_format"),
            health_timeout_s=float(s.get("health_timeout_s", HEALTH_TIMEOUT_S)),
            guard=guard,
        )
    if spec.backend == "scripted":
        from debate.models.scripted import ScriptedBackend

        return ScriptedBackend(default=_section(settings, "scripted").get("default", "YES"))
    if spec.backend == "human":
        from debate.models.human import HumanBackend

        return HumanBackend()
    raise InvalidInput(f"Unknown backend {spec.backend!r}.", "Use local, ollama or openai.")


def default_client(
    settings: dict[str, Any] | None = None, cache: bool = True, *, from_page: bool = False, allow: tuple[str, ...] = ()
) -> ModelClient:
    """The client for the app, the CLI and batch runs (response cache on unless DEBATE_CACHE=0).

    Without explicit settings it reads the ones saved from the Models page, so a host or key set there
    also serves `python -m debate run|eval|models`. `from_page`: the app's client, whose specs come from
    pages (make_backend)."""
    from debate.models.cache import ResponseCache, enabled_by_env

    if settings is None:
        settings = config.load_settings()

    store = ResponseCache() if cache and enabled_by_env() else None
    client = ModelClient(
        backend_factory=lambda spec: make_backend(spec, settings, from_page=from_page, allow=allow), cache=store
    )
    client.settings = settings or {}  # read by known_models
    return client


BACKENDS = ("local", "ollama", "openai")


def known_models(
    source: ModelClient | dict[str, Any] | None = None, backends: tuple[str, ...] = BACKENDS
) -> list[ModelInfo]:
    """Every model per backend with its status: packaged (ready/missing), user .gguf files, Ollama's
    installed models, the OpenAI-compatible server's /models; a down backend is one row saying why.
    `backends` limits the listing (the app lists each backend in its own background thread)."""
    if isinstance(source, ModelClient):
        settings = getattr(source, "settings", {}) or {}
        get: Callable[[str], Backend] = lambda name: source.backend_for(ModelSpec(name, "-"))
    else:
        settings = config.load_settings() if source is None else source
        get = lambda name: make_backend(ModelSpec(name, "-"), settings)
    rows: list[ModelInfo] = []
    for name in backends:
        try:
            rows.extend(get(name).list_models())
        except DebateError as e:
            rows.append(ModelInfo(spec=f"{name}:", backend=name, name="", status="error", detail=str(e)))
        except Exception as e:  # noqa: BLE001 - listing must never take the page down
            rows.append(
                ModelInfo(spec=f"{name}:", backend=name, name="", status="error", detail=f"{type(e).__name__}: {e}")
            )
    return rows


def readiness(row: ModelInfo) -> str:
    """What a person should read about a model: "ready" only when it can answer at once; a packaged
    model whose file is assembled and verified by its first request reads "assembled on first use"."""
    if row.status == "ready" and (row.extra or {}).get("on_first_use"):
        return "assembled on first use"
    return row.status
