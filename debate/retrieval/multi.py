"""Evidence from several sources at once: asked in parallel, each within its own time budget, ranked
together (debate.retrieval.ranking), with a record of what each source did.

`MultiRetriever` has the Retriever's surface (`name`, `searchable`, `error`, `warm`, `search`) so the
runner, the app and batch runs use it unchanged, plus `gather`, which also returns the floor, the
passages turned away and every source's state for the evidence event.

Default lineup: every source that answers its health check. With no network only `local` answers, and
the result's note says so, so a page can tell the reader why there is no web evidence.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from debate.errors import DebateError, InvalidInput
from debate.retrieval import ranking
from debate.retrieval import sources as src
from debate.retrieval.sources.base import Source, SourceSettings

DEFAULT_BUDGET_S = 8.0  # per online source: search plus reading its result pages
HEALTH_BUDGET_S = 3.0
LOCAL_CANDIDATES = 30
ONLINE_CANDIDATES = 10
_STOP = {
    "a",
    "an",
    "the",
    "and",
    "or",
    "but",
    "if",
    "of",
    "to",
    "in",
    "on",
    "at",
    "by",
    "for",
    "with",
    "from",
    "as",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "he",
    "she",
    "they",
    "them",
    "his",
    "her",
    "their",
    "we",
    "you",
    "i",
    "me",
    "my",
    "our",
    "your",
    "not",
    "no",
    "yes",
    "do",
    "does",
    "did",
    "has",
    "have",
    "had",
    "will",
    "would",
    "can",
    "could",
    "should",
    "may",
    "might",
    "must",
    "than",
    "then",
    "so",
    "such",
    "very",
    "just",
    "also",
    "about",
    "into",
    "over",
    "after",
    "before",
    "more",
    "most",
    "said",
    "says",
    "say",
    "new",
    "who",
    "what",
    "when",
    "where",
    "which",
    "why",
    "how",
    "all",
    "any",
    "some",
    "there",
    "here",
    "up",
    "out",
    "rt",
    "via",
    "amp",
}


def keywords(query: str, n: int = 8) -> str:
    """The query's content words, for services whose search wants every word to match (OpenAlex and
    Wikipedia find nothing for a 40-word tweet): stop words, handles and numbers-only tokens dropped,
    order kept, the first `n` distinct."""
    words, seen = [], set()
    for w in re.findall(r"[A-Za-z][A-Za-z0-9'\-]{1,40}", query.replace("@", " @")):
        low = w.lower().strip("'-")
        if low in _STOP or low in seen or len(low) < 3:
            continue
        seen.add(low)
        words.append(w)
    return " ".join(words[:n]) or query[:200]


@dataclass
class Gathered:
    query: str
    passages: list[dict] = field(default_factory=list)
    rejected: list[dict] = field(default_factory=list)
    floor: float | None = None
    sources: list[dict] = field(default_factory=list)  # {name, label, state, passages, ms, note, query}
    note: str = ""
    candidates: int = 0
    best_score: float | None = None

    @property
    def nothing_fits(self) -> bool:
        return not self.passages and self.candidates > 0


class MultiRetriever:
    def __init__(
        self,
        names: list[str] | str | None = None,
        *,
        settings: SourceSettings | None = None,
        local=None,
        budget_s: float | None = None,
        floor: float | None | Literal["fitted"] = "fitted",
        sources: list[Source] | None = None,
        mmr: bool = True,
    ) -> None:
        self.requested = src.parse_names(names)
        self.settings = settings or SourceSettings.load()
        self.budget_s = float(budget_s if budget_s is not None else DEFAULT_BUDGET_S)
        self.floor = ranking.default_floor() if floor == "fitted" else floor
        self.mmr = mmr
        if sources is not None:
            self.sources = {s.name: s for s in sources}
        else:
            names_all = self.requested or list(src.names())
            self.sources = {n: src.make(n, self.settings, local if n == "local" else None) for n in names_all}
        self.last: Gathered | None = None

    # -- the Retriever's surface -------------------------------------------------------------------
    @property
    def name(self) -> str:
        return "+".join(self.sources) if self.requested else "auto"

    @property
    def _local(self):
        s = self.sources.get("local")
        return getattr(s, "retriever", None)

    @property
    def searchable(self) -> bool:
        local = self._local
        return True if local is None else bool(getattr(local, "searchable", True))

    @property
    def error(self):
        local = self._local
        return None if local is None else getattr(local, "error", None)

    def warm(self):
        local = self._local
        return local.warm() if local is not None and hasattr(local, "warm") else None

    def search(self, query: str, k: int = 20) -> list[dict]:
        return self.gather(query, k).passages

    # -- which sources -----------------------------------------------------------------------------
    def active(self) -> tuple[list[Source], list[dict], str]:
        """(sources to ask, states of those left out, note). Asked-for sources are all asked (a failing
        one reports its failure); by default, online sources that fail their health check are left out."""
        if self.requested:
            return list(self.sources.values()), [], ""
        results: dict[str, tuple[bool, str]] = {}

        def check(s: Source) -> None:
            results[s.name] = s.health()

        threads = [threading.Thread(target=check, args=(s,), daemon=True) for s in self.sources.values()]
        for t in threads:
            t.start()
        deadline = time.monotonic() + HEALTH_BUDGET_S
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        use, skipped = [], []
        for s in self.sources.values():
            ok, why = results.get(
                s.name, (False, f"{s.label} did not answer its health check in {HEALTH_BUDGET_S:g} s.")
            )
            if ok:
                use.append(s)
            else:
                skipped.append(
                    {
                        "name": s.name,
                        "label": s.label,
                        "state": "unavailable",
                        "passages": 0,
                        "ms": None,
                        "note": why,
                        "query": "",
                    }
                )
        online = [s for s in use if s.online]
        note = ""
        if not online and any(s.online for s in self.sources.values()):
            note = (
                "No online source answered (no network?): only the local index was searched, so web, "
                "Wikipedia and scholarly evidence are missing."
                if use
                else "No source answered: no online source (no network?) and no local corpus on this machine, "
                "so the debate has no evidence (`python -m debate data fetch` brings the local corpus)."
            )
        return use, skipped, note

    # -- one search over all of them -----------------------------------------------------------------
    def query_for(self, source: Source, query: str) -> str:
        return keywords(query) if source.keywords else query

    def gather(
        self,
        query: str,
        k: int = 20,
        *,
        questions: list[str] | None = None,
        progress: Callable[[list[dict]], None] | None = None,
    ) -> Gathered:
        """Ask every active source with the claim's query, then with each of `questions` (extra
        queries; the ranking still scores against the claim, so the floor means the same with or
        without them). `progress(states)` is called from the sources' threads whenever a source's
        state changes (first with every asked source "waiting"), for a page that shows the search."""
        _check_request(query, k)
        use, left_out, note = self.active()
        search = _Search(self, use, left_out, _queries(query, questions), progress)
        search.start()
        search.wait(self.budget_s)
        states = search.snapshot()
        ranked = ranking.rank(query, search.hits(), k, self.floor, mmr=self.mmr)
        out = Gathered(
            query=query,
            passages=ranked.passages,
            rejected=ranked.rejected,
            floor=self.floor,
            sources=states,
            note=note,
            candidates=ranked.candidates,
            best_score=ranked.best_score,
        )
        if out.nothing_fits:
            out.note = _nothing_fits_note(note, ranked.best_score, self.floor)
        self.last = out
        return out

    @staticmethod
    def _state(s: Source, slot: dict) -> dict:
        """A source's row in the evidence event: {name, label, state, passages, ms, note, query} plus,
        with extra queries, `queries`, and `skipped` for results that gave no passage (and why)."""
        got = [h for h in slot["hits"] if h.text]
        skipped = [{"url": h.url[:300], "why": h.skipped[:300]} for h in slot["hits"] if h.skipped][:10]
        note = slot["note"]
        if skipped and slot["final"]:
            note = " ".join(x for x in (note, f"{len(skipped)} result page(s) skipped: {skipped[0]['why']}") if x)
        row = {
            "name": s.name,
            "label": s.label,
            "state": slot["state"],
            "passages": len(got),
            "ms": slot["ms"],
            "note": note,
            "query": slot["queries"][0] if slot["queries"] else "",
        }
        if len(slot["queries"]) > 1:
            row["queries"] = list(slot["queries"])
        if skipped:
            row["skipped"] = skipped
        return row


def _check_request(query: str, k: int) -> None:
    """A search needs words to search for, and a number of passages it can give."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("The retrieval query is empty.", "Give the claim or tweet text to search for.")
    if not isinstance(k, int) or not 1 <= k <= 200:
        raise InvalidInput(f"k={k!r} passages is not usable.", "Use an integer from 1 to 200.")


