"""Evaluation datasets as lists of `Item`s, with the traps of each file handled in one place.

Each loader keeps only what a debating model may see in `text` and `meta`. Anything that leaks the
gold label stays out: AVeriTeC's `justification` and fact-checking article URL, LIAR's credit-history
counts (they include the statement's own label). Quoting differs per source on purpose: the CheckThat
TSVs were written with CSV quoting (a text may be wrapped in `"..."` with doubled quotes), LIAR must
be read with `csv.QUOTE_NONE` (its statements contain unbalanced quotes that would swallow rows).

A user's own file in one of these formats (not a bundled split) is recognised by its content
(`sniff_format`) and loaded by the same loader, so `--category`, scoring and exports work as for the
named splits. CheckThat soft labels (a value strictly between 0 and 1, e.g. 0.5 where the annotators
split) are kept as the label `SPLIT`: never a class, left out of F1 and counted apart.

Why here and not in debate/evaluation/: these readers need only errors and config, and more than the
evaluation reads them: the small-model aids take their demonstrations from the CheckThat train split
(debate/aids/demos.py), below the protocols that show them, and adjudication exports in each dataset's
format. Kept in the evaluation package they made the aids import upward into a batch-evaluation layer.
"""

from __future__ import annotations

import ast
import csv
import io
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from debate.data import locate
from debate.data.catalog import sha256_of
from debate.errors import InvalidInput

csv.field_size_limit(10_000_000)

CHECKTHAT_CATEGORIES = ("1", "2", "3")
HALFTRUTH_LABELS = ("TRUE", "HALF-TRUE", "FALSE")
AVERITEC_LABELS = ("TRUE", "HALF-TRUE", "FALSE", "NEI")
YES_NO = ("YES", "NO")
SPLIT = "SPLIT"  # a CheckThat soft label (0 < value < 1): the original annotators split
SPLIT_TEXT = "annotators split"

AVERITEC_MAP = {
    "Supported": "TRUE",
    "Refuted": "FALSE",
    "Conflicting Evidence/Cherrypicking": "HALF-TRUE",
    "Not Enough Evidence": "NEI",
}
# RADAR / TRACER three-class mapping of LIAR's six labels.
LIAR_MAP = {
    "true": "TRUE",
    "mostly-true": "HALF-TRUE",
    "half-true": "HALF-TRUE",
    "barely-true": "FALSE",
    "false": "FALSE",
    "pants-fire": "FALSE",
}
LIAR_COLUMNS = (
    "id",
    "label",
    "statement",
    "subject",
    "speaker",
    "job",
    "state",
    "party",
    "barely_true_ct",
    "false_ct",
    "half_true_ct",
    "mostly_true_ct",
    "pants_fire_ct",
    "context",
)
# Only these LIAR columns may reach a model (never the five *_ct credit-history counts).
LIAR_SAFE_META = ("subject", "speaker", "job", "state", "party", "context")


@dataclass
class Item:
    """One thing to classify. `gold` is a label, a {category: label} dict (CheckThat) or None (test)."""

    id: str
    text: str
    gold: str | dict[str, str] | None
    meta: dict[str, Any] = field(default_factory=dict)
    line: int = 0  # 1-based line (or record) in the source file, for error messages and drill-down

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Dataset:
    name: str
    task: str  # the engine task: checkthat | halftruth | averitec | custom
    labels: tuple[str, ...]  # the label set of one decision (YES/NO for CheckThat categories)
    items: list[Item]
    path: str = ""
    categories: tuple[str, ...] = ()  # CheckThat: ("1", "2", "3"); empty for single-label tasks
    has_gold: bool = True
    fingerprint: str = ""  # sha256 of the source file: a changed file must not silently resume a run
    format: str = ""  # the file format: checkthat | averitec | liar | table (exports write it back)

    def __len__(self) -> int:
        return len(self.items)


def _bad(path: Path, line: int | None, what: str, fix: str) -> InvalidInput:
    where = f"{path}, line {line}" if line else str(path)
    return InvalidInput(f"{where}: {what}", fix)


def _fingerprint(path: Path) -> str:
    return sha256_of(path)


def _open_text(path: Path):
    if not path.exists():
        raise InvalidInput(f"Dataset file {path} does not exist.", "Check the path.")
    try:
        return open(path, encoding="utf-8", newline="")
    except OSError as e:
        raise InvalidInput(f"Cannot read dataset file {path}: {e}.", "Check the file's permissions.") from e


