"""What people record about a debate besides its events: a person's own verdict (overruling the judge)
and the audience's poll before and after the debate.

Why not events: a debate's event stream ends with `finished` and is what replay, fork and the exports
rebuild the debate from; a verdict recorded by a person days later, or the room's votes, are about the
debate, not said in it. They live in tables of their own in the same SQLite file as the debates (with
their own migrations, so the debate store's numbering is untouched) and go into every export beside it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from debate.errors import InvalidInput, checked_text
from debate.store.sqlite import SqliteStore

MAX_REASON_CHARS = 2000
STAGES = ("before", "after")

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "overrules and polls",
        """
        CREATE TABLE overrules (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            debate_id TEXT NOT NULL,
            label TEXT NOT NULL,
            reason TEXT NOT NULL,
            judge_label TEXT,
            judge_source TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL
        );
        CREATE INDEX overrules_debate ON overrules(debate_id);
        CREATE TABLE polls (
            debate_id TEXT PRIMARY KEY,
            claim TEXT NOT NULL DEFAULT '',
            labels TEXT NOT NULL,
            stage TEXT NOT NULL,
            open INTEGER NOT NULL DEFAULT 1,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE poll_votes (
            debate_id TEXT NOT NULL,
            stage TEXT NOT NULL,
            voter TEXT NOT NULL,
            label TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (debate_id, stage, voter)
        ) WITHOUT ROWID;
    """,
    ),
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def debate_labels(row: dict | None) -> tuple[str, ...]:
    """The labels a verdict on this stored debate can take (its task and category)."""
    from debate.tasks import resolve_task

    if not row:
        return ()
    task, category = row.get("task") or "checkthat", row.get("category")
    cfg = row.get("config") or {}
    try:
        view = resolve_task(
            task,
            category if category is not None or task != "checkthat" else 1,
            cfg.get("custom_title", ""),
            cfg.get("custom_description", ""),
        )
    except Exception:  # noqa: BLE001 - an unknown task: no labels to offer (the caller says so)
        return ()
    return tuple(view.labels)


def judge_verdict(events: list[dict]) -> tuple[str | None, str]:
    """(label, source) of the debate's last verdict."""
    v = [e for e in events if e.get("type") == "verdict"]
    return (v[-1].get("label"), v[-1].get("source") or "") if v else (None, "")


class PeopleStore(SqliteStore):
    what = "store of people's verdicts and polls"
    migrations_table = "people_migrations"
    migrations = MIGRATIONS

    # -- a person overrules the judge ---------------------------------------------------------------
    def overrule(
        self,
        debate_id: str,
        label: str,
        reason: str,
        *,
        labels: tuple[str, ...],
        judge_label: str | None,
        judge_source: str = "",
    ) -> dict:
        """Record a person's own verdict with their reason (the latest one counts; earlier ones are kept)."""
        lab = str(label or "").strip().upper()
        if lab not in labels:
            raise InvalidInput(
                f"{label!r} is not a verdict this debate can have.",
                f"Choose one of: {', '.join(labels) or '(none: the debate decided no single label)'}.",
            )
        why = checked_text(
            reason,
            MAX_REASON_CHARS,
            "The reason for your verdict",
            "Say in a sentence why you decide otherwise (or alike).",
            "Shorten it.",
        )
        now = _now()
        self._tx(
            lambda db: db.execute(
                "INSERT INTO overrules (debate_id, label, reason, judge_label, judge_source, created_at) "
                "VALUES (?,?,?,?,?,?)",
                (debate_id, lab, why, judge_label, judge_source, now),
            )
        )
        return self.latest(debate_id) or {}

    def overrules(self, debate_id: str) -> list[dict]:
        rows = self._q("SELECT * FROM overrules WHERE debate_id=? ORDER BY id DESC", (debate_id,))
        return [self._overrule(r) for r in rows]

    def latest(self, debate_id: str) -> dict | None:
        rows = self.overrules(debate_id)
        return rows[0] if rows else None

    @staticmethod
    def _overrule(r: sqlite3.Row) -> dict:
        d = dict(r)
        d["disagrees"] = d["label"] != d.get("judge_label")
        return d

    def latest_all(self) -> dict[str, dict]:
        """Each debate's latest person's verdict, by debate id."""
        rows = self._q("SELECT * FROM overrules WHERE id IN (SELECT MAX(id) FROM overrules GROUP BY debate_id)")
        return {r["debate_id"]: self._overrule(r) for r in rows}

    def disagreements(self) -> dict[str, dict]:
        """The debates whose latest person's verdict differs from the judge's."""
        return {k: v for k, v in self.latest_all().items() if v["disagrees"]}

    # -- the audience's poll ------------------------------------------------------------------------
    def open_poll(self, debate_id: str, stage: str, labels: tuple[str, ...], claim: str = "") -> dict:
        """Open (or move) the debate's poll to `stage`: 'before' the debate runs or 'after' its verdict."""
        if stage not in STAGES:
            raise InvalidInput(f"Unknown poll stage {stage!r}.", "Use before or after.")
        if not labels:
            raise InvalidInput("This debate has no labels to vote on.", "Polls need a task with labels.")
        now = _now()
        self._tx(
            lambda db: db.execute(
                "INSERT INTO polls (debate_id, claim, labels, stage, open, updated_at) VALUES (?,?,?,?,1,?) "
                "ON CONFLICT(debate_id) DO UPDATE SET stage=excluded.stage, open=1, updated_at=excluded.updated_at",
                (debate_id, claim, json.dumps(list(labels)), stage, now),
            )
        )
        return self.poll(debate_id) or {}

    def close_poll(self, debate_id: str) -> None:
        self._tx(lambda db: db.execute("UPDATE polls SET open=0, updated_at=? WHERE debate_id=?", (_now(), debate_id)))

    def poll(self, debate_id: str) -> dict | None:
        rows = self._q("SELECT * FROM polls WHERE debate_id=?", (debate_id,))
        if not rows:
            return None
        d = dict(rows[0])
        d["labels"], d["open"] = json.loads(d["labels"]), bool(d["open"])
        return d

    def vote(self, debate_id: str, voter: str, label: str) -> str:
        """One vote per voter (browser session) and stage; returns the stage it counted for."""
        p = self.poll(debate_id)
        if p is None or not p["open"]:
            raise InvalidInput("This poll is not open.", "Wait for the presenter to open it, then vote.")
        if label not in p["labels"]:
            raise InvalidInput(f"{label!r} is not an option of this poll.", f"Choose one of: {', '.join(p['labels'])}.")
        stage = p["stage"]

        def run(db: sqlite3.Connection) -> None:
            try:
                db.execute("INSERT INTO poll_votes VALUES (?,?,?,?,?)", (debate_id, stage, voter, label, _now()))
            except sqlite3.IntegrityError:
                raise InvalidInput(
                    f"You have already voted {'before' if stage == 'before' else 'after'} the debate.",
                    "One vote per browser and stage.",
                ) from None

        self._tx(run)
        return stage

    def voted(self, debate_id: str, voter: str) -> dict[str, str]:
        rows = self._q("SELECT stage, label FROM poll_votes WHERE debate_id=? AND voter=?", (debate_id, voter))
        return {r["stage"]: r["label"] for r in rows}

    def tallies(self, debate_id: str) -> dict[str, Any]:
        """Counts per stage and label, and the swing: each label's share after minus its share before."""
        p = self.poll(debate_id)
        labels = list(p["labels"]) if p else []
        out: dict[str, Any] = {s: dict.fromkeys(labels, 0) for s in STAGES}
        for r in self._q(
            "SELECT stage, label, COUNT(*) AS n FROM poll_votes WHERE debate_id=? GROUP BY stage, label", (debate_id,)
        ):
            out.setdefault(r["stage"], {})[r["label"]] = r["n"]
        shares = {}
        for s in STAGES:
            total = sum(out[s].values())
            shares[s] = {lab: (n / total if total else 0.0) for lab, n in out[s].items()}
        both = all(sum(out[s].values()) for s in STAGES)
        out["swing"] = (
            {lab: round(shares["after"].get(lab, 0.0) - shares["before"].get(lab, 0.0), 4) for lab in labels}
            if both
            else {}
        )
        out["labels"], out["stage"], out["open"] = labels, (p or {}).get("stage"), bool((p or {}).get("open"))
        return out


_OPEN: dict[str, PeopleStore] = {}
_OPEN_LOCK = threading.Lock()


def store_at(path: str | Path | None = None) -> PeopleStore:
    """One shared store per database file (the Library builds its exports on every page run)."""
    from debate import config

    key = str(Path(path) if path else config.store_db())
    with _OPEN_LOCK:
        if key not in _OPEN:
            _OPEN[key] = PeopleStore(key)
        return _OPEN[key]


def export(path: str | Path | None, debate_id: str) -> dict:
    """The people's records of one debate, for the JSON, Markdown and HTML exports."""
    s = store_at(path)
    poll = s.poll(debate_id)
    return {"overrules": s.overrules(debate_id), "poll": None if poll is None else {**poll, **s.tallies(debate_id)}}


def markdown(people: dict) -> list[str]:
    """Markdown lines for a person's verdict and the poll (text escaped by the caller's md_text)."""
    from debate.sanitize import md_text

    out: list[str] = []
    o = (people.get("overrules") or [None])[0]
    if o:
        out += [
            "## A person's verdict",
            "",
            f"**{md_text(o['label'])}** (the judge: {md_text(str(o.get('judge_label')))}"
            f"{' — they disagree' if o.get('disagrees') else ''}), {md_text(o['created_at'])}",
            "",
            "> " + md_text(o["reason"]),
            "",
        ]
    p = people.get("poll")
    if p:
        out += ["## Audience poll", ""]
        for s in STAGES:
            out.append(f"- **{s}:** " + ", ".join(f"{md_text(k)} {v}" for k, v in (p.get(s) or {}).items()))
        if p.get("swing"):
            out.append("- **swing:** " + ", ".join(f"{md_text(k)} {v:+.0%}" for k, v in p["swing"].items()))
        out.append("")
    return out
