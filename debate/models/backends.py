"""The model backends, by the names a spec starts with: the one registry every list of backends derives from.

`registry()[name]` (or `get(name)`) is a BackendInfo: its title, whether it talks to a server at a URL (then a lineup's
`--server`, the lineup editor's "Run every seat on" box and a page's server check know it), whether its
models are listed (the Models page, `python -m debate models`, and a lineup's seats moved onto one
server), and `make(spec, section, guard)`, which builds the backend for a spec from its settings section
(`settings[name]`, a mapping, {} when absent). Spec parsing (spec.py), the client's backends
(registry.py), the lineup server (lineup_server.py), the Models page and the server box read it.

Each backend's module declares its own `INFO`; this module imports none of them (`BUILT_IN` says where
each lives, as an entry point does), so a backend may import anything of debate.models, spec.py included,
and parsing a spec loads no backend. Backends of other packages join through the entry-point group
`debate.backends` (each entry point names a BackendInfo; docs/architecture.md "Where new code goes"),
or by `register(info)`; they too are loaded on first use, not at import.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from debate import plugins
from debate.errors import InvalidInput

ENTRY_POINT_GROUP = "debate.backends"


@dataclass(frozen=True)
class BackendInfo:
    """One backend: `make(spec, section, guard)` builds it (`section`: the settings' mapping under its
    name; `guard`: for a `server` backend, the PageGuard every connection to a URL typed on a page goes
    through, else None)."""

    name: str  # what a spec starts with: `NAME:model`
    title: str  # how pages name it ("Ollama", "Embedded (llama.cpp)")
    make: Callable[[Any, dict[str, Any], Any], Any]  # (ModelSpec, settings section, guard) -> Backend
    one_line: str = ""
    server: bool = False  # talks to a server at a URL: `NAME:model@URL`, `--server NAME@URL`
    listed: bool = True  # its models are listed (Models page, `models`), and a lineup's seats may move onto a server
    url_example: str = ""  # a server's URL as a person would write it (placeholders, hints)


# each built-in backend's BackendInfo, where it lives: loaded on first use, as an entry point is
BUILT_IN: dict[str, str] = {
    "local": "debate.models.local:INFO",
    "ollama": "debate.models.ollama_backend:INFO",
    "openai": "debate.models.openai_backend:INFO",
    "scripted": "debate.models.scripted:INFO",
    "human": "debate.models.human:INFO",  # a person plays the seat
}
BACKENDS: dict[str, BackendInfo] = {}  # loaded so far: built-in and registered
# entry points and built-ins that could not be loaded: name -> why
FAILED: dict[str, str] = {}
_entry_points_loaded = False


def register(info: BackendInfo) -> BackendInfo:
    """Adds a backend to the registry."""
    if not isinstance(info, BackendInfo):
        raise InvalidInput(
            f"A backend must be registered as a BackendInfo, not a {type(info).__name__}.",
            "Point the entry point at the module's INFO (e.g. my_pkg.toy_backend:INFO).",
        )
    if not info.name or not info.name.isidentifier() or info.name != info.name.lower():
        raise InvalidInput(
            f"Backend name {info.name!r} cannot start a model spec.", "Use a lower-case word, e.g. mybackend."
        )
    if info.name in BUILT_IN or BACKENDS.get(info.name, info) is not info:
        raise InvalidInput(f"A backend named {info.name!r} is already registered.", "Give yours another name.")
    BACKENDS[info.name] = info
    return info


def _load_built_in(name: str) -> None:
    module, _, attr = BUILT_IN[name].partition(":")
    BACKENDS[name] = getattr(importlib.import_module(module), attr)


def _load_entry_points() -> None:
    """Registers every backend other installed packages declare; one that fails is logged and left out
    (a broken plug-in must not stop the app), its error kept in FAILED."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    plugins.load_entry_points(ENTRY_POINT_GROUP, "backend", {*BACKENDS, *BUILT_IN}, register, FAILED)


def names() -> tuple[str, ...]:
    """Every backend a spec may name: the built-in ones, then other packages' (without loading any)."""
    declared = [ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)] if not _entry_points_loaded else []
    return tuple(dict.fromkeys([*BUILT_IN, *BACKENDS, *declared]))


def registry() -> dict[str, BackendInfo]:
    """Every backend, loaded, in order: the built-in ones, then other packages'."""
    for name in BUILT_IN:
        if name not in BACKENDS:
            _load_built_in(name)
    _load_entry_points()
    return {name: BACKENDS[name] for name in [*BUILT_IN, *BACKENDS] if name in BACKENDS}


def get(name: str) -> BackendInfo:
    """The backend a spec names (loading only it, when it is a built-in one); InvalidInput saying which
    exist when none is called so."""
    name = (name or "").strip().lower()
    if name in BUILT_IN and name not in BACKENDS:
        _load_built_in(name)
    if name not in BACKENDS:
        _load_entry_points()
    info = BACKENDS.get(name)
    if info is None:
        why = f" (its package failed to load: {FAILED[name]})" if name in FAILED else ""
        raise InvalidInput(f"Unknown backend {name!r}{why}.", f"Use one of: {', '.join(names())}.")
    return info


def listed() -> tuple[str, ...]:
    """The backends whose models are listed, in registry order (local, ollama, openai, then others')."""
    return tuple(n for n, info in registry().items() if info.listed)


def servers() -> tuple[str, ...]:
    """The backends that talk to a server at a URL (ollama, openai, then others')."""
    return tuple(n for n, info in registry().items() if info.server)
