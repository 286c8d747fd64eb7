"""The council's targets on CheckThat dev, pooled over categories, with paired bootstrap CIs.

`python -m debate eval-targets RUN_CAT1 RUN_CAT2 RUN_CAT3` reads one finished council run per category
(no model calls) and sets the council beside, on exactly its items:
- each member's own first vote (its round-0 vote: with demos=dialogue the baseline's prompt and fitted
  threshold, so it is the member's baseline decision) and the best of them on these items;
- the vote: the plain majority of the members' first votes (the `vote_comparison` event);
- the k-NN reference: the YES share among the tweet's k nearest CheckThat train tweets against a
  threshold fitted on a stratified train sample (leave-one-out), no language model;
- always-NO, the constant label.
Every run is also scored on the slice of each category's tweets whose nearest train tweets are least
similar (the lowest third by mean cosine of the k nearest), where copying labelled neighbours helps least.

Pooled = the CheckThat convention: macro-F1 per category, averaged over the categories. The paired
bootstrap resamples the items of each category on its own (stratified by category) and recomputes that
average for both sides, so a CI is of the difference on the same items.

The statistics (`macro_f1`, `pooled_paired_bootstrap`, `least_similar_third`) are pure; the rest reads
runs and the cached train embeddings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from debate.evaluation.metrics import macro_f1_idx as _f1_batch  # one macro-F1 over index-coded resamples

LABELS = ("YES", "NO")


def macro_f1(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str] = LABELS) -> float:
    """Macro-F1 over `labels` (a prediction outside them is wrong for every class)."""
    g, p = np.asarray(gold), np.asarray(pred)
    f1s = []
    for lab in labels:
        tp = int(((g == lab) & (p == lab)).sum())
        fp = int(((g != lab) & (p == lab)).sum())
        fn = int(((g == lab) & (p != lab)).sum())
        f1s.append(2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else 0.0)
    return float(np.mean(f1s))


def pooled_paired_bootstrap(
    groups: Mapping[str, tuple[Sequence[str], Sequence[str], Sequence[str]]],
    labels: Sequence[str] = LABELS,
    n_boot: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
) -> dict:
    """A minus B: the mean over groups (categories) of macro-F1(A) − macro-F1(B), with a paired bootstrap
    CI that resamples each group's items on its own, and McNemar's exact test on correctness pooled over
    every decision. `groups` maps a category to (gold, pred_a, pred_b), aligned item by item."""
    from scipy.stats import binomtest

    groups = {k: v for k, v in groups.items() if len(v[0])}
    if not groups:
        return {"n": 0, "diff": None, "ci": [None, None], "a_only": 0, "b_only": 0, "p": 1.0, "a": None, "b": None}
    index = {lab: i for i, lab in enumerate(labels)}
    rng = np.random.default_rng(seed)
    boot_diff = np.zeros(n_boot)
    point_a, point_b, a_only, b_only, n = [], [], 0, 0, 0
    for gold, pa, pb in groups.values():
        if not len(gold) == len(pa) == len(pb):
            raise ValueError("pooled_paired_bootstrap: gold and both predictions must be aligned")
        code = lambda xs: np.array([index.get(x, len(labels)) for x in xs])
        g, a, b = code(gold), code(pa), code(pb)
        point_a.append(float(_f1_batch(g, a, len(labels))))
        point_b.append(float(_f1_batch(g, b, len(labels))))
        idx = rng.integers(0, len(g), size=(n_boot, len(g)))
        boot_diff += _f1_batch(g[idx], a[idx], len(labels)) - _f1_batch(g[idx], b[idx], len(labels))
        a_only += int(((a == g) & (b != g)).sum())
        b_only += int(((a != g) & (b == g)).sum())
        n += len(g)
    boot_diff /= len(groups)
    lo, hi = np.quantile(boot_diff, [alpha / 2, 1 - alpha / 2])
    p = float(binomtest(a_only, a_only + b_only, 0.5).pvalue) if a_only + b_only else 1.0
    fa, fb = float(np.mean(point_a)), float(np.mean(point_b))
    return {
        "n": n,
        "a": fa,
        "b": fb,
        "diff": fa - fb,
        "ci": [float(lo), float(hi)],
        "a_only": a_only,
        "b_only": b_only,
        "p": p,
    }


def least_similar_third(similarity: Mapping[str, float]) -> set[str]:
    """The ids of the third of items (rounded, at least one) with the lowest similarity to their nearest
    train tweets; ties broken by id, so the slice is the same in every run."""
    if not similarity:
        return set()
    n = max(1, round(len(similarity) / 3))
    return {i for i, _ in sorted(similarity.items(), key=lambda kv: (kv[1], str(kv[0])))[:n]}


# -- reading the runs ------------------------------------------------------------------------------
@dataclass
class CategoryItems:
    """One category's finished council items, with every compared side's decision per item."""

    category: str
    ids: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    gold: list[str] = field(default_factory=list)
    sides: dict[str, list[str]] = field(default_factory=dict)  # side name -> decision per item
    discussed: list[bool] = field(default_factory=list)


def council_items(run_dir: str) -> CategoryItems:
    """The council's verdicts, its vote and its members' first votes on a run's finished items of one
    category (items whose gold is a soft label are left out, as in the run's metrics)."""
    from debate.errors import InvalidInput
    from debate.evaluation.checkpoint import read_meta, read_rows
    from debate.evaluation.extract import vote_prediction

    opts = read_meta(run_dir, "options") or {}
    cat = opts.get("category")
    if opts.get("protocol") != "council" or cat is None:
        raise InvalidInput(
            f"{run_dir} is not a council run on one CheckThat category.",
            "Give one `eval --protocol council --category N` run per category.",
        )
    c = str(cat)
    out = CategoryItems(c)
    for row in read_rows(run_dir, with_events=True):
        gold = (row.get("gold") or {}).get(c) if isinstance(row.get("gold"), dict) else None
        pred = (row.get("prediction") or {}).get(c) if isinstance(row.get("prediction"), dict) else None
        if row.get("status") != "done" or gold not in LABELS:
            continue
        events = row.get("events") or []
        first = next(
            (
                e
                for e in events
                if e.get("type") == "votes_tallied" and e.get("round") == 0 and str(e.get("category") or c) == c
            ),
            None,
        )
        vote = vote_prediction(events, row.get("prediction"))
        if first is None or vote is None:
            continue
        out.ids.append(str(row["item_id"]))
        out.texts.append(str(row.get("text") or ""))
        out.gold.append(gold)
        out.sides.setdefault("council", []).append(pred or "INVALID")
        out.sides.setdefault("vote", []).append((vote or {}).get(c) or "INVALID")
        for member, label in (first.get("votes") or {}).items():
            out.sides.setdefault(f"member {member}", []).append(label or "INVALID")
        out.discussed.append(any(e.get("type") == "votes_tallied" and (e.get("round") or 0) > 0 for e in events))
    return out


def _neighbours(texts: Sequence[str], category: int, k: int) -> list[list]:
    """Each text's k nearest CheckThat train tweets with their labels in `category` (never the text itself)."""
    from debate.aids.demos import pool, select
    from debate.retrieval.embed import embed

    p = pool()
    vecs, labels = p.vectors(), p.labels(category)
    return [select(v, vecs, p.texts, labels, k, exclude_text=t) for v, t in zip(embed(list(texts)), texts)]


def neighbour_similarity(texts: Sequence[str], k: int) -> list[float]:
    """Mean cosine of each text's k nearest CheckThat train tweets."""
    return [float(np.mean([d.similarity for d in ds])) for ds in _neighbours(texts, 1, k)]


def knn_shares(texts: Sequence[str], category: int, k: int) -> list[float]:
    """The YES share among each text's k nearest CheckThat train tweets."""
    return [sum(d.label == "YES" for d in ds) / k for ds in _neighbours(texts, category, k)]


def knn_threshold(category: int, k: int, train_sample: int, seed: int = 0) -> tuple[float, float, int]:
    """(threshold, train macro-F1, n) of the k-NN share, fitted on a stratified CheckThat train sample
    (leave-one-out: a train tweet never counts itself), as the members' thresholds are."""
    from debate.aids import calibration as cal
    from debate.datasets import load_dataset
    from debate.evaluation.sampling import stratified_sample

    items = [
        it
        for it in stratified_sample(load_dataset("checkthat-train").items, train_sample, seed=seed, category=category)
        if isinstance(it.gold, dict) and it.gold.get(str(category)) in LABELS
    ]
    t, f1 = cal.fit_threshold(
        knn_shares([it.text for it in items], category, k),
        [it.gold[str(category)] for it in items if isinstance(it.gold, dict)],  # (all of them: kept above)
    )
    return t, f1, len(items)


@dataclass
class Targets:
    """Everything the targets table prints: per side and category the decisions, and the slice."""

    cats: dict[str, CategoryItems]
    slice_ids: dict[str, set[str]]
    knn_fit: dict[str, tuple[float, float, int]]
    best_member: str

    def groups(self, a: str, b: str, only_slice: bool = False) -> dict:
        out = {}
        for c, it in self.cats.items():
            keep = [i for i, x in enumerate(it.ids) if not only_slice or x in self.slice_ids[c]]
            out[c] = ([it.gold[i] for i in keep], [it.sides[a][i] for i in keep], [it.sides[b][i] for i in keep])
        return out

    def score(self, side: str, only_slice: bool = False) -> tuple[dict[str, float], float]:
        per = {c: macro_f1(g, p) for c, (g, p, _) in self.groups(side, side, only_slice).items()}
        return per, float(np.mean(list(per.values())))


def collect(run_dirs: Sequence[str], k: int = 8, train_sample: int = 40, seed: int = 0) -> Targets:
    """Read the council runs (one per category), add the k-NN reference and always-NO, pick the slice."""
    from debate.errors import InvalidInput

    cats: dict[str, CategoryItems] = {}
    for run in run_dirs:
        it = council_items(run)
        if it.category in cats:
            raise InvalidInput(f"Two runs for category {it.category}.", "Give one council run per category.")
        if not it.ids:
            raise InvalidInput(f"{run} has no finished council item yet.", "Run (or resume) the evaluation first.")
        cats[it.category] = it
    members = sorted({s for it in cats.values() for s in it.sides if s.startswith("member ")})
    for it in cats.values():
        for m in members:
            if len(it.sides.get(m, [])) != len(it.ids):
                raise InvalidInput(
                    f"The runs do not seat the same members ({m} is missing in category {it.category}).",
                    "Give runs of one lineup.",
                )
    knn_fit, slice_ids = {}, {}
    for c, it in cats.items():
        knn_fit[c] = knn_threshold(int(c), k, train_sample, seed)
        it.sides["k-NN"] = ["YES" if s >= knn_fit[c][0] else "NO" for s in knn_shares(it.texts, int(c), k)]
        it.sides["always-NO"] = ["NO"] * len(it.ids)
        slice_ids[c] = least_similar_third(dict(zip(it.ids, neighbour_similarity(it.texts, k))))
    t = Targets(cats, slice_ids, knn_fit, "")
    t.best_member = max(members, key=lambda m: (t.score(m)[1], m))
    return t


def _fmt_ci(r: dict) -> str:
    if r["diff"] is None:
        return "–"
    return f"{r['diff']:+.3f} [{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]"


def _met(r: dict, need_above: bool) -> str:
    if r["diff"] is None:
        return "no items"
    lo = r["ci"][0]
    if need_above:
        return "**met**" if lo > 0 else "not met"
    return "**met**" if r["diff"] >= 0 else "not met"


def render(t: Targets, n_boot: int = 2000) -> str:
    """The targets as markdown: scores per side (all items and the slice), then the paired comparisons."""
    cats = sorted(t.cats)
    sides = [
        "council",
        "vote",
        *sorted(s for s in t.cats[cats[0]].sides if s.startswith("member ")),
        "k-NN",
        "always-NO",
    ]
    lines = [
        "Items: "
        + ", ".join(
            f"category {c}: {len(t.cats[c].ids)} (slice {len(t.slice_ids[c])}, "
            f"{sum(t.cats[c].discussed)} with a discussion round)"
            for c in cats
        ),
        "k-NN: YES share of the tweet's nearest train tweets against a threshold fitted on train: "
        + "; ".join(
            f"category {c}: {t.knn_fit[c][0]:g} (train macro-F1 {t.knn_fit[c][1]:.3f}, n = {t.knn_fit[c][2]})"
            for c in cats
        ),
        "",
        "| side | " + " | ".join(f"cat {c}" for c in cats) + " | pooled | least-similar third, pooled |",
        "|---|" + "---|" * (len(cats) + 2),
    ]
    for s in sides:
        per, pooled = t.score(s)
        _, sl = t.score(s, only_slice=True)
        name = s + (" (best member)" if s == t.best_member else "")
        lines.append(f"| {name} | " + " | ".join(f"{per[c]:.3f}" for c in cats) + f" | {pooled:.3f} | {sl:.3f} |")
    comps = [
        (
            "council vs its best member (" + t.best_member.removeprefix("member ") + ", best on these dev items)",
            "council",
            t.best_member,
            False,
            True,
        ),
        ("council vs the k-NN reference", "council", "k-NN", False, True),
        ("council vs the k-NN reference, least-similar third", "council", "k-NN", True, False),
        ("debate vs its own first-vote majority (the vote)", "council", "vote", False, True),
        ("debate vs the vote, least-similar third", "council", "vote", True, None),
    ]
    comps += [
        (f"{s} vs always-NO" + (", least-similar third" if sl else ""), s, "always-NO", sl, None)
        for s in sides[:-1]
        for sl in (False, True)
    ]
    lines += [
        "",
        "| A vs B (same items, categories pooled) | items | macro-F1 A − B [95 % CI] | A right, B wrong / "
        "B right, A wrong | McNemar p | target |",
        "|---|---|---|---|---|---|",
    ]
    for title, a, b, sl, above in comps:
        r = pooled_paired_bootstrap(t.groups(a, b, sl), n_boot=n_boot)
        target = "–" if above is None else _met(r, above) + (" (CI lower end > 0)" if above else " (not below)")
        lines.append(f"| {title} | {r['n']} | {_fmt_ci(r)} | {r['a_only']} / {r['b_only']} | {r['p']:.3g} | {target} |")
    lines += [
        "",
        "Where the discussion changed the first vote's majority (per category: wrong → right / "
        "right → wrong): "
        + "; ".join(f"category {c}: {fl[0]} / {fl[1]}" for c, fl in ((c, _flips(t.cats[c])) for c in cats)),
    ]
    return "\n".join(lines)


def _flips(it: CategoryItems) -> tuple[int, int]:
    good = bad = 0
    for g, d, v in zip(it.gold, it.sides["council"], it.sides["vote"]):
        if d != v:
            good += d == g
            bad += v == g
    return good, bad
