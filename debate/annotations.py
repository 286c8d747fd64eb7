"""The annotation store: queues of hard cases and every label people give, kept in the debate SQLite file.

Its tables live beside the debate store's (same file, so a backup holds both) but are created and
migrated here, recorded in their own `annotation_migrations` table, so neither module edits the
other's schema. Each label is one UPSERT committed at once: a page reload, a crash or a closed tab
loses nothing. One row per (queue, case, annotator): several people can label the same case.

Export writes the adjudicated label of each case (the strict majority of its annotators, or one
annotator's labels) in the dataset's own format: CheckThat `index,cat1,cat2,cat3` with 1/0,
AVeriTeC `id,label` with its original label names, LIAR `id,label` in LIAR's lower-case names, any
other dataset `id,label`.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import uuid
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from debate.agreement import majority_label
from debate.sqlite_db import SqliteStore
from debate.errors import InvalidInput, StoreError
from debate.hardcases import HardCase, QueueSpec

MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "annotations", """
        CREATE TABLE IF NOT EXISTS annotation_queues (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            task TEXT NOT NULL DEFAULT '',
            labels TEXT NOT NULL DEFAULT '[]',
            dataset TEXT NOT NULL DEFAULT '',
            source TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS annotation_items (
            queue_id TEXT NOT NULL REFERENCES annotation_queues(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            pos INTEGER NOT NULL,
            item_id TEXT NOT NULL,
            category INTEGER,
            text TEXT NOT NULL,
            gold TEXT,
            data TEXT NOT NULL DEFAULT '{}',
            PRIMARY KEY (queue_id, key)
        );
        CREATE TABLE IF NOT EXISTS annotations (
            queue_id TEXT NOT NULL REFERENCES annotation_queues(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            annotator TEXT NOT NULL,
            label TEXT,
            note TEXT NOT NULL DEFAULT '',
            skipped INTEGER NOT NULL DEFAULT 0,
            flagged INTEGER NOT NULL DEFAULT 0,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (queue_id, key, annotator)
        );
        CREATE INDEX IF NOT EXISTS annotations_queue ON annotations(queue_id)
    """),
]

AVERITEC_NAMES = {"TRUE": "Supported", "FALSE": "Refuted", "HALF-TRUE": "Conflicting Evidence/Cherrypicking",
                  "NEI": "Not Enough Evidence"}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _annotator(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise InvalidInput("Who is labelling? The annotator's name is empty.", "Type your name before labelling.")
    return name[:80]


class AnnotationStore(SqliteStore):
    what = "annotation store"

    migrations_table = "annotation_migrations"
    migrations = MIGRATIONS

    # -- queues -------------------------------------------------------------------------------
    def create_queue(self, spec: QueueSpec) -> str:
        if not spec.cases:
            raise InvalidInput("No hard cases match these settings: the queue would be empty.",
                               "Loosen the thresholds, tick more criteria or pick more runs.")
        if not spec.labels:
            raise InvalidInput("The queue has no label set.", "Choose the task whose labels annotators pick from.")
        qid = uuid.uuid4().hex[:10]

        def run(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO annotation_queues VALUES (?,?,?,?,?,?,?)",
                       (qid, spec.name, spec.task, json.dumps(list(spec.labels)), spec.dataset or "",
                        json.dumps(spec.source, default=str), _now()))
            db.executemany("INSERT INTO annotation_items VALUES (?,?,?,?,?,?,?,?)",
                           [(qid, c.key, pos, c.item_id, c.category, c.text, c.gold, json.dumps(c.to_dict(), default=str))
                            for pos, c in enumerate(spec.cases)])
        self._tx(run)
        return qid

    def queues(self) -> list[dict]:
        rows = self._q("SELECT q.*, (SELECT COUNT(*) FROM annotation_items i WHERE i.queue_id=q.id) AS n_items "
                       "FROM annotation_queues q ORDER BY created_at DESC")
        return [self._queue_row(r) for r in rows]

    @staticmethod
    def _queue_row(r: sqlite3.Row) -> dict:
        d = dict(r)
        d["labels"] = json.loads(d["labels"])
        d["source"] = json.loads(d["source"])
        return d

    def queue(self, queue_id: str) -> dict:
        rows = self._q("SELECT q.*, (SELECT COUNT(*) FROM annotation_items i WHERE i.queue_id=q.id) AS n_items "
                       "FROM annotation_queues q WHERE id=?", (queue_id,))
        if not rows:
            raise InvalidInput(f"No annotation queue {queue_id!r}.", "Pick a queue from the list or build a new one.")
        return self._queue_row(rows[0])

    def delete_queue(self, queue_id: str) -> None:
        self._tx(lambda db: db.execute("DELETE FROM annotation_queues WHERE id=?", (queue_id,)))

    def cases(self, queue_id: str) -> list[HardCase]:
        rows = self._q("SELECT data FROM annotation_items WHERE queue_id=? ORDER BY pos", (queue_id,))
        return [HardCase.from_dict(json.loads(r[0])) for r in rows]

    def attach_debate(self, queue_id: str, key: str, debate_id: str) -> None:
        """A debate run on demand for a case: remembered so the next visit replays it."""
        def run(db: sqlite3.Connection) -> None:
            row = db.execute("SELECT data FROM annotation_items WHERE queue_id=? AND key=?", (queue_id, key)).fetchone()
            if row is None:
                raise InvalidInput(f"No case {key!r} in queue {queue_id!r}.", "Reload the queue.")
            data = json.loads(row[0])
            data.setdefault("debates", []).append({"debate_id": debate_id})
            db.execute("UPDATE annotation_items SET data=? WHERE queue_id=? AND key=?",
                       (json.dumps(data, default=str), queue_id, key))
        self._tx(run)

    # -- labelling ----------------------------------------------------------------------------
    def _upsert(self, queue_id: str, key: str, annotator: str, **cols: Any) -> None:
        annotator = _annotator(annotator)
        exists = self._q("SELECT 1 FROM annotation_items WHERE queue_id=? AND key=?", (queue_id, key))
        if not exists:
            raise InvalidInput(f"No case {key!r} in queue {queue_id!r}.", "Reload the queue.")
        names = list(cols)
        sets = ", ".join(f"{n}=excluded.{n}" for n in names)
        self._tx(lambda db: db.execute(
            f"INSERT INTO annotations (queue_id, key, annotator, {', '.join(names)}, updated_at) "
            f"VALUES (?,?,?,{','.join('?' * len(names))},?) "
            f"ON CONFLICT(queue_id, key, annotator) DO UPDATE SET {sets}, updated_at=excluded.updated_at",
            (queue_id, key, annotator, *cols.values(), _now())))

    def set_label(self, queue_id: str, key: str, annotator: str, label: str) -> None:
        labels = self.queue(queue_id)["labels"]
        if label not in labels:
            raise InvalidInput(f"{label!r} is not a label of this queue.", f"Use one of {', '.join(labels)}.")
        self._upsert(queue_id, key, annotator, label=label, skipped=0)

    def skip(self, queue_id: str, key: str, annotator: str) -> None:
        self._upsert(queue_id, key, annotator, label=None, skipped=1)

    def set_note(self, queue_id: str, key: str, annotator: str, note: str) -> None:
        self._upsert(queue_id, key, annotator, note=(note or "")[:4000])

    def set_flag(self, queue_id: str, key: str, annotator: str, flagged: bool) -> None:
        self._upsert(queue_id, key, annotator, flagged=int(bool(flagged)))

    def annotations(self, queue_id: str, annotator: str | None = None) -> list[dict]:
        sql = "SELECT * FROM annotations WHERE queue_id=?" + (" AND annotator=?" if annotator else "")
        rows = self._q(sql + " ORDER BY key, annotator", (queue_id, annotator) if annotator else (queue_id,))
        return [{**dict(r), "item": r["key"], "skipped": bool(r["skipped"]), "flagged": bool(r["flagged"])} for r in rows]

    def mine(self, queue_id: str, annotator: str) -> dict[str, dict]:
        return {a["key"]: a for a in self.annotations(queue_id, annotator.strip())} if annotator.strip() else {}

    def progress(self, queue_id: str, annotator: str | None = None) -> dict:
        """Cases labelled/skipped/flagged (by one annotator, or by anyone), out of the queue's size."""
        total = self.queue(queue_id)["n_items"]
        rows = self.annotations(queue_id, annotator)
        labelled = {a["key"] for a in rows if a["label"]}
        skipped = {a["key"] for a in rows if a["skipped"]} - labelled
        flagged = {a["key"] for a in rows if a["flagged"]}
        return {"total": total, "labelled": len(labelled), "skipped": len(skipped), "flagged": len(flagged),
                "done": len(labelled | skipped), "annotators": sorted({a["annotator"] for a in rows})}

    def judge_labels(self, queue_id: str) -> dict[str, str | None]:
        """The judge's verdict per case (the first run's), for human-vs-judge agreement."""
        return {c.key: (c.verdicts[0]["label"] if c.verdicts else None) for c in self.cases(queue_id)}

    def gold_labels(self, queue_id: str) -> dict[str, str | None]:
        return {c.key: c.gold for c in self.cases(queue_id)}

    # -- export -------------------------------------------------------------------------------
    def adjudicated(self, queue_id: str, annotator: str | None = None) -> list[dict]:
        """One row per case: the majority (or one annotator's) label, with who said what."""
        by_key: dict[str, list[dict]] = defaultdict(list)
        for a in self.annotations(queue_id, annotator):
            by_key[a["key"]].append(a)
        out = []
        for c in self.cases(queue_id):
            anns = by_key.get(c.key, [])
            labels = [a["label"] for a in anns if a["label"]]
            out.append({"key": c.key, "item_id": c.item_id, "category": c.category, "text": c.text,
                        "label": majority_label(labels), "n": len(labels),
                        "annotations": {a["annotator"]: {"label": a["label"], "note": a["note"],
                                                         "skipped": a["skipped"], "flagged": a["flagged"]}
                                        for a in anns}})
        return out

    def export(self, queue_id: str, fmt: str = "csv", annotator: str | None = None) -> str:
        """The adjudicated labels as CSV or JSONL in the dataset's own format (unlabelled cases left empty)."""
        if fmt not in ("csv", "jsonl"):
            raise InvalidInput(f"Unknown export format {fmt!r}.", "Use csv or jsonl.")
        q = self.queue(queue_id)
        rows = self.adjudicated(queue_id, annotator)
        dataset, task = (q["dataset"] or "").lower(), q["task"]
        if task == "checkthat" or dataset.startswith("checkthat"):
            cols = ["index", "cat1", "cat2", "cat3"]
            merged: dict[str, dict] = {}
            for r in rows:
                rec = merged.setdefault(r["item_id"], {"index": r["item_id"], "cat1": None, "cat2": None, "cat3": None})
                if r["category"] in (1, 2, 3) and r["label"] is not None:
                    rec[f"cat{r['category']}"] = 1 if r["label"] == "YES" else 0
            records = list(merged.values())
        else:
            cols = ["id", "label"]
            rename = (AVERITEC_NAMES.get if dataset.startswith("averitec") else
                      (lambda s: s.lower()) if dataset.startswith("liar") else (lambda s: s))
            records = [{"id": r["item_id"], "label": rename(r["label"]) if r["label"] else None} for r in rows]
        if fmt == "jsonl":
            per_item: dict[str, dict] = defaultdict(dict)
            for r in rows:
                per_item[r["item_id"]][r["key"]] = r["annotations"]
            return "".join(json.dumps(rec if annotator else {**rec, "annotations": per_item[rec[cols[0]]]},
                                      ensure_ascii=False) + "\n" for rec in records)
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows([{k: ("" if v is None else v) for k, v in rec.items()} for rec in records])
        return buf.getvalue()
