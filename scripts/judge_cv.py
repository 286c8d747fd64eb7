"""Which RADAR judge is worth fitting? Cross-validated class weights on LIAR **train** runs only.

Why: `eval-fit-threshold` reports the in-sample macro-F1 of the class weights it fits, which flatters a
judge (three weights fitted on 90 claims). Choosing between judges (e.g. the packaged Qwen2.5-Coder-1.5B against
Qwen2.5-Coder-0.5B, the aids' RADAR judge) on that number, or on valid, would tune on the wrong data. This refits the weights
on 4/5 of the train claims and scores the held-out fifth, 5 folds x 10 repeats, for each run given and for
the geometric mean of their probabilities (an ensemble of judges), on the claims all runs finished:

    python scripts/judge_cv.py runs/liar-train-s90-radar-r0 runs/liar-train-s90-radar-r0-judge15

Reads each run's checkpoint (the final judge turn's label probabilities); no model calls.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score
from sklearn.model_selection import RepeatedStratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debate.aids import calibration as cal
from debate.evaluation import fit

FOLDS, REPEATS = 5, 10


def judge_probs(run: str) -> tuple[dict[str, tuple[dict, str]], tuple[str, ...]]:
    """{item: (final judge's label probabilities, gold)} of a train run, and the dataset's labels
    (read by the same code `eval-fit-threshold` fits from, which refuses any split but train)."""
    probs, golds, setting = fit.judge_probs(run)
    return {i: (p, g) for i, p, g in zip(setting["items"], probs, golds)}, setting["labels"]


def cross_validated(probs: list[dict], golds: list[str], labels: tuple[str, ...]) -> tuple[float, float]:
    """(mean, sd over repeats) of the pooled held-out macro-F1 of weights fitted on the other folds."""
    y = np.array(golds)
    scores = []
    splits = list(RepeatedStratifiedKFold(n_splits=FOLDS, n_repeats=REPEATS, random_state=0).split(probs, y))
    for rep in range(REPEATS):
        pred = {}
        for train, test in splits[rep * FOLDS : (rep + 1) * FOLDS]:
            w, _ = cal.fit_class_weights([probs[i] for i in train], [golds[i] for i in train], labels)
            pred.update({i: max(labels, key=lambda lab: probs[i][lab] * w[lab]) for i in test})
        order = sorted(pred)
        scores.append(f1_score(y[order], [pred[i] for i in order], labels=list(labels), average="macro"))
    return float(np.mean(scores)), float(np.std(scores))


def main(runs: list[str]) -> int:
    loaded = [judge_probs(r) for r in runs]
    labels = loaded[0][1]
    ids = sorted(set.intersection(*(set(d) for d, _ in loaded)))
    golds = [loaded[0][0][i][1] for i in ids]
    combos = {r: [d] for r, (d, _) in zip(runs, loaded)}
    if len(runs) > 1:
        combos["geometric mean of all"] = [d for d, _ in loaded]
    print(
        f"{len(ids)} train claims finished by every run; weights refitted per fold ({FOLDS} folds x {REPEATS} repeats)"
    )
    print("| judge run | as decoded | fitted, in-sample | fitted, cross-validated | weights (all claims) |")
    print("|---|---|---|---|---|")
    for name, ds in combos.items():
        probs = [
            {lab: float(np.exp(np.mean([np.log(max(d[i][0][lab], 1e-9)) for d in ds]))) for lab in labels} for i in ids
        ]
        raw = f1_score(golds, [max(labels, key=p.get) for p in probs], labels=list(labels), average="macro")
        weights, in_sample = cal.fit_class_weights(probs, golds, labels)
        mean, sd = cross_validated(probs, golds, labels)
        w = ", ".join(f"{k} x{v:.2f}" for k, v in weights.items())
        print(f"| `{name}` | {raw:.3f} | {in_sample:.3f} | {mean:.3f} ± {sd:.3f} | {w} |")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
