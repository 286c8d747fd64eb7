"""The per-run SQLite checkpoint: one row per item, committed atomically when the item ends.

Why SQLite: a single UPDATE in a transaction is the unit of progress, so a process killed at any
instant (even SIGKILL) leaves every item either fully recorded or not recorded at all. Items found
`running` when a run starts were interrupted mid-debate and are redone; `done` items never are.
The checkpoint is also the run's record for the Evaluate page (events per item, predictions, stats).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import Any

from debate.errors import InvalidInput, StoreError
from debate.models.spec import redacted

DB_NAME = "checkpoint.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    item_id TEXT PRIMARY KEY,
    pos INTEGER NOT NULL,
    text TEXT NOT NULL,
    gold TEXT,                 -- JSON: label, {category: label} or null
    status TEXT NOT NULL DEFAULT 'pending',   -- pending | running | done | failed
    attempts INTEGER NOT NULL DEFAULT 0,
    prediction TEXT,           -- JSON, same shape as gold
    error TEXT,
    events TEXT,               -- JSON list of event dicts (token deltas left out)
    stats TEXT,                -- JSON: rounds, early stop, votes, stop checks ... (see runner.debate_stats)
    prompt_tokens INTEGER DEFAULT 0,
    completion_tokens INTEGER DEFAULT 0,
    wall_s REAL DEFAULT 0,
    updated_at REAL
);
CREATE INDEX IF NOT EXISTS items_status ON items(status);
"""


class Checkpoint:
    """One connection per thread that uses it; the runner only writes from its main thread."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / DB_NAME
        try:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")  # WAL+NORMAL: commits survive a process kill
            self.conn.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as e:
            raise StoreError(
                f"Cannot open the run checkpoint {self.path}: {e}.",
                "Check that the --out folder is writable and not on a network share.",
            ) from e

    def close(self) -> None:
        self.conn.close()

    # -- config ----------------------------------------------------------------------------------
    def get_meta(self, key: str) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(redacted(row[0])) if row else None  # see DebateStore._row: no old password shown

    def set_meta(self, key: str, value: Any) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, json.dumps(value)))

    def check_config(self, fingerprint: dict) -> None:
        """Store the run's identity on first use; refuse to resume a folder made with other settings."""
        saved = self.get_meta("fingerprint")
        if saved is None:
            self.set_meta("fingerprint", fingerprint)
            self.set_meta("created_at", time.time())
            return
        diff = sorted(k for k in set(saved) | set(fingerprint) if saved.get(k) != fingerprint.get(k))
        if diff:
            detail = "; ".join(f"{k}: was {saved.get(k)!r}, now {fingerprint.get(k)!r}" for k in diff)
            raise InvalidInput(
                f"{self.run_dir} holds a run with different settings ({detail}).",
                "Re-run with the same options to resume it, or choose a new --out folder.",
            )

    # -- items -----------------------------------------------------------------------------------
    def add_items(self, rows: Iterable[tuple[str, int, str, Any]]) -> None:
        with self.conn:
            self.conn.execute("BEGIN")
            self.conn.executemany(
                "INSERT OR IGNORE INTO items(item_id, pos, text, gold) VALUES(?, ?, ?, ?)",
                [(i, p, t, json.dumps(g)) for i, p, t, g in rows],
            )

    def reset_interrupted(self) -> int:
        """Items left `running` by a killed process go back to pending."""
        cur = self.conn.execute("UPDATE items SET status='pending' WHERE status='running'")
        return cur.rowcount

    def todo(self, ids: list[str]) -> list[str]:
        """Of `ids`, those not done (pending, failed or interrupted), in the given order."""
        done = {r[0] for r in self.conn.execute("SELECT item_id FROM items WHERE status='done'")}
        return [i for i in ids if i not in done]

    def mark_running(self, item_id: str) -> None:
        self.conn.execute(
            "UPDATE items SET status='running', attempts=attempts+1, updated_at=? WHERE item_id=?",
            (time.time(), item_id),
        )

    def finish(
        self,
        item_id: str,
        *,
        status: str,
        prediction: Any = None,
        error: str | None = None,
        events: list[dict] | None = None,
        stats: dict | None = None,
    ) -> None:
        """The atomic per-item commit: everything about the item in one statement."""
        stats = stats or {}
        self.conn.execute(
            "UPDATE items SET status=?, prediction=?, error=?, events=?, stats=?, prompt_tokens=?, "
            "completion_tokens=?, wall_s=?, updated_at=? WHERE item_id=?",
            (
                status,
                json.dumps(prediction),
                error,
                json.dumps(events or []),
                json.dumps(stats),
                int(stats.get("prompt_tokens", 0)),
                int(stats.get("completion_tokens", 0)),
                float(stats.get("wall_s", 0.0)),
                time.time(),
                item_id,
            ),
        )

    def counts(self) -> dict[str, int]:
        selected = self.get_meta("selected")
        return dict(
            self.conn.execute(
                "SELECT status, COUNT(*) FROM items WHERE pos < ? GROUP BY status",
                (selected if selected is not None else 1 << 62,),
            )
        )

    def rows(self, ids: list[str] | None = None, *, with_events: bool = False) -> list[dict]:
        cols = (
            "item_id, pos, text, gold, status, attempts, prediction, error, stats, prompt_tokens, "
            "completion_tokens, wall_s" + (", events" if with_events else "")
        )
        q = f"SELECT {cols} FROM items WHERE pos < ?"
        # a later run with a smaller --limit narrows what the run reports (rows beyond it are kept)
        selected = self.get_meta("selected")
        args: tuple = (selected if selected is not None else 1 << 62,)
        if ids is not None:
            q += f" AND item_id IN ({','.join('?' * len(ids))})"
            args += tuple(ids)
        out = []
        for r in self.conn.execute(q + " ORDER BY pos", args):
            d = dict(zip([c.strip() for c in cols.split(",")], r))
            for k in ("gold", "prediction", "stats", "events"):
                if k in d and d[k] is not None:
                    d[k] = json.loads(redacted(d[k]))
            out.append(d)
        return out


def read_rows(run_dir: str | Path, ids: list[str] | None = None, *, with_events: bool = False) -> list[dict]:
    """Read a run's items without creating anything (for reports and the Evaluate page)."""
    path = Path(run_dir) / DB_NAME
    if not path.exists():
        raise InvalidInput(
            f"{run_dir} is not an evaluation run (no {DB_NAME}).",
            "Pick a folder written by `python -m debate eval --out ...`.",
        )
    with closing(Checkpoint(run_dir)) as cp:
        return cp.rows(ids, with_events=with_events)


def read_meta(run_dir: str | Path, key: str) -> Any:
    with closing(Checkpoint(run_dir)) as cp:
        return cp.get_meta(key)
