"""Evidence sources: the relevance floor, the local source's recall, the "nothing fits" share and the
time each source adds before a debate's first token. One command prints every number the README quotes:

    .venv/bin/python bench/bench_sources.py [--fit-floor] [--json out.json]

--fit-floor chooses the floor and writes debate/retrieval/floor.json. How: the floor is a cosine between
the query and a passage (MiniLM). On one side, AVeriTeC dev claims with even index (the corpus holds
their own gold evidence, so a good floor keeps at least one gold passage in their top-k); on the other,
CheckThat *train* tweets of category 1 (scientific claims; the AVeriTeC corpus is about politics and
public health, so for most of them nothing fits). The floor maximises the mean of "claims that keep a gold
passage" and "tweets for which nothing passes". Reported on held-out data: AVeriTeC dev claims with odd
index and the CheckThat *dev* tweets of category 1 (none of them used to fit).

Without --fit-floor it measures with the floor in floor.json:
- recall@5/@20 and hit@5/@20 of the local source on all AVeriTeC dev claims: today's search (cosine
  top-k) against the new ranking (BM25 + cosine RRF, MMR), with and without the floor;
- the nothing-fits share (CheckThat dev, category 1, network off: local only) and the keeps-gold share;
- per source, the added time before a RADAR debate's first token (gather() with that source alone,
  on-disk cache off) against the loopback stand-ins, median and max over 20 claims, and the budget.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debate.data import locate
from debate.retrieval import averitec, ranking
from debate.retrieval.corpus import text_key, to_passages
from debate.retrieval.multi import MultiRetriever
from debate.retrieval.retriever import default_retriever, tweet_query
from debate.retrieval.sources import SourceSettings
from debate.retrieval.sources.local import LocalSource

KS = (5, 20)


def cat1_tweets(split: str) -> list[str]:
    path = locate.require(f"checkthat2025_4a/ct_{split}.tsv")
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [tweet_query(r["text"]) or r["text"] for r in rows if ast.literal_eval(r["labels"])[0] == 1.0]


def gold_keys(i: int, claim: dict, r) -> set[str]:
    own, _ = to_passages(averitec.claim_documents(i, claim), r.max_words, r.overlap)
    return {text_key(p.text) for p in own}


def local_multi(floor, mmr=True) -> MultiRetriever:
    r = default_retriever()
    return MultiRetriever(["local"], sources=[LocalSource(r)], floor=floor, mmr=mmr)


def claims_with_gold():
    r = default_retriever()
    r.load()
    out = []
    for i, c in enumerate(averitec.load_claims()):
        keys = gold_keys(i, c, r)
        if keys:
            out.append((i, c["claim"], keys))
    return out


def fit_floor() -> dict:
    """Scores for the fitting halves, then the floor with the best mean of the two shares. Each claim's
    candidates are fetched once and ranked at every floor of the grid by the ranking the app uses (the
    fusion weights and MMR of debate.retrieval.ranking): which passages make the top 20 depends on the
    floor (the passages it removes make room) and on the fusion (their order)."""
    from debate.retrieval.multi import LOCAL_CANDIDATES

    grid = [round(0.15 + 0.01 * j, 2) for j in range(61)]
    local = LocalSource(default_retriever())
    claims = [c for c in claims_with_gold() if c[0] % 2 == 0]
    kept_at = dict.fromkeys(grid, 0)
    for _, text, keys in claims:
        hits, _ = local.search(text, LOCAL_CANDIDATES)
        for f in grid:
            top = ranking.rank(text, hits, 20, f).passages
            kept_at[f] += any(text_key(p["text"]) in keys for p in top)
    m = local_multi(None, mmr=False)
    tweets = cat1_tweets("train")
    best_tweet = [m.gather(t, 30).best_score or 0.0 for t in tweets]  # the best cosine: no fusion involved
    rows = []
    for f in grid:
        keep = kept_at[f] / len(claims)
        none = sum(b < f for b in best_tweet) / len(best_tweet)
        rows.append((round((keep + none) / 2, 4), f, round(keep, 4), round(none, 4)))
    score, floor, keep, none = max(rows)
    info = {
        "floor": floor,
        "on": "cosine (all-MiniLM-L6-v2) between the retrieval query and a passage",
        "fitted_on": f"AVeriTeC dev claims with even index ({len(claims)}) vs CheckThat train tweets of "
        f"category 1 ({len(tweets)}), local index, top-20",
        "objective": "mean of (claims keeping a gold passage, tweets with nothing passing)",
        "ranking": {"bm25_weight": ranking.BM25_WEIGHT, "mmr_lambda": ranking.MMR_LAMBDA, "rrf_k": ranking.RRF_K},
        "fit_keep_gold": keep,
        "fit_nothing_fits": none,
        "written_by": "bench/bench_sources.py --fit-floor",
        "date": time.strftime("%Y-%m-%d"),
    }
    ranking.FLOOR_FILE.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    return info


def recall_and_shares(floor) -> tuple[dict, dict]:
    """One pass over AVeriTeC dev (each variant searched once at k=20; the top 5 of a greedy MMR or of
    a cosine order is the first 5 of its top 20), then the CheckThat dev tweets."""
    r = default_retriever()
    claims = claims_with_gold()
    names = ["today (cosine top-k)", "new ranking, no floor", f"new ranking, floor {floor}"]
    multis = [None, local_multi(None), local_multi(floor)]
    rec = {n: {k: [] for k in KS} for n in names}
    hit = {n: {k: [] for k in KS} for n in names}
    held_keep = []
    for i, text, keys in claims:
        for name, m in zip(names, multis):
            got = r.search(text, k=max(KS)) if m is None else m.gather(text, max(KS)).passages
            for k in KS:
                found = {text_key(p["text"]) for p in got[:k]} & keys
                rec[name][k].append(len(found) / len(keys))
                hit[name][k].append(bool(found))
            if m is multis[-1] and i % 2 == 1:
                held_keep.append(bool({text_key(p["text"]) for p in got} & keys))
    out = {"claims": len(claims)}
    for name in names:
        out[name] = {f"recall@{k}": round(statistics.mean(rec[name][k]), 4) for k in KS}
        out[name].update({f"hit@{k}": round(statistics.mean(hit[name][k]), 4) for k in KS})
    tweets = cat1_tweets("dev")
    none = [multis[-1].gather(t, max(KS)).nothing_fits for t in tweets]
    shares = {
        "checkthat_dev_cat1_tweets": len(tweets),
        "nothing_fits_share": round(sum(none) / len(tweets), 4),
        "averitec_heldout_claims (odd index)": len(held_keep),
        "keeps_gold_share_top20": round(sum(held_keep) / len(held_keep), 4),
    }
    return out, shares


def added_time(n: int = 20) -> dict:
    """Per source alone: gather() time against the stand-ins (cache off), i.e. what it adds before the
    first prompt; the local source is timed on the loaded index."""
    from tests.support.hostile_servers import evidence_services

    claims = [c["claim"] for c in averitec.load_claims()[:n]]
    out = {}
    with evidence_services() as s:
        st = SourceSettings(
            openalex_url=s["openalex"].url,
            wikipedia_url=s["mediawiki"].url + "/w/api.php",
            ddg_url=s["ddg"].url + "/html/",
            allow_private_addresses=("127.0.0.1",),
        )
        for name in ("local", "scholar", "wikipedia", "web"):
            m = MultiRetriever([name], settings=st, local=default_retriever())
            for src in m.sources.values():
                src.cache = None
            m.gather(claims[0], 6)  # warm: the embedder and index are loaded once per app, not per debate
            times = []
            for c in claims:
                t0 = time.perf_counter()
                m.gather(c, 6)
                times.append(time.perf_counter() - t0)
            out[name] = {
                "median_s": round(statistics.median(times), 3),
                "max_s": round(max(times), 3),
                "budget_s": None if name == "local" else m.budget_s,
            }
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fit-floor", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: recall (with the shares), time")
    args = ap.parse_args()
    result: dict = {}
    if args.fit_floor:
        result["floor_fit"] = fit_floor()
        print(json.dumps(result["floor_fit"], indent=1), flush=True)
    floor = ranking.default_floor()
    result["floor"] = floor
    skip = set(args.skip.split(","))
    if "time" not in skip:
        result["added_time"] = added_time()
        print(json.dumps(result["added_time"], indent=1), flush=True)
    if "recall" not in skip:
        result["recall"], result["shares"] = recall_and_shares(floor)
        print(json.dumps(result["recall"], indent=1), json.dumps(result["shares"], indent=1), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
