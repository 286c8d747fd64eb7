"""Retrieval quality and speed.

--recall: on AVeriTeC dev, query the pooled default corpus with each claim and measure how many of
  that claim's own evidence passages come back in the top 5 / top 20 (mean per-claim recall, and the
  share of claims with at least one own passage in the top k).
--speed: embedding throughput on real passages, index build time and single-query latency
  (p50/p95) at 1k, 10k and 100k passages. 1k and 10k use real vectors (AVeriTeC evidence + LIAR train
  statements, queried with LIAR valid statements); 100k uses synthetic clustered unit vectors queried
  with noisy copies (only index timing depends on them; embedding is measured separately).

    .venv/bin/python bench/bench_retrieval.py --recall --speed [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

from debate.retrieval import averitec
from debate.retrieval import embed as embed_mod
from debate.retrieval import index as index_mod
from debate.retrieval.corpus import text_key, to_passages
from debate.retrieval.retriever import default_retriever


def pct(xs: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(xs) * 1000, p))


def bench_recall(ks=(5, 20)) -> dict:
    r = default_retriever()
    vi = r.load()
    row_of = {p.key: i for i, p in enumerate(vi.passages)}
    claims = averitec.load_claims()
    t0 = time.perf_counter()
    q = embed_mod.embed([c["claim"] for c in claims])
    _, rows = vi.search_vectors(q, max(ks))
    took = time.perf_counter() - t0
    recall = {k: [] for k in ks}
    hit = {k: [] for k in ks}
    for i, c in enumerate(claims):
        own, _ = to_passages(averitec.claim_documents(i, c), r.max_words, r.overlap)
        relevant = {row_of[text_key(p.text)] for p in own if text_key(p.text) in row_of}
        if not relevant:
            continue
        for k in ks:
            got = set(rows[i][:k].tolist()) & relevant
            recall[k].append(len(got) / len(relevant))
            hit[k].append(bool(got))
    out = {"claims": len(recall[ks[0]]), "passages": len(vi), "query_and_search_s": round(took, 2)}
    for k in ks:
        out[f"recall@{k}"] = round(float(np.mean(recall[k])), 4)
        out[f"hit@{k}"] = round(float(np.mean(hit[k])), 4)
    return out


def synthetic(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(max(10, n // 100), 384))
    v = centres[rng.integers(0, len(centres), n)] + rng.normal(scale=0.7, size=(n, 384))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype("float32")


def liar_statements(split: str) -> list[str]:
    import csv

    from debate.data import locate

    path = locate.require(f"liar/{split}.tsv")
    with path.open(encoding="utf-8") as f:
        return [row[2] for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE) if len(row) > 2]


def time_queries(index, queries: np.ndarray, k: int = 20) -> list[float]:
    times = []
    for qv in queries:
        t = time.perf_counter()
        index.search(qv[None, :], k)
        times.append(time.perf_counter() - t)
    return times


def bench_speed(sizes=(1000, 10_000, 100_000), n_queries: int = 200) -> dict:
    texts = [p.text for p in to_passages(averitec.documents())[0]]
    embedder = embed_mod.get_embedder()
    embedder.embed(texts[:32])  # warm-up
    sample = texts[:512]
    t = time.perf_counter()
    embedder.embed(sample)
    emb_s = time.perf_counter() - t
    claims = [c["claim"] for c in averitec.load_claims()[:100]]
    qtimes = []
    for c in claims:
        t = time.perf_counter()
        embedder.embed([c])
        qtimes.append(time.perf_counter() - t)
    out = {
        "embedding": {
            "passages": len(sample),
            "mean_words": round(float(np.mean([len(s.split()) for s in sample])), 1),
            "passages_per_s": round(len(sample) / emb_s, 1),
            "query_embed_p50_ms": round(pct(qtimes, 50), 1),
            "query_embed_p95_ms": round(pct(qtimes, 95), 1),
        },
        "index": [],
    }
    real = default_retriever().load().vectors
    need = max([n for n in sizes if n <= 20_000], default=0) - len(real)
    if need > 0:
        extra = liar_statements("train")[:need]
        t = time.perf_counter()
        real = np.concatenate([real, embedder.embed(extra)])
        out["embedding_liar"] = {
            "passages": len(extra),
            "mean_words": round(float(np.mean([len(s.split()) for s in extra])), 1),
            "passages_per_s": round(len(extra) / (time.perf_counter() - t), 1),
        }
        print(json.dumps(out["embedding_liar"]), flush=True)
    real_queries = embedder.embed(liar_statements("valid")[:n_queries])
    for n in sizes:
        is_real = n <= len(real)
        base = real[:n] if is_real else synthetic(n)
        queries = real_queries if is_real else index_mod.probe_queries(base, n_queries, seed=1)
        kinds = ["flat", "hnsw"]
        for kind in kinds:
            t = time.perf_counter()
            idx = index_mod.make_faiss_index(base, limit=(n if kind == "flat" else 0))
            build = time.perf_counter() - t
            times = time_queries(idx, queries)
            row = {
                "passages": n,
                "vectors": "real" if is_real else "synthetic",
                "index": kind,
                "build_s": round(build, 3),
                "query_p50_ms": round(pct(times, 50), 2),
                "query_p95_ms": round(pct(times, 95), 2),
            }
            if kind == "hnsw":
                row["recall@10_vs_exact"] = round(index_mod.recall_at_k(idx, base, queries, 10), 4)
            out["index"].append(row)
            print(json.dumps(row), flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--recall", action="store_true")
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args()
    if not (args.recall or args.speed):
        args.recall = args.speed = True
    results: dict = {"threads": os.cpu_count()}
    if args.recall:
        results["recall"] = bench_recall()
        print(json.dumps(results["recall"]), flush=True)
    if args.speed:
        results["speed"] = bench_speed(tuple(int(s) for s in args.sizes.split(",")))
        print(json.dumps(results["speed"]["embedding"]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
