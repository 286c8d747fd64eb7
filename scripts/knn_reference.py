"""The retrieval-only reference for the small-model aids: the label share of a tweet's k most similar
CheckThat TRAIN tweets, no language model at all.

Why: with demos=dialogue the model reads those neighbours with their gold labels, so part of its score
may be the neighbours' own vote. This prints that vote's macro-F1 on exactly the items of a dev run (its
threshold on the YES share fitted on the items of a train run, leave-one-out, like the model's), and
pairs the run with it (paired bootstrap CI of the macro-F1 difference, McNemar).

Usage: python scripts/knn_reference.py TRAIN_RUN DEV_RUN [K]     (no model calls; embeddings are cached)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debate.aids import calibration as cal
from debate.evaluation.checkpoint import read_meta, read_rows
from debate.evaluation.metrics import compare_runs
from debate.evaluation.targets import knn_shares


def main() -> int:
    train_run, dev_run = sys.argv[1], sys.argv[2]
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    cat = str((read_meta(dev_run, "options") or {}).get("category"))
    done = lambda run: [r for r in read_rows(run) if r["status"] == "done"]
    train, dev = done(train_run), done(dev_run)
    share = lambda rows: knn_shares([r["text"] for r in rows], int(cat), k)
    t, f1 = cal.fit_threshold(share(train), [r["gold"][cat] for r in train])
    knn = [{**r, "prediction": {cat: "YES" if s >= t else "NO"}} for r, s in zip(dev, share(dev))]
    ds = {**(read_meta(dev_run, "dataset") or {}), "categories": [cat], "labels": ["YES", "NO"]}
    res = compare_runs(dev, knn, ds)
    from sklearn.metrics import f1_score

    knn_f1 = f1_score([r["gold"][cat] for r in knn], [r["prediction"][cat] for r in knn], average="macro")
    lo, hi = res["ci"]
    print(
        f"category {cat}: {k}-NN label share of train neighbours, threshold {t:g} fitted on {len(train)} train "
        f"items (train macro-F1 {f1:.3f}): dev macro-F1 {knn_f1:.3f} on {len(knn)} items"
    )
    print(
        f"  {dev_run} minus k-NN: {res['macro_f1_diff']:+.3f} [{lo:+.3f}, {hi:+.3f}]; "
        f"run right/k-NN wrong {res['mcnemar']['a_only_correct']}, k-NN right/run wrong "
        f"{res['mcnemar']['b_only_correct']}, McNemar p = {res['mcnemar']['p_value']:.3g}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
