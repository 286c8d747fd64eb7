"""The SQLite plumbing the debate store and the annotation store share: one WAL connection per store
object, a lock around it (Streamlit sessions and the debate worker write from several threads), and
sqlite3 errors turned into StoreErrors that say which store failed and what to check."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from debate import config as _config
from debate.errors import StoreError


def explain(e: sqlite3.Error, what: str, path: Path, verb: str) -> tuple[str, str]:
    """(message, hint) for a failed read or write, naming its real cause: a record refused as a
    duplicate is no disk problem, and a lock held by another process is cured by waiting, not by
    freeing space. SQLite's own words stay in the message for whoever reads the log."""
    text = str(e)
    low = text.lower()
    if isinstance(e, sqlite3.IntegrityError):
        if "unique" in low or "primary key" in low:
            return (
                f"The {what} already holds this record ({text}): it was not written twice.",
                "The first copy is kept. If an action was started twice (a double click), the first one "
                "runs; otherwise this is a bug worth reporting.",
            )
        return (
            f"The {what} refused an inconsistent record ({text}).",
            "Nothing was written. This is a bug worth reporting; the log has the details.",
        )
    if "locked" in low or "busy" in low:
        return (
            f"The {what} is busy ({text}): another process holds its lock.",
            f"Wait a moment and try again; close other programs that use {path}.",
        )
    if "full" in low:
        return (f"The {what} could not be {verb}: the disk is full ({text}).", f"Free disk space where {path} is.")
    if "readonly" in low or "read-only" in low or "unable to open" in low or "permission" in low:
        return (
            f"The {what} could not be {verb}: {text}.",
            f"Check the permissions of {path} and its folder (DEBATE_HOME).",
        )
    if "disk i/o" in low or "malformed" in low or "not a database" in low:
        return (
            f"The {what} could not be {verb}: {text}.",
            f"The file {path} or its disk is damaged: check the disk, or move the file away to start afresh.",
        )
    return (f"The {what} could not be {verb}: {text}.", f"Check {path}; the log has the details.")


class SqliteStore:
    what = "store"  # named in error messages, e.g. "debate store"
    migrations_table = "schema_migrations"  # records which numbered migrations ran
    migrations: Sequence[tuple[int, str, str]] = ()  # (number, name, SQL), append-only

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else _config.store_db()
        try:
            _config.private_file(self.path)  # claims, answers and labels: the owner's only
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30, isolation_level=None)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as e:
            raise StoreError(
                f"Cannot open the {self.what} at {self.path}: {e}.",
                "Check that DEBATE_HOME points to a writable folder.",
            ) from e
        self._lock = threading.RLock()
        self.migrate()

    def migrate(self) -> list[int]:
        """Apply the numbered migrations not yet recorded; returns the numbers applied."""
        table = self.migrations_table

        def run(db: sqlite3.Connection) -> list[int]:
            db.execute(
                f"CREATE TABLE IF NOT EXISTS {table} "
                "(id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            done = {r[0] for r in db.execute(f"SELECT id FROM {table}")}
            applied = []
            for num, name, sql in self.migrations:
                if num in done:
                    continue
                for stmt in (s.strip() for s in sql.split(";")):
                    if stmt:
                        db.execute(stmt)
                db.execute(
                    f"INSERT INTO {table} VALUES (?,?,?)",
                    (num, name, datetime.now(UTC).isoformat(timespec="seconds")),
                )
                applied.append(num)
            return applied

        return self._tx(run)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _tx(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    out = fn(self._db)
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
                return out
            except sqlite3.Error as e:
                raise StoreError(*explain(e, self.what, self.path, "written")) from e

    def _q(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                return self._db.execute(sql, tuple(args)).fetchall()
            except sqlite3.Error as e:
                raise StoreError(*explain(e, self.what, self.path, "read")) from e
