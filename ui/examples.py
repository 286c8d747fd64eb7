"""Example tweets and claims for the Debate page, drawn from the datasets with their gold labels.

The gold label is kept only for display after the verdict (right/wrong); it never reaches a model.
Selection is deterministic and balanced across labels so the one-click examples show both outcomes.
"""

from __future__ import annotations

import random

from debate.errors import DebateError

# task -> (dataset name, source label shown on the page)
SOURCES: dict[str, list[tuple[str, str]]] = {
    "checkthat": [("checkthat-dev", "CheckThat 2025 4a dev")],
    "halftruth": [("liar-valid", "LIAR valid"), ("averitec-dev-3", "AVeriTeC dev")],
    "averitec": [("averitec-dev", "AVeriTeC dev")],
    "custom": [("checkthat-dev", "CheckThat 2025 4a dev"), ("liar-valid", "LIAR valid")],
}


def _label_key(gold) -> str:
    if isinstance(gold, dict):
        return "".join(gold.get(c, "?")[0] for c in sorted(gold))
    return str(gold)


def missing_sources(task: str) -> list[str]:
    """The titles of this task's example sources that are not on this machine (AVeriTeC and LIAR are
    fetched, not shipped), for the page to say so beside the examples it does have."""
    from debate.datasets import named_path

    return [title for name, title in SOURCES.get(task, SOURCES["custom"]) if named_path(name) is None]


def load_examples(task: str, n: int = 60, seed: int = 7) -> list[dict]:
    """Up to n examples {id, text, gold, source}: short texts, round-robin over gold labels."""
    from debate.datasets import load_dataset

    pools: dict[str, list[dict]] = {}
    for name, title in SOURCES.get(task, SOURCES["custom"]):
        try:
            ds = load_dataset(name)
        except DebateError:
            continue  # a missing data folder just means fewer examples
        for item in ds.items:
            if len(item.text) > 320 or len(item.text) < 25:
                continue
            pools.setdefault(_label_key(item.gold), []).append(
                {"id": f"{name}:{item.id}", "text": item.text, "gold": item.gold, "source": title}
            )
    rng = random.Random(seed)
    for pool in pools.values():
        rng.shuffle(pool)
    out: list[dict] = []
    keys = sorted(pools)
    while len(out) < n and any(pools.values()):
        for k in keys:
            if pools[k] and len(out) < n:
                out.append(pools[k].pop())
    return out


def gold_for(example: dict | None, task: str, category: int | None) -> str | None:
    """The gold label to compare with this debate's verdict (one category of CheckThat, or the label)."""
    if not example:
        return None
    gold = example.get("gold")
    if isinstance(gold, dict):
        if category is None:  # all three categories: the runner reads "YES,NO,YES"
            return ",".join(gold.get(c, "?") for c in ("1", "2", "3"))
        return gold.get(str(category))
    if task in ("checkthat", "custom"):
        return None  # a half-truth label cannot grade a CheckThat category or a custom question
    return gold
