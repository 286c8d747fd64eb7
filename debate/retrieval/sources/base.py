"""What every evidence source shares: a name, a health check, a time budget, a 429 back-off that
says so, and an on-disk cache keyed by the query.

A source turns a query into `Hit`s (text plus provenance). Ranking across sources, the relevance floor
and the E1..Ek numbering happen later (debate.retrieval.ranking), so a source never decides what the
agents see.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from debate import config
from debate.retrieval.sources.http import SourceError, SourceRateLimited

CACHE_TTL_S = 7 * 24 * 3600.0  # web results change; a week keeps re-runs of a debate reproducible
HEALTH_TTL_S = 60.0
NOT_LOADED = ("allow_private_addresses", "bound_keys")  # SourceSettings fields only code sets (see each field)
KEYED = ("brave", "tavily")  # the search services that take a key


@dataclass
class Hit:
    """One passage from one source, with where it came from."""

    text: str
    source: str  # the source's name: local | scholar | wikipedia | web
    title: str = ""
    url: str = ""
    site: str = ""
    date: str = ""
    query: str = ""
    doi: str = ""
    authors: str = ""
    venue: str = ""
    doc_id: str = ""
    passage_id: str = ""
    score: float | None = None  # the source's own score, when it has one (local: cosine)
    skipped: str = ""  # why this result gave no passage (e.g. its page is on a private address); text is ""
    vector: object = field(default=None, repr=False, compare=False)  # embedding the source already had

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("vector", None)
        return d


def site_of(url: str) -> str:
    host = urlparse(url or "").hostname or ""
    return host[4:] if host.startswith("www.") else host


@dataclass
class SourceSettings:
    """What the user set for the online sources (the Models page's settings file, or the environment).
    The `*_url` fields exist so a self-hosted mirror, or a test's loopback stand-in, can stand in for
    the public service."""

    contact_email: str = ""
    brave_key: str = ""
    tavily_key: str = ""
    searxng_url: str = ""
    openalex_url: str = "https://api.openalex.org"
    wikipedia_url: str = "https://en.wikipedia.org/w/api.php"
    ddg_url: str = "https://html.duckduckgo.com/html/"
    brave_url: str = "https://api.search.brave.com/res/v1/web/search"
    tavily_url: str = "https://api.tavily.com/search"
    timeout_s: float = 4.0
    pages: int = 3  # web result pages fetched and read per query
    page_max_bytes: int = 2_000_000
    # Result pages are read only from public addresses (http.PageGuard). The addresses listed here are let
    # through anyway: the tests' loopback stand-ins pass them. Never read from the settings file or the
    # environment, so no user inherits it unknowingly.
    allow_private_addresses: tuple[str, ...] = ()
    # The key each keyed service may be sent, when `load` read the keys from the settings file and the
    # environment: a key belongs to the address it was configured with (`key_for`). None: the fields were
    # set by code (a test's stand-in), which means them for each other.
    bound_keys: dict[str, str | None] | None = None

    @classmethod
    def load(cls, given: dict | None = None) -> SourceSettings:
        """From `given`, else the saved settings' "evidence_sources" object; DEBATE_EVIDENCE_<FIELD>
        environment variables fill what neither sets."""
        if given is None:
            try:
                given = dict(config.load_settings().get("evidence_sources") or {})
            except Exception:  # noqa: BLE001 - a broken settings file is reported by the Models page
                given = {}
        out = cls()
        for name in out.__dataclass_fields__:
            if name in NOT_LOADED:
                continue
            env = os.environ.get(f"DEBATE_EVIDENCE_{name.upper()}")
            value = given.get(name, env)
            if value in (None, ""):
                continue
            kind = type(getattr(out, name))
            try:
                setattr(out, name, kind(value))
            except (TypeError, ValueError):
                pass
        out.bound_keys = {service: out._bound_key(service, given) for service in KEYED}
        return out

    def _bound_key(self, service: str, given: dict) -> str | None:
        """The key `service` may be sent at the address it now has, as a model backend's key is bound
        (models.transport.saved_secret): one saved for that very address (`keys`, by URL), else the saved
        `<service>_key` when the address is the one saved beside it (or, with none saved, the
        environment's or the public service's), else DEBATE_EVIDENCE_<SERVICE>_KEY when the address is the
        environment's DEBATE_EVIDENCE_<SERVICE>_URL (or the public service's when that is unset). So a
        settings file naming another address cannot collect the environment's key, nor the other way."""
        from debate.models.transport import saved_secret

        env_url = os.environ.get(f"DEBATE_EVIDENCE_{service.upper()}_URL") or getattr(SourceSettings, f"{service}_url")
        keys = given.get("keys") if isinstance(given.get("keys"), dict) else None
        return saved_secret(
            getattr(self, f"{service}_url"),
            keys,
            given.get(f"{service}_key"),
            given.get(f"{service}_url") or env_url,
            os.environ.get(f"DEBATE_EVIDENCE_{service.upper()}_KEY"),
            env_url,
        )

    def key_for(self, service: str) -> str | None:
        """The key that may go to `service`'s address now set (see `bound_keys`); None: send none."""
        if self.bound_keys is not None:
            return self.bound_keys.get(service)
        return getattr(self, f"{service}_key", "") or None

    def user_agent(self) -> str:
        contact = f"; {self.contact_email}" if self.contact_email else ""
        return f"debate-viewer/1.0 (fact-checking research demo{contact})"

    def signature(self) -> str:
        """What changes a source's answers (never the keys themselves): part of the cache key."""
        public = {k: v for k, v in asdict(self).items() if not k.endswith("_key") and k != "bound_keys"}
        public["keys"] = sorted(k for k in ("brave_key", "tavily_key") if getattr(self, k))
        return json.dumps(public, sort_keys=True)


