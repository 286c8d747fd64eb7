"""Stratified samples on the real dataset files: label shares kept, seeds repeatable, runs pair up."""

from __future__ import annotations

from collections import Counter

import pytest

from debate.datasets import Item, load_dataset
from debate.errors import InvalidInput
from debate.evaluation.sampling import select_items, stratified_sample
from tests.conftest import data_path


def test_checkthat_sample_keeps_the_split_share_unlike_the_first_items():
    items = load_dataset("checkthat-dev").items  # 137 tweets, 26 category-2 positives (19 %)
    first = Counter(i.gold["2"] for i in items[:40])
    sample = select_items(items, sample=40, sample_seed=0, category=2)
    got = Counter(i.gold["2"] for i in sample)
    assert first["YES"] == 6  # why --sample exists: the file's head under-represents positives
    assert got["YES"] == round(40 * 26 / 137) == 8 and len(sample) == 40
    assert len({i.id for i in sample}) == 40
    pos = {it.id: n for n, it in enumerate(items)}
    assert [pos[i.id] for i in sample] == sorted(pos[i.id] for i in sample)  # dataset order kept


def test_same_seed_same_items_other_seed_other_items():
    data_path("liar/valid.tsv")
    items = load_dataset("liar-valid").items
    a = [i.id for i in select_items(items, sample=24, sample_seed=0)]
    b = [i.id for i in select_items(items, sample=24, sample_seed=0)]
    c = [i.id for i in select_items(items, sample=24, sample_seed=1)]
    assert a == b and a != c
    counts = Counter(i.gold for i in select_items(items, sample=24))
    full = Counter(i.gold for i in items)  # 616 FALSE / 499 HALF-TRUE / 169 TRUE of 1,284
    for label, n in full.items():
        assert abs(counts[label] - 24 * n / len(items)) <= 1
    # --limit after --sample is a prefix of the same sample, so a run can grow in place
    assert [i.id for i in select_items(items, sample=24, limit=10)] == a[:10]


def test_unlabelled_rare_and_oversized_requests():
    test_items = load_dataset("checkthat-test").items
    s = stratified_sample(test_items, 5, seed=3)
    assert len(s) == 5 and all(i.gold is None for i in s)
    rare = [Item(id=str(n), text="t", gold="A" if n < 30 else "B") for n in range(31)]  # one "B"
    assert len(stratified_sample(rare, 10)) == 10
    assert stratified_sample(rare, 99) == rare
    with pytest.raises(InvalidInput):
        stratified_sample(rare, 0)
