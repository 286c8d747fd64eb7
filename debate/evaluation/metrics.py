"""Scores of a run, and a paired comparison of two runs on the same items.

Conventions (stated because papers differ):
- CheckThat: per category, F1 macro-averaged over YES/NO (the task's metric), then the run's
  `macro_f1` is the mean over the categories that were run. Positive-class F1 is reported beside it.
- Single-label tasks: accuracy and F1 macro-averaged over the dataset's classes (RADAR's metric).
- A missing or unparseable prediction counts as wrong (it is its own column "INVALID" in the
  confusion matrix, and never a class of the macro average). Failed items (no finished debate) are
  left out of the scores and counted in `coverage`.
- A soft gold label (CheckThat 0.5: the original annotators split) has no right answer: such
  decisions are left out of F1 and accuracy and counted in `split_excluded` (per category).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score

INVALID = "INVALID"
SPLIT = "SPLIT"  # = datasets.SPLIT (not imported: metrics must stay light)


def split_counts(rows: list[dict], categories: list[str]) -> dict[str, int]:
    """Done decisions whose gold is soft (annotators split), per category ("" for single-label tasks)."""
    out: dict[str, int] = {}
    for r in rows:
        gold, pred = r.get("gold"), r.get("prediction")
        if r.get("status") != "done":
            continue
        if categories and isinstance(gold, dict):
            for c in categories:
                if gold.get(c) == SPLIT and isinstance(pred, dict) and c in pred:
                    out[c] = out.get(c, 0) + 1
        elif gold == SPLIT:
            out[""] = out.get("", 0) + 1
    return out


def _decisions(rows: list[dict], categories: list[str]) -> dict[str, tuple[list[str], list[str], list[str]]]:
    """{category or "": (ids, gold, pred)} over done rows that have a gold label."""
    out: dict[str, tuple[list[str], list[str], list[str]]] = {}
    for r in rows:
        if r.get("status") != "done":
            continue
        gold, pred = r.get("gold"), r.get("prediction")
        if categories:
            if not isinstance(gold, dict):
                continue
            for c in categories:
                if not isinstance(pred, dict) or c not in pred or gold.get(c) in (None, SPLIT):
                    continue
                ids, g, p = out.setdefault(c, ([], [], []))
                ids.append(r["item_id"])
                g.append(gold[c])
                p.append(pred.get(c) or INVALID)
        elif isinstance(gold, str) and gold != SPLIT:
            ids, g, p = out.setdefault("", ([], [], []))
            ids.append(r["item_id"])
            g.append(gold)
            p.append(pred if isinstance(pred, str) and pred else INVALID)
    return out


def score(gold: list[str], pred: list[str], labels: list[str]) -> dict:
    """Accuracy, macro-F1 over `labels`, per-class F1 and the confusion matrix (rows gold, cols pred)."""
    cols = list(labels) + ([INVALID] if any(p not in labels for p in pred) else [])
    pred = [p if p in labels else INVALID for p in pred]
    per = f1_score(gold, pred, labels=labels, average=None, zero_division=0)
    cm = confusion_matrix(gold, pred, labels=cols)
    return {
        "n": len(gold),
        "accuracy": float(accuracy_score(gold, pred)) if gold else 0.0,
        "macro_f1": float(np.mean(per)) if len(per) else 0.0,
        "f1": {lab: float(v) for lab, v in zip(labels, per)},
        "invalid": int(sum(p == INVALID for p in pred)),
        "confusion": {"gold_labels": list(labels), "pred_labels": cols, "matrix": cm[: len(labels)].tolist()},
    }


def compute_metrics(rows: list[dict], dataset: dict, with_vote: bool = True) -> dict:
    """metrics.json content: task scores, debate statistics and coverage (and, with `with_vote`, the
    debate against the plain majority of its first answers)."""
    categories = list(dataset.get("categories") or [])
    labels = list(dataset.get("labels") or [])
    dec = _decisions(rows, categories)
    splits = split_counts(rows, categories)
    out: dict[str, Any] = {
        "dataset": dataset.get("name"),
        "task": dataset.get("task"),
        "split_excluded": sum(splits.values()),
    }
    if categories:
        per_cat = {c: score(g, p, labels) for c, (_, g, p) in sorted(dec.items())}
        for c, s in per_cat.items():
            s["f1_positive"] = s["f1"].get("YES", 0.0)
            s["split_excluded"] = splits.get(c, 0)
        out["categories"] = per_cat
        out["macro_f1"] = float(np.mean([s["macro_f1"] for s in per_cat.values()])) if per_cat else None
        out["accuracy"] = float(np.mean([s["accuracy"] for s in per_cat.values()])) if per_cat else None
    elif "" in dec:
        _, g, p = dec[""]
        labs = labels or sorted(set(g))
        out.update(score(g, p, labs))
    else:
        out["macro_f1"] = out["accuracy"] = None
    done = [r for r in rows if r.get("status") == "done"]
    out["coverage"] = {
        "items": len(rows),
        "done": len(done),
        "failed": sum(r.get("status") == "failed" for r in rows),
        "pending": sum(r.get("status") in ("pending", "running") for r in rows),
    }
    out["debate"] = debate_summary(done)
    if with_vote:
        out["vote"] = debate_vs_vote(rows, dataset)
    return out


def debate_vs_vote(rows: list[dict], dataset: dict) -> dict | None:
    """The debate against the vote it started from, on the items whose debate recorded its first answers.

    Each decision (item x category) the discussion flipped from right to wrong or wrong to right, with
    McNemar's exact test on those two counts (compare_runs, debate = A, vote = B), and the vote-only
    macro-F1 beside the debate's. None when no finished item recorded a vote (e.g. baseline runs)."""
    vote_rows = [
        {**r, "prediction": (r.get("stats") or {}).get("vote_prediction")}
        for r in rows
        if r.get("status") == "done" and (r.get("stats") or {}).get("vote_prediction") is not None
    ]
    if not vote_rows:
        return None
    ids = {r["item_id"] for r in vote_rows}
    debate_rows = [r for r in rows if r.get("item_id") in ids]
    cmp = compare_runs(debate_rows, vote_rows, dataset, n_boot=1000)
    if not cmp.get("n_items"):
        return None
    mc = cmp["mcnemar"]
    categories = list(dataset.get("categories") or [])
    changed = sum(
        1
        for k, (_, _, p) in _decisions(debate_rows, categories).items()
        for a, b in zip(p, _decisions(vote_rows, categories).get(k, ([], [], []))[2])
        if a != b
    )
    return {
        "items": cmp["n_items"],
        "changed": changed,
        "macro_f1_vote": compute_metrics(vote_rows, dataset, with_vote=False).get("macro_f1"),
        "macro_f1_debate": compute_metrics(debate_rows, dataset, with_vote=False).get("macro_f1"),
        "flipped_wrong_to_right": mc["a_only_correct"],
        "flipped_right_to_wrong": mc["b_only_correct"],
        "mcnemar_p": mc["p_value"],
        "macro_f1_diff": cmp["macro_f1_diff"],
        "ci": cmp["ci"],
    }


