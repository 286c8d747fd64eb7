"""`scholar`: OpenAlex works (title, authors, venue, year, DOI, abstract) through pyalex.

pyalex builds the query (its `Works().search(...)` URL and parameter quoting) and rebuilds abstracts
from OpenAlex's inverted index (`Work["abstract"]`). The request itself goes through the bounded
client: pyalex's requests session has no timeout, and its URLs always name api.openalex.org, so the
configured base (a mirror or a test's stand-in) replaces that host. The contact e-mail goes in the
`mailto` parameter, which puts the requests in OpenAlex's polite pool.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from debate.retrieval.sources import http
from debate.retrieval.sources.base import Hit, Source, SourceInfo, site_of

MAX_BYTES = 3_000_000
SELECT = (
    "id,doi,display_name,title,publication_year,publication_date,authorships,primary_location,"
    "abstract_inverted_index,cited_by_count"
)


class ScholarSource(Source):
    keywords = True  # a search over titles and abstracts: the claim's words, not its sentence
    name = "scholar"
    label = "OpenAlex"

    def _url(self, query: str, n: int) -> tuple[str, dict]:
        import pyalex

        built = urlsplit(pyalex.Works().search(query).url)  # https://api.openalex.org/works?search=...
        base = self.settings.openalex_url.rstrip("/")
        params = {k: v[-1] for k, v in parse_qs(built.query).items()}  # pyalex's search parameter
        params.update({"per-page": str(n), "select": SELECT})
        if self.settings.contact_email:
            params["mailto"] = self.settings.contact_email
        return f"{base}{built.path}", params

    def _get(self, url: str, params: dict, timeout_s: float) -> dict:
        reply = http.request(
            self.label,
            "GET",
            url,
            params=params,
            timeout_s=timeout_s,
            max_bytes=MAX_BYTES,
            headers={"User-Agent": self.settings.user_agent()},
        )
        data = reply.json(self.label)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise http.SourceError(f"{self.label} answered without a results list.")
        return data

    def _health_check(self) -> None:
        url, params = self._url("fact checking", 1)
        self._get(url, params, min(self.timeout_s, 3.0))

    def _search(self, query: str, n: int) -> list[Hit]:
        import pyalex

        url, params = self._url(query, n)
        hits = []
        for raw in self._get(url, params, self.timeout_s)["results"][:n]:
            if not isinstance(raw, dict):
                continue
            work = pyalex.Work(raw)
            title = str(raw.get("display_name") or raw.get("title") or "").strip()
            try:
                abstract = work["abstract"] or ""
            except Exception:  # noqa: BLE001 - a malformed inverted index: the title alone still helps
                abstract = ""
            if not title and not abstract:
                continue
            authors = [
                str((a.get("author") or {}).get("display_name") or "")
                for a in (raw.get("authorships") or [])
                if isinstance(a, dict)
            ]
            loc = raw.get("primary_location") or {}
            venue = str(((loc.get("source") or {}) if isinstance(loc, dict) else {}).get("display_name") or "")
            doi = str(raw.get("doi") or "")
            link = doi or str((loc.get("landing_page_url") if isinstance(loc, dict) else "") or raw.get("id") or "")
            year = raw.get("publication_year")
            hits.append(
                Hit(
                    text=f"{title}. {abstract}".strip() if abstract else title,
                    source=self.name,
                    title=title,
                    url=link,
                    site=venue or site_of(link),
                    date=str(raw.get("publication_date") or year or ""),
                    doi=doi.removeprefix("https://doi.org/"),
                    authors=", ".join(a for a in authors[:6] if a) + (" et al." if len(authors) > 6 else ""),
                    venue=venue,
                    doc_id=str(raw.get("id") or ""),
                )
            )
        return hits


INFO = SourceInfo(
    "scholar", "OpenAlex (scholarly works)", lambda settings, retriever: ScholarSource(settings), "OpenAlex", "#6a1b9a"
)