# -- CheckThat 2025 task 4a ------------------------------------------------------------------------
def load_checkthat(path: str | Path, *, labelled: bool | None = None) -> list[Item]:
    """Rows `index, text[, labels]`; labels like "[0.0, 1.0, 0.5]" become {"1": "NO", "2": "YES", "3": "SPLIT"}."""
    path = Path(path)
    with _open_text(path) as fh:
        return read_checkthat(fh, path, labelled=labelled)


def read_checkthat(fh: Any, path: Path, *, labelled: bool | None = None) -> list[Item]:
    """The CheckThat TSV from an open text stream; `path` only names it in error messages."""
    items: list[Item] = []
    reader = csv.reader(fh, delimiter="\t")  # CSV-quoted TSV: "..." with doubled quotes inside
    try:
        header = next(reader)
    except StopIteration:
        raise _bad(
            path, None, "the file is empty.", "Use the task's TSV with a header `index, text, labels`."
        ) from None
    cols = [c.strip().lower() for c in header]
    if cols[:2] != ["index", "text"]:
        raise _bad(
            path,
            1,
            f"header is {header!r}, expected `index<TAB>text[<TAB>labels]`.",
            "Use the CheckThat 2025 task 4a TSV as distributed (tab-separated, with a header).",
        )
    added = cols[-1] == "adjudicated"  # the Adjudicate page's export adds its labels beside the file's own
    has_labels = "labels" in cols
    if labelled and not has_labels:
        raise _bad(
            path,
            1,
            "this split has no `labels` column.",
            "Use the train/dev split for scoring; the test split only produces predictions.",
        )
    width = (3 if has_labels else 2) + added
    seen: set[str] = set()
    for row in reader:
        line = reader.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != width:
            raise _bad(
                path,
                line,
                f"expected {width} tab-separated columns, found {len(row)}.",
                "Check for a stray tab or an unclosed quote in the tweet text on that line.",
            )
        idx, text = row[0].strip(), row[1]
        if not idx or not text.strip():
            raise _bad(path, line, "empty index or text.", "Every row needs an index and a tweet text.")
        if idx in seen:
            raise _bad(path, line, f"duplicate index {idx!r}.", "Indexes must be unique.")
        seen.add(idx)
        gold = _parse_ct_labels(path, line, row[2]) if has_labels else None
        items.append(Item(id=idx, text=text, gold=gold, meta={}, line=line))
    if not items:
        raise _bad(path, None, "no rows after the header.", "Use a non-empty split.")
    return items


def _parse_ct_labels(path: Path, line: int, raw: str) -> dict[str, str]:
    try:
        vals = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        vals = None
    if (
        not isinstance(vals, (list, tuple))
        or len(vals) != 3
        or any(
            v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1) for v in vals
        )
    ):
        raise _bad(
            path,
            line,
            f"labels {raw!r} are not three values between 0 and 1.",
            'Write labels as a list like "[0.0, 1.0, 1.0]" (cat1, cat2, cat3; 0.5 where annotators split).',
        )
    return {c: ct_label(v) for c, v in zip(CHECKTHAT_CATEGORIES, vals) if v is not None}


def ct_label(value: float) -> str:
    """A CheckThat label value as a label: 1 -> YES, 0 -> NO, anything between -> SPLIT (soft)."""
    return "YES" if float(value) == 1.0 else "NO" if float(value) == 0.0 else SPLIT


def ct_value(label: str | None) -> float | None:
    """The inverse of `ct_label` (SPLIT is written as 0.5); None stays None (category not labelled)."""
    return {"YES": 1.0, "NO": 0.0, SPLIT: 0.5}.get(label) if label is not None else None


# -- AVeriTeC --------------------------------------------------------------------------------------
def load_averitec(path: str | Path, *, classes: int = 4) -> list[Item]:
    """AVeriTeC dev JSON. 4 classes (NEI kept) or 3 (NEI claims dropped). Never exposes justification."""
    if classes not in (3, 4):
        raise InvalidInput(f"AVeriTeC has 3 or 4 classes, not {classes}.", "Use averitec-dev or averitec-dev-3.")
    path = Path(path)
    with _open_text(path) as fh:
        return read_averitec(fh, path, classes=classes)


