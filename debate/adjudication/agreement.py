"""How far annotators agree with each other and with the judge: pure functions over label lists.

Conventions (stated because tools differ):
- Only given labels count: a skipped item is not a rating. Cohen's kappa for two annotators uses the
  items both labelled; Fleiss' kappa uses items with at least two ratings, with the usual
  generalisation to a varying number of raters per item (P_i over each item's own n_i), which equals
  Fleiss (1971) when every item has the same number of raters.
- A kappa is undefined (None) when expected agreement is 1 (everyone used one and the same label):
  agreement is then perfect but uninformative, and 0/0 must not be shown as a number.
- The human label of an item, when several people labelled it, is the strict majority of their labels;
  a tie has no human label (it is a disagreement to settle, not a coin flip).
- Krippendorff's alpha comes from the `krippendorff` package (checked against Krippendorff's own worked
  examples in the tests). Nominal alpha treats labels as unordered; ordinal alpha uses FALSE < HALF-TRUE
  < TRUE (and NO < YES) and is undefined (None) when a label outside that order (NEI) was used. Unlike
  kappa, alpha handles missing ratings and any number of raters natively; it is None when undefined
  (fewer than two pairable ratings, or a single value used throughout).
- Per label, agreement is one label against the rest (binary Fleiss' kappa and nominal alpha): which
  label people agree on, and which they do not.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Literal

Ratings = Mapping[str, Mapping[str, str]]  # item -> annotator -> label
Level = Literal["nominal", "ordinal"]  # the levels of measurement alpha is computed at here
ORDINAL = {"FALSE": 0, "HALF-TRUE": 1, "TRUE": 2, "NO": 0, "YES": 1}  # the order ordinal alpha uses


def krippendorff_alpha(
    ratings: Ratings, level: Level = "nominal", order: Mapping[str, int] | None = None
) -> float | None:
    """Krippendorff's alpha of {item: {annotator: label}} at the `nominal` or `ordinal` level."""
    import numpy as np

    annotators = sorted({a for labels in ratings.values() for a in labels})
    items = [i for i, labels in ratings.items() if labels]
    if len(annotators) < 2 or not items:
        return None
    if level == "ordinal":
        order = dict(order or ORDINAL)
        if any(lab not in order for labels in ratings.values() for lab in labels.values()):
            return None
        codes = order
    elif level == "nominal":
        codes = {
            lab: n for n, lab in enumerate(sorted({lab for labels in ratings.values() for lab in labels.values()}))
        }
    else:
        raise ValueError(f"level must be nominal or ordinal, not {level!r}")
    data = np.full((len(annotators), len(items)), np.nan)
    for j, item in enumerate(items):
        for i, who in enumerate(annotators):
            if who in ratings[item]:
                data[i, j] = codes[ratings[item][who]]
    return alpha_matrix(data, level)


def alpha_matrix(data, level: Level = "nominal") -> float | None:
    """Krippendorff's alpha of a raters x units matrix (NaN = missing) from the `krippendorff` package."""
    import krippendorff
    import numpy as np

    data = np.asarray(data, dtype=float)
    pairable = np.sum(~np.isnan(data), axis=0) >= 2
    values = set(data[:, pairable][~np.isnan(data[:, pairable])].tolist())
    if not pairable.any() or len(values) < 2:
        return None  # no pairable unit, or one value only: alpha is 0/0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    return None if math.isnan(a) else a


def by_item(annotations: Iterable[Mapping]) -> dict[str, dict[str, str]]:
    """{item: {annotator: label}} from annotation rows ({item|key, annotator, label}); unlabelled rows dropped."""
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for a in annotations:
        label = a.get("label")
        if not label:
            continue
        item = str(a.get("item", a.get("key")))
        out[item][str(a["annotator"])] = str(label)
    return dict(out)


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's kappa of two equally long label lists (sklearn); None when undefined or empty."""
    if len(a) != len(b):
        raise ValueError("Cohen's kappa needs two label lists of the same length.")
    if not a:
        return None
    if len(set(a) | set(b)) == 1:
        return None  # expected agreement is 1: kappa is 0/0
    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k = float(cohen_kappa_score(list(a), list(b)))
    return None if math.isnan(k) else k


