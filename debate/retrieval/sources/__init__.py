"""Evidence sources behind one interface (see base.Source), in one registry every list derives from:
`local`, `scholar`, `wikipedia`, `web`, and other packages' sources.

`names()` / `get(name)` / `registry()` give each source's SourceInfo (name, the title pickers show, the
badge a passage wears, and `make(settings, retriever)`, which builds the Source). The command line's
`--sources`, the Debate and Compare pages' source picker, MultiRetriever's default set and the passages'
badges read it. Each built-in source's module declares its own `INFO`; this package imports none of
them (`BUILT_IN` says where each lives, as an entry point does), so a source's module may import
anything of the retrieval package and naming a source loads only it. Sources of other packages join
through the entry-point group `debate.evidence_sources` (each entry point names a SourceInfo;
docs/architecture.md "Where new code goes"), or by `register(info)`.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from debate import plugins
from debate.errors import InvalidInput
from debate.retrieval.sources.base import Hit, Source, SourceInfo, SourceSettings
from debate.retrieval.sources.http import SourceError, SourceRateLimited, SourceTimeout, SourceTooLarge

ENTRY_POINT_GROUP = "debate.evidence_sources"
# each built-in source's SourceInfo, where it lives: loaded on first use, as an entry point is
BUILT_IN: dict[str, str] = {
    "local": "debate.retrieval.sources.local:INFO",
    "scholar": "debate.retrieval.sources.scholar:INFO",
    "wikipedia": "debate.retrieval.sources.wikipedia:INFO",
    "web": "debate.retrieval.sources.web:INFO",
}
SOURCES: dict[str, SourceInfo] = {}  # loaded so far: built-in and registered
FAILED: dict[str, str] = {}  # entry points that could not be loaded: name -> why
_entry_points_loaded = False


def register(info: SourceInfo) -> SourceInfo:
    """Adds an evidence source to the registry."""
    if not isinstance(info, SourceInfo):
        raise InvalidInput(
            f"An evidence source must be registered as a SourceInfo, not a {type(info).__name__}.",
            "Point the entry point at the module's INFO (e.g. my_pkg.toy_source:INFO).",
        )
    if not info.name or not info.name.isidentifier() or info.name != info.name.lower() or info.name == "auto":
        raise InvalidInput(
            f"Evidence source name {info.name!r} cannot be chosen.", "Use a lower-case word, e.g. mynotes."
        )
    if info.name in BUILT_IN or SOURCES.get(info.name, info) is not info:
        raise InvalidInput(f"An evidence source named {info.name!r} is already registered.", "Give yours another name.")
    SOURCES[info.name] = info
    return info


def _load_built_in(name: str) -> None:
    module, _, attr = BUILT_IN[name].partition(":")
    SOURCES[name] = getattr(importlib.import_module(module), attr)


def _load_entry_points() -> None:
    """Registers every source other installed packages declare; one that fails is logged and left out
    (a broken plug-in must not stop a debate), its error kept in FAILED."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    plugins.load_entry_points(ENTRY_POINT_GROUP, "evidence source", {*SOURCES, *BUILT_IN}, register, FAILED)


def names() -> tuple[str, ...]:
    """Every source one may ask for: the built-in ones, then other packages' (without loading any)."""
    declared = [ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)] if not _entry_points_loaded else []
    return tuple(dict.fromkeys([*BUILT_IN, *SOURCES, *declared]))


def registry() -> dict[str, SourceInfo]:
    """Every source, loaded, in order: the built-in ones, then other packages'."""
    for name in BUILT_IN:
        if name not in SOURCES:
            _load_built_in(name)
    _load_entry_points()
    return {name: SOURCES[name] for name in [*BUILT_IN, *SOURCES] if name in SOURCES}


def get(name: str) -> SourceInfo:
    """The source called `name` (loading only it, when it is a built-in one); InvalidInput saying which
    exist when none is."""
    name = (name or "").strip().lower()
    if name in BUILT_IN and name not in SOURCES:
        _load_built_in(name)
    if name not in SOURCES:
        _load_entry_points()
    info = SOURCES.get(name)
    if info is None:
        why = f" (its package failed to load: {FAILED[name]})" if name in FAILED else ""
        raise InvalidInput(f"Unknown evidence source {name!r}{why}.", f"Choose from: {', '.join(names())}.")
    return info


def parse_names(value: str | list[str] | None) -> list[str] | None:
    """ "web,scholar" -> ["web", "scholar"]; None/""/"auto" -> None (every source that answers)."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    chosen = [str(x).strip().lower() for x in items if str(x).strip()]
    if not chosen or chosen == ["auto"]:
        return None
    known = names()
    bad = [n for n in chosen if n not in known]
    if bad:
        raise InvalidInput(
            f"Unknown evidence source {', '.join(map(repr, bad))}.",
            f"Choose from: {', '.join(known)} (comma-separated), or auto for all that answer.",
        )
    return list(dict.fromkeys(chosen))


def make(name: str, settings: SourceSettings | None = None, retriever=None) -> Source:
    """The source `name`, built by its registry entry (`retriever`: the local index, for `local`)."""
    return get(name).make(settings, retriever)


__all__ = [
    "Hit",
    "Source",
    "SourceError",
    "SourceInfo",
    "SourceRateLimited",
    "SourceSettings",
    "SourceTimeout",
    "SourceTooLarge",
    "get",
    "make",
    "names",
    "parse_names",
    "register",
    "registry",
]
