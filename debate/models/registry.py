"""Builds the ModelClient everyone uses, and the list of every model a person could pick.

Settings (all optional; environment variables fill the gaps):

    {"local":  {"n_ctx": 4096, "n_threads": 2, "models": {"my-model": "/path/file.gguf"}},
     "ollama": {"host": "http://127.0.0.1:11434", "max_parallel": 2, "timeout_s": 300, "num_ctx": 8192,
                "api_key": "...", "keys": {"http://host:11434": "..."}},
     "openai": {"base_url": "...", "api_key": "...", "keys": {"http://host:8000/v1": "..."},
                "max_parallel": 4, "timeout_s": 120, "retries": 3}}

A key goes only to the base URL it was saved for (openai_backend.key_for, ollama_backend.key_for), and so
do OPENAI_ORG_ID / OPENAI_PROJECT_ID (the transport strips what the SDKs add from the environment).

Backends are created on first use from the spec, each by its entry in the backends registry (backends.py), so `openai:qwen@http://127.0.0.1:8000/v1` and
`ollama:llama3.1:8b@http://10.0.0.5:11434` work without any settings. Listing never raises: a backend
that is down becomes a row saying why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from debate import config
from debate.errors import DebateError, InvalidInput
from debate.models import backends
from debate.models.base import Backend, ModelInfo
from debate.models.client import ModelClient
from debate.models.spec import ModelSpec


def _section(settings: dict[str, Any] | None, name: str) -> dict[str, Any]:
    s = (settings or {}).get(name) or {}
    if not isinstance(s, dict):
        raise InvalidInput(
            f"Settings section {name!r} must be a mapping, got {type(s).__name__}.",
            f'Write it as {{"{name}": {{...}}}}.',
        )
    return s


def make_backend(
    spec: ModelSpec, settings: dict[str, Any] | None = None, *, from_page: bool = False, allow: tuple[str, ...] = ()
) -> Backend:
    """A backend instance for a spec (its base URL, if any, overrides the settings), made by its entry in
    the backends registry (backends.py) from its settings section. `from_page`: the spec was typed on a
    page, so its base URL may name only a server the presenter configured or a public address (reach.py;
    `allow`: exact addresses let through anyway, for tests' loopback stand-ins)."""
    info = backends.get(spec.backend)
    guard = None
    if from_page and spec.base_url and info.server:
        from debate.models.reach import page_guard

        guard = page_guard(spec.base_url, settings, allow)
    made: Backend = info.make(spec, _section(settings, info.name), guard)
    return made


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


def known_models(
    source: ModelClient | dict[str, Any] | None = None, names: tuple[str, ...] | None = None
) -> list[ModelInfo]:
    """Every model per backend with its status: packaged (ready/missing), user .gguf files, Ollama's
    installed models, the OpenAI-compatible server's /models; a down backend is one row saying why.
    `names` limits the listing to those backends (the app lists each in its own background thread); None:
    every listed one (backends.listed)."""
    if isinstance(source, ModelClient):
        settings = getattr(source, "settings", {}) or {}
        get: Callable[[str], Backend] = lambda name: source.backend_for(ModelSpec(name, "-"))
    else:
        settings = config.load_settings() if source is None else source
        get = lambda name: make_backend(ModelSpec(name, "-"), settings)
    rows: list[ModelInfo] = []
    for name in backends.listed() if names is None else names:
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
