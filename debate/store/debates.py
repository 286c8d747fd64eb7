"""The debate store: every debate and every event, written to SQLite as it streams.

One row per debate (what the Library lists and filters) and one row per event (what rebuilds the
transcript). Events are append-only and keyed by (debate_id, seq), so a debate cut short keeps its
partial transcript and a replay is exact. The schema grows only by numbered migrations recorded in
`schema_migrations`; later features (annotations, ...) add a migration instead of editing one.

The connection is shared across threads (the live worker appends while pages read) behind one lock;
WAL lets other processes read while a debate is being written.
"""

from __future__ import annotations

import atexit
import builtins
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from debate import outcome
from debate.errors import InvalidInput, checked_text
from debate.events import Event, event_from_dict
from debate.models.spec import redacted
from debate.store.sqlite import SqliteStore

MAX_LINEUP_NAME = 80  # a saved lineup's name, shown in the preset list
STATUSES = ("running", "completed", "stopped", "error", "interrupted")
VOTE_OUTCOMES = ("changed", "stood", "unanimous")  # decisions.against_vote's outcomes

# (number, name, sql). Append only: never edit or reorder a migration once released.
MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "initial",
        """
        CREATE TABLE debates (
            id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'running',
            protocol TEXT NOT NULL DEFAULT '',
            task TEXT NOT NULL DEFAULT '',
            category INTEGER,
            claim TEXT NOT NULL DEFAULT '',
            lineup TEXT NOT NULL DEFAULT '[]',
            config TEXT NOT NULL DEFAULT '{}',
            verdict TEXT,
            gold TEXT,
            correct INTEGER,
            tokens INTEGER NOT NULL DEFAULT 0,
            model_calls INTEGER NOT NULL DEFAULT 0,
            cache_hits INTEGER NOT NULL DEFAULT 0,
            wall_s REAL,
            stop_reason TEXT NOT NULL DEFAULT '',
            owner_pid INTEGER
        );
        CREATE INDEX debates_created ON debates(created_at);
        CREATE TABLE events (
            debate_id TEXT NOT NULL REFERENCES debates(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            type TEXT NOT NULL,
            json TEXT NOT NULL,
            PRIMARY KEY (debate_id, seq)
        ) WITHOUT ROWID;
    """,
    ),
    (
        2,
        "lineups",
        """
        CREATE TABLE lineups (
            name TEXT PRIMARY KEY,
            json TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
    """,
    ),
    (
        3,
        "heartbeat",
        """
        ALTER TABLE debates ADD COLUMN heartbeat_at REAL;
    """,
    ),
]


def heartbeat_s() -> float:
    """How often a process that writes debates says it is alive (DEBATE_HEARTBEAT_S, default 3 s)."""
    return max(0.05, float(os.environ.get("DEBATE_HEARTBEAT_S", "3")))


INTERRUPTED = "the app stopped while the debate was running"
STALE_BEATS = 5  # a running debate whose heartbeat is this many beats old has lost its process


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _interrupt(debate_id: str) -> Callable[[sqlite3.Connection], Any]:
    """The transaction that marks `debate_id` interrupted if it is still running."""
    return lambda db: db.execute(
        "UPDATE debates SET status='interrupted', stop_reason=?, updated_at=? WHERE id=? AND status='running'",
        (INTERRUPTED, _now(), debate_id),
    )


