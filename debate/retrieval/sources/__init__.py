"""Evidence sources behind one interface (see base.Source): `local`, `scholar`, `wikipedia`, `web`."""

from __future__ import annotations

from debate.errors import InvalidInput
from debate.retrieval.sources.base import Hit, Source, SourceSettings
from debate.retrieval.sources.http import SourceError, SourceRateLimited, SourceTimeout, SourceTooLarge

NAMES = ("local", "scholar", "wikipedia", "web")
LABELS = {
    "local": "Local index",
    "scholar": "OpenAlex (scholarly works)",
    "wikipedia": "Wikipedia",
    "web": "Web search",
}


def parse_names(value: str | list[str] | None) -> list[str] | None:
    """ "web,scholar" -> ["web", "scholar"]; None/""/"auto" -> None (every source that answers)."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    names = [str(x).strip().lower() for x in items if str(x).strip()]
    if not names or names == ["auto"]:
        return None
    bad = [n for n in names if n not in NAMES]
    if bad:
        raise InvalidInput(
            f"Unknown evidence source {', '.join(map(repr, bad))}.",
            f"Choose from: {', '.join(NAMES)} (comma-separated), or auto for all that answer.",
        )
    return list(dict.fromkeys(names))


def make(name: str, settings: SourceSettings | None = None, retriever=None) -> Source:
    if name == "local":
        from debate.retrieval.sources.local import LocalSource

        return LocalSource(retriever, settings)
    if name == "scholar":
        from debate.retrieval.sources.scholar import ScholarSource

        return ScholarSource(settings)
    if name == "wikipedia":
        from debate.retrieval.sources.wikipedia import WikipediaSource

        return WikipediaSource(settings)
    if name == "web":
        from debate.retrieval.sources.web import WebSource

        return WebSource(settings)
    raise InvalidInput(f"Unknown evidence source {name!r}.", f"Choose from: {', '.join(NAMES)}.")


__all__ = [
    "Hit",
    "LABELS",
    "NAMES",
    "Source",
    "SourceError",
    "SourceRateLimited",
    "SourceSettings",
    "SourceTimeout",
    "SourceTooLarge",
    "make",
    "parse_names",
]
