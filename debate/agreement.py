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
"""

from __future__ import annotations

import math
import warnings
from collections import Counter, defaultdict
from itertools import combinations
from typing import Iterable, Mapping, Sequence

Ratings = Mapping[str, Mapping[str, str]]  # item -> annotator -> label


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


def pairwise_cohen(ratings: Ratings) -> list[dict]:
    """Cohen's kappa and raw agreement for every pair of annotators on the items both labelled."""
    annotators = sorted({a for labels in ratings.values() for a in labels})
    out = []
    for x, y in combinations(annotators, 2):
        common = [i for i, labels in ratings.items() if x in labels and y in labels]
        a = [ratings[i][x] for i in common]
        b = [ratings[i][y] for i in common]
        out.append({"a": x, "b": y, "n": len(common), "kappa": cohen_kappa(a, b),
                    "agreement": percent_agreement(a, b)})
    return out


def human_vs_judge(ratings: Ratings, judge: Mapping[str, str | None]) -> list[dict]:
    """Each annotator (and the human majority) against the judge's verdict, on items with both."""
    annotators = sorted({a for labels in ratings.values() for a in labels})
    rows = []
    for who in annotators + ["(majority)"]:
        h, j = [], []
        for item, labels in ratings.items():
            verdict = judge.get(item)
            label = majority_label(labels.values()) if who == "(majority)" else labels.get(who)
            if verdict is None or label is None:
                continue
            h.append(label)
            j.append(str(verdict))
        rows.append({"annotator": who, "n": len(h), "kappa": cohen_kappa(h, j), "agreement": percent_agreement(h, j)})
    return rows


def summary(annotations: Iterable[Mapping], judge: Mapping[str, str | None] | None = None) -> dict:
    """All statistics the Adjudicate page shows: counts, Cohen (pairs), Fleiss (all), human vs judge."""
    ratings = by_item(annotations)
    annotators = sorted({a for labels in ratings.values() for a in labels})
    multi = [list(labels.values()) for labels in ratings.values() if len(labels) >= 2]
    return {
        "items_labelled": len(ratings),
        "annotators": annotators,
        "items_multi": len(multi),
        "cohen": pairwise_cohen(ratings),
        "fleiss": fleiss_kappa(multi) if len(annotators) >= 2 else None,
        "vs_judge": human_vs_judge(ratings, judge or {}),
    }


def disagreements(annotations: Iterable[Mapping], judge: Mapping[str, str | None] | None = None,
                  gold: Mapping[str, str | None] | None = None) -> list[dict]:
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
            out.append({"item": item, "labels": dict(labels), "majority": human, "judge": judge.get(item),
                        "gold": gold.get(item), "reasons": reasons})
    return out