def fleiss_kappa(item_labels: Sequence[Sequence[str]]) -> float | None:
    """Fleiss' kappa over items, each given as the list of labels its raters gave (>= 2 per item)."""
    rows = [Counter(labels) for labels in item_labels if len(labels) >= 2]
    if not rows:
        return None
    total = sum(sum(r.values()) for r in rows)
    cats = sorted({c for r in rows for c in r})
    p_j = {c: sum(r.get(c, 0) for r in rows) / total for c in cats}
    p_e = sum(p * p for p in p_j.values())
    p_i = []
    for r in rows:
        n = sum(r.values())
        p_i.append((sum(v * v for v in r.values()) - n) / (n * (n - 1)))
    p_bar = sum(p_i) / len(p_i)
    if abs(1.0 - p_e) < 1e-12:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def percent_agreement(a: Sequence[str], b: Sequence[str]) -> float | None:
    return (sum(x == y for x, y in zip(a, b)) / len(a)) if a else None


def majority_label(labels: Iterable[str]) -> str | None:
    """The strict majority (most common, not tied); None on a tie or no labels."""
    c = Counter(labels).most_common()
    if not c or (len(c) > 1 and c[0][1] == c[1][1]):
        return None
    return c[0][0]


def per_label(ratings: Ratings, labels: Sequence[str] | None = None) -> list[dict]:
    """For each label, one-vs-rest agreement over items with at least two ratings: how often it was used,
    Fleiss' kappa and nominal Krippendorff's alpha of the binary "this label or not" ratings."""
    labels = list(labels or sorted({lab for ls in ratings.values() for lab in ls.values()}))
    multi = {i: ls for i, ls in ratings.items() if len(ls) >= 2}
    out = []
    for lab in labels:
        binary = {i: {a: ("1" if v == lab else "0") for a, v in ls.items()} for i, ls in multi.items()}
        out.append(
            {
                "label": lab,
                "used": sum(v == lab for ls in ratings.values() for v in ls.values()),
                "fleiss": fleiss_kappa([list(ls.values()) for ls in binary.values()]),
                "alpha": krippendorff_alpha(binary, "nominal"),
            }
        )
    return out


def pairwise_cohen(ratings: Ratings) -> list[dict]:
    """Cohen's kappa, raw agreement and Krippendorff's alpha (nominal, ordinal) for every pair of
    annotators on the items both labelled."""
    annotators = sorted({a for labels in ratings.values() for a in labels})
    out = []
    for x, y in combinations(annotators, 2):
        common = [i for i, labels in ratings.items() if x in labels and y in labels]
        a = [ratings[i][x] for i in common]
        b = [ratings[i][y] for i in common]
        pair = {i: {x: ratings[i][x], y: ratings[i][y]} for i in common}
        out.append(
            {
                "a": x,
                "b": y,
                "n": len(common),
                "kappa": cohen_kappa(a, b),
                "agreement": percent_agreement(a, b),
                "alpha_nominal": krippendorff_alpha(pair, "nominal"),
                "alpha_ordinal": krippendorff_alpha(pair, "ordinal"),
            }
        )
    return out


def _paired(ratings: Ratings, other: Mapping[str, str | None], who: str) -> tuple[list[str], list[str]]:
    """(human labels, other labels) over the items both have; `who` an annotator or "(majority)"."""
    h, o = [], []
    for item, labels in ratings.items():
        theirs = other.get(item)
        label = majority_label(labels.values()) if who == "(majority)" else labels.get(who)
        if theirs is None or label is None:
            continue
        h.append(label)
        o.append(str(theirs))
    return h, o


