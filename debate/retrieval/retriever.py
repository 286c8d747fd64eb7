"""Top-k evidence passages for a claim, numbered E1..Ek as agents cite them.

A Retriever is cheap to create: nothing is read, embedded or imported until the first search (or
`warm()`), so the app can create one at start and let the index load or build in the background.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

from debate import config
from debate.errors import InvalidInput
from debate.retrieval import averitec
from debate.retrieval import embed as embed_mod
from debate.retrieval import index as index_mod
from debate.retrieval.corpus import DEFAULT_MAX_WORDS, DEFAULT_OVERLAP, load_corpus, to_passages
from debate.retrieval.ranking import mmr_order

DEFAULT_NAME = averitec.NAME
MAX_K = 200

_URL = re.compile(r"https?://\S+|\bwww\.\S+", re.IGNORECASE)
_URL_NOISE = {
    "html",
    "htm",
    "php",
    "asp",
    "aspx",
    "www",
    "com",
    "amp",
    "index",
    "status",
    "article",
    "articles",
    "news",
    "story",
    "watch",
    "http",
    "https",
    "utm",
    "source",
    "medium",
}


def tweet_query(text: str) -> str:
    """The tweet without its URLs, plus the words of their paths: a link's slug often states the
    claim ("/2020/apr/06/report-blames-syria-chemical-attacks") better than the tweet does, while the
    URL itself is noise to the embedder. Random short-link ids (t.co/AbC12x) are dropped."""
    words: list[str] = []
    for url in _URL.findall(text or ""):
        parsed = urlparse(url if "://" in url else "http://" + url)
        for token in re.split(r"[/\-_.+~=&?]+", unquote(parsed.path)):
            if (
                len(token) >= 3
                and token.isalpha()
                and token.lower() not in _URL_NOISE
                and (token.islower() or token.istitle() or token.isupper())
            ):
                words.append(token.lower())
    base = " ".join(_URL.sub(" ", text or "").split())
    return " ".join([base, *words]).strip()


def load_failure_note(error: BaseException) -> str:
    """The evidence panel's sentence for an index that could not be loaded: plain words for whoever
    watches, without the command-line hint's code marks or this machine's folders (those are for the
    log, and a room's screen shows them raw)."""
    text = getattr(error, "message", None) or f"{type(error).__name__}: {error}"
    text = text.replace("`", "")
    text = re.sub(r"\s*\(searched [^)]*\)", "", text)  # the folders looked in
    path = r"(?:~|(?<![\w.]))/[^\s,;)'\"]*[^\s,;)'\".]"  # an absolute path, without a sentence's full stop
    text = re.sub(r"\s+(?:in|at|from) " + path, "", text)
    text = re.sub(path, "a folder on this machine", text)
    return f"The evidence index could not be loaded, so no passages are shown. {text.strip()}"


class Retriever:
    """Searches one named index. Source of passages, in order: `corpus` (a file or folder, ingested
    and fingerprinted so an edit triggers a rebuild), the built-in AVeriTeC corpus when the name is
    the default, else the index already saved under that name."""

    def __init__(
        self,
        name: str = DEFAULT_NAME,
        corpus: str | Path | None = None,
        *,
        max_words: int = DEFAULT_MAX_WORDS,
        overlap: int = DEFAULT_OVERLAP,
        exact_max: int | None = None,
    ) -> None:
        self.name = index_mod.check_name(name)
        self.corpus = Path(corpus).expanduser() if corpus else None
        self.max_words, self.overlap, self.exact_max = max_words, overlap, exact_max
        self._index: index_mod.VectorIndex | None = None
        self._lock = threading.Lock()
        self.built = False  # True when the last load had to (re)build rather than read from disk
        self.error: Exception | None = None  # set by a failed background warm()

    @property
    def ready(self) -> bool:
        return self._index is not None

    @property
    def searchable(self) -> bool:
        """A search would answer in milliseconds: the index and the embedding model are loaded."""
        return self._index is not None and embed_mod.loaded()

    def unavailable(self) -> str:
        """Why a search cannot work at all ("" when it may): the default index with AVeriTeC dev nowhere
        on this machine has no corpus to hold, which a page says in place instead of failing."""
        if self._index is None and self.corpus is None and self.name == DEFAULT_NAME and averitec.dev_path() is None:
            e = averitec.missing()
            return f"{e.message} {e.hint}"
        return ""

    def _passages(self):
        if self.corpus is not None:
            passages, _ = load_corpus(self.corpus, self.max_words, self.overlap)
            return passages, str(self.corpus.resolve())
        if self.name == DEFAULT_NAME:
            passages, _ = to_passages(averitec.documents(), self.max_words, self.overlap)
            return passages, f"{averitec.dev_path()} ({averitec.ATTRIBUTION})"
        return None, ""

    def load(self) -> index_mod.VectorIndex:
        """Read the saved index, or build it (once; concurrent callers wait for the same build)."""
        if self._index is not None:
            return self._index
        with self._lock:
            if self._index is None:
                passages, source = self._passages()
                if passages is None:
                    vi = index_mod.VectorIndex.load(self.name)
                    if vi is None:
                        raise InvalidInput(
                            f"There is no index named {self.name!r} in {config.index_dir()}.",
                            f"Build it: python -m debate index build --corpus PATH --name {self.name}",
                        )
                    self.built = False
                else:
                    chunking = {"max_words": self.max_words, "overlap": self.overlap}
                    extra = (
                        {"licence": averitec.LICENCE, "attribution": averitec.ATTRIBUTION}
                        if self.corpus is None
                        else {}
                    )
                    vi, self.built = index_mod.ensure(
                        self.name, passages, source=source, chunking=chunking, limit=self.exact_max, extra_meta=extra
                    )
                self._index = vi
        return self._index

    def warm(self) -> threading.Thread:
        """Load or build in a daemon thread; failures are kept in `.error` for the page to show. In the
        app the model loads in a worker process (embed.use_process), so this thread only reads the index
        and waits on a pipe, without holding the GIL against the debate's threads."""

        def run() -> None:
            try:
                self.load()
                embed_mod.get_embedder()
            except Exception as e:  # noqa: BLE001 - surfaced through .error, not lost
                self.error = e

        t = threading.Thread(target=run, name=f"retriever-warm-{self.name}", daemon=True)
        t.start()
        return t

    def info(self) -> dict:
        return dict(self.load().meta)

    def add(self, items, **kw) -> int:
        """Add Documents or Passages to the index and save it."""
        vi = self.load()
        with self._lock:
            added = vi.add(items, **kw)
            if added:
                vi.save()
        return added

    def search(self, query: str, k: int = 20, mmr: bool = False, lambda_: float = 0.5) -> list[dict]:
        """Passages ranked by cosine similarity (or MMR order), ids E1..Ek in that order."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("The retrieval query is empty.", "Give the claim or tweet text to search for.")
        if not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise InvalidInput(f"k={k!r} passages is not usable.", f"Use an integer from 1 to {MAX_K}.")
        if not 0.0 <= float(lambda_) <= 1.0:
            raise InvalidInput(
                f"MMR lambda {lambda_} is outside [0, 1].",
                "Use 1.0 for pure relevance, lower values for more diverse passages.",
            )
        vi = self.load()
        qvec = embed_mod.embed([query])
        fetch = max(4 * k, 50) if mmr else k
        with self._lock:  # faiss must not search while add() appends
            scores, rows = vi.search_vectors(qvec, fetch)
            pairs = [(int(r), float(s)) for r, s in zip(rows[0], scores[0]) if r >= 0]
            if mmr and pairs:
                cand = vi.vectors[[r for r, _ in pairs]]
                order = mmr_order(cand @ qvec[0], cand, k, float(lambda_))
                pairs = [pairs[i] for i in order]
            found = [(vi.passages[row], score) for row, score in pairs[:k]]
        out = []
        for rank, (p, score) in enumerate(found, start=1):
            out.append(
                {
                    "id": f"E{rank}",
                    "text": p.text,
                    "score": round(score, 4),
                    "source": p.source,
                    "title": p.title,
                    "date": p.date,
                    "doc_id": p.doc_id,
                    "passage_id": p.passage_id,
                }
            )
        return out


_registry: dict[str, Retriever] = {}
_registry_lock = threading.Lock()


def get_retriever(name: str = DEFAULT_NAME) -> Retriever:
    """One shared Retriever per index name, so the app, engine and CLI reuse one loaded index."""
    with _registry_lock:
        if name not in _registry:
            _registry[name] = Retriever(name)
        return _registry[name]


def default_retriever() -> Retriever:
    """The AVeriTeC-dev retriever; builds (first time, ~10 s) or loads on first search."""
    return get_retriever(DEFAULT_NAME)
