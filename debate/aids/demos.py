"""Demonstrations chosen per tweet by similarity (KATE: Liu et al., "What Makes Good In-Context Examples
for GPT-3?", DeeLIO 2022) from the CheckThat! 2025 **train** split.

Why: the paper's few-shot baseline shows the same 3–5 hand-written App. A.2 examples for every tweet.
A small model imitates its demonstrations more than it follows a description, so showing it the train
tweets most like the one being judged (with their gold labels) gives it the most useful pattern to copy.

Leakage rule: the pool is always the train split, so a dev or test tweet never sees its own split; when
train itself is being scored (to fit a threshold), the tweet's own text is excluded from its demos
(leave-one-out). Two neighbour searches: by meaning (MiniLM cosine, the default) and by shared words
(TF-IDF cosine, lexical.py); a lineup member may read either. `select` and `nearest` are pure; the pool's
MiniLM embeddings and TF-IDF index are computed once and cached under DEBATE_HOME/indexes, keyed by the
train file's fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from debate import config
from debate.errors import InvalidInput
from debate.lineups import NEIGHBOURS
from debate.tasks import Labelled

POOL_DATASET = "checkthat-train"


@dataclass(frozen=True)
class Demo(Labelled):
    similarity: float  # cosine to the tweet being judged


def norm_text(text: str) -> str:
    """Texts compared for the leave-one-out rule: case and whitespace do not make a tweet new."""
    return " ".join(str(text).split()).casefold()


def select(
    query_vec: Sequence[float],
    pool_vecs,
    pool_texts: Sequence[str],
    pool_labels: Sequence[str],
    k: int,
    exclude_text: str = "",
    skip: int = 0,
) -> list[Demo]:
    """The k pool items most similar to the query (cosine on L2-normalised vectors), most similar last
    (nearest to the tweet in the prompt, as KATE orders them), never an item whose text is the query's.

    `skip` passes over the `skip` nearest items first: council members given disjoint slices of the
    neighbours (skip 0, k 4 and skip 4, k 4) each know a different part of the labelled data, so their
    votes are not one vote cast twice."""
    import numpy as np

    if k <= 0 or len(pool_texts) == 0:
        return []
    sims = np.asarray(pool_vecs, dtype="float32") @ np.asarray(query_vec, dtype="float32")
    return nearest(sims, pool_texts, pool_labels, k, exclude_text, skip)


def nearest(
    sims, pool_texts: Sequence[str], pool_labels: Sequence[str], k: int, exclude_text: str = "", skip: int = 0
) -> list[Demo]:
    """The slice of the pool by a similarity per pool item (any neighbour search): the k after the `skip`
    most similar, most similar last, never an item whose text is `exclude_text` (leave-one-out); ties keep
    pool order, so the choice is deterministic."""
    import numpy as np

    if k <= 0 or len(pool_texts) == 0:
        return []
    banned = norm_text(exclude_text) if exclude_text else None
    order = np.argsort(-np.asarray(sims), kind="stable")
    out: list[Demo] = []
    for i in order:
        if banned is not None and norm_text(pool_texts[i]) == banned:
            continue
        out.append(Demo(str(pool_texts[i]), str(pool_labels[i]), round(float(sims[i]), 4)))
        if len(out) == k + max(0, skip):
            break
    return list(reversed(out[max(0, skip) :]))


def format_demos(demos: Sequence[Demo]) -> str:
    """The examples block in the App. A.2 layout, marking where the examples come from."""
    if not demos:
        return ""
    lines = ["Examples: the most similar tweets of the labelled training data, with their correct answers."]
    for i, d in enumerate(demos, 1):
        kind = "Positive" if d.label == "YES" else "Negative"
        lines.append(f'• Example {i} ({kind}): "{d.text.strip()}"')
    return "\n".join(lines)


def dialogue(demos: Sequence[Demo], key: str = "category") -> list[dict[str, str]]:
    """The demonstrations as earlier turns of the conversation: the tweet as the user's message in the
    form of template small.fewshot.tweet, its gold label as the assistant's JSON answer.

    Why turns and not a list in the description: a 0.5B model copies the pattern of earlier answers
    far more than it follows a list of examples. Measured on a stratified CheckThat train sample
    (category 2, n=40, 8 demonstrations, leave-one-out): AUC of P(YES) 0.835 as turns, above the 0.818
    of the neighbours' own label share, against 0.775 for the same tweets listed in one message
    (bench/pilot_demo_format.py reproduces both)."""
    from debate import prompts

    out: list[dict[str, str]] = []
    for d in demos:
        out.append({"role": "user", "content": prompts.render("small.fewshot.tweet", tweet=d.text.strip())})
        out.append({"role": "assistant", "content": json.dumps({key: d.label})})
    return out


class Pool:
    """CheckThat train tweets with their labels per category and their embeddings."""

    def __init__(self) -> None:
        from debate.datasets import load_dataset

        ds = load_dataset(POOL_DATASET)
        self.texts = [it.text for it in ds.items]
        self.golds = [it.gold if isinstance(it.gold, dict) else {} for it in ds.items]
        self.fingerprint = ds.fingerprint
        self._vecs = None
        self._lexical = None
        self._lock = threading.Lock()

    def labels(self, category: int) -> list[str]:
        return [str(g.get(str(category), "NO")) for g in self.golds]

    def vectors(self):
        import numpy as np

        with self._lock:
            if self._vecs is None:
                key = hashlib.sha256(f"{self.fingerprint}|minilm".encode()).hexdigest()[:16]
                path = config.index_dir() / f"demos-{POOL_DATASET}-{key}.npy"
                if path.exists():
                    self._vecs = np.load(path)
                else:
                    from debate.retrieval.embed import embed

                    self._vecs = embed(self.texts)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    np.save(path, self._vecs)
            return self._vecs

    def lexical(self):
        """The pool's TF-IDF index (debate/aids/lexical.py), fitted once and cached beside the embeddings."""
        from debate.aids.lexical import cached_index

        with self._lock:
            if self._lexical is None:
                self._lexical = cached_index(self.texts, self.fingerprint, config.index_dir(), POOL_DATASET)
            return self._lexical

    def demos_for(self, text: str, category: int, k: int, skip: int = 0, neighbours: str = "semantic") -> list[Demo]:
        if neighbours == "lexical":
            return nearest(
                self.lexical().similarities(text), self.texts, self.labels(category), k, exclude_text=text, skip=skip
            )
        from debate.retrieval.embed import embed

        q = embed([text])[0]
        return select(q, self.vectors(), self.texts, self.labels(category), k, exclude_text=text, skip=skip)


_pool: Pool | None = None
_pool_lock = threading.Lock()


def pool() -> Pool:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = Pool()
        return _pool


def similar_demos(
    text: str, task: str, category: int | None, k: int, skip: int = 0, neighbours: str = "semantic"
) -> list[Demo]:
    """Demonstrations for one tweet (the k nearest after the `skip` nearest, by meaning or, with
    neighbours="lexical", by shared words); only CheckThat has a labelled train split to draw them from."""
    if task != "checkthat" or category is None:
        raise InvalidInput(
            "Similar demonstrations exist only for CheckThat categories (from its train split).",
            "Choose demos=paper for this task.",
        )
    if neighbours not in NEIGHBOURS:
        raise InvalidInput(f"Unknown neighbour search {neighbours!r}.", f"Use one of: {', '.join(NEIGHBOURS)}.")
    return pool().demos_for(text, category, k, skip, neighbours)