def human_vs_judge(ratings: Ratings, judge: Mapping[str, str | None]) -> list[dict]:
    """Each annotator (and the human majority) against the judge's verdict, on items with both."""
    annotators = sorted({a for labels in ratings.values() for a in labels})
    rows = []
    for who in annotators + ["(majority)"]:
        h, j = _paired(ratings, judge, who)
        rows.append({"annotator": who, "n": len(h), "kappa": cohen_kappa(h, j), "agreement": percent_agreement(h, j)})
    return rows


def kappa_ci(
    a: Sequence[str], b: Sequence[str], *, resamples: int = 1000, level: float = 0.95, seed: int = 0
) -> tuple[float, float] | None:
    """A percentile bootstrap confidence interval of Cohen's kappa (sklearn's `cohen_kappa_score` on
    each resample of the pairs, drawn with replacement, seeded so the page shows the same interval on
    every run). None with fewer than 5 pairs, or when kappa is undefined in most resamples (one label
    throughout): a range from a handful of points would look more certain than it is."""
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    if len(a) != len(b):
        raise ValueError("Cohen's kappa needs two label lists of the same length.")
    if len(a) < 5:
        return None
    x, y = np.asarray(list(a), dtype=object), np.asarray(list(b), dtype=object)
    rng = np.random.default_rng(seed)
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(resamples):
            idx = rng.integers(0, len(x), len(x))
            xs, ys = x[idx], y[idx]
            if len(set(xs) | set(ys)) < 2:
                continue  # one label throughout: kappa is 0/0 in this resample
            k = float(cohen_kappa_score(list(xs), list(ys)))
            if not math.isnan(k):
                found.append(k)
    if len(found) < resamples / 2:
        return None
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(found, [tail, 100 - tail])
    return float(lo), float(hi)


def human_vs_file(ratings: Ratings, gold: Mapping[str, str | None], resamples: int = 1000) -> list[dict]:
    """Each annotator (and, with two or more, the human majority) against the dataset's own label, on items
    with both: Cohen's kappa with its bootstrap interval, and raw agreement. Items whose own label is
    missing or split (its annotators disagreed) are left out: there is nothing to agree with."""
    annotators = sorted({a for labels in ratings.values() for a in labels})
    rows = []
    for who in annotators + (["(majority)"] if len(annotators) > 1 else []):
        h, g = _paired(ratings, gold, who)
        rows.append(
            {
                "annotator": who,
                "n": len(h),
                "kappa": cohen_kappa(h, g),
                "ci": kappa_ci(h, g, resamples=resamples),
                "agreement": percent_agreement(h, g),
            }
        )
    return rows


def summary(
    annotations: Iterable[Mapping], judge: Mapping[str, str | None] | None = None, labels: Sequence[str] | None = None
) -> dict:
    """All statistics the Adjudicate page shows: counts, Cohen and alpha (pairs), Fleiss and alpha (all),
    per-label agreement, human vs judge."""
    ratings = by_item(annotations)
    annotators = sorted({a for labels in ratings.values() for a in labels})
    multi = [list(labels.values()) for labels in ratings.values() if len(labels) >= 2]
    return {
        "items_labelled": len(ratings),
        "annotators": annotators,
        "items_multi": len(multi),
        "cohen": pairwise_cohen(ratings),
        "fleiss": fleiss_kappa(multi) if len(annotators) >= 2 else None,
        "alpha_nominal": krippendorff_alpha(ratings, "nominal"),
        "alpha_ordinal": krippendorff_alpha(ratings, "ordinal"),
        "per_label": per_label(ratings, labels),
        "vs_judge": human_vs_judge(ratings, judge or {}),
    }