def debate_summary(done: list[dict]) -> dict:
    """Rounds used, early-stop rate, first-vote consensus, vote changes, tokens and time per item."""
    st = [r.get("stats") or {} for r in done]
    if not st:
        return {"items": 0, "tokens_total": 0}

    def mean(key: str) -> float | None:
        vals = [s[key] for s in st if s.get(key) is not None]
        return float(np.mean(vals)) if vals else None

    consensus = [s["first_vote_consensus"] for s in st if s.get("first_vote_consensus") is not None]
    rounds = [int(s.get("rounds") or 0) for s in st]
    return {
        "items": len(st),
        "rounds_mean": float(np.mean(rounds)),
        "rounds_hist": {str(k): rounds.count(k) for k in sorted(set(rounds))},
        "early_stop_rate": float(np.mean([bool(s.get("early_stopped")) for s in st])),
        "first_vote_consensus_rate": float(np.mean(consensus)) if consensus else None,
        "vote_changes_mean": mean("vote_changes"),
        "tokens_mean": mean("tokens"),
        "tokens_total": int(sum(int(s.get("tokens") or 0) for s in st)),
        "wall_s_mean": mean("wall_s"),
        "wall_s_total": float(sum(float(s.get("wall_s") or 0) for s in st)),
        "model_calls_mean": mean("model_calls"),
        "cache_hit_rate": (
            sum(int(s.get("cache_hits") or 0) for s in st) / max(1, sum(int(s.get("model_calls") or 0) for s in st))
        ),
        "invalid_turns_total": int(sum(int(s.get("invalid_turns") or 0) for s in st)),
        # a repair that mostly yields one label is a format artefact, not the model's judgement
        "labels_direct": _sum_counts(s.get("labels_direct") for s in st),
        "labels_repaired": _sum_counts(s.get("labels_repaired") for s in st),
    }


