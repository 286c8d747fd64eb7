"""SQLite response cache: a deterministic request answered once is answered instantly after that.

Evaluation replays the same prompts many times and the embedded models are slow on 2 cores, so
identical (backend, model, messages, options) requests are served from disk. Only deterministic
requests reach the cache (the client checks `GenOptions.deterministic`). A hit is replayed as a few
text deltas plus a Final so that streaming callers need no special case. `DEBATE_CACHE=0` turns it
off at run time. One connection per thread (sqlite3 objects are not shared across threads); WAL lets
the Streamlit app and a batch run read and write the same file at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from debate import config
from debate.errors import StoreError
from debate.models.base import Chunk, Delta, Final, GenOptions, Message, ModelResult

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    result TEXT NOT NULL,
    created REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0
);
"""


def enabled_by_env() -> bool:
    return os.environ.get("DEBATE_CACHE", "1").strip().lower() not in ("0", "false", "off", "no")


def cache_key(spec: str, messages: list[Message], options: GenOptions) -> str:
    payload = json.dumps(
        {"spec": str(spec), "messages": messages, "options": options.key_dict()},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path else config.cache_db()
        self._local = threading.local()
        self._session = {"hits": 0, "misses": 0, "writes": 0}
        self._stats_lock = threading.Lock()
        self._conn()  # fail early, with a clear message, if the file cannot be opened

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                config.private_file(self.path)  # prompts and answers: the owner's only
                conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(_SCHEMA)
            except (sqlite3.Error, OSError) as e:
                raise StoreError(
                    f"The response cache {self.path} cannot be opened: {e}.",
                    "Check the folder is writable, or set DEBATE_CACHE=0 to run without it.",
                ) from e
            self._local.conn = conn
        return conn

    def _count(self, what: str) -> None:
        with self._stats_lock:
            self._session[what] += 1

    def get(self, spec: str, messages: list[Message], options: GenOptions) -> ModelResult | None:
        if not enabled_by_env():
            return None
        key = cache_key(spec, messages, options)
        try:
            row = self._conn().execute("SELECT result FROM responses WHERE key=?", (key,)).fetchone()
            if row is None:
                self._count("misses")
                return None
            self._conn().execute("UPDATE responses SET hits = hits + 1 WHERE key=?", (key,))
        except sqlite3.Error as e:
            raise StoreError(f"The response cache could not be read: {e}.", "Set DEBATE_CACHE=0 to bypass it.") from e
        self._count("hits")
        result = ModelResult.from_dict(json.loads(row[0]))
        result.cached = True
        return result

    def put(self, spec: str, messages: list[Message], options: GenOptions, result: ModelResult) -> None:
        if not enabled_by_env() or result.cached or result.finish_reason == "incomplete":
            return  # a cut-off stream is not the answer to this request
        data = result.to_dict()
        data["cached"] = False
        try:
            self._conn().execute(
                "INSERT OR REPLACE INTO responses (key, spec, result, created, hits) VALUES (?,?,?,?,0)",
                (cache_key(spec, messages, options), str(spec), json.dumps(data), time.time()),
            )
        except sqlite3.Error as e:
            raise StoreError(
                f"The response cache could not be written: {e}.", "Set DEBATE_CACHE=0 to bypass it."
            ) from e
        self._count("writes")

    @staticmethod
    def replay(stored: ModelResult, pieces: int = 4) -> Iterator[Chunk]:
        """Re-emit a stored answer as a few deltas and a Final (usage and label probs preserved)."""
        text = stored.text
        step = max(1, -(-len(text) // pieces))
        for i in range(0, len(text), step):
            yield Delta(text[i : i + step])
        yield Final(
            prompt_tokens=stored.prompt_tokens,
            completion_tokens=stored.completion_tokens,
            finish_reason=stored.finish_reason,
            label_probs=stored.label_probs,
            model_id=stored.model_id,
            label_at=stored.label_at,
        )

    def stats(self) -> dict[str, Any]:
        try:
            n, hits = self._conn().execute("SELECT COUNT(*), COALESCE(SUM(hits),0) FROM responses").fetchone()
        except sqlite3.Error as e:
            raise StoreError(f"The response cache could not be read: {e}.", "Set DEBATE_CACHE=0 to bypass it.") from e
        size = self.path.stat().st_size if self.path.exists() else 0
        with self._stats_lock:
            session = dict(self._session)
        return {
            "path": str(self.path),
            "entries": n,
            "total_hits": hits,
            "bytes": size,
            "enabled": enabled_by_env(),
            **{f"session_{k}": v for k, v in session.items()},
        }

    def clear(self) -> int:
        cur = self._conn().execute("DELETE FROM responses")
        return cur.rowcount
