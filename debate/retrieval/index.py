"""A saved, reloadable faiss index over passages: exact inner product for small corpora, HNSW above
a size threshold (its recall@10 against exact search is measured at build time and saved).

On disk, <index_dir>/<name>/ holds meta.json (corpus fingerprint, model id, counts), passages.jsonl,
vectors.npy and index.faiss. A build writes a fresh folder and swaps it in, so a reader sees the old
index or the new one, never half of each. Vectors are kept beside the faiss index because MMR needs
them and because a rebuild after the corpus changed re-embeds only passages it has not seen.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import cast

from debate import config
from debate.errors import InvalidInput, StoreError
from debate.retrieval import embed as embed_mod
from debate.retrieval.corpus import Document, Passage, corpus_fingerprint, to_passages

FORMAT_VERSION = 1
DEFAULT_EXACT_MAX = 50_000
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 128

EmbedFn = Callable[[list[str]], "object"]  # texts -> float32 (n, dim), normalised


def exact_max() -> int:
    return int(os.environ.get("DEBATE_INDEX_EXACT_MAX", DEFAULT_EXACT_MAX))


def check_name(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", name or ""):
        raise InvalidInput(
            f"Index name {name!r} is not usable.",
            "Use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.",
        )
    return name


def index_path(name: str) -> Path:
    return config.index_dir() / check_name(name)


_faiss_ready = False


def _faiss():
    """faiss, imported on first use (the app must start fast). It runs on DEBATE_FAISS_THREADS
    OpenMP threads, default 1: searches are single queries made while local LLMs hold the cores, and
    there two spinning OpenMP threads were 3x slower than one (100k flat: p50 48 ms vs 18 ms)."""
    global _faiss_ready
    import faiss

    if not _faiss_ready:
        faiss.omp_set_num_threads(max(1, int(os.environ.get("DEBATE_FAISS_THREADS", "1"))))
        _faiss_ready = True
    return faiss


def make_faiss_index(vectors, limit: int | None = None):
    """IndexFlatIP up to `limit` vectors (exact), IndexHNSWFlat above (approximate, no training)."""
    faiss = _faiss()
    dim = vectors.shape[1]
    limit = exact_max() if limit is None else limit
    if len(vectors) <= limit:
        index = faiss.IndexFlatIP(dim)
    else:
        index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.hnsw.efSearch = HNSW_EF_SEARCH
    if len(vectors):
        if index_kind(index) == "hnsw":  # a rare, long build: worth all cores, unlike a single query
            faiss.omp_set_num_threads(os.cpu_count() or 1)
            try:
                index.add(vectors)
            finally:
                faiss.omp_set_num_threads(max(1, int(os.environ.get("DEBATE_FAISS_THREADS", "1"))))
        else:
            index.add(vectors)
    return index


def index_kind(index) -> str:
    return "hnsw" if hasattr(index, "hnsw") else "flat"


def recall_at_k(index, vectors, queries, k: int = 10) -> float:
    """Share of the exact top-k that `index` also returns, averaged over queries."""
    faiss = _faiss()
    exact = faiss.IndexFlatIP(vectors.shape[1])
    exact.add(vectors)
    k = min(k, len(vectors))
    _, truth = exact.search(queries, k)
    _, got = index.search(queries, k)
    hits = sum(len(set(t) & set(g)) for t, g in zip(truth.tolist(), got.tolist()))
    return hits / (k * len(queries)) if len(queries) else 1.0


def probe_queries(vectors, n: int = 200, seed: int = 0):
    """Queries near but not on stored vectors (noisy copies): an exact hit on a stored vector would
    make any graph look perfect."""
    import numpy as np

    rng = np.random.default_rng(seed)
    pick = rng.choice(len(vectors), size=min(n, len(vectors)), replace=False)
    q = vectors[pick] + rng.normal(0, 0.6 / np.sqrt(vectors.shape[1]), size=(len(pick), vectors.shape[1]))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q.astype("float32")


class VectorIndex:
    """Passages, their vectors and the faiss index over them, as loaded from or saved to disk."""

    def __init__(self, name: str, passages: list[Passage], vectors, meta: dict, index=None) -> None:
        self.name = name
        self.passages = passages
        self.vectors = vectors
        self.meta = meta
        self.index = index if index is not None else make_faiss_index(vectors, meta.get("exact_max"))
        self.meta.update(self._counts())

    def __len__(self) -> int:
        return len(self.passages)

    def _counts(self) -> dict:
        return {
            "passages": len(self.passages),
            "index_type": index_kind(self.index),
            "fingerprint": corpus_fingerprint(self.passages),
        }

    @property
    def directory(self) -> Path:
        return index_path(self.name)

    def search_vectors(self, queries, k: int):
        """(scores, rows) for each query; rows of -1 (HNSW shortfall) are dropped by callers."""
        return self.index.search(queries, min(k, len(self.passages)))

    # ---- growing the index -------------------------------------------------------------------
    def add(
        self,
        items: Iterable[Document | Passage],
        embed_fn: EmbedFn | None = None,
        max_words: int | None = None,
        overlap: int | None = None,
    ) -> int:
        """Embed and append passages the index does not hold yet; returns how many were added.
        Crossing the exact/approximate threshold rebuilds the faiss index as HNSW."""
        import numpy as np

        items = list(items)
        seen = {p.key for p in self.passages}
        taken = {p.passage_id for p in self.passages}
        if items and isinstance(items[0], Document):
            params = self.meta.get("chunking", {})
            new, _ = to_passages(
                cast("list[Document]", items),  # all of one kind: the first item says which
                max_words or params.get("max_words", 120),
                overlap if overlap is not None else params.get("overlap", 30),
                seen,
                taken,
            )
        else:
            new = []
            for p in cast("list[Passage]", items):
                if p.key not in seen and p.passage_id not in taken:
                    seen.add(p.key)
                    taken.add(p.passage_id)
                    new.append(p)
        if not new:
            return 0
        vecs = (embed_fn or embed_mod.embed)([p.text for p in new])
        self.passages.extend(new)
        self.vectors = np.concatenate([self.vectors, vecs]) if len(self.vectors) else vecs
        limit = self.meta.get("exact_max") or exact_max()
        if index_kind(self.index) == "flat" and len(self.passages) > limit:
            self._rebuild()
        else:
            self.index.add(vecs)
        self.meta.update(self._counts())
        return len(new)

    def _rebuild(self) -> None:
        t0 = time.perf_counter()
        self.index = make_faiss_index(self.vectors, self.meta.get("exact_max"))
        self.meta["build_s"] = round(time.perf_counter() - t0, 3)
        self.meta.update(self._counts())
        self.measure_recall()

    def measure_recall(self, queries=None, k: int = 10) -> float | None:
        if index_kind(self.index) == "flat":
            self.meta["approx_recall_at_10"] = None
            return None
        r = recall_at_k(self.index, self.vectors, queries if queries is not None else probe_queries(self.vectors), k)
        self.meta["approx_recall_at_10"] = round(r, 4)
        return r

    # ---- disk ----------------------------------------------------------------------------------
    def save(self) -> Path:
        import numpy as np

        faiss = _faiss()
        final = self.directory
        tmp = final.parent / f".{self.name}.tmp-{uuid.uuid4().hex[:8]}"
        tmp.mkdir(parents=True)
        try:
            with (tmp / "passages.jsonl").open("w", encoding="utf-8") as f:
                for p in self.passages:
                    f.write(json.dumps(p.to_dict(), ensure_ascii=False) + "\n")
            np.save(tmp / "vectors.npy", self.vectors)
            faiss.write_index(self.index, str(tmp / "index.faiss"))
            self.meta.update(
                self._counts(), format=FORMAT_VERSION, name=self.name, saved_at=time.strftime("%Y-%m-%dT%H:%M:%S")
            )
            (tmp / "meta.json").write_text(json.dumps(self.meta, indent=1, ensure_ascii=False))
            olds = []
            for attempt in range(3):  # another process may swap its own build in between
                try:
                    if final.exists():
                        olds.append(final.parent / f".{self.name}.old-{uuid.uuid4().hex[:8]}")
                        final.rename(olds[-1])
                    tmp.rename(final)
                    break
                except OSError:
                    if attempt == 2:
                        raise
            for old in olds:
                shutil.rmtree(old, ignore_errors=True)
        except OSError as e:
            shutil.rmtree(tmp, ignore_errors=True)
            raise StoreError(
                f"Cannot save index {self.name!r} under {final.parent}: {e}",
                "Check free disk space and that DEBATE_INDEX_DIR is writable.",
            ) from None
        return final

    @classmethod
    def load(cls, name: str) -> VectorIndex | None:
        """The saved index, or None when there is none or it is unreadable/incomplete (then the
        caller rebuilds: an index is a cache, never the only copy of anything)."""
        import numpy as np

        faiss = _faiss()
        d = index_path(name)
        try:
            meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
            if meta.get("format") != FORMAT_VERSION:
                return None
            with (d / "passages.jsonl").open(encoding="utf-8") as f:
                passages = [Passage(**json.loads(line)) for line in f if line.strip()]
            vectors = np.load(d / "vectors.npy")
            index = faiss.read_index(str(d / "index.faiss"))
        except (OSError, ValueError, TypeError, RuntimeError):
            return None
        if not (len(passages) == len(vectors) == index.ntotal == meta.get("passages")):
            return None
        if hasattr(index, "hnsw"):
            index.hnsw.efSearch = HNSW_EF_SEARCH
        fingerprint = meta.get("fingerprint")
        vi = cls(name, passages, vectors, meta, index)
        if vi.meta["fingerprint"] != fingerprint:  # passages edited on disk by hand
            return None
        return vi


def read_meta(name: str) -> dict | None:
    try:
        return json.loads((index_path(name) / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def build(
    name: str,
    passages: list[Passage],
    *,
    source: str = "",
    chunking: dict | None = None,
    limit: int | None = None,
    embed_fn: EmbedFn | None = None,
    reuse: VectorIndex | None = None,
    extra_meta: dict | None = None,
    save: bool = True,
) -> VectorIndex:
    """Embed passages (re-using vectors of identical passages in `reuse`) and index them."""
    import numpy as np

    check_name(name)
    if not passages:
        raise InvalidInput(f"Index {name!r} would be empty.", "Give a corpus with at least one passage.")
    t0 = time.perf_counter()
    known = {}
    if reuse is not None and reuse.meta.get("model_id") == embed_mod.MODEL_ID:
        known = {p.key: i for i, p in enumerate(reuse.passages)}
    missing = [i for i, p in enumerate(passages) if p.key not in known]
    vectors = np.zeros((len(passages), embed_mod.DIM), dtype="float32")
    if missing:
        vectors[missing] = (embed_fn or embed_mod.embed)([passages[i].text for i in missing])
    for i, p in enumerate(passages):
        if p.key in known and reuse is not None:  # (known is empty without reuse)
            vectors[i] = reuse.vectors[known[p.key]]
    t1 = time.perf_counter()
    index = make_faiss_index(vectors, limit)
    t2 = time.perf_counter()
    meta = {
        "model_id": embed_mod.MODEL_ID,
        "model_sha256": embed_mod.MODEL_SHA256,
        "dim": embed_mod.DIM,
        "source": source,
        "chunking": chunking or {},
        "exact_max": limit or exact_max(),
        "embedded": len(missing),
        "reused": len(passages) - len(missing),
        "embed_s": round(t1 - t0, 3),
        "build_s": round(t2 - t1, 3),
        **(extra_meta or {}),
    }
    vi = VectorIndex(name, passages, vectors, meta, index)
    vi.measure_recall()
    if save:
        vi.save()
    return vi


def ensure(name: str, passages: list[Passage], **kw) -> tuple[VectorIndex, bool]:
    """Load the saved index when its fingerprint and model match these passages, else (re)build.
    Returns (index, built)."""
    saved = VectorIndex.load(name)
    limit = kw.get("limit") or exact_max()
    if (
        saved is not None
        and saved.meta.get("fingerprint") == corpus_fingerprint(passages)
        and saved.meta.get("model_id") == embed_mod.MODEL_ID
        and saved.meta.get("index_type") == ("flat" if len(passages) <= limit else "hnsw")
    ):
        return saved, False
    return build(name, passages, reuse=saved, **kw), True
