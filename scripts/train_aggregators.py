"""Could another way of combining the members beat the k-NN reference on CheckThat TRAIN? (no model calls)

Two checks on the train views' runs (`scripts/reproduce_targets.sh`, part train), every decision
cross-fitted (5 folds, in item order, as `choose_council.py` does):

1. every triple of views and the k-NN reference itself as a seat, decided by majority;
2. a learned chair: logistic regression (class-balanced) on the members' logit P(YES) and the k-NN share,
   fitted on the other folds of the category (or of all three categories pooled), 0.5 cut.

The best of many combinations on 120 tweets is an optimistic pick, so a gap of one or two decisions per
category over the k-NN reference is noise, not a council to ship.

Usage: python scripts/train_aggregators.py [N]   (default N=40 train tweets per category)
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from choose_council import VIEWS, cross_fitted, majority, p_yes

from debate.evaluation.checkpoint import read_rows
from debate.evaluation.targets import knn_shares, macro_f1

CATS = ("1", "2", "3")


def load(n: int) -> tuple[dict, dict, dict]:
    """Per category: gold labels, each view's P(YES) (plus the k-NN share as 'k-NN'), on common items."""
    gold, score = {}, {}
    root = Path("runs")
    views = [v for v in VIEWS if all((root / f"ct{c}-train-s{n}-{v}").is_dir() for c in CATS)]
    for c in CATS:
        per = {v: p_yes(root / f"ct{c}-train-s{n}-{v}") for v in views}
        common = sorted(set.intersection(*[set(d) for d in per.values()]), key=lambda x: int(x) if x.isdigit() else x)
        texts = {str(r["item_id"]): r["text"] for r in read_rows(root / f"ct{c}-train-s{n}-{views[0]}")}
        gold[c] = [per[views[0]][i][1] for i in common]
        score[c] = {v: np.array([per[v][i][0] for i in common]) for v in views}
        score[c]["k-NN"] = np.array(knn_shares([texts[i] for i in common], int(c), 8))
    return gold, score, {"views": views}


def learned_chair(gold: dict, score: dict, c: str, feats: list[str], pooled: bool) -> list[str]:
    """Cross-fitted logistic-regression decisions for category c."""
    from sklearn.linear_model import LogisticRegression

    def matrix(cat: str) -> np.ndarray:
        cols = [
            score[cat][f]
            if f == "k-NN"
            else np.log(np.clip(score[cat][f], 1e-4, 1 - 1e-4) / np.clip(1 - score[cat][f], 1e-4, 1))
            for f in feats
        ]
        return np.column_stack(cols)

    x, y = matrix(c), np.array([g == "YES" for g in gold[c]], dtype=int)
    out = [""] * len(y)
    for f in range(5):
        tr = np.array([i for i in range(len(y)) if i % 5 != f])
        te = np.array(list(range(f, len(y), 5)))
        xs, ys = [x[tr]], [y[tr]]
        if pooled:
            for other in CATS:
                if other != c:
                    xs.append(matrix(other))
                    ys.append(np.array([g == "YES" for g in gold[other]], dtype=int))
        m = LogisticRegression(class_weight="balanced").fit(np.vstack(xs), np.concatenate(ys))
        for i, p in zip(te, m.predict_proba(x[te])[:, 1]):
            out[i] = "YES" if p >= 0.5 else "NO"
    return out


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 40
    gold, score, meta = load(n)
    dec = {c: {v: cross_fitted(list(score[c][v]), gold[c]) for v in score[c]} for c in CATS}

    def pooled_f1(decide) -> float:
        return float(np.mean([macro_f1(gold[c], decide(c)) for c in CATS]))

    knn = pooled_f1(lambda c: dec[c]["k-NN"])
    print(
        f"k-NN reference alone (cross-fitted threshold): {knn:.3f} pooled over {sum(map(len, gold.values()))} train tweets"
    )
    seats = [*meta["views"], "k-NN"]
    triples = sorted(
        (
            (pooled_f1(lambda c, t=t: [majority([dec[c][s][i] for s in t]) for i in range(len(gold[c]))]), t)
            for t in itertools.combinations(seats, 3)
        ),
        reverse=True,
    )
    print(f"\nMajority of three seats: the best 5 of {len(triples)} triples")
    for f1, t in triples[:5]:
        print(f"  {f1:.3f} ({f1 - knn:+.3f})  {', '.join(t)}")
    print("\nLearned chair (cross-fitted logistic regression):")
    for feats in (
        ["k-NN", "v1"],
        ["k-NN", "v1", "l2"],
        ["k-NN", "d2"],
        ["k-NN", "v1", "d2", "l2"],
        ["k-NN", *meta["views"]],
    ):
        if not all(f in seats for f in feats):
            continue
        for pooled in (False, True):
            f1 = pooled_f1(lambda c, feats=feats, pooled=pooled: learned_chair(gold, score, c, feats, pooled))
            print(
                f"  {f1:.3f} ({f1 - knn:+.3f})  {'+'.join(feats)}, fitted {'on all categories' if pooled else 'per category'}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
