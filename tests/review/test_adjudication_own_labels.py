"""Agreement with the file's own labels: Cohen's kappa (scikit-learn) with a bootstrap interval, for each
annotator, also when there is only one; cases whose own label is missing or split are left out."""

from __future__ import annotations

from sklearn.metrics import cohen_kappa_score

from debate.adjudication import agreement


def test_one_annotator_against_the_file_gets_a_kappa_and_an_interval():
    gold = {f"c{i}": ("YES" if i % 2 else "NO") for i in range(30)}
    gold |= {"split": None, "none": None}
    mine = {k: (v if i % 5 else ("NO" if v == "YES" else "YES")) for i, (k, v) in enumerate(gold.items()) if v}
    ratings = {k: {"ann": v} for k, v in mine.items()} | {"split": {"ann": "YES"}, "none": {"ann": "NO"}}
    rows = agreement.human_vs_file(ratings, gold, resamples=300)
    assert [r["annotator"] for r in rows] == ["ann"]  # no "(majority)" row with one annotator
    (row,) = rows
    keys = list(mine)
    assert row["n"] == 30
    assert row["kappa"] == cohen_kappa_score([mine[k] for k in keys], [gold[k] for k in keys])
    lo, hi = row["ci"]
    assert lo <= row["kappa"] <= hi and 0 < hi - lo < 1
    assert agreement.human_vs_file(ratings, gold, resamples=300)[0]["ci"] == (lo, hi)  # the same on every run
    assert row["agreement"] == 24 / 30


def test_two_annotators_add_the_majority_and_few_cases_give_no_interval():
    gold = {"a": "YES", "b": "NO", "c": "YES"}
    ratings = {"a": {"x": "YES", "y": "YES"}, "b": {"x": "NO", "y": "YES"}, "c": {"x": "YES"}}
    rows = {r["annotator"]: r for r in agreement.human_vs_file(ratings, gold)}
    assert set(rows) == {"x", "y", "(majority)"}
    assert rows["x"]["kappa"] == 1.0 and rows["x"]["ci"] is None  # 3 cases: no interval pretends to know
    assert rows["(majority)"]["n"] == 2  # b is a tie: no majority label
