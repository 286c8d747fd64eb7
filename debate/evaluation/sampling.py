"""Which items a run evaluates: the first N (`--limit`) or a seeded stratified sample (`--sample`).

Why a stratified sample: the datasets are ordered (by collection date or id), so the first N items have a
different label mix from the split — the first 40 CheckThat dev tweets hold 6 category-2 positives where the
split has 19 %. A sample that keeps each label's share of the split gives an estimate of the whole split's
metrics at a fraction of the model time, and the same seed gives the same items in every run, so runs of
different protocols on one sample pair up item by item (`eval-compare`). scikit-learn does the stratified
draw; the chosen items keep their order in the file so a run reads like the dataset.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from debate.datasets import Item
from debate.errors import InvalidInput


def stratum(item: Item, category: int | None) -> str | None:
    """The label an item is stratified on: its category's label, the joined labels, or None (unlabelled)."""
    gold = item.gold
    if gold is None:
        return None
    if isinstance(gold, dict):
        return (
            str(gold.get(str(category)))
            if category is not None
            else ",".join(f"{k}={v}" for k, v in sorted(gold.items()))
        )
    return str(gold)


def stratified_sample(items: Sequence[Item], n: int, *, seed: int = 0, category: int | None = None) -> list[Item]:
    """`n` items drawn without replacement, each label keeping its share of `items`; dataset order kept.

    Labels too rare to stratify on (fewer than two items, or fewer than one expected in the sample) are
    pooled into one stratum so sklearn's split stays valid; an unlabelled split gets a plain random sample.
    """
    if n < 1:
        raise InvalidInput("--sample must be at least 1.", "Give the number of items to draw, e.g. --sample 40.")
    if n >= len(items):
        return list(items)
    from sklearn.model_selection import train_test_split

    keys = [stratum(it, category) for it in items]
    counts = Counter(keys)
    rare = {k for k, c in counts.items() if c < 2 or c * n / len(items) < 1}
    strata = ["<rare>" if k in rare else k for k in keys]
    usable = (
        len(set(strata)) > 1
        and all(c >= 2 for c in Counter(strata).values())
        and None not in counts
        and len(set(strata)) <= n <= len(items) - len(set(strata))
    )
    idx = list(range(len(items)))
    chosen, _ = train_test_split(
        idx, train_size=n, random_state=seed, shuffle=True, stratify=strata if usable else None
    )
    return [items[i] for i in sorted(chosen)]


def select_items(
    items: Sequence[Item],
    *,
    limit: int | None = None,
    sample: int | None = None,
    sample_seed: int = 0,
    category: int | None = None,
) -> list[Item]:
    """The run's items: the sample (if asked) in dataset order, then the first `limit` of those."""
    chosen = stratified_sample(items, sample, seed=sample_seed, category=category) if sample else list(items)
    return chosen[:limit] if limit else chosen
