"""`local`: the FAISS index on this machine (the bundled AVeriTeC corpus, or one the user built),
searched exactly as before. It is never cached on disk (the index is already local, and a cache would
go stale when the user adds documents) and never rate-limited."""

from __future__ import annotations

from debate.retrieval.retriever import load_failure_note
from debate.retrieval.sources.base import Hit, Source, SourceInfo, SourceSettings, site_of
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

    @property
    def ready(self) -> bool:
        return bool(getattr(self.retriever, "searchable", True))

    def _health_check(self) -> None:
        unavailable = getattr(self.retriever, "unavailable", None)
        why = unavailable() if callable(unavailable) else ""
        if why:
            raise SourceError(why)
        failed = getattr(self.retriever, "error", None)
        if failed is not None:
            raise SourceError(load_failure_note(failed))

    def _found(self, query: str, n: int) -> list[tuple[dict, object]]:
        """(passage dict, its vector) by cosine, as Retriever.search ranks them; the query's vector
        comes from the ranking's memo, so the query is embedded once per debate, not twice."""
        import numpy as np

        from debate.retrieval.ranking import query_vector

        r = self.retriever
        if not hasattr(r, "load") or not hasattr(r, "_lock"):  # another retriever: its own search
            return [(d, None) for d in r.search(query, k=n)]
        vi = r.load()
        qvec = np.asarray(query_vector(query), dtype="float32")[None, :]
        with r._lock:  # faiss must not search while add() appends
            scores, rows = vi.search_vectors(qvec, n)
            pairs = [(int(i), float(s)) for i, s in zip(rows[0], scores[0]) if i >= 0]
            out = []
            for row, score in pairs:
                p = vi.passages[row]
                out.append(
                    (
                        {
                            "text": p.text,
                            "score": round(score, 4),
                            "source": p.source,
                            "title": p.title,
                            "date": p.date,
                            "doc_id": p.doc_id,
                            "passage_id": p.passage_id,
                        },
                        vi.vectors[row],
                    )
                )
        return out

    def _search(self, query: str, n: int) -> list[Hit]:
        hits = []
        for d, vec in self._found(query, n):
            url = str(d.get("source") or "")
            hits.append(
                Hit(
                    text=str(d.get("text", "")),
                    source=self.name,
                    title=str(d.get("title") or ""),
                    url=url,
                    site=site_of(url),
                    date=str(d.get("date") or ""),
                    doc_id=str(d.get("doc_id") or ""),
                    passage_id=str(d.get("passage_id") or ""),
                    score=d.get("score"),
                    vector=vec,
                )
            )
        return hits


INFO = SourceInfo("local", "Local index", lambda settings, retriever: LocalSource(retriever, settings), "local index")
