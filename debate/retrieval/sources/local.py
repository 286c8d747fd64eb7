"""`local`: the FAISS index on this machine (the bundled AVeriTeC corpus, or one the user built),
searched exactly as before. It is never cached on disk (the index is already local, and a cache would
go stale when the user adds documents) and never rate-limited."""

from __future__ import annotations

from debate.retrieval.sources.base import Hit, Source, SourceSettings, site_of
from debate.retrieval.sources.http import SourceError


class LocalSource(Source):
    name = "local"
    label = "Local index"
    online = False

    def __init__(self, retriever=None, settings: SourceSettings | None = None) -> None:
        super().__init__(settings, cache=False)
        if retriever is None:
            from debate.retrieval.retriever import default_retriever
            retriever = default_retriever()
        self.retriever = retriever
        self._rows: dict[str, int] = {}

    @property
    def ready(self) -> bool:
        return bool(getattr(self.retriever, "searchable", True))

    def _health_check(self) -> None:
        failed = getattr(self.retriever, "error", None)
        if failed is not None:
            raise SourceError(f"The local index could not be loaded: {failed}")

    def _row_of(self, vi, passage_id: str) -> int | None:
        if len(self._rows) != len(vi.passages):
            self._rows = {p.passage_id: i for i, p in enumerate(vi.passages)}
        return self._rows.get(passage_id)

    def _search(self, query: str, n: int) -> list[Hit]:
        found = self.retriever.search(query, k=n)
        vi = getattr(self.retriever, "_index", None)  # the loaded index holds every passage's vector
        hits = []
        for d in found:
            vec = None
            if vi is not None and getattr(vi, "vectors", None) is not None:
                row = self._row_of(vi, d.get("passage_id", ""))
                vec = vi.vectors[row] if row is not None else None
            url = str(d.get("source") or "")
            hits.append(Hit(text=str(d.get("text", "")), source=self.name, title=str(d.get("title") or ""),
                            url=url, site=site_of(url), date=str(d.get("date") or ""),
                            doc_id=str(d.get("doc_id") or ""), passage_id=str(d.get("passage_id") or ""),
                            score=d.get("score"), vector=vec))
        return hits