def read_averitec(fh: Any, path: Path, *, classes: int = 4) -> list[Item]:
    """AVeriTeC JSON from an open text stream; `path` only names it in error messages."""
    try:
        data = json.load(fh)
    except json.JSONDecodeError as e:
        raise _bad(path, e.lineno, f"invalid JSON ({e.msg}).", "Use the AVeriTeC dev.json file unchanged.") from None
    except RecursionError:
        raise _bad(path, None, "JSON nested too deeply.", "Use the AVeriTeC dev.json file unchanged.") from None
    if not isinstance(data, list):
        raise _bad(path, None, "expected a JSON list of claims.", "Use the AVeriTeC dev.json file unchanged.")
    items: list[Item] = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict) or not str(rec.get("claim") or "").strip():
            raise _bad(path, None, f"record {i} has no `claim`.", "Every record needs a claim and a label.")
        label = AVERITEC_MAP.get(str(rec.get("label")))
        if label is None:
            raise _bad(
                path,
                None,
                f"record {i} has unknown label {rec.get('label')!r}.",
                f"Labels must be one of {sorted(AVERITEC_MAP)}.",
            )
        if classes == 3 and label == "NEI":
            continue
        evidence = [
            a.get("answer", "") for q in rec.get("questions") or [] for a in q.get("answers") or [] if a.get("answer")
        ]
        meta = {k: rec.get(k) for k in ("claim_date", "speaker", "reporting_source") if rec.get(k)}
        meta["gold_evidence"] = evidence  # the "full evidence" setting; never the justification
        items.append(Item(id=str(i), text=rec["claim"].strip(), gold=label, meta=meta, line=i + 1))
    return items


# -- LIAR ------------------------------------------------------------------------------------------
def load_liar(path: str | Path) -> list[Item]:
    """LIAR TSV, 14 columns, no header, read with QUOTE_NONE; six labels mapped to three."""
    path = Path(path)
    with _open_text(path) as fh:
        return read_liar(fh, path)


def read_liar(fh: Any, path: Path) -> list[Item]:
    """LIAR rows from an open text stream; `path` only names it in error messages."""
    items: list[Item] = []
    reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
    for row in reader:
        line = reader.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) == len(LIAR_COLUMNS) + 1 and row[-1].strip().lower() in ("", *LIAR_MAP):
            row = row[:-1]  # the Adjudicate page's export: its own label added in a 15th column
        if len(row) != len(LIAR_COLUMNS):
            raise _bad(
                path,
                line,
                f"expected 14 tab-separated columns, found {len(row)}.",
                "Use the LIAR TSV unchanged (id, label, statement, ..., context).",
            )
        rec = dict(zip(LIAR_COLUMNS, row))
        label = LIAR_MAP.get(rec["label"].strip().lower())
        if label is None:
            raise _bad(path, line, f"unknown label {rec['label']!r}.", f"LIAR labels are {sorted(LIAR_MAP)}.")
        if not rec["statement"].strip():
            raise _bad(path, line, "empty statement.", "Every row needs a statement.")
        meta = {k: rec[k] for k in LIAR_SAFE_META if rec[k].strip()}
        meta["label6"] = rec["label"].strip().lower()  # kept for analysis; the engine never gets meta
        items.append(Item(id=rec["id"], text=rec["statement"].strip(), gold=label, meta=meta, line=line))
    if not items:
        raise _bad(path, None, "no rows.", "Use a non-empty LIAR TSV.")
    return items


