"""`web`: a web search, then the result pages themselves, read and cut into passages.

Search: DuckDuckGo's HTML endpoint through ddgs's engine (its form payload and its result parsing),
needing no key; or Brave's or Tavily's API, or a self-hosted SearXNG, when the user saved a key or an
address for one (a key is sent only to the service it was saved for). ddgs scrapes a page meant for
browsers, which can change under it: that is why it sits behind the same health check as the others.

Pages: fetched with the bounded client (size and time capped, http/https only), main text extracted with
trafilatura; a page that cannot be read falls back to the search result's snippet. Each passage keeps
the page's URL, title, site and date.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from debate.retrieval.corpus import split_words
from debate.retrieval.sources import http
from debate.retrieval.sources.base import Hit, Source, SourceInfo, site_of

SEARCH_MAX_BYTES = 2_000_000
PASSAGES_PER_PAGE = 4


def _ddg_engine(settings, timeout_s: float):
    """ddgs's DuckDuckGo engine, its requests sent through the bounded client so a 429 is seen as one
    (the engine itself turns any non-200 answer into "no results")."""
    from ddgs.engines.duckduckgo import Duckduckgo

    class Bounded(Duckduckgo):
        def request(self, method, url, **kw):
            reply = http.request(
                "DuckDuckGo",
                method,
                url,
                timeout_s=timeout_s,
                max_bytes=SEARCH_MAX_BYTES,
                params=kw.get("params"),
                data=kw.get("data"),
                headers={"User-Agent": settings.user_agent()},
            )
            if "result" not in reply.text:  # a results page names its results (or says "no results") somewhere
                raise http.SourceError(
                    "DuckDuckGo answered with a page that has no results list (an error or block page).",
                    "Try again later, or set a Brave, Tavily or SearXNG source in the settings.",
                )
            return reply.text

    engine = Bounded(timeout=int(max(1, timeout_s)))
    engine.search_url = settings.ddg_url
    return engine


class WebSource(Source):
    name = "web"
    label = "Web search"

    @property
    def backend(self) -> str:
        s = self.settings
        return "brave" if s.brave_key else "tavily" if s.tavily_key else "searxng" if s.searxng_url else "duckduckgo"

    # -- search backends: each returns [(title, url, snippet, date)] -------------------------------
    def _results(self, query: str, n: int, timeout_s: float) -> list[tuple[str, str, str, str]]:
        s, backend = self.settings, self.backend
        if backend == "brave":
            data = http.request(
                "Brave Search",
                "GET",
                s.brave_url,
                params={"q": query, "count": str(n)},
                headers={"X-Subscription-Token": self._key("brave", "Brave Search"), "Accept": "application/json"},
                timeout_s=timeout_s,
                max_bytes=SEARCH_MAX_BYTES,
                keyed=True,
            ).json("Brave Search")
            rows = ((data.get("web") or {}).get("results") or []) if isinstance(data, dict) else []
            return [
                (
                    str(r.get("title", "")),
                    str(r.get("url", "")),
                    str(r.get("description", "")),
                    str(r.get("page_age") or r.get("age") or ""),
                )
                for r in rows
                if isinstance(r, dict)
            ]
        if backend == "tavily":
            data = http.request(
                "Tavily",
                "POST",
                s.tavily_url,
                json_body={"api_key": self._key("tavily", "Tavily"), "query": query, "max_results": n},
                timeout_s=timeout_s,
                max_bytes=SEARCH_MAX_BYTES,
                keyed=True,
            ).json("Tavily")
            rows = data.get("results") or [] if isinstance(data, dict) else []
            return [
                (
                    str(r.get("title", "")),
                    str(r.get("url", "")),
                    str(r.get("content", "")),
                    str(r.get("published_date") or ""),
                )
                for r in rows
                if isinstance(r, dict)
            ]
        if backend == "searxng":
            data = http.request(
                "SearXNG",
                "GET",
                s.searxng_url.rstrip("/") + "/search",
                params={"q": query, "format": "json"},
                timeout_s=timeout_s,
                max_bytes=SEARCH_MAX_BYTES,
            ).json("SearXNG")
            rows = data.get("results") or [] if isinstance(data, dict) else []
            return [
                (
                    str(r.get("title", "")),
                    str(r.get("url", "")),
                    str(r.get("content", "")),
                    str(r.get("publishedDate") or ""),
                )
                for r in rows
                if isinstance(r, dict)
            ]
        engine = _ddg_engine(s, timeout_s)
        try:
            found = engine.search(query) or []
        except http.SourceError:
            raise
        except Exception as e:  # noqa: BLE001 - ddgs's parser on a page it does not know
            raise http.SourceError(
                f"DuckDuckGo's answer could not be read ({type(e).__name__}).",
                "The page layout may have changed: set a Brave, Tavily or SearXNG source in the settings.",
            ) from None
        return [(r.title, r.href, r.body, "") for r in found]

    def _key(self, service: str, label: str) -> str:
        """The key bound to the service's address (SourceSettings.key_for), or SourceError before anything
        is sent: a key configured for one address never goes to another."""
        key = self.settings.key_for(service)
        if not key:
            where = site_of(getattr(self.settings, f"{service}_url")) or "this address"
            raise http.SourceError(
                f"The {label} key is saved for another address than {where}: not sent, the search is not made.",
                f"Save the key with this address (settings.json evidence_sources: {service}_url and "
                f"{service}_key, or keys by URL), or set DEBATE_EVIDENCE_{service.upper()}_URL beside "
                f"DEBATE_EVIDENCE_{service.upper()}_KEY.",
            )
        return key

    def _health_check(self) -> None:
        """A one-result search: a reachable page that is a block or error page does not count."""
        self._results("fact check", 1, min(self.timeout_s, 3.0))

    # -- pages --------------------------------------------------------------------------------------
    def read_page(self, url: str) -> tuple[str, dict]:
        """(main text, {title, site, date}); ("", {}) when the page cannot be read in time; ("",
        {"blocked": why}) when its address (or a redirect's) is not public."""
        import trafilatura

        try:
            http.readable_url(url)
            reply = http.request(
                site_of(url) or "a result page",
                "GET",
                url,
                timeout_s=self.timeout_s,
                max_bytes=int(self.settings.page_max_bytes),
                headers={"User-Agent": self.settings.user_agent()},
                guard=http.PageGuard(self.settings.allow_private_addresses),
            )
        except http.SourceBlocked as e:
            return "", {"blocked": e.message}
        except http.SourceError:
            return "", {}
        kind = reply.content_type.lower()
        if kind and "html" not in kind and "text/plain" not in kind:
            return "", {}  # a PDF or an image: the snippet stands in
        html = reply.text
        text = trafilatura.extract(html, url=reply.url, include_comments=False, include_tables=False) or ""
        meta = {}
        try:
            m = trafilatura.extract_metadata(html, default_url=reply.url)
            if m is not None:
                meta = {"title": m.title or "", "site": m.sitename or "", "date": m.date or ""}
        except Exception:  # noqa: BLE001 - metadata is a nicety; the text is what matters
            pass
        return text, meta

    def _unread(self, url: str) -> tuple[str, dict]:
        """A result past the pages read: its snippet stands in (nothing is fetched), unless its address
        is plainly not public: an IP literal or localhost, judged without a DNS lookup."""
        from urllib.parse import urlparse

        try:
            http.readable_url(url)
            host = (urlparse(url).hostname or "").lower()
        except http.SourceBlocked as e:
            return "", {"blocked": e.message}
        except ValueError:
            return "", {"blocked": http.UNREADABLE}
        if host == "localhost" or host.endswith(".localhost"):
            return "", {"blocked": f"Not fetched: {host} is a loopback name (this machine)."}
        what = None if host in self.settings.allow_private_addresses else http.address_problem(host)
        if what and what != "not an IP address":
            return "", {"blocked": f"Not fetched: {host} is {what}."}
        return "", {}

    def _search(self, query: str, n: int) -> list[Hit]:
        results = [
            r for r in self._results(query[:300], max(n, 5), self.timeout_s) if r[1].startswith(("http://", "https://"))
        ]
        pages = results[: max(0, int(self.settings.pages))]
        with ThreadPoolExecutor(max_workers=max(1, len(pages)), thread_name_prefix="web-page") as pool:
            read = list(pool.map(lambda r: self._read_one(r[1]), pages))
        hits: list[Hit] = []
        for i, (title, url, snippet, date) in enumerate(results[:n]):
            text, meta = read[i] if i < len(read) else self._unread(url)
            try:
                site = meta.get("site") or site_of(url)
            except ValueError:  # an address urllib cannot split (`http://[::1`): no passage from it
                meta = {"blocked": http.UNREADABLE}
            if meta.get("blocked"):  # no passage, not even the snippet: it is no public page
                hits.append(Hit(text="", source=self.name, title=title, url=url, skipped=meta["blocked"]))
                continue
            chunks = split_words(text)[:PASSAGES_PER_PAGE] if text else []
            if not chunks and snippet.strip():
                chunks = [" ".join(snippet.split())]
            for j, chunk in enumerate(chunks):
                hits.append(
                    Hit(
                        text=chunk,
                        source=self.name,
                        title=meta.get("title") or title,
                        url=url,
                        site=site,
                        date=meta.get("date") or date,
                        doc_id=url,
                        passage_id=f"{url}#{j}",
                    )
                )
        return hits

    def _read_one(self, url: str) -> tuple[str, dict]:
        """read_page for one result of many: whatever goes wrong with this page (an address or a redirect
        that no parser reads, a page that breaks the extractor) costs this result only, never the search."""
        try:
            return self.read_page(url)
        except ValueError:
            return "", {"blocked": http.UNREADABLE}
        except Exception:  # noqa: BLE001 - one hostile page must not empty the whole web source
            return "", {}


INFO = SourceInfo("web", "Web search", lambda settings, retriever: WebSource(settings), "web", "#1565c0")