def _jsonable(obj: Any) -> Any:
    """Configs may hold dataclasses or paths; the store keeps plain JSON."""
    if hasattr(obj, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(obj)
    return obj


class DebateStore(SqliteStore):
    """Debates and their events. A debate being written is "owned" by this store object from
    create_debate until its closing event, its final status or `release`: a daemon thread stamps the
    owned rows' `heartbeat_at` every heartbeat_s(). Another process (or this one after a restart) sees
    a running row whose heartbeat has stopped and marks it interrupted: no process ids, which a
    restarted container hands out again."""

    what = "debate store"

    migrations_table = "schema_migrations"
    migrations = MIGRATIONS

    def __init__(self, path=None) -> None:
        super().__init__(path)
        self._owned: set[str] = set()
        self._beat_lock = threading.Lock()
        self._beat_thread: threading.Thread | None = None
        self._beat_registered = False

    # -- heartbeat --------------------------------------------------------------------------
    def _own(self, debate_id: str) -> None:
        with self._beat_lock:
            if not self._beat_registered:  # a clean exit ends this process's debates at once
                atexit.register(self._end_owned)
                self._beat_registered = True
            self._owned.add(debate_id)
            if self._beat_thread is None or not self._beat_thread.is_alive():
                self._beat_thread = threading.Thread(target=self._beat_loop, name="debate-store-heartbeat", daemon=True)
                self._beat_thread.start()

    def release(self, debate_id: str) -> None:
        """This process no longer writes `debate_id` (its worker ended): its heartbeat stops, so a row
        left "running" because the final write failed is marked interrupted later instead of forever."""
        with self._beat_lock:
            self._owned.discard(debate_id)

    def owned(self) -> set[str]:
        with self._beat_lock:
            return set(self._owned)

    def beat(self) -> None:
        """Stamp every owned running debate as alive now."""
        ids = self.owned()
        if ids:
            marks = ",".join("?" * len(ids))
            self._tx(
                lambda db: db.execute(f"UPDATE debates SET heartbeat_at=? WHERE id IN ({marks})", (time.time(), *ids))
            )

    def _end_owned(self) -> None:
        """At interpreter exit: debates this process still writes will never finish."""
        for debate_id in self.owned():
            try:
                self._tx(_interrupt(debate_id))
            except Exception:  # noqa: BLE001 - closed or broken store: the stopped heartbeat tells the rest
                pass

    def _beat_loop(self) -> None:
        while True:
            time.sleep(heartbeat_s())
            with self._beat_lock:
                if not self._owned:
                    self._beat_thread = None
                    return
            try:
                self.beat()
            except Exception:  # noqa: BLE001 - a busy or closed database: try again next beat
                pass

    # -- writing ----------------------------------------------------------------------------
    def create_debate(self, config: Any, debate_id: str) -> str:
        """Record a debate before its first event, so it is listed (as running) at once."""
        cfg = _jsonable(config) if not isinstance(config, dict) else dict(config)
        lineup = cfg.get("lineup")
        now = _now()
        self._tx(
            lambda db: db.execute(
                "INSERT INTO debates (id, created_at, updated_at, status, protocol, task, category, claim, "
                "lineup, config, gold, owner_pid, heartbeat_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    debate_id,
                    now,
                    now,
                    "running",
                    cfg.get("protocol", ""),
                    cfg.get("task", ""),
                    cfg.get("category"),
                    cfg.get("claim", ""),
                    json.dumps(lineup, default=str),
                    json.dumps(cfg, default=str),
                    cfg.get("gold"),
                    os.getpid(),
                    time.time(),
                ),
            )
        )
        self._own(debate_id)
        return debate_id

    def append_event(self, debate_id: str, event: Event | dict) -> int:
        """Append one event (seq assigned if missing) and fold what the Library shows into the row."""
        d = event.to_dict() if isinstance(event, Event) else dict(event)
        etype = d.get("type", "")

        def run(db: sqlite3.Connection) -> int:
            seq = d.get("seq", -1)
            if seq is None or seq < 0:
                row = db.execute("SELECT COALESCE(MAX(seq), -1) FROM events WHERE debate_id=?", (debate_id,)).fetchone()
                seq = row[0] + 1
                d["seq"] = seq
            db.execute(
                "INSERT INTO events (debate_id, seq, type, json) VALUES (?,?,?,?)",
                (debate_id, seq, etype, json.dumps(d, default=str)),
            )
            if etype != "token":
                self._fold(db, debate_id, etype, d)
            return seq

        seq = self._tx(run)
        if etype == "finished":
            self.release(debate_id)
        return seq

    def append_events(self, debate_id: str, events: list[Event | dict]) -> None:
        """Append several events (each with its seq) in one transaction: streamed tokens are written in
        small batches, so a debate costs a few commits per second instead of one per token."""
        rows = []
        for event in events:
            d = event.to_dict() if isinstance(event, Event) else dict(event)
            rows.append((d, d.get("type", "")))
        if any(d.get("seq") is None or d.get("seq", -1) < 0 for d, _ in rows):
            for d, _ in rows:  # rare (callers without seq): one at a time, numbered by the store
                self.append_event(debate_id, d)
            return

        def run(db: sqlite3.Connection) -> None:
            db.executemany(
                "INSERT INTO events (debate_id, seq, type, json) VALUES (?,?,?,?)",
                [(debate_id, d["seq"], etype, json.dumps(d, default=str)) for d, etype in rows],
            )
            for d, etype in rows:
                if etype != "token":
                    self._fold(db, debate_id, etype, d)

        self._tx(run)
        if any(etype == "finished" for _, etype in rows):
            self.release(debate_id)

    @staticmethod
    def _fold(db: sqlite3.Connection, debate_id: str, etype: str, d: dict) -> None:
        sets: dict[str, Any] = {"updated_at": _now()}
        if etype == "debate_started":
            sets.update(
                protocol=d.get("protocol") or None,
                task=d.get("task") or None,
                category=d.get("category"),
                claim=d.get("claim") or None,
                lineup=json.dumps(d.get("lineup") or []),
            )
            if d.get("gold"):
                sets["gold"] = d["gold"]
            sets = {k: v for k, v in sets.items() if v is not None or k == "category"}
        elif etype == "verdict":
            labels = d.get("labels")
            sets["verdict"] = d.get("label") if d.get("label") is not None or not labels else json.dumps(labels)
            if d.get("gold"):
                sets["gold"] = d["gold"]
            if d.get("correct") is not None:
                sets["correct"] = int(bool(d["correct"]))
        elif etype == "finished":
            sets.update(
                status=d.get("status") or "completed",
                stop_reason=d.get("stop_reason") or "",
                tokens=int(d.get("prompt_tokens") or 0) + int(d.get("completion_tokens") or 0),
                model_calls=int(d.get("model_calls") or 0),
                cache_hits=int(d.get("cache_hits") or 0),
                wall_s=d.get("wall_s"),
            )
            if d.get("label") is not None:
                sets["verdict"] = db.execute(
                    "SELECT COALESCE(verdict, ?) FROM debates WHERE id=?", (d["label"], debate_id)
                ).fetchone()[0]
        cols = ", ".join(f"{k}=?" for k in sets)
        db.execute(f"UPDATE debates SET {cols} WHERE id=?", (*sets.values(), debate_id))

    def set_status(self, debate_id: str, status: str, reason: str = "") -> None:
        if status not in STATUSES:
            raise InvalidInput(f"Unknown debate status {status!r}.", f"Use one of {', '.join(STATUSES)}.")
        self._tx(
            lambda db: db.execute(
                "UPDATE debates SET status=?, stop_reason=COALESCE(NULLIF(?, ''), stop_reason), updated_at=? "
                "WHERE id=?",
                (status, reason, _now(), debate_id),
            )
        )
        if status != "running":
            self.release(debate_id)

    def mark_interrupted(self, stale_s: float | None = None) -> list[str]:
        """Debates left 'running' whose heartbeat stopped (their process died or their worker ended
        without a final status): marked interrupted, their transcript so far kept. Cheap enough to call
        on every page load; a process's own live debates keep beating and are never touched."""
        stale_s = heartbeat_s() * STALE_BEATS if stale_s is None else stale_s
        owned = self.owned()
        rows = self._q(
            "SELECT id FROM debates WHERE status='running' AND COALESCE(heartbeat_at, 0) < ?", (time.time() - stale_s,)
        )
        dead = [r["id"] for r in rows if r["id"] not in owned]
        for debate_id in dead:
            self._tx(_interrupt(debate_id))
        return dead

    def delete(self, debate_id: str) -> bool:
        return bool(self._tx(lambda db: db.execute("DELETE FROM debates WHERE id=?", (debate_id,)).rowcount))

    # -- reading ----------------------------------------------------------------------------
    def get(self, debate_id: str) -> dict | None:
        rows = self._q("SELECT * FROM debates WHERE id=?", (debate_id,))
        return self._row(rows[0]) if rows else None

    @staticmethod
    def _row(r: sqlite3.Row) -> dict:
        # stored JSON is read through `redacted`: a spec an older version accepted with a password in its
        # URL (`openai:m@http://user:pw@host/v1`) reaches no page or export; parsed again (a fork, a re-run)
        # it is refused with what to write instead
        d = dict(r)
        d["lineup"] = json.loads(redacted(d.get("lineup") or "[]"))
        d["config"] = json.loads(redacted(d.get("config") or "{}"))
        d["correct"] = None if d.get("correct") is None else bool(d["correct"])
        return d

    def event_dicts(self, debate_id: str, after_seq: int = -1) -> list[dict]:
        rows = self._q("SELECT json FROM events WHERE debate_id=? AND seq>? ORDER BY seq", (debate_id, after_seq))
        return [json.loads(redacted(r[0])) for r in rows]

    def events(self, debate_id: str, after_seq: int = -1) -> list[Event]:
        return [event_from_dict(d) for d in self.event_dicts(debate_id, after_seq)]

    def list(
        self,
        search: str = "",
        task: str | None = None,
        protocol: str | None = None,
        verdict: str | None = None,
        status: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        limit: int = 500,
        vote_outcome: str | None = None,
        contested: bool | None = None,
    ) -> list[dict]:
        """Newest first. Dates are ISO strings (YYYY-MM-DD); `date_to` is inclusive. `vote_outcome`
        ("changed", "stood", "unanimous") keeps debates with a vote_comparison event of that outcome in
        any category; read from the events, so debates stored before the event existed need no migration."""
        where, args = [], []
        if contested is not None:  # a verdict that turns on one suspicious passage (the attribution event says)
            where.append(
                ("" if contested else "NOT ")
                + "EXISTS (SELECT 1 FROM events e WHERE e.debate_id=debates.id AND e.type='attribution' "
                "AND json_extract(e.json, '$.contested'))"
            )
        if vote_outcome:
            if vote_outcome not in VOTE_OUTCOMES:
                raise InvalidInput(f"Unknown vote outcome {vote_outcome!r}.", f"Use one of {', '.join(VOTE_OUTCOMES)}.")
            where.append(
                "EXISTS (SELECT 1 FROM events e WHERE e.debate_id=debates.id AND e.type='vote_comparison' "
                "AND json_extract(e.json, '$.outcome')=?)"
            )
            args.append(vote_outcome)
        if search:
            where.append("(claim LIKE ? ESCAPE '\\' OR id LIKE ?)")
            like = "%" + search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            args += [like, like]
        for col, val in (("task", task), ("protocol", protocol), ("verdict", verdict), ("status", status)):
            if val:
                where.append(f"{col}=?")
                args.append(val)
        if date_from:
            where.append("created_at>=?")
            args.append(str(date_from))
        if date_to:
            where.append("created_at<?")
            args.append(str(date_to) + "~")  # '~' sorts after any time suffix
        sql = "SELECT * FROM debates" + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY created_at DESC LIMIT ?"
        return [self._row(r) for r in self._q(sql, (*args, int(limit)))]

    def distinct(self, column: str) -> builtins.list[str]:  # (`list` is a method here)
        if column not in ("task", "protocol", "verdict", "status"):
            raise InvalidInput(f"Cannot list values of {column!r}.", "Use task, protocol, verdict or status.")
        return [
            r[0]
            for r in self._q(
                f"SELECT DISTINCT {column} FROM debates WHERE {column} IS NOT NULL AND {column}!='' ORDER BY 1"
            )
        ]

    # -- lineups ----------------------------------------------------------------------------
    def save_lineup(self, name: str, lineup: Any) -> None:
        name = checked_text(
            name,
            MAX_LINEUP_NAME,
            "The lineup's name",
            "Type a name before saving it.",
            "Type a shorter name: it is shown in the preset list.",
        )
        self._tx(
            lambda db: db.execute("INSERT OR REPLACE INTO lineups VALUES (?,?,?)", (name, json.dumps(lineup), _now()))
        )

    def lineups(self) -> dict[str, Any]:
        return {r["name"]: json.loads(redacted(r["json"])) for r in self._q("SELECT * FROM lineups ORDER BY name")}

    def delete_lineup(self, name: str) -> None:
        self._tx(lambda db: db.execute("DELETE FROM lineups WHERE name=?", (name,)))

    # -- reading for the exports (debate.sharing.exports) ----------------------------------------
    def require(self, debate_id: str) -> dict:
        """The debate's row, or InvalidInput saying it is not in the store."""
        row = self.get(debate_id)
        if row is None:
            raise InvalidInput(f"No debate {debate_id!r} in the store.", "Pick one from the Library.")
        return row

    def overrules(self, debate_ids: builtins.list[str]) -> dict[str, builtins.list[dict]]:
        """debate id -> its verdict events whose readings disagree (an aid changed the written label, or
        under the written reading gave another as a second opinion; debate.outcome), in seq order."""
        out: dict[str, builtins.list[dict]] = {}
        ids: builtins.list[str] = builtins.list(dict.fromkeys(debate_ids))
        for i in range(0, len(ids), 500):  # well under SQLite's bound on query parameters
            chunk = ids[i : i + 500]
            rows = self._q(
                "SELECT debate_id, json FROM events WHERE type='verdict' AND debate_id IN "
                f"({','.join('?' * len(chunk))}) AND (json_extract(json, '$.written_label') IS NOT NULL "
                "OR json_extract(json, '$.calibrated_label') IS NOT NULL) "
                "ORDER BY debate_id, seq",
                chunk,
            )
            for r in rows:
                v = json.loads(r[1])
                if outcome.reading(v).note():
                    out.setdefault(r[0], []).append(v)
        return out


