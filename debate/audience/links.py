"""The audience's links and a seat's inbox, kept in the debate store's SQLite file.

A link is an opaque token (`secrets.token_urlsafe`, 144 bits) that names one poll or one person's seat; the
audience server finds what a token names here and nothing else, so a phone never learns a debate's id and
cannot reach a debate no link was made for. A link is made once per poll or seat and shown again as long as
the debate exists (the presenter's pages redraw it every second).

A seat's inbox: the audience server runs in another process than the debate, whose seats live in the
memory of the process that runs it (debate.seats). A turn typed on a phone is written here as `pending`;
the debate's process (relay.py) hands it to the seat, which checks it with the turn's own parser, and
writes back `accepted` or `refused` with the reason, which the phone shows on its next load.

Own migrations table, so the other stores' numbering is untouched.
"""

from __future__ import annotations

import re
import secrets
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

from debate.errors import InvalidInput
from debate.seats import MAX_ANSWER_CHARS
from debate.store.sqlite import SqliteStore

KINDS = ("poll", "seat")
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{20,64}")  # what token_urlsafe makes; anything else is not looked up
STATUSES = ("pending", "accepted", "refused")

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "audience links and seat inbox",
        """
        CREATE TABLE audience_links (
            token TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            debate_id TEXT NOT NULL,
            agent TEXT NOT NULL DEFAULT '',
            shown INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            UNIQUE (kind, debate_id, agent)
        );
        CREATE TABLE seat_answers (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            debate_id TEXT NOT NULL,
            agent TEXT NOT NULL,
            turn_id TEXT NOT NULL,
            text TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            message TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            decided_at TEXT
        );
        CREATE INDEX seat_answers_pending ON seat_answers(debate_id, status);
    """,
    ),
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def well_formed(token: str) -> bool:
    return bool(TOKEN_RE.fullmatch(token or ""))


class AudienceStore(SqliteStore):
    what = "audience store"
    migrations_table = "audience_migrations"
    migrations = MIGRATIONS

    # -- links ---------------------------------------------------------------------------------------
    def link(self, kind: str, debate_id: str, agent: str = "") -> str:
        """The token of the poll (kind 'poll') or of `agent`'s seat (kind 'seat') of a debate; made once."""
        if kind not in KINDS:
            raise InvalidInput(f"Unknown link kind {kind!r}.", "Use poll or seat.")
        if kind == "seat" and not agent:
            raise InvalidInput("A seat's link needs the seat's agent.", "Name the agent a person plays.")

        def run(db: sqlite3.Connection) -> str:
            row = db.execute(
                "SELECT token FROM audience_links WHERE kind=? AND debate_id=? AND agent=?", (kind, debate_id, agent)
            ).fetchone()
            if row:
                return row[0]
            token = secrets.token_urlsafe(18)
            db.execute(
                "INSERT INTO audience_links (token, kind, debate_id, agent, created_at) VALUES (?,?,?,?,?)",
                (token, kind, debate_id, agent, _now()),
            )
            return token

        return self._tx(run)

    def find(self, token: str, kind: str) -> dict | None:
        """What a token names ({kind, debate_id, agent, shown}), or None for a malformed or unknown one."""
        if not well_formed(token):
            return None
        rows = self._q("SELECT * FROM audience_links WHERE token=? AND kind=?", (token, kind))
        return dict(rows[0]) if rows else None

    def show_results(self, debate_id: str, shown: bool) -> None:
        """Whether the phones see the poll's tallies (the presenter decides; off until they do)."""
        self.link("poll", debate_id)
        self._tx(
            lambda db: db.execute(
                "UPDATE audience_links SET shown=? WHERE kind='poll' AND debate_id=?", (int(shown), debate_id)
            )
        )

    def results_shown(self, debate_id: str) -> bool:
        rows = self._q("SELECT shown FROM audience_links WHERE kind='poll' AND debate_id=?", (debate_id,))
        return bool(rows and rows[0][0])

    # -- a seat's inbox ------------------------------------------------------------------------------
    def submit(self, debate_id: str, agent: str, turn_id: str, text: str) -> int:
        """A turn typed on a phone, waiting for the debate's process to hand it to the seat."""
        answer = str(text or "").strip()
        if not answer:
            raise InvalidInput("Your answer is empty.", "Type your turn, then send it.")
        if len(answer) > MAX_ANSWER_CHARS:
            raise InvalidInput(
                f"Your answer has {len(answer):,} characters; at most {MAX_ANSWER_CHARS:,} are allowed.",
                "Shorten it: every later prompt carries it.",
            )

        def run(db: sqlite3.Connection) -> int:
            waiting = db.execute(
                "SELECT 1 FROM seat_answers WHERE debate_id=? AND agent=? AND turn_id=? AND status='pending'",
                (debate_id, agent, turn_id),
            ).fetchone()
            if waiting:
                raise InvalidInput("Your last answer is still being handed to the debate.", "Reload in a moment.")
            cur = db.execute(
                "INSERT INTO seat_answers (debate_id, agent, turn_id, text, created_at) VALUES (?,?,?,?,?)",
                (debate_id, agent, turn_id, answer, _now()),
            )
            assert cur.lastrowid is not None  # set by the INSERT
            return int(cur.lastrowid)

        return self._tx(run)

    def pending(self, debate_id: str) -> list[dict]:
        rows = self._q("SELECT * FROM seat_answers WHERE debate_id=? AND status='pending' ORDER BY id", (debate_id,))
        return [dict(r) for r in rows]

    def decide(self, answer_id: int, status: str, message: str = "") -> None:
        if status not in STATUSES[1:]:
            raise InvalidInput(f"Unknown answer status {status!r}.", "Use accepted or refused.")
        self._tx(
            lambda db: db.execute(
                "UPDATE seat_answers SET status=?, message=?, decided_at=? WHERE id=?",
                (status, message, _now(), answer_id),
            )
        )

    def last_answer(self, debate_id: str, agent: str, turn_id: str) -> dict | None:
        rows = self._q(
            "SELECT * FROM seat_answers WHERE debate_id=? AND agent=? AND turn_id=? ORDER BY id DESC LIMIT 1",
            (debate_id, agent, turn_id),
        )
        return dict(rows[0]) if rows else None


_OPEN: dict[str, AudienceStore] = {}
_OPEN_LOCK = threading.Lock()


def store_at(path: str | Path | None = None) -> AudienceStore:
    """One shared store per database file (the presenter's pages redraw links every second)."""
    from debate import config

    key = str(Path(path) if path else config.store_db())
    with _OPEN_LOCK:
        if key not in _OPEN:
            _OPEN[key] = AudienceStore(key)
        return _OPEN[key]