def _sum_counts(dicts) -> dict[str, int]:
    return dict(sorted(sum((Counter(d or {}) for d in dicts), Counter()).items()))


def repair_share(debate: dict) -> tuple[int, int]:
    """(labels that came from a repair, all labels) of a run's debate summary."""
    rep = sum((debate.get("labels_repaired") or {}).values())
    return rep, rep + sum((debate.get("labels_direct") or {}).values())


# -- paired comparison -----------------------------------------------------------------------------
def macro_f1_idx(g: np.ndarray, p: np.ndarray, k: int) -> np.ndarray:
    """Macro-F1 over classes 0..k-1 for a batch of resamples (rows); class k = invalid prediction."""
    f1s = []
    for c in range(k):
        tp = ((g == c) & (p == c)).sum(axis=-1)
        fp = ((g != c) & (p == c)).sum(axis=-1)
        fn = ((g == c) & (p != c)).sum(axis=-1)
        denom = 2 * tp + fp + fn
        f1s.append(np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 0.0))
    return np.mean(f1s, axis=0)


def compare_runs(
    rows_a: list[dict], rows_b: list[dict], dataset: dict, *, n_boot: int = 2000, seed: int = 0, alpha: float = 0.05
) -> dict:
    """Run A minus run B on the items both finished: macro-F1 difference with a paired bootstrap CI,
    and McNemar's exact test on per-decision correctness (each item x category is one decision)."""
    from scipy.stats import binomtest

    categories = list(dataset.get("categories") or [])
    labels = list(dataset.get("labels") or [])
    da, db = _decisions(rows_a, categories), _decisions(rows_b, categories)
    keys = sorted(set(da) & set(db))
    if not keys:
        return {"n_items": 0, "note": "the runs share no finished items"}
    common = set.intersection(*[set(da[k][0]) & set(db[k][0]) for k in keys])
    ids = sorted(common)
    if not ids:
        return {"n_items": 0, "note": "the runs share no finished items"}
    labs = labels or sorted({x for k in keys for x in da[k][1]})
    index = {lab: i for i, lab in enumerate(labs)}
    rng = np.random.default_rng(seed)
    boots = rng.integers(0, len(ids), size=(n_boot, len(ids)))
    diff_point, diff_boot = [], []
    b = c = 0
    per_key = {}
    for k in keys:
        ga = dict(zip(da[k][0], da[k][1]))
        pa, pb = dict(zip(da[k][0], da[k][2])), dict(zip(db[k][0], db[k][2]))
        g = np.array([index.get(ga[i], len(labs)) for i in ids])
        xa = np.array([index.get(pa[i], len(labs)) for i in ids])
        xb = np.array([index.get(pb[i], len(labs)) for i in ids])
        fa, fb = float(macro_f1_idx(g, xa, len(labs))), float(macro_f1_idx(g, xb, len(labs)))
        diff_point.append(fa - fb)
        diff_boot.append(macro_f1_idx(g[boots], xa[boots], len(labs)) - macro_f1_idx(g[boots], xb[boots], len(labs)))
        ca, cb = xa == g, xb == g
        b_k, c_k = int((ca & ~cb).sum()), int((~ca & cb).sum())
        b, c = b + b_k, c + c_k
        per_key[k or "all"] = {
            "macro_f1_a": fa,
            "macro_f1_b": fb,
            "diff": fa - fb,
            "a_only_correct": b_k,
            "b_only_correct": c_k,
        }
    boot = np.mean(diff_boot, axis=0)
    lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    p = float(binomtest(b, b + c, 0.5).pvalue) if b + c else 1.0
    return {
        "n_items": len(ids),
        "macro_f1_diff": float(np.mean(diff_point)),
        "ci": [float(lo), float(hi)],
        "ci_level": 1 - alpha,
        "n_boot": n_boot,
        "mcnemar": {"a_only_correct": b, "b_only_correct": c, "p_value": p, "test": "exact binomial"},
        "per_category": per_key if categories else None,
    }