def started_at(row: dict) -> str:
    """When a stored debate started, in local time to the minute ("2026-12-05 23:30")."""
    try:
        return datetime.fromisoformat(row["created_at"]).astimezone().strftime("%Y-%m-%d %H:%M")
    except (KeyError, TypeError, ValueError):
        return str(row.get("created_at") or "")[:16]


def seconds_since(row: dict) -> float:
    """How long ago a stored debate started (inf when its row carries no readable time)."""
    try:
        return (datetime.now(UTC) - datetime.fromisoformat(row["created_at"])).total_seconds()
    except (KeyError, TypeError, ValueError):
        return float("inf")


def row_title(row: dict, width: int = 80) -> str:
    """One line per debate in every picker: when, protocol, verdict (or status), the claim's start. The
    date first: two debates of the same claim and protocol read alike without it."""
    claim = str(row.get("claim") or "")
    return (
        f"{started_at(row)} · {row.get('protocol', '')} · "
        f"{compact_verdict(row.get('verdict')) or row.get('status', '')} · "
        f"{claim[:width] + ('…' if len(claim) > width else '')}"
    )


def compact_verdict(value: str | None) -> str:
    """A stored verdict as a short line: a multi-category one ('{"1": "NO", ...}') as '1: NO · 2: NO · …'."""
    if not value:
        return ""
    text = str(value)
    if text.startswith("{"):
        try:
            d = json.loads(text)
        except ValueError:
            return text
        if isinstance(d, dict):
            return " · ".join(f"{k}: {v if v is not None else '—'}" for k, v in d.items())
    return text


def to_markdown(row: dict, events: list[dict]) -> str:
    """The Markdown transcript, which lives in debate.sharing.markdown (an export, not storage); this name
    stays for the programs that import it from here. Imported on call: the exports read the live package,
    whose worker imports this store."""
    from debate.sharing.markdown import to_markdown as render

    return render(row, events)
