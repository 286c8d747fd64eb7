"""Lexical neighbours: the CheckThat train tweets that share the most words and word pieces with a tweet
(TF-IDF cosine), a second way to find demonstrations beside the MiniLM embedding (demos.py).

Why a second search: council members that read the same semantic neighbours copy the same labels, so
their votes are one vote cast several times. Shared surface words (a journal's name, "study",
"percent", a hashtag) find other train tweets than meaning does, so a member that reads them knows
labelled examples the others do not, and its errors can differ.

The index: word 1-2-grams and character 3-5-grams within words, each TF-IDF weighted (sublinear term
frequency) and L2-normalised, then joined with equal weight, so a cosine is the mean of the word and the
character cosine. Links become one token ("httpurl": whether a tweet links matters, its t.co code never).
Fitted once on the train split and cached under DEBATE_HOME/indexes as plain arrays (no pickle), keyed
by the train file's fingerprint and these settings. A query is cut to MAX_CHARS first, so scoring is
linear in a bounded input: the vectoriser's pass over the text, then one sparse product with the pool.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

MAX_CHARS = 2000  # a tweet is at most 280; a pasted claim longer than this adds nothing but time
_URL = re.compile(r"https?://\S+")
_WORD = {"analyzer": "word", "ngram_range": (1, 2), "token_pattern": r"(?u)\b\w\w+\b"}
_CHAR = {"analyzer": "char_wb", "ngram_range": (3, 5), "min_df": 2}
VERSION = "tfidf-w12-c35-v1"  # part of the cache key: change it when the settings above change


def prepare(text: str) -> str:
    """The text as the index reads it: bounded, links as one token."""
    return _URL.sub(" httpurl ", str(text)[:MAX_CHARS])


def _vectorizer(spec: dict, vocabulary: dict | None = None):
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(
        lowercase=True,
        sublinear_tf=True,
        dtype=np.float32,
        vocabulary=vocabulary,
        preprocessor=None,
        **(spec if vocabulary is None else {k: v for k, v in spec.items() if k != "min_df"}),
    )


class LexicalIndex:
    """TF-IDF vectors of a pool of texts, and the cosine of a query to each of them."""

    def __init__(self, word, char, matrix) -> None:
        self._word, self._char, self.matrix = word, char, matrix

    @classmethod
    def fit(cls, texts: Sequence[str]) -> LexicalIndex:
        docs = [prepare(t) for t in texts]
        word, char = _vectorizer(_WORD), _vectorizer(_CHAR)
        word.fit(docs)
        char.fit(docs)
        index = cls(word, char, None)
        index.matrix = index.vectors(docs, prepared=True)
        return index

    def vectors(self, texts: Sequence[str], prepared: bool = False):
        """Unit-length rows (a text with no known word or piece is a zero row: cosine 0 to everything)."""
        import scipy.sparse as sp

        docs = list(texts) if prepared else [prepare(t) for t in texts]
        # each part is L2-normalised by the vectoriser; scaling by 1/sqrt(2) makes the joined row unit length
        return sp.hstack([self._word.transform(docs), self._char.transform(docs)], format="csr") * np.float32(
            1 / np.sqrt(2)
        )

    def similarities(self, text: str) -> np.ndarray:
        """Cosine of the text to every pool text, in pool order."""
        q = self.vectors([text])
        return np.asarray((self.matrix @ q.T).toarray()).ravel()

    def save(self, path: Path) -> None:
        """Plain arrays only, so loading the cache never runs code (np.load with allow_pickle=False)."""
        m = self.matrix
        arrays = {"shape": np.asarray(m.shape), "data": m.data, "indices": m.indices, "indptr": m.indptr}
        for name, v in (("word", self._word), ("char", self._char)):
            terms = sorted(v.vocabulary_, key=v.vocabulary_.get)
            arrays[f"{name}_terms"] = np.asarray(terms, dtype=str)
            arrays[f"{name}_idf"] = v.idf_
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> LexicalIndex:
        import scipy.sparse as sp

        with np.load(path, allow_pickle=False) as z:
            parts = []
            for name, spec in (("word", _WORD), ("char", _CHAR)):
                v = _vectorizer(spec, {str(t): i for i, t in enumerate(z[f"{name}_terms"])})
                v.idf_ = z[f"{name}_idf"]
                parts.append(v)
            matrix = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
        return cls(parts[0], parts[1], matrix)


def cached_index(texts: Sequence[str], fingerprint: str, directory: Path, name: str) -> LexicalIndex:
    """The pool's index from the cache, fitted and saved on first use."""
    key = hashlib.sha256(f"{fingerprint}|{VERSION}".encode()).hexdigest()[:16]
    path = directory / f"lexical-{name}-{key}.npz"
    if path.exists():
        try:
            index = LexicalIndex.load(path)
            if index.matrix.shape[0] == len(texts):
                return index
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache file is rebuilt, as a missing one
    index = LexicalIndex.fit(texts)
    index.save(path)
    return index
