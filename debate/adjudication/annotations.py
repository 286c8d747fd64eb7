"""The annotation store: queues of hard cases and every label people give, kept in the debate SQLite file.

Its tables live beside the debate store's (same file, so a backup holds both) but are created and
migrated here, recorded in their own `annotation_migrations` table, so neither module edits the
other's schema. Each label is one UPSERT committed at once: a page reload, a crash or a closed tab
loses nothing. One row per (queue, case, annotator): several people can label the same case.

Export writes the final label of each case (the reviewer's resolution, else the strict majority of
its annotators, or one annotator's labels) in the dataset's own format: CheckThat `index,cat1,cat2,cat3`
with 1/0, AVeriTeC `id,label` with its original label names, LIAR `id,label` in LIAR's lower-case
names, any other dataset `id,label`. `native` writes the very file format the cases came in
(CheckThat 4a TSV with soft labels, AVeriTeC JSON, LIAR TSV), the file's own labels kept and the final
labels added beside them (column or key `adjudicated`); `cases` is one CSV row per case with the
final label and its reason, every annotator's label and rationale, the judge's verdict and the gold.

A queue has settings (blind labelling, transcript shown while blind) and versioned guidelines; each
label records the guideline version it was made under, so a change of guidelines can be audited.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import uuid
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from debate.adjudication.accounts import checked_name, fold_name
from debate.adjudication.agreement import majority_label
from debate.adjudication.hardcases import HardCase, QueueSpec
from debate.datasets import LIAR_MAP, SPLIT, ct_value
from debate.errors import InvalidInput
from debate.sanitize import csv_text
from debate.store.sqlite import SqliteStore

MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "annotations",
        """
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
    """,
    ),
    (
        2,
        "blind queues, guidelines, resolutions",
        """
        ALTER TABLE annotation_queues ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
        ALTER TABLE annotations ADD COLUMN guideline_version INTEGER;
        CREATE TABLE IF NOT EXISTS annotation_guidelines (
            queue_id TEXT NOT NULL REFERENCES annotation_queues(id) ON DELETE CASCADE,
            version INTEGER NOT NULL,
            text TEXT NOT NULL DEFAULT '',
            author TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            PRIMARY KEY (queue_id, version)
        );
        CREATE TABLE IF NOT EXISTS annotation_resolutions (
            queue_id TEXT NOT NULL REFERENCES annotation_queues(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            label TEXT NOT NULL,
            reason TEXT NOT NULL,
            reviewer TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (queue_id, key)
        )
    """,
    ),
    (
        3,
        "one identity per name, revisions after reveal",
        """
        ALTER TABLE annotations ADD COLUMN first_label TEXT;
        UPDATE annotations SET first_label = label;
        CREATE TABLE IF NOT EXISTS annotation_revisions (
            queue_id TEXT NOT NULL REFERENCES annotation_queues(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            annotator TEXT NOT NULL,
            old_label TEXT,
            new_label TEXT,
            others_seen INTEGER NOT NULL DEFAULT 0,
            kind TEXT NOT NULL DEFAULT 'change',
            detail TEXT NOT NULL DEFAULT '',
            changed_at TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS annotation_revisions_queue ON annotation_revisions(queue_id, key);
        INSERT INTO annotation_revisions (queue_id, key, annotator, old_label, new_label, kind, detail, changed_at)
            SELECT a.queue_id, a.key, fold_name(a.annotator), a.label, NULL, 'merged spelling',
                   'written as ' || a.annotator || ', rationale: ' || a.note, a.updated_at
            FROM annotations a WHERE EXISTS (
                SELECT 1 FROM annotations b WHERE b.queue_id = a.queue_id AND b.key = a.key
                AND fold_name(b.annotator) = fold_name(a.annotator)
                AND (b.updated_at > a.updated_at OR (b.updated_at = a.updated_at AND b.annotator > a.annotator)));
        DELETE FROM annotations WHERE EXISTS (
                SELECT 1 FROM annotations b WHERE b.queue_id = annotations.queue_id AND b.key = annotations.key
                AND fold_name(b.annotator) = fold_name(annotations.annotator)
                AND (b.updated_at > annotations.updated_at
                     OR (b.updated_at = annotations.updated_at AND b.annotator > annotations.annotator)));
        UPDATE annotations SET annotator = fold_name(annotator);
        UPDATE annotation_resolutions SET reviewer = fold_name(reviewer);
        UPDATE annotation_guidelines SET author = fold_name(author)
    """,
    ),
]

DEFAULT_SETTINGS = {"blind": False, "show_transcript": False, "format": ""}
# events that carry the debate's own decision: hidden from a blind annotator who has not labelled yet
DECISION_EVENTS = ("verdict", "votes_tallied", "stop_check", "rule_applied")


def visibility(settings: dict, labelled: bool) -> dict[str, bool]:
    """What an annotator may see of a case. Blind queues reveal other annotators' labels, the debate's
    verdict and votes, and the gold label only once this annotator has labelled the case (a skip does not
    count: skipping must not become a way to peek; a label later withdrawn by a skip still counts, since
    what was seen cannot be unseen); the transcript while blind is a queue setting."""
    revealed = not settings.get("blind") or labelled
    return {
        "others": revealed,
        "verdict": revealed,
        "gold": revealed,
        "transcript": revealed or bool(settings.get("show_transcript")),
    }


def blind_events(events: list) -> list:
    """The debate without its decision (verdicts, tallies, stop checks, the final label): what a blind
    annotator sees of the transcript before labelling. Works on typed events or their dicts."""
    import dataclasses

    out = []
    for e in events:
        kind = e.get("type") if isinstance(e, dict) else e.type
        if kind in DECISION_EVENTS:
            continue
        if kind == "finished":
            e = {**e, "label": None} if isinstance(e, dict) else dataclasses.replace(e, label=None)
        out.append(e)
    return out


AVERITEC_NAMES = {
    "TRUE": "Supported",
    "FALSE": "Refuted",
    "HALF-TRUE": "Conflicting Evidence/Cherrypicking",
    "NEI": "Not Enough Evidence",
}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _annotator(name: str) -> str:
    """The identity labels are stored under: one per person whatever the case or spacing typed."""
    return checked_name(name, "Who is labelling? The annotator's name", "Type your name before labelling.")


class AnnotationStore(SqliteStore):
    what = "annotation store"

    migrations_table = "annotation_migrations"
    migrations = MIGRATIONS

    def migrate(self) -> list[int]:
        # migration 3 folds stored names with the same rule as new labels (Python's, not SQLite's ASCII lower)
        self._db.create_function("fold_name", 1, fold_name, deterministic=True)
        return super().migrate()

    # -- queues -------------------------------------------------------------------------------
    def create_queue(self, spec: QueueSpec, settings: dict | None = None, guideline: str = "") -> str:
        """A new queue with its settings (see DEFAULT_SETTINGS) and guideline version 1."""
        if not spec.cases:
            raise InvalidInput(
                "No hard cases match these settings: the queue would be empty.",
                "Loosen the thresholds, tick more criteria or pick more runs.",
            )
        if not spec.labels:
            raise InvalidInput("The queue has no label set.", "Choose the task whose labels annotators pick from.")
        qid = uuid.uuid4().hex[:10]
        settings = {**DEFAULT_SETTINGS, "format": spec.format, **(settings or {})}

        def run(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO annotation_queues (id, name, task, labels, dataset, source, created_at, settings) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (
                    qid,
                    spec.name,
                    spec.task,
                    json.dumps(list(spec.labels)),
                    spec.dataset or "",
                    json.dumps(spec.source, default=str),
                    _now(),
                    json.dumps(settings),
                ),
            )
            db.execute(
                "INSERT INTO annotation_guidelines VALUES (?,?,?,?,?)", (qid, 1, (guideline or "")[:20000], "", _now())
            )
            db.executemany(
                "INSERT INTO annotation_items VALUES (?,?,?,?,?,?,?,?)",
                [
                    (qid, c.key, pos, c.item_id, c.category, c.text, c.gold, json.dumps(c.to_dict(), default=str))
                    for pos, c in enumerate(spec.cases)
                ],
            )

        self._tx(run)
        return qid

    def queues(self) -> list[dict]:
        rows = self._q(
            "SELECT q.*, (SELECT COUNT(*) FROM annotation_items i WHERE i.queue_id=q.id) AS n_items "
            "FROM annotation_queues q ORDER BY created_at DESC"
        )
        return [self._queue_row(r) for r in rows]

    @staticmethod
    def _queue_row(r: sqlite3.Row) -> dict:
        d = dict(r)
        d["labels"] = json.loads(d["labels"])
        d["source"] = json.loads(d["source"])
        d["settings"] = {**DEFAULT_SETTINGS, **json.loads(d.get("settings") or "{}")}
        return d

    def update_settings(self, queue_id: str, **changes: Any) -> dict:
        """Change blind / show_transcript of a queue; returns the new settings."""
        unknown = set(changes) - {"blind", "show_transcript"}
        if unknown:
            raise InvalidInput(f"Unknown queue settings {sorted(unknown)}.", "Use blind or show_transcript.")
        new = {**self.queue(queue_id)["settings"], **{k: bool(v) for k, v in changes.items()}}
        self._tx(
            lambda db: db.execute("UPDATE annotation_queues SET settings=? WHERE id=?", (json.dumps(new), queue_id))
        )
        return new

    # -- guidelines ---------------------------------------------------------------------------
    def guidelines(self, queue_id: str) -> list[dict]:
        """Every guideline version of a queue, newest first."""
        return [
            dict(r)
            for r in self._q("SELECT * FROM annotation_guidelines WHERE queue_id=? ORDER BY version DESC", (queue_id,))
        ]

    def guideline(self, queue_id: str) -> dict:
        """The current guideline ({version, text, author, created_at}); version 0 for queues made before
        guidelines existed."""
        rows = self.guidelines(queue_id)
        return rows[0] if rows else {"queue_id": queue_id, "version": 0, "text": "", "author": "", "created_at": ""}

    def set_guideline(self, queue_id: str, text: str, author: str = "") -> int:
        """Save the guideline as a new version (labels made from now on record it); unchanged text keeps
        the current version. Returns the current version number."""
        self.queue(queue_id)
        text = (text or "").strip()[:20000]
        cur = self.guideline(queue_id)
        if cur["version"] and cur["text"] == text:
            return cur["version"]
        version = cur["version"] + 1
        self._tx(
            lambda db: db.execute(
                "INSERT INTO annotation_guidelines VALUES (?,?,?,?,?)",
                (queue_id, version, text, fold_name(author), _now()),
            )
        )
        return version

    def queue(self, queue_id: str) -> dict:
        rows = self._q(
            "SELECT q.*, (SELECT COUNT(*) FROM annotation_items i WHERE i.queue_id=q.id) AS n_items "
            "FROM annotation_queues q WHERE id=?",
            (queue_id,),
        )
        if not rows:
            raise InvalidInput(f"No annotation queue {queue_id!r}.", "Pick a queue from the list or build a new one.")
        return self._queue_row(rows[0])

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
            db.execute(
                "UPDATE annotation_items SET data=? WHERE queue_id=? AND key=?",
                (json.dumps(data, default=str), queue_id, key),
            )

        self._tx(run)

    # -- labelling ----------------------------------------------------------------------------
    def _upsert(self, queue_id: str, key: str, annotator: str, **cols: Any) -> None:
        annotator = _annotator(annotator)
        exists = self._q("SELECT 1 FROM annotation_items WHERE queue_id=? AND key=?", (queue_id, key))
        if not exists:
            raise InvalidInput(f"No case {key!r} in queue {queue_id!r}.", "Reload the queue.")
        names = list(cols)
        # the first label given is kept: agreement is computed on it (see independent_labels)
        sets = ", ".join(
            f"{n}=COALESCE(annotations.{n}, excluded.{n})" if n == "first_label" else f"{n}=excluded.{n}" for n in names
        )
        self._tx(
            lambda db: db.execute(
                f"INSERT INTO annotations (queue_id, key, annotator, {', '.join(names)}, updated_at) "
                f"VALUES (?,?,?,{','.join('?' * len(names))},?) "
                f"ON CONFLICT(queue_id, key, annotator) DO UPDATE SET {sets}, updated_at=excluded.updated_at",
                (queue_id, key, annotator, *cols.values(), _now()),
            )
        )

    def set_label(self, queue_id: str, key: str, annotator: str, label: str) -> None:
        labels = self.queue(queue_id)["labels"]
        if label not in labels:
            raise InvalidInput(f"{label!r} is not a label of this queue.", f"Use one of {', '.join(labels)}.")
        self._record_change(queue_id, key, annotator, label)
        self._upsert(
            queue_id,
            key,
            annotator,
            label=label,
            skipped=0,
            first_label=label,
            guideline_version=self.guideline(queue_id)["version"],
        )

    def skip(self, queue_id: str, key: str, annotator: str) -> None:
        self._record_change(queue_id, key, annotator, None)
        self._upsert(queue_id, key, annotator, label=None, skipped=1)

    def _record_change(self, queue_id: str, key: str, annotator: str, new: str | None) -> None:
        """A label replaced after the annotator had labelled the case is kept as a revision: by then the
        other labels and the debate's verdict were shown (blind queues reveal them on labelling, open
        queues always show them), so the new label is no longer an independent judgement. Changing it
        stays possible (a slip of the key must be fixable); agreement uses the first label."""
        who = _annotator(annotator)
        rows = self._q("SELECT label FROM annotations WHERE queue_id=? AND key=? AND annotator=?", (queue_id, key, who))
        old = rows[0]["label"] if rows else None
        if old is None or old == new:
            return
        seen = self._q(
            "SELECT COUNT(*) FROM annotations WHERE queue_id=? AND key=? AND annotator<>? AND label IS NOT NULL",
            (queue_id, key, who),
        )[0][0]
        self._tx(
            lambda db: db.execute(
                "INSERT INTO annotation_revisions (queue_id, key, annotator, old_label, new_label, others_seen, kind, "
                "changed_at) VALUES (?,?,?,?,?,?,?,?)",
                (queue_id, key, who, old, new, seen, "change" if new else "withdrawn by a skip", _now()),
            )
        )

    def revisions(self, queue_id: str, annotator: str | None = None) -> list[dict]:
        """Every label changed after it was first given (oldest first), and spellings merged into one name."""
        sql = "SELECT * FROM annotation_revisions WHERE queue_id=?" + (" AND annotator=?" if annotator else "")
        args = (queue_id, _annotator(annotator)) if annotator else (queue_id,)
        return [dict(r) for r in self._q(sql + " ORDER BY changed_at, rowid", args)]

    def independent_labels(self, queue_id: str) -> list[dict]:
        """Annotation rows with the label each annotator gave first, for agreement statistics: a label
        changed after others' labels were shown would make annotators look more alike than they were."""
        return [{**a, "label": a.get("first_label") or a["label"]} for a in self.annotations(queue_id)]

    def others_for(self, queue_id: str, key: str, viewer: str) -> dict[str, str]:
        """Other annotators' labels on a case as `viewer` may see them: none on a blind queue until the
        viewer has labelled the case. The rule is applied here, not only in the page, so no view can
        hand them out by accident."""
        who = fold_name(viewer)
        mine = self.mine(queue_id, who).get(key, {}) if who else {}
        if not visibility(self.queue(queue_id)["settings"], bool(mine.get("label") or mine.get("first_label")))[
            "others"
        ]:
            return {}
        return {
            a["annotator"]: a["label"]
            for a in self.annotations(queue_id)
            if a["key"] == key and a["label"] and a["annotator"] != who
        }

    def set_note(self, queue_id: str, key: str, annotator: str, note: str) -> None:
        self._upsert(queue_id, key, annotator, note=(note or "")[:4000])

    def set_flag(self, queue_id: str, key: str, annotator: str, flagged: bool) -> None:
        self._upsert(queue_id, key, annotator, flagged=int(bool(flagged)))

    def annotations(self, queue_id: str, annotator: str | None = None) -> list[dict]:
        annotator = fold_name(annotator) if annotator else None
        sql = "SELECT * FROM annotations WHERE queue_id=?" + (" AND annotator=?" if annotator else "")
        rows = self._q(sql + " ORDER BY key, annotator", (queue_id, annotator) if annotator else (queue_id,))
        return [
            {**dict(r), "item": r["key"], "skipped": bool(r["skipped"]), "flagged": bool(r["flagged"])} for r in rows
        ]

    def mine(self, queue_id: str, annotator: str) -> dict[str, dict]:
        return {a["key"]: a for a in self.annotations(queue_id, annotator)} if fold_name(annotator) else {}

    def progress(self, queue_id: str, annotator: str | None = None) -> dict:
        """Cases labelled/skipped/flagged (by one annotator, or by anyone), out of the queue's size."""
        total = self.queue(queue_id)["n_items"]
        rows = self.annotations(queue_id, annotator)
        labelled = {a["key"] for a in rows if a["label"]}
        skipped = {a["key"] for a in rows if a["skipped"]} - labelled
        flagged = {a["key"] for a in rows if a["flagged"]}
        return {
            "total": total,
            "labelled": len(labelled),
            "skipped": len(skipped),
            "flagged": len(flagged),
            "done": len(labelled | skipped),
            "annotators": sorted({a["annotator"] for a in rows}),
        }

    # -- review -------------------------------------------------------------------------------
    def resolve(self, queue_id: str, key: str, reviewer: str, label: str, reason: str) -> None:
        """The reviewer's final label for a case, with the reason (required: the next reviewer must see why)."""
        reviewer = _annotator(reviewer)
        labels = self.queue(queue_id)["labels"]
        if label not in labels:
            raise InvalidInput(f"{label!r} is not a label of this queue.", f"Use one of {', '.join(labels)}.")
        reason = (reason or "").strip()
        if not reason:
            raise InvalidInput("The final label needs a reason.", "Write in a sentence why this label is right.")
        if not self._q("SELECT 1 FROM annotation_items WHERE queue_id=? AND key=?", (queue_id, key)):
            raise InvalidInput(f"No case {key!r} in queue {queue_id!r}.", "Reload the queue.")
        self._tx(
            lambda db: db.execute(
                "INSERT INTO annotation_resolutions VALUES (?,?,?,?,?,?) ON CONFLICT(queue_id, key) DO UPDATE SET "
                "label=excluded.label, reason=excluded.reason, reviewer=excluded.reviewer, updated_at=excluded.updated_at",
                (queue_id, key, label, reason[:4000], reviewer, _now()),
            )
        )

    def resolutions(self, queue_id: str) -> dict[str, dict]:
        return {
            r["key"]: dict(r) for r in self._q("SELECT * FROM annotation_resolutions WHERE queue_id=?", (queue_id,))
        }

    def review(self, queue_id: str, include_agreed: bool = False) -> list[dict]:
        """The reviewer's list: cases where annotators disagree, the human majority differs from the judge,
        or the dataset's own annotators split — each with every label and rationale, the debate's votes
        and verdicts, and the resolution so far. Cases nobody labelled are left out."""
        res = self.resolutions(queue_id)
        changes: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in self.revisions(queue_id):
            if r["kind"] != "merged spelling":
                changes[(r["key"], r["annotator"])].append(f"{r['old_label']} → {r['new_label'] or 'skipped'}")
        by_key: dict[str, list[dict]] = defaultdict(list)
        for a in self.annotations(queue_id):
            if a["label"]:
                by_key[a["key"]].append({**a, "revised": ", ".join(changes.get((a["key"], a["annotator"]), []))})
        out = []
        for c in self.cases(queue_id):
            anns = by_key.get(c.key, [])
            if not anns:
                continue
            labels = [a["label"] for a in anns]
            majority = majority_label(labels)
            judge = c.verdicts[0]["label"] if c.verdicts else None
            why = []
            if len(set(labels)) > 1:
                why.append("annotators disagree")
            if judge is not None and majority is not None and judge != majority:
                why.append("annotators ≠ judge")
            if c.gold_split:
                why.append("annotators split in the dataset")
            if why or include_agreed:
                out.append(
                    {
                        "key": c.key,
                        "case": c,
                        "annotations": anns,
                        "majority": majority,
                        "judge": judge,
                        "why": why,
                        "resolution": res.get(c.key),
                    }
                )
        return out

    def judge_pairs(self, queue_id: str) -> list[tuple[str | None, str | None, float | None]]:
        """(final label, judge's label, judge's confidence) per case: the input of agreement.judge_vs_gold."""
        out = []
        for r in self.adjudicated(queue_id):
            v = r["case"].verdicts[0] if r["case"].verdicts else {}
            out.append((r["label"], v.get("label"), v.get("confidence")))
        return out

    def judge_labels(self, queue_id: str) -> dict[str, str | None]:
        """The judge's verdict per case (the first run's), for human-vs-judge agreement."""
        return {c.key: (c.verdicts[0]["label"] if c.verdicts else None) for c in self.cases(queue_id)}

    def gold_labels(self, queue_id: str) -> dict[str, str | None]:
        return {c.key: c.gold for c in self.cases(queue_id)}

    # -- export -------------------------------------------------------------------------------
    def adjudicated(self, queue_id: str, annotator: str | None = None) -> list[dict]:
        """One row per case: the final label (reviewer's resolution, else the annotators' strict majority;
        or one annotator's label), where it came from, who said what, the judge and the gold."""
        by_key: dict[str, list[dict]] = defaultdict(list)
        for a in self.annotations(queue_id, annotator):
            by_key[a["key"]].append(a)
        res = {} if annotator else self.resolutions(queue_id)
        out = []
        for c in self.cases(queue_id):
            anns = by_key.get(c.key, [])
            labels = [a["label"] for a in anns if a["label"]]
            r = res.get(c.key)
            label = r["label"] if r else majority_label(labels)
            source = "reviewer" if r else "annotator" if annotator else "majority" if label else "tie" if labels else ""
            out.append(
                {
                    "key": c.key,
                    "item_id": c.item_id,
                    "category": c.category,
                    "text": c.text,
                    "label": label,
                    "n": len(labels),
                    "final_source": source,
                    "reason": r["reason"] if r else "",
                    "reviewer": r["reviewer"] if r else "",
                    "judge": c.verdicts[0]["label"] if c.verdicts else None,
                    "gold": SPLIT if c.gold_split else c.gold,
                    "case": c,
                    "annotations": {
                        a["annotator"]: {
                            "label": a["label"],
                            "note": a["note"],
                            "skipped": a["skipped"],
                            "flagged": a["flagged"],
                            "guideline_version": a.get("guideline_version"),
                        }
                        for a in anns
                    },
                }
            )
        return out

    def export(self, queue_id: str, fmt: str = "csv", annotator: str | None = None) -> str:
        """The adjudicated labels as CSV or JSONL in the dataset's own format (unlabelled cases left empty)."""
        if fmt not in ("csv", "jsonl", "native", "cases"):
            raise InvalidInput(f"Unknown export format {fmt!r}.", "Use csv, jsonl, native or cases.")
        q = self.queue(queue_id)
        rows = self.adjudicated(queue_id, annotator)
        if fmt == "native":
            return export_native(q["settings"].get("format") or "", rows)
        if fmt == "cases":
            return export_cases(rows)
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
            rename = (
                AVERITEC_NAMES.get
                if dataset.startswith("averitec")
                else (lambda s: s.lower())
                if dataset.startswith("liar")
                else (lambda s: s)
            )
            records = [{"id": r["item_id"], "label": rename(r["label"]) if r["label"] else None} for r in rows]
        if fmt == "jsonl":
            per_item: dict[str, dict] = defaultdict(dict)
            for r in rows:
                per_item[r["item_id"]][r["key"]] = r["annotations"]
            extra: dict[str, dict] = defaultdict(dict)
            for r in rows:
                extra[r["item_id"]][r["key"]] = {
                    "final": r["label"],
                    "final_source": r["final_source"],
                    "reason": r["reason"],
                    "judge": r["judge"],
                    "gold": r["gold"],
                }
            return "".join(
                json.dumps(
                    rec
                    if annotator
                    else {**rec, "annotations": per_item[rec[cols[0]]], "decisions": extra[rec[cols[0]]]},
                    ensure_ascii=False,
                )
                + "\n"
                for rec in records
            )
        return csv_text(cols, records)  # ids come from uploaded files: guarded like any cell


def _averitec_name(label: str | None) -> str | None:
    return AVERITEC_NAMES.get(label) if label else None


def _liar_name(label: str | None) -> str:
    return {"TRUE": "true", "HALF-TRUE": "half-true", "FALSE": "false"}.get(label or "", "")


# -- exports beside the dataset format ----------------------------------------------------------------
def export_cases(rows: list[dict]) -> str:
    """One CSV row per case: final label, its source and reason, judge, gold, then each annotator's label,
    rationale and guideline version (columns `label:NAME`, `rationale:NAME`, `guideline:NAME`)."""
    people = sorted({a for r in rows for a in r["annotations"]})
    cols = ["key", "id", "category", "text", "final", "final_source", "reason", "reviewer", "judge", "gold"]
    cols += [f"{k}:{p}" for p in people for k in ("label", "rationale", "guideline")]
    recs = []
    for r in rows:
        rec = {
            "key": r["key"],
            "id": r["item_id"],
            "category": r["category"],
            "text": r["text"],
            "final": r["label"],
            "final_source": r["final_source"],
            "reason": r["reason"],
            "reviewer": r["reviewer"],
            "judge": r["judge"],
            "gold": r["gold"],
        }
        for p, a in r["annotations"].items():
            rec.update(
                {f"label:{p}": a["label"], f"rationale:{p}": a["note"], f"guideline:{p}": a["guideline_version"]}
            )
        recs.append(rec)
    # texts, rationales, reasons and annotator names (in the headers) come from people and datasets
    return csv_text(cols, recs)


ADJUDICATED = "adjudicated"  # the name of the column (or JSON key) the dataset-format export adds


def _ct_list(values: list[float | None]) -> str:
    return "[" + ", ".join("None" if v is None else repr(float(v)) for v in values) + "]"


def export_native(fmt: str, rows: list[dict]) -> str:
    """The cases written back in the file format they came in: the file's own labels kept as they were,
    the final labels ADDED beside them (column or key `adjudicated`), never put in their place.

    Why beside: a file whose labels were replaced lost the dataset's own annotation (a [1.0, 0.5, 1.0]
    came back as [None, 1.0, None]); a file that filled untouched cases with the old labels would pass old
    gold off as adjudicated. With both, each reader takes the labels it means, and the dataset's own
    loaders (ours included) read the file as before. A case nobody labelled, or whose annotators tied with
    no reviewer's resolution, has an empty adjudicated label.
    CheckThat: `index, text, labels, adjudicated` TSV, each list one value per category (1.0 / 0.0, None
    when empty; the file's own soft values as they were). AVeriTeC: the original JSON records, `label`
    untouched, `adjudicated` the final label in AVeriTeC's names or null. LIAR: the original 14-column rows
    untouched and a 15th column, the final label in LIAR's lower-case names (its six-way label where that
    maps to the final label), or empty.
    Cases from evaluation runs (no original record kept) get the fields we know: claim/statement, id, label.

    Texts are written exactly as they came, even those a spreadsheet would run as a formula (`=`, `+`,
    `-`, `@`): this file is data for the dataset's scorers and loaders (ours included), and a `'` put in
    front would change the text they compare and train on. The CSV exports above are the ones meant for a
    spreadsheet and guard every cell (debate.sanitize.csv_text).
    """
    if fmt == "checkthat":
        tweets: dict[str, dict] = {}
        for r in rows:
            t = tweets.setdefault(r["item_id"], {"text": r["text"], "own": {}, "new": {}, "raw": None})
            cat, case = str(r["category"]), r["case"]
            t["raw"] = t["raw"] or case.source.get("labels")
            t["own"][cat] = ct_value(SPLIT if case.gold_split else case.gold)
            t["new"][cat] = ct_value(r["label"]) if r["label"] else None
        buf = io.StringIO()
        w = csv.writer(buf, delimiter="\t", lineterminator="\n")
        w.writerow(["index", "text", "labels", ADJUDICATED])
        for iid, t in tweets.items():
            own = t["raw"] or _ct_list([t["own"].get(c) for c in ("1", "2", "3")])
            w.writerow([iid, t["text"], own, _ct_list([t["new"].get(c) for c in ("1", "2", "3")])])
        return buf.getvalue()
    if fmt == "averitec":
        out = []
        for r in rows:
            rec = dict(r["case"].source.get("record") or {"claim": r["text"], "label": _averitec_name(r["gold"])})
            rec[ADJUDICATED] = AVERITEC_NAMES[r["label"]] if r["label"] else None
            out.append(rec)
        return json.dumps(out, ensure_ascii=False, indent=1) + "\n"
    if fmt == "liar":
        lines = []
        for r in rows:
            # a case from an evaluation run has no original row: the columns we know, the rest empty
            row = list(r["case"].source.get("row") or [r["item_id"], _liar_name(r["gold"]), r["text"]] + [""] * 11)
            if not r["label"]:
                new = ""
            elif LIAR_MAP.get(row[1].strip().lower()) == r["label"]:
                new = row[1].strip().lower()
            else:
                new = _liar_name(r["label"])
            lines.append("\t".join([*row, new]))
        return "\n".join(lines) + "\n"
    raise InvalidInput(
        "This queue's cases did not come in a dataset's own file format.",
        "Upload a CheckThat TSV, AVeriTeC JSON or LIAR TSV, or use the CSV/JSONL export.",
    )
