"""One ranking over the passages of every source: duplicates merged, BM25 (bm25s) and MiniLM cosine
fused by reciprocal rank fusion, a relevance floor, then MMR for diversity.

Why both: the embedder matches paraphrases but also ranks any passage about *a* number or *a* study
close to a claim with one; BM25 insists on the claim's own rare words (names, places, figures). RRF
combines their orders without having to make their scores comparable.

The floor is on the cosine, not on the fused score: RRF says which passage is better than another,
never whether any of them is about the claim at all. Passages under the floor never reach the agents;
the event keeps their scores so a reader can see what was turned away and why.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

from debate.retrieval.corpus import text_key

RRF_K = 60  # Cormack et al.'s constant: a low rank in one list still counts, a top rank does not dominate
# Chosen on AVeriTeC dev claims of even index (bench_sources.py): BM25 at full weight, or MMR at 0.7,
# cost the local index a tenth of its recall@5 of gold passages (a claim's gold passages resemble each
# other, which is what MMR penalises); at these values recall@5 and @20 are at least cosine's alone.
MMR_LAMBDA = 0.95
BM25_WEIGHT = 0.3
FLOOR_FILE = Path(__file__).with_name("floor.json")
_WORD = re.compile(r"[a-z0-9]+")


def default_floor() -> float | None:
    """The floor fitted on data (bench/bench_sources.py --fit-floor writes floor.json); None if absent."""
    try:
        return float(json.loads(FLOOR_FILE.read_text(encoding="utf-8"))["floor"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


_QUERY_CACHE: OrderedDict[str, object] = OrderedDict()
_QUERY_LOCK = threading.Lock()


def query_vector(query: str, embed_fn=None):
    """The query's embedding, remembered for the last few queries: the local source and the ranking
    both need it, and on 2 busy cores one MiniLM call costs more than the rest of a search."""
    from debate.retrieval import embed as embed_mod

    with _QUERY_LOCK:
        if embed_fn is None and query in _QUERY_CACHE:
            _QUERY_CACHE.move_to_end(query)
            return _QUERY_CACHE[query]
    vec = (embed_fn or embed_mod.embed)([query])[0]
    if embed_fn is None:
        with _QUERY_LOCK:
            _QUERY_CACHE[query] = vec
            while len(_QUERY_CACHE) > 64:
                _QUERY_CACHE.popitem(last=False)
    return vec


@dataclass
class Ranked:
    passages: list[dict] = field(default_factory=list)  # passing, best first, at most k
    rejected: list[dict] = field(default_factory=list)  # best few under the floor, with their scores
    floor: float | None = None
    candidates: int = 0
    duplicates: int = 0
    best_score: float | None = None


def merge_duplicates(hits: list) -> tuple[list, dict[int, list[str]], int]:
    """Hits whose normalised text is the same (a mirror, a repost, the same abstract from two
    sources) become one; `also[i]` lists the other sources that had hit i."""
    first: dict[str, int] = {}
    kept: list[Any] = []
    also: dict[int, list[str]] = {}
    dups = 0
    for h in hits:
        key = text_key(h.text)
        if not h.text.strip():
            continue
        if key in first:
            dups += 1
            i = first[key]
            if h.source != kept[i].source and h.source not in also.setdefault(i, []):
                also[i].append(h.source)
            continue
        first[key] = len(kept)
        kept.append(h)
    return kept, also, dups


def bm25_scores(query: str, texts: list[str]):
    """BM25 of the query against these texts (an index over the candidates only: corpus statistics of
    one claim's pool, which is what decides among them)."""
    import bm25s
    import numpy as np

    q = list(_WORD.findall(query.lower()))
    docs = [_WORD.findall(t.lower()) or ["_"] for t in texts]
    retriever = bm25s.BM25()
    retriever.index(docs, show_progress=False)
    if not q:
        return np.zeros(len(texts), dtype="float32")
    return np.asarray(retriever.get_scores(q), dtype="float32")


def _ranks(scores) -> npt.NDArray[np.float64]:
    import numpy as np

    order = np.argsort(-np.asarray(scores), kind="stable")
    ranks = np.empty(len(order), dtype="float64")
    ranks[order] = np.arange(1, len(order) + 1)
    return ranks


def mmr_order(rel, vecs, k: int, lambda_: float) -> list[int]:
    """Maximal marginal relevance over unit vectors `vecs` with relevances `rel`: trade relevance against
    similarity to the passages already picked, so near-repeats of one fact do not fill the pool."""
    import numpy as np

    chosen: list[int] = []
    best_sim = np.full(len(rel), -np.inf)
    for _ in range(min(k, len(rel))):
        penalty = np.where(np.isfinite(best_sim), best_sim, 0.0)
        score = lambda_ * rel - (1 - lambda_) * penalty
        score[chosen] = -np.inf
        i = int(np.argmax(score))
        chosen.append(i)
        best_sim = np.maximum(best_sim, vecs @ vecs[i])
    return chosen


def rank(
    query: str, hits: list, k: int, floor: float | None, *, embed_fn=None, mmr: bool = True, lambda_: float = MMR_LAMBDA
) -> Ranked:
    """The top-k passing passages as dicts (text and provenance plus `score` = cosine, `bm25`, `rrf`)."""
    import numpy as np

    from debate.retrieval import embed as embed_mod

    kept, also, dups = merge_duplicates(hits)
    out = Ranked(floor=floor, duplicates=dups, candidates=len(kept))
    if not kept:
        return out
    embed = embed_fn or embed_mod.embed
    missing = [i for i, h in enumerate(kept) if h.vector is None]
    qvec = np.asarray(query_vector(query, embed_fn), dtype="float32")
    fresh = embed([kept[i].text for i in missing]) if missing else []
    vecs = np.zeros((len(kept), len(qvec)), dtype="float32")
    for j, i in enumerate(missing):
        vecs[i] = fresh[j]
    for i, h in enumerate(kept):
        if h.vector is not None:
            vecs[i] = np.asarray(h.vector, dtype="float32")
    cos = vecs @ qvec
    bm = bm25_scores(query, [h.text for h in kept])
    rrf = 1.0 / (RRF_K + _ranks(cos)) + BM25_WEIGHT / (RRF_K + _ranks(bm))
    out.best_score = round(float(cos.max()), 4)

    def as_dict(i: int) -> dict:
        h = kept[i]
        d = h.to_dict()
        d.pop("score", None)
        d.update(
            origin=h.source,
            source=h.url,
            score=round(float(cos[i]), 4),
            bm25=round(float(bm[i]), 3),
            rrf=round(float(rrf[i]), 5),
        )
        if also.get(i):
            d["also_from"] = also[i]
        return d

    passing = [i for i in range(len(kept)) if floor is None or cos[i] >= floor]
    below = sorted((i for i in range(len(kept)) if floor is not None and cos[i] < floor), key=lambda i: -cos[i])
    out.rejected = [{key: as_dict(i)[key] for key in ("origin", "title", "url", "score", "text")} for i in below[:5]]
    for r in out.rejected:
        r["text"] = r["text"][:200]
    if not passing:
        return out
    passing.sort(key=lambda i: -rrf[i])
    if mmr and len(passing) > 1:
        rel = rrf[passing] / rrf[passing].max()
        order = mmr_order(rel, vecs[passing], k, lambda_)
        chosen = [passing[o] for o in order]
    else:
        chosen = passing[:k]
    out.passages = [as_dict(i) for i in chosen[:k]]
    return out
