"""`wikipedia`: the MediaWiki action API (api.php) through the bounded client: a full-text search,
then the plain-text introductions of the best pages in one request.

Introductions, not whole articles: `prop=extracts` returns several pages' text only with `exintro`,
and an article's lead is where Wikipedia states the facts a claim is usually about.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from debate.retrieval.corpus import split_words
from debate.retrieval.sources import http
from debate.retrieval.sources.base import Hit, Source, SourceInfo

MAX_BYTES = 2_000_000
PAGES = 3
_TAG = re.compile(r"<[^>]{0,200}>")


class WikipediaSource(Source):
    keywords = True  # a search over titles and abstracts: the claim's words, not its sentence
    name = "wikipedia"
    label = "Wikipedia"

    def _api(self, params: dict, timeout_s: float) -> dict:
        reply = http.request(
            self.label,
            "GET",
            self.settings.wikipedia_url,
            params={**params, "format": "json", "formatversion": "2"},
            timeout_s=timeout_s,
            max_bytes=MAX_BYTES,
            headers={"User-Agent": self.settings.user_agent()},
        )
        data = reply.json(self.label)
        if not isinstance(data, dict):
            raise http.SourceError(f"{self.label} answered with something other than a JSON object.")
        if "error" in data:
            info = data["error"].get("info", "") if isinstance(data["error"], dict) else str(data["error"])
            raise http.SourceError(f"{self.label} refused the query: {str(info)[:200]}")
        return data

    def _health_check(self) -> None:
        self._api({"action": "query", "meta": "siteinfo"}, min(self.timeout_s, 3.0))

    def page_url(self, title: str) -> str:
        base = self.settings.wikipedia_url.rsplit("/w/api.php", 1)[0]
        return f"{base}/wiki/{quote(title.replace(' ', '_'))}"

    def _search(self, query: str, n: int) -> list[Hit]:
        found = self._api(
            {"action": "query", "list": "search", "srsearch": query[:300], "srlimit": str(PAGES)}, self.timeout_s
        )
        results = (found.get("query") or {}).get("search") or []
        titles = [str(r.get("title")) for r in results if isinstance(r, dict) and r.get("title")][:PAGES]
        if not titles:
            return []
        texts = self._api(
            {
                "action": "query",
                "prop": "extracts|info",
                "exintro": "1",
                "explaintext": "1",
                "exlimit": str(len(titles)),
                "titles": "|".join(titles),
                "redirects": "1",
            },
            self.timeout_s,
        )
        pages = (texts.get("query") or {}).get("pages") or []
        if isinstance(pages, dict):  # formatversion=1 keys pages by id
            pages = list(pages.values())
        by_title = {str(p.get("title")): p for p in pages if isinstance(p, dict)}
        hits = []
        for r in results[:PAGES]:
            title = str(r.get("title") or "")
            page = by_title.get(title) or {}
            text = str(page.get("extract") or "").strip() or html.unescape(_TAG.sub("", str(r.get("snippet") or "")))
            for i, chunk in enumerate(split_words(text)[:3]):
                hits.append(
                    Hit(
                        text=chunk,
                        source=self.name,
                        title=title,
                        url=self.page_url(title),
                        site="wikipedia.org",
                        date=str(page.get("touched") or r.get("timestamp") or "")[:10],
                        doc_id=f"wikipedia/{r.get('pageid', title)}",
                        passage_id=f"wikipedia/{r.get('pageid', title)}#{i}",
                    )
                )
        return hits[:n]


INFO = SourceInfo("wikipedia", "Wikipedia", lambda settings, retriever: WikipediaSource(settings), color="#37474f")