def _queries(query: str, questions: list[str] | None) -> list[str]:
    """The claim's query first, then each extra question that has words."""
    return [query, *[q for q in (questions or []) if isinstance(q, str) and q.strip()]]


def _failure(s: Source, e: Exception) -> tuple[str, str]:
    """(state, note) of a source whose search raised."""
    if isinstance(e, src.SourceRateLimited):
        return "rate-limited", e.message
    if isinstance(e, src.SourceTimeout):
        return "timeout", e.message
    if isinstance(e, DebateError):
        return "failed", f"{e.message} {e.hint}".strip()
    return "failed", f"{s.label}: {type(e).__name__}: {str(e)[:200]}"


def _timeout_note(label: str, budget_s: float, kept: int) -> str:
    """Why a source that did not finish within its budget gives what it gave, or nothing."""
    return f"{label} gave no full answer within its {budget_s:g} s budget: " + (
        f"kept the {kept} passages it had given." if kept else "left out of this debate."
    )


def _nothing_fits_note(note: str, best_score: float | None, floor: float | None) -> str:
    """The note when there were passages but none scored above the relevance floor."""
    return " ".join(
        x
        for x in (
            note,
            f"No passage is about this claim: the best scored {best_score:.2f}, under the relevance floor {floor:.2f}.",
        )
        if x
    )