# -- any CSV / TSV / JSONL -------------------------------------------------------------------------
def load_table(
    path: str | Path,
    *,
    text: str = "text",
    label: str | None = "label",
    id: str | None = "id",
    label_map: dict[str, str] | None = None,
) -> list[Item]:
    """A user's CSV/TSV (with a header) or JSONL, with a column mapping. Other columns stay out of meta."""
    path = Path(path)
    suffix = path.suffix.lower()
    rows: list[tuple[int, dict]] = []
    with _open_text(path) as fh:
        if suffix in (".jsonl", ".ndjson"):
            for n, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                try:
                    rec = json.loads(raw)
                except json.JSONDecodeError as e:
                    raise _bad(path, n, f"invalid JSON ({e.msg}).", "Write one JSON object per line.") from None
                except RecursionError:
                    raise _bad(path, n, "JSON nested too deeply.", "Write one flat JSON object per line.") from None
                if not isinstance(rec, dict):
                    raise _bad(path, n, "a line is not a JSON object.", "Write one JSON object per line.")
                rows.append((n, rec))
        elif suffix in (".csv", ".tsv", ".txt"):
            reader = csv.DictReader(fh, delimiter="\t" if suffix == ".tsv" else ",")
            for rec in reader:
                if None in rec:
                    raise _bad(
                        path,
                        reader.line_num,
                        "more fields than the header has.",
                        "Quote fields that contain the delimiter.",
                    )
                rows.append((reader.line_num, rec))
        else:
            raise InvalidInput(f"{path}: unsupported file type {suffix!r}.", "Use .csv, .tsv or .jsonl.")
    if not rows:
        raise _bad(path, None, "no rows.", "Use a file with a header and at least one row.")
    first = rows[0][1]
    # the text column must exist; label/id columns may be absent only when left at their defaults
    for role, col, default in (("text", text, None), ("label", label, "label"), ("id", id, "id")):
        if col and col not in first and col != default:
            raise _bad(
                path,
                rows[0][0],
                f"no column {col!r} (for the {role}); columns are {sorted(first)}.",
                f"Map the {role} column with --{role}-col NAME.",
            )
    use_label = bool(label) and label in first
    use_id = bool(id) and id in first
    items: list[Item] = []
    seen: set[str] = set()
    for n, (line, rec) in enumerate(rows):
        t = str(rec.get(text) or "").strip()
        if not t:
            raise _bad(path, line, f"empty {text!r}.", "Every row needs a text.")
        iid = str(rec.get(id)).strip() if use_id else str(n)
        if iid in seen:
            raise _bad(path, line, f"duplicate id {iid!r}.", "Ids must be unique.")
        seen.add(iid)
        gold = None
        if use_label:
            raw = str(rec.get(label) or "").strip()
            if not raw:
                raise _bad(path, line, f"empty {label!r}.", "Every row needs a label, or map no label column.")
            gold = (label_map or {}).get(raw, raw.upper())
        items.append(Item(id=iid, text=t, gold=gold, meta={}, line=line))
    return items


# -- named datasets --------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Named:
    rel: str
    task: str
    labels: tuple[str, ...]
    loader: Callable[[Path], list[Item]]
    categories: tuple[str, ...] = ()
    has_gold: bool = True
    about: str = ""


NAMED: dict[str, _Named] = {
    "checkthat-train": _Named(
        "checkthat2025_4a/ct_train.tsv",
        "checkthat",
        YES_NO,
        lambda p: load_checkthat(p, labelled=True),
        CHECKTHAT_CATEGORIES,
        about="CheckThat 2025 4a train, 1,229 tweets, 3 binary categories",
    ),
    "checkthat-dev": _Named(
        "checkthat2025_4a/ct_dev.tsv",
        "checkthat",
        YES_NO,
        lambda p: load_checkthat(p, labelled=True),
        CHECKTHAT_CATEGORIES,
        about="CheckThat 2025 4a dev, 137 tweets (TurQUaz Table 2)",
    ),
    "checkthat-test": _Named(
        "checkthat2025_4a/ct_test.tsv",
        "checkthat",
        YES_NO,
        lambda p: load_checkthat(p, labelled=False),
        CHECKTHAT_CATEGORIES,
        has_gold=False,
        about="CheckThat 2025 4a test, 240 tweets, no labels: writes predictions.csv",
    ),
    "averitec-dev": _Named(
        "averitec/dev.json",
        "averitec",
        AVERITEC_LABELS,
        lambda p: load_averitec(p, classes=4),
        about="AVeriTeC dev, 500 claims, 4 classes",
    ),
    "averitec-dev-3": _Named(
        "averitec/dev.json",
        "halftruth",
        HALFTRUTH_LABELS,
        lambda p: load_averitec(p, classes=3),
        about="AVeriTeC dev without NEI, 3 classes",
    ),
    "liar-valid": _Named(
        "liar/valid.tsv",
        "halftruth",
        HALFTRUTH_LABELS,
        load_liar,
        about="LIAR valid, 1,284 statements, 6 labels mapped to 3",
    ),
    "liar-train": _Named(
        "liar/train.tsv",
        "halftruth",
        HALFTRUTH_LABELS,
        load_liar,
        about="LIAR train, 10,269 statements, 6 labels mapped to 3",
    ),
}


# -- a user's own file in a supported dataset's format ----------------------------------------------
FORMATS: dict[str, _Named] = {
    "checkthat": _Named(
        "",
        "checkthat",
        YES_NO,
        load_checkthat,
        CHECKTHAT_CATEGORIES,
        about="CheckThat 2025 4a TSV: index, text[, labels]",
    ),
    "averitec": _Named(
        "",
        "averitec",
        AVERITEC_LABELS,
        lambda p: load_averitec(p, classes=4),
        about="AVeriTeC JSON: a list of {claim, label, ...}",
    ),
    "liar": _Named("", "halftruth", HALFTRUTH_LABELS, load_liar, about="LIAR TSV: 14 columns, no header"),
}


