"""How often each view's first vote equals the k-NN reference's, on CheckThat TRAIN (no model calls).

Why: a council gains from members whose errors differ. A view that agrees with the YES share of the
tweet's 8 nearest (semantic) train tweets on almost every tweet is that share read aloud; a view found
by another neighbour search should agree less, and where it disagrees it should be right at least
sometimes. Each view's decision is its P(YES) against a threshold cross-fitted on the same train items
(scripts/choose_council.py); the k-NN references (the YES share of the 8 nearest train tweets by meaning,
and by shared words) are cross-fitted the same way, leave-one-out (a train tweet never counts itself).
Items: those every view finished, per category (the same set choose_council scores).

Usage: python scripts/view_agreement.py [N]          (default N=40: runs/ct{C}-train-s{N}-{view})
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from choose_council import VIEWS, cross_fitted, p_yes

from debate.aids.demos import similar_demos
from debate.evaluation.checkpoint import read_rows
from debate.evaluation.targets import knn_shares, macro_f1


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 40
    root, k = Path("runs"), 8
    cats = ("1", "2", "3")
    runs = {c: {v: root / f"ct{c}-train-s{n}-{v}" for v in VIEWS} for c in cats}
    views = [v for v in VIEWS if all(runs[c][v].is_dir() for c in cats)]
    rows: dict[str, list[tuple]] = {}  # side -> per category (agree, n, both wrong, its errors, F1)
    for c in cats:
        per = {v: p_yes(runs[c][v]) for v in views}
        common = sorted(set.intersection(*[set(d) for d in per.values()]), key=lambda x: int(x) if x.isdigit() else x)
        if len(common) < 10:
            print(f"category {c}: {len(common)} items finished by every view, left out")
            continue
        text = {str(r["item_id"]): r["text"] for r in read_rows(runs[c][views[0]])}
        gold = [per[views[0]][i][1] for i in common]
        texts = [text[i] for i in common]
        lexical = [
            sum(d.label == "YES" for d in similar_demos(t, "checkthat", int(c), k, neighbours="lexical")) / k
            for t in texts
        ]
        ref = cross_fitted(knn_shares(texts, int(c), k), gold)
        sides = {
            **{v: cross_fitted([per[v][i][0] for i in common], gold) for v in views},
            "k-NN by shared words": cross_fitted(lexical, gold),
            "k-NN (semantic)": ref,
        }
        for side, dec in sides.items():
            agree = sum(a == b for a, b in zip(dec, ref))
            both_wrong = sum(a == b != g for a, b, g in zip(dec, ref, gold))
            rows.setdefault(side, []).append(
                (agree, len(gold), both_wrong, sum(a != g for a, g in zip(dec, gold)), macro_f1(gold, dec))
            )
    print(
        "| side | agrees with semantic k-NN (cat 1 / 2 / 3) | pooled | both wrong / its errors | "
        "macro-F1 cat 1 / 2 / 3 |"
    )
    print("|---|---|---|---|---|")
    for side, per in rows.items():
        name = f"{side} {VIEWS[side]}" if side in VIEWS else side
        agree = sum(r[0] for r in per) / sum(r[1] for r in per)
        errors = f"{sum(r[2] for r in per)} / {sum(r[3] for r in per)}"
        print(
            f"| {name} | "
            + " / ".join(f"{r[0] / r[1]:.0%}" for r in per)
            + f" | {agree:.0%} | {errors} | "
            + " / ".join(f"{r[4]:.3f}" for r in per)
            + " |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