def judge_vs_gold(
    pairs: Iterable[tuple[str | None, str | None, float | None]], labels: Sequence[str], n_bins: int = 5
) -> dict:
    """The judge against the adjudicated gold, from (gold, judge label, judge confidence) per case.

    Confusion matrix (rows gold, columns judge; a case without a judge verdict is column NONE) and a
    calibration curve: cases binned by the judge's confidence (equal-width bins, sklearn's binning),
    each bin's mean confidence against its share of correct verdicts, with counts, Brier score and the
    expected calibration error (count-weighted gap). Cases without gold are left out. `n` counts the
    adjudicated cases, `n_judged` those of them with a judge verdict; accuracy is over the judged ones
    only (None when there are none), so cases the judge never decided do not read as its mistakes."""
    import numpy as np
    from sklearn.calibration import calibration_curve
    from sklearn.metrics import brier_score_loss, confusion_matrix

    rows = [(g, j, c) for g, j, c in pairs if g is not None]
    cols = list(labels) + (["NONE"] if any(j not in labels for _, j, _ in rows) else [])
    gold = [g for g, _, _ in rows]
    pred = [j if j in labels else "NONE" for _, j, _ in rows]
    cm = confusion_matrix(gold, pred, labels=cols)[: len(labels)].tolist() if rows else []
    conf = [(float(c), float(j == g)) for g, j, c in rows if c is not None and j is not None]
    cal: dict = {"n": len(conf), "bins": [], "brier": None, "ece": None}
    if conf:
        prob, correct = np.array([c for c, _ in conf]).clip(0, 1), np.array([y for _, y in conf])
        edges = np.linspace(0.0, 1.0, n_bins + 1)
        ids = np.searchsorted(edges[1:-1], prob)  # the bins calibration_curve uses
        counts = np.bincount(ids, minlength=n_bins)
        if len(set(correct.tolist())) > 1:
            frac, mean = calibration_curve(correct, prob, n_bins=n_bins, strategy="uniform")
        else:  # one class only: sklearn refuses; the fractions are that class in every bin
            mean = np.array([prob[ids == b].mean() for b in range(n_bins) if counts[b]])
            frac = np.array([correct[ids == b].mean() for b in range(n_bins) if counts[b]])
        nz = [b for b in range(n_bins) if counts[b]]
        cal["bins"] = [
            {
                "lo": float(edges[b]),
                "hi": float(edges[b + 1]),
                "n": int(counts[b]),
                "confidence": float(m),
                "accuracy": float(f),
            }
            for b, m, f in zip(nz, mean, frac)
        ]
        cal["brier"] = float(brier_score_loss(correct, prob)) if len(conf) else None
        cal["ece"] = float(sum(b["n"] * abs(b["confidence"] - b["accuracy"]) for b in cal["bins"]) / len(conf))
    judged = [(g, j) for g, j in zip(gold, pred) if j != "NONE"]
    return {
        "n": len(rows),
        "n_judged": len(judged),
        "labels": list(labels),
        "columns": cols,
        "matrix": cm,
        "accuracy": (sum(g == j for g, j in judged) / len(judged)) if judged else None,
        "calibration": cal,
    }


def disagreements(
    annotations: Iterable[Mapping],
    judge: Mapping[str, str | None] | None = None,
    gold: Mapping[str, str | None] | None = None,
) -> list[dict]:
    """Items where annotators disagree, or where the human majority differs from the judge or gold."""
    judge, gold = judge or {}, gold or {}
    out = []
    for item, labels in sorted(by_item(annotations).items()):
        distinct = set(labels.values())
        human = majority_label(labels.values())
        reasons = []
        if len(distinct) > 1:
            reasons.append("annotators disagree")
        if human is not None and judge.get(item) not in (None, human):
            reasons.append("human ≠ judge")
        if human is not None and gold.get(item) not in (None, human):
            reasons.append("human ≠ gold")
        if reasons:
            out.append(
                {
                    "item": item,
                    "labels": dict(labels),
                    "majority": human,
                    "judge": judge.get(item),
                    "gold": gold.get(item),
                    "reasons": reasons,
                }
            )
    return out