def sniff_text(text: str, suffix: str) -> str | None:
    """Which supported dataset format a file's text is in (checkthat | averitec | liar), from its content.

    Only the first line (TSV) or the first record (JSON) is looked at; a file that matches none is a
    plain table (None), read with a column mapping.
    """
    suffix = suffix.lower()
    first = text.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
    if suffix in (".tsv", ".txt"):
        cols = [c.strip().lower() for c in first.split("\t")]
        if cols[:2] == ["index", "text"] and len(cols) in (2, 3) and cols[2:] in ([], ["labels"]):
            return "checkthat"
        if len(cols) == len(LIAR_COLUMNS) and cols[1] in LIAR_MAP:
            return "liar"
    if suffix == ".json":
        head = text.lstrip("\ufeff").lstrip()
        if head.startswith("[") and '"claim"' in head[:20000]:
            try:
                data = json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                return "averitec"  # its loader names the line at fault
            if isinstance(data, list) and data and isinstance(data[0], dict) and data[0].get("label") in AVERITEC_MAP:
                return "averitec"
    return None


def sniff_format(path: str | Path) -> str | None:
    """`sniff_text` on a file (reads the first 64 kB; a JSON file whole, as it must parse)."""
    p = Path(path)
    if not p.is_file():
        return None
    with open(p, encoding="utf-8", errors="replace", newline="") as fh:
        text = fh.read() if p.suffix.lower() == ".json" else fh.read(65536)
    return sniff_text(text, p.suffix)


def read_format(fmt: str, text: str, where: str | Path) -> list[Item]:
    """Items of an uploaded file's text in a supported format (`where` names it in error messages)."""
    fh, path = io.StringIO(text, newline=""), Path(str(where))
    if fmt == "checkthat":
        return read_checkthat(fh, path)
    if fmt == "averitec":
        return read_averitec(fh, path, classes=4)
    if fmt == "liar":
        return read_liar(fh, path)
    raise InvalidInput(f"Unknown dataset format {fmt!r}.", f"Use one of {', '.join(FORMATS)}.")


def named_path(name: str) -> Path | None:
    """Where the named split's file is found (debate.data.locate's search order), None when nowhere."""
    return locate.find(NAMED[name].rel)


def list_datasets() -> list[dict]:
    """Every named split with the file it would read ("" when the machine has none)."""
    return [
        {"name": k, "task": v.task, "labels": list(v.labels), "path": str(locate.find(v.rel) or ""), "about": v.about}
        for k, v in NAMED.items()
    ]


def load_dataset(
    name_or_path: str,
    *,
    path: str | Path | None = None,
    task: str | None = None,
    text_col: str = "text",
    label_col: str | None = "label",
    id_col: str | None = "id",
    label_map: dict[str, str] | None = None,
    labels: tuple[str, ...] | None = None,
) -> Dataset:
    """A named dataset (optionally from another `path`, e.g. the user's own copy) or any table file."""
    if name_or_path in NAMED:
        spec = NAMED[name_or_path]
        p = Path(path) if path else locate.require(spec.rel)
        items = spec.loader(p)
        return Dataset(
            name=name_or_path,
            task=spec.task,
            labels=spec.labels,
            items=items,
            path=str(p),
            categories=spec.categories,
            has_gold=spec.has_gold,
            fingerprint=_fingerprint(p),
            format=name_or_path.split("-")[0],
        )
    p = Path(name_or_path)
    if not p.suffix:
        raise InvalidInput(
            f"Unknown dataset {name_or_path!r}.",
            f"Use one of {', '.join(NAMED)} or a path to a .csv/.tsv/.jsonl/.json file.",
        )
    fmt = sniff_format(p)
    if fmt:  # the user's own file in a bundled dataset's format: the same loader as the named splits
        spec = FORMATS[fmt]
        items = spec.loader(p)
        has_gold = any(it.gold for it in items)
        return Dataset(
            name=p.stem,
            task=task or spec.task,
            labels=spec.labels,
            items=items,
            path=str(p),
            categories=spec.categories,
            has_gold=has_gold,
            fingerprint=_fingerprint(p),
            format=fmt,
        )
    items = load_table(p, text=text_col, label=label_col, id=id_col, label_map=label_map)
    golds = sorted({i.gold for i in items if isinstance(i.gold, str)})
    return Dataset(
        name=p.stem,
        task=task or "custom",
        labels=tuple(labels or golds),
        items=items,
        path=str(p),
        has_gold=bool(golds),
        fingerprint=_fingerprint(p),
        format="table",
    )
