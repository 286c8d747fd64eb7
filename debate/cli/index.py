"""`python -m debate index build|info|query`: build, inspect and try evidence indexes.

`build` without --corpus builds the default AVeriTeC-dev index; with --corpus the name defaults to
the corpus file's stem, so trying a corpus never overwrites the default index by accident.
"""

from __future__ import annotations

import json
import re
import textwrap
import time
from pathlib import Path

from debate import config
from debate.errors import InvalidInput
from debate.retrieval.corpus import DEFAULT_MAX_WORDS, DEFAULT_OVERLAP
from debate.retrieval.index import check_name, read_meta
from debate.retrieval.retriever import DEFAULT_NAME, Retriever, tweet_query


def _name_for(args) -> str:
    if args.name:
        return args.name
    if getattr(args, "corpus", None):
        stem = Path(args.corpus).expanduser().resolve().name.split(".")[0]
        return re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.") or "corpus"
    return DEFAULT_NAME


def _retriever(args, corpus: str | None = None) -> Retriever:
    return Retriever(
        _name_for(args),
        corpus,
        max_words=getattr(args, "max_words", DEFAULT_MAX_WORDS),
        overlap=getattr(args, "overlap", DEFAULT_OVERLAP),
        exact_max=getattr(args, "exact_max", None),
    )


def cmd_build(args) -> int:
    r = _retriever(args, args.corpus)
    t0 = time.perf_counter()
    meta = r.info()
    took = time.perf_counter() - t0
    verb = "built" if r.built else "up to date (loaded, not rebuilt)"
    print(
        f"index {r.name!r} {verb} in {took:.1f}s: {meta['passages']} passages, {meta['index_type']} index, "
        f"{meta.get('embedded', 0)} embedded / {meta.get('reused', 0)} reused"
    )
    if meta.get("approx_recall_at_10") is not None:
        print(f"approximate index recall@10 vs exact: {meta['approx_recall_at_10']:.3f}")
    print(f"saved in {r.load().directory}")
    return 0


def cmd_info(args) -> int:
    name = _name_for(args)
    meta = read_meta(check_name(name))  # metadata only: info never triggers a build
    if meta is None:
        raise InvalidInput(
            f"No index named {name!r} has been built in {config.index_dir()}.",
            "Build it: python -m debate index build"
            + ("" if name == DEFAULT_NAME else f" --corpus PATH --name {name}"),
        )
    if args.json:
        print(json.dumps(meta, indent=1, ensure_ascii=False))
        return 0
    for key in (
        "name",
        "passages",
        "index_type",
        "approx_recall_at_10",
        "model_id",
        "fingerprint",
        "source",
        "chunking",
        "licence",
        "saved_at",
    ):
        if meta.get(key) not in (None, "", {}):
            print(f"{key:>20}: {meta[key]}")
    return 0


def cmd_query(args) -> int:
    query = tweet_query(args.claim) if args.tweet else args.claim
    r = _retriever(args)
    hits = r.search(query, k=args.k, mmr=args.mmr, lambda_=args.lambda_)
    if args.json:
        print(json.dumps(hits, indent=1, ensure_ascii=False))
        return 0
    for h in hits:
        print(f"[{h['id']}] {h['score']:.3f}  {h['source'] or '(no source)'}  ({h['passage_id']})")
        print(textwrap.indent(textwrap.fill(h["text"], 100), "    "))
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("index", help="build, inspect and query evidence indexes")
    sub = p.add_subparsers(dest="index_command", metavar="ACTION", required=True)

    b = sub.add_parser("build", help="ingest a corpus (JSONL, CSV/TSV, folder of .txt/.md) and index it")
    b.add_argument("--corpus", help="corpus file or folder; omit to build the default AVeriTeC-dev index")
    b.add_argument("--name", help=f"index name (default: the corpus file's stem, or {DEFAULT_NAME})")
    b.add_argument("--max-words", type=int, default=DEFAULT_MAX_WORDS, help="passage length in words")
    b.add_argument("--overlap", type=int, default=DEFAULT_OVERLAP, help="words shared by consecutive passages")
    b.add_argument(
        "--exact-max",
        type=int,
        default=None,
        help="largest corpus indexed exactly; above it HNSW (default 50000 or DEBATE_INDEX_EXACT_MAX)",
    )
    b.set_defaults(func=cmd_build)

    i = sub.add_parser("info", help="show an index's size, type, model and fingerprint")
    i.add_argument("--name", default=None, help=f"index name (default {DEFAULT_NAME})")
    i.add_argument("--json", action="store_true", help="print the full metadata as JSON")
    i.set_defaults(func=cmd_info)

    q = sub.add_parser("query", help="print the top-k passages for a claim with scores and sources")
    q.add_argument("claim", help="claim or tweet text")
    q.add_argument("--k", type=int, default=5, help="passages to return (default 5)")
    q.add_argument("--name", default=None, help=f"index name (default {DEFAULT_NAME})")
    q.add_argument("--mmr", action="store_true", help="diversify with maximal marginal relevance")
    q.add_argument("--lambda", dest="lambda_", type=float, default=0.5, help="MMR relevance weight (0..1)")
    q.add_argument("--tweet", action="store_true", help="add the words of URL paths to the query")
    q.add_argument("--json", action="store_true", help="print the passages as JSON")
    q.set_defaults(func=cmd_query)
