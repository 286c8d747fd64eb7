"""A council's verdicts beside the references a small model must beat, on the same held-out tweets.

Reads debates written by `bench_substance.py --run` (their events and gold labels) and scores, on exactly
their tweets: each arm's verdicts, the k-NN vote (the YES share of a tweet's 8 nearest CheckThat **train**
tweets, its threshold fitted on a stratified 40-tweet train sample per category, as the members' thresholds
are; no language model) and the constant NO. Macro-F1 and accuracy, and the paired bootstrap CI of each
difference in macro-F1. No model calls (the train embeddings are cached).

    python bench/council_references.py once=a-events.jsonl,b-events.jsonl [asked=c-events.jsonl] ...
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_substance

from debate.evaluation.targets import knn_shares, knn_threshold

LABELS = ["YES", "NO"]


def verdict_of(d: dict) -> str | None:
    """The debate's verdict for its own category (a CheckThat item id ends with its category)."""
    cat = int(str(d["item"])[-1])
    vs = [e for e in d["events"] if e["type"] == "verdict" and e.get("category") in (cat, None)]
    labels = [e.get("label") for e in vs if e.get("label") in LABELS]
    return labels[-1] if labels else None


def knn_votes(claims: dict[str, str], k: int = 8, train_sample: int = 40) -> dict[str, str]:
    out: dict[str, str] = {}
    for cat in (1, 2, 3):
        items = [i for i in claims if int(i[-1]) == cat]
        if items:
            t, _, _ = knn_threshold(cat, k, train_sample)
            for i, share in zip(items, knn_shares([claims[i] for i in items], cat, k)):
                out[i] = "YES" if share >= t else "NO"
    return out


def macro_f1(gold: np.ndarray, pred: np.ndarray) -> float:
    return float(f1_score(gold, pred, labels=LABELS, average="macro", zero_division=0))


def paired_ci(gold: np.ndarray, a: np.ndarray, b: np.ndarray, n: int = 2000, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(n):
        ix = rng.integers(0, len(gold), len(gold))
        diffs.append(macro_f1(gold[ix], a[ix]) - macro_f1(gold[ix], b[ix]))
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    return float(lo), float(hi)


def main(argv: list[str]) -> int:
    arms: dict[str, dict[str, dict]] = {}
    for arg in argv:
        name, _, files = arg.partition("=")
        arms[name] = {
            d["item"]: d for f in files.split(",") for d in bench_substance.debates_from_jsonl(Path(f)) if d.get("gold")
        }
    if not arms:
        print(__doc__)
        return 2
    items = sorted(set.intersection(*(set(a) for a in arms.values())))
    first = arms[next(iter(arms))]
    gold = np.array([first[i]["gold"] for i in items])
    preds = {name: np.array([verdict_of(a[i]) or "NO" for i in items]) for name, a in arms.items()}
    claims = {i: next(e for e in first[i]["events"] if e["type"] == "debate_started")["claim"] for i in items}
    knn = knn_votes(claims)
    preds["k-NN 8 (train labels)"] = np.array([knn[i] for i in items])
    preds["constant NO"] = np.array(["NO"] * len(items))
    print(f"{len(items)} tweets, {int((gold == 'YES').sum())} gold YES\n")
    print("| reading | accuracy | macro-F1 |\n|---|---|---|")
    for name, p in preds.items():
        print(f"| {name} | {float((p == gold).mean()):.3f} | {macro_f1(gold, p):.3f} |")
    print("\n| difference in macro-F1 | value | 95 % paired bootstrap CI |\n|---|---|---|")
    for name in arms:
        for ref in ("k-NN 8 (train labels)", "constant NO", *[a for a in arms if a != name]):
            lo, hi = paired_ci(gold, preds[name], preds[ref])
            print(
                f"| {name} − {ref} | {macro_f1(gold, preds[name]) - macro_f1(gold, preds[ref]):+.3f} | [{lo:+.3f}, {hi:+.3f}] |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