class DiskCache:
    """JSON files under <DEBATE_HOME>/evidence-cache/<source>/, one per (query, settings)."""

    def __init__(self, source: str, ttl_s: float = CACHE_TTL_S) -> None:
        self.source, self.ttl_s = source, ttl_s

    def _path(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
        return config.home() / "evidence-cache" / self.source / f"{digest}.json"

    def get(self, key: str) -> list[dict] | None:
        p = self._path(key)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != key or time.time() - data.get("at", 0) > self.ttl_s:
            return None
        return data.get("hits")

    def put(self, key: str, hits: list[dict]) -> None:
        p = self._path(key)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(
                json.dumps({"key": key, "at": time.time(), "hits": hits}, ensure_ascii=False), encoding="utf-8"
            )
            os.replace(tmp, p)
        except OSError:
            pass  # a read-only home only costs a fresh search next time


@dataclass(frozen=True)
class SourceInfo:
    """One evidence source in the registry (sources/__init__.py): `make(settings, retriever)` builds it
    (`retriever`: the local index, which only `local` reads)."""

    name: str  # what --sources and the pickers take
    title: str  # how the pickers name it
    make: Callable[[SourceSettings | None, Any], Source]
    badge: str = ""  # the short word on a passage's badge (default: the title)
    color: str = "#546e7a"  # the badge's colour (white text on it)


class Source:
    """Base class: subclasses set `name`/`label` and implement `_search` and `_health_check`."""

    name = "source"
    label = "Source"
    online = True
    keywords = False  # searched with the claim's keywords, not its sentence (a search engine of titles)

    def __init__(self, settings: SourceSettings | None = None, *, cache: bool = True) -> None:
        self.settings = settings or SourceSettings.load()
        self.timeout_s = float(self.settings.timeout_s)
        self.cache = DiskCache(self.name) if cache else None
        self.backoff_until = 0.0
        self._health: tuple[float, bool, str] | None = None
        self._lock = threading.Lock()

    # -- subclasses -----------------------------------------------------------------------------
    def _search(self, query: str, n: int) -> list[Hit]:
        raise NotImplementedError

    def _health_check(self) -> None:
        """Raise SourceError when the service does not answer."""
        raise NotImplementedError

    # -- shared behaviour -------------------------------------------------------------------------
    def health(self, fresh: bool = False) -> tuple[bool, str]:
        """(answers, why not): remembered for a minute, so a page load does not ping every service."""
        now = time.monotonic()
        if not fresh and self._health and now - self._health[0] < HEALTH_TTL_S:
            return self._health[1], self._health[2]
        try:
            self._health_check()
            ok, why = True, ""
        except SourceRateLimited as e:
            self._back_off(e)
            ok, why = True, e.message  # it answers; searches wait out the back-off
        except SourceError as e:
            ok, why = False, e.message
        except Exception as e:  # noqa: BLE001 - a health check never raises to the page
            ok, why = False, f"{self.label}: {type(e).__name__}: {e}"
        self._health = (now, ok, why)
        return ok, why

    def _back_off(self, e: SourceRateLimited) -> None:
        with self._lock:
            self.backoff_until = max(self.backoff_until, time.monotonic() + e.retry_after)

    def cache_key(self, query: str, n: int) -> str:
        return json.dumps([self.name, query.strip(), n, self.settings.signature()])

    def search(self, query: str, n: int = 10) -> tuple[list[Hit], str]:
        """(hits, how): how = "cache" or "live". Raises SourceError (a 429 starts the back-off, and
        while it lasts the source says so instead of asking the service again)."""
        key = self.cache_key(query, n)
        if self.cache is not None:
            got = self.cache.get(key)
            if got is not None:
                return [Hit(**h) for h in got], "cache"
        left = self.backoff_until - time.monotonic()
        if left > 0:
            raise SourceRateLimited(
                f"{self.label} is backing off after a 429 ({left:.0f} s left).",
                "It is asked again when the wait is over.",
                retry_after=left,
            )
        try:
            hits = self._search(query, n)
        except SourceRateLimited as e:
            self._back_off(e)
            raise
        for h in hits:
            h.query = h.query or query
        if self.cache is not None:
            self.cache.put(key, [h.to_dict() for h in hits])
        return hits, "live"