def _new_slot() -> dict[str, Any]:
    """A source's record during one search, before it answers."""
    return {
        "hits": [],
        "state": "waiting",
        "how": set(),
        "note": "",
        "ms": None,
        "queries": [],
        "final": False,
        "done": threading.Event(),
    }


class _Search:
    """One gather's sources at work: each asks its queries in its own thread and fills its slot; the
    caller waits for each within its budget. The slots are shared under one lock, and a slot once
    `final` (answered, failed or timed out) is never changed again: a source answering after its
    budget is not heard."""

    def __init__(
        self,
        retriever: MultiRetriever,
        use: list[Source],
        left_out: list[dict],
        queries: list[str],
        progress: Callable[[list[dict]], None] | None,
    ) -> None:
        self.retriever = retriever  # its query_for and _state, which a subclass may change
        self.use, self.left_out, self.queries, self.progress = use, left_out, queries, progress
        self.lock = threading.Lock()
        self.slots: dict[str, dict[str, Any]] = {s.name: _new_slot() for s in use}

    def snapshot(self) -> list[dict]:
        with self.lock:
            return [dict(x) for x in self.left_out] + [self.retriever._state(s, self.slots[s.name]) for s in self.use]

    def report(self) -> None:
        if self.progress is not None:
            try:
                self.progress(self.snapshot())
            except Exception:  # noqa: BLE001 - a page that cannot show progress must not stop the search
                pass

    def start(self) -> None:
        self.report()
        for s in self.use:
            threading.Thread(target=self.ask, args=(s,), name=f"evidence-{s.name}", daemon=True).start()

    def ask(self, s: Source) -> None:
        """One source's thread: each query in turn until one fails, then its slot made final."""
        t0 = time.perf_counter()
        slot = self.slots[s.name]
        state, why = "", ""
        for full in self.queries:
            q = self.retriever.query_for(s, full)
            with self.lock:
                if slot["final"]:
                    return
                slot["queries"].append(q)
            try:
                hits, how = s.search(q, LOCAL_CANDIDATES if s.name == "local" else ONLINE_CANDIDATES)
            except Exception as e:  # noqa: BLE001 - one broken source must not sink the others
                state, why = _failure(s, e)
            else:
                with self.lock:
                    if slot["final"]:
                        return
                    slot["hits"].extend(hits)
                    slot["how"].add(how)
            if state:
                break
        with self.lock:
            if slot["final"]:
                return
            slot.update(
                state=state or ("cache" if slot["how"] == {"cache"} else "live"),
                note=why,
                ms=round((time.perf_counter() - t0) * 1000),
                final=True,
            )
        slot["done"].set()
        self.report()

    def wait(self, budget_s: float) -> None:
        """Each source's answer: the local index's however long it takes, an online one's within what is
        left of the budget (they all run at once, so the budget is counted from the first wait)."""
        start = time.monotonic()
        for s in self.use:
            slot = self.slots[s.name]
            budget = None if not s.online else max(0.0, budget_s - (time.monotonic() - start))
            if not slot["done"].wait(budget):
                self._time_out(s, slot, budget_s)
                self.report()

    def _time_out(self, s: Source, slot: dict[str, Any], budget_s: float) -> None:
        with self.lock:
            if not slot["final"]:
                kept = sum(1 for h in slot["hits"] if h.text)
                slot.update(
                    state="timeout",
                    ms=round(budget_s * 1000),
                    final=True,
                    note=_timeout_note(s.label, budget_s, kept),
                )

    def hits(self) -> list:
        """Every passage the sources gave (a result without text gave none)."""
        return [h for s in self.use for h in self.slots[s.name]["hits"] if h.text]
