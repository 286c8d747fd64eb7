"""A queue of hard cases for annotators: chosen from evaluation runs, or read from an uploaded file.

A hard case is one decision (an item, or one CheckThat category of an item) that a person should
settle. From runs, an item is hard when any of these holds, each kept as a reason the page shows:
- "protocols disagree": two runs over the same dataset gave different labels;
- "low consensus": the last vote tally's consensus share is below `consensus_below` (default 0.8,
  TurQUaz's θ), i.e. the council never really agreed;
- "low confidence": the verdict's confidence (judge, or RADAR's verdict confidence) is below
  `confidence_below`;
- "wrong": the verdict differs from the gold label; "no verdict": the debate gave no readable label;
- "annotators split": the dataset's own label is soft (CheckThat 0.5): its annotators disagreed.
Cases with more reasons come first, then the least confident. The debate itself is not copied: a
case keeps a reference (run folder + item id, or a debate id in the store) and is replayed from it.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate.datasets import SPLIT, read_format, sniff_text
from debate.errors import InvalidInput
from debate.evaluation.extract import norm_label
from debate.records import Record
from debate.tasks import verdict_number

# An uploaded file's bounds. Streamlit refuses a larger file before it arrives (.streamlit/config.toml
# server.maxUploadSize, which must equal MAX_UPLOAD_MB); the parser checks again, as the CLI and tests call it
# directly. The datasets' own files are well within them (LIAR train: 2.4 MB, 10,269 rows); a claim is a
# tweet or a sentence, so a cell of 20,000 characters is not one, and every case is shown on a page.
MAX_UPLOAD_MB = 25
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1024 * 1024
MAX_UPLOAD_CASES = 30_000
MAX_CELL_CHARS = 20_000
SPLIT_HINT = "Split the file into smaller ones (one queue each), or keep only the rows you want labelled."

REASONS = ("protocols disagree", "low consensus", "low confidence", "wrong", "no verdict", "annotators split")
# reasons that tell the dataset's gold label: "annotators split" says it is soft (0.5), "wrong" beside the
# shown verdict says what it is not
GOLD_REASONS = ("annotators split", "wrong")


def shown_reasons(reasons: Iterable[str], gold_shown: bool) -> list[str]:
    """The reasons to show an annotator: without the ones that tell the gold while it is hidden. "uploaded"
    is no reason at all, and left beside hidden ones its absence alone would tell which cases are split."""
    return [r for r in reasons if r != "uploaded" and (gold_shown or r not in GOLD_REASONS)]


@dataclass
class HardCase(Record):
    item_id: str
    text: str
    category: int | None = None
    gold: str | None = None
    reasons: list[str] = field(default_factory=list)
    verdicts: list[dict] = field(default_factory=list)  # one per run: {run, protocol, label, confidence, ...}
    votes: list[dict] = field(
        default_factory=list
    )  # last vote of each model: {run, agent, role, model, label, confidence}
    debates: list[dict] = field(default_factory=list)  # {run, item_id} or {debate_id}: where to replay from
    consensus: float | None = None
    confidence: float | None = None
    gold_split: bool = False  # the dataset's label is soft (0.5): its own annotators split
    source: dict = field(default_factory=dict)  # the original record, to write the case back in its format

    @property
    def key(self) -> str:
        return case_key(self.item_id, self.category)


@dataclass
class QueueSpec:
    """What an annotation queue is made of; `dataset` picks the export format."""

    name: str
    task: str
    labels: list[str]
    cases: list[HardCase]
    dataset: str = ""
    source: dict = field(default_factory=dict)
    format: str = ""  # checkthat | averitec | liar when the cases came in that dataset's format


def case_key(item_id: str, category: int | None) -> str:
    return f"{item_id}#cat{category}" if category is not None else str(item_id)


# -- reading one debate's events ------------------------------------------------------------------
def category_events(events: list[dict], category: int | None) -> list[dict]:
    """The events of one CheckThat category section (all events when `category` is None)."""
    if category is None:
        return events
    out, current = [], None
    for e in events:
        if e.get("type") == "debate_started" and e.get("category") is not None:
            current = e["category"]
        if e.get("type") == "phase_started" and e.get("category") is not None:
            current = e["category"]
        if current is None or str(current) == str(category) or e.get("type") in ("debate_started", "finished"):
            out.append(e)
    return out


def decision_signals(events: list[dict], category: int | None = None) -> dict:
    """Verdict confidence, last consensus share and each model's last vote, for one decision."""
    evs = category_events(events, category)
    confidence, number = None, ""
    for v in (e for e in evs if e.get("type") == "verdict"):
        ours = category is None or v.get("category") in (None, category) or str(v.get("category")) == str(category)
        if ours and v.get("confidence") is not None:
            confidence = float(v["confidence"])
            number = verdict_number(v)  # what that number is: a vote share or a probability
    checks = [e for e in evs if e.get("type") == "stop_check"]
    if confidence is None and checks:
        confidence = float(checks[-1].get("verdict_confidence") or 0.0)
    tallies = [e for e in evs if e.get("type") == "votes_tallied"]
    consensus = float(tallies[-1].get("consensus_share") or 0.0) if tallies else None
    last: dict[str, dict] = {}
    for e in evs:
        if (
            e.get("type") == "turn_finished"
            and str(e.get("role", "")).lower() not in ("chair", "stop", "stop-agent")
            and (e.get("label") is not None or not e.get("valid", True))
        ):
            last[e.get("agent", "?")] = {
                "agent": e.get("agent"),
                "role": e.get("role"),
                "model": e.get("model"),
                "round": e.get("round"),
                "label": norm_label(e.get("label")),
                "confidence": e.get("confidence"),
                "valid": e.get("valid", True),
            }
    return {"confidence": confidence, "number": number, "consensus": consensus, "votes": list(last.values())}


# -- from evaluation runs -------------------------------------------------------------------------
def _pick(value: Any, category: int | None) -> str | None:
    if isinstance(value, dict):
        return norm_label(value.get(str(category))) if category is not None else None
    return norm_label(value)


def _gold(value: Any, category: int | None) -> tuple[str | None, bool]:
    """(gold label, soft?): a soft label (annotators split) is no gold label to be wrong against."""
    g = _pick(value, category)
    return (None, True) if g == SPLIT else (g, False)


def from_runs(
    run_dirs: Iterable[str | Path],
    *,
    consensus_below: float = 0.8,
    confidence_below: float = 0.6,
    criteria: Iterable[str] = REASONS,
    limit: int | None = None,
    name: str = "",
) -> QueueSpec:
    """Hard cases over one or more runs of the same dataset (several runs let protocols disagree)."""
    from debate.evaluation.checkpoint import read_meta, read_rows
    from debate.tasks import task_labels

    runs = [Path(r) for r in run_dirs]
    wanted = _wanted(runs, criteria)
    datasets: set[str | None] = set()
    cases: dict[str, HardCase] = {}
    task, fmt = "", ""
    labels: list[str] = []
    for run in runs:
        rows = read_rows(run, with_events=True)  # InvalidInput for a folder that is not a run
        ds = read_meta(run, "dataset") or {}
        opts = read_meta(run, "options") or {}
        datasets.add(ds.get("name"))
        task, labels = ds.get("task") or task, list(ds.get("labels") or labels)
        fmt = ds.get("format") or str(ds.get("name") or "").split("-")[0]
        _add_run(cases, run, rows, opts, _run_categories(opts, ds))
    if len(datasets) > 1:
        raise InvalidInput(
            f"The runs are on different datasets ({', '.join(sorted(map(str, datasets)))}).",
            "Build a queue from runs over the same dataset.",
        )
    if not labels and task:
        labels = list(task_labels(task))
    picked = _hard_cases(cases.values(), wanted, consensus_below, confidence_below, limit)
    dataset = next(iter(datasets)) or ""
    return QueueSpec(
        name=name or f"hard cases · {dataset} · {', '.join(r.name for r in runs)}",
        task=task,
        labels=labels,
        cases=picked,
        dataset=dataset,
        format=fmt if fmt in FORMAT_NAMES else "",
        source={
            "kind": "runs",
            "runs": [str(r) for r in runs],
            "consensus_below": consensus_below,
            "confidence_below": confidence_below,
            "criteria": sorted(wanted),
        },
    )


def _wanted(runs: list[Path], criteria: Iterable[str]) -> set[str]:
    """The reasons asked for, once there is a run to read them from and each is one of REASONS."""
    if not runs:
        raise InvalidInput("No evaluation run was chosen.", "Pick at least one run folder (runs/NAME).")
    wanted = set(criteria)
    unknown = wanted - set(REASONS)
    if unknown:
        raise InvalidInput(f"Unknown hard-case criteria {sorted(unknown)}.", f"Use some of: {', '.join(REASONS)}.")
    return wanted


def _run_categories(opts: dict, ds: dict) -> list[int | None]:
    """The decisions per item of a run: its one CheckThat category, each of the dataset's, or one (None)."""
    cats: list[int | None] = (
        [int(opts["category"])] if opts.get("category") is not None else [int(c) for c in ds.get("categories") or []]
    )
    return cats or [None]


def _add_run(cases: dict[str, HardCase], run: Path, rows: list[dict], opts: dict, cats: list[int | None]) -> None:
    """Each done item's decisions in one run, added to their cases (made on first sight): the run's
    verdict with its signals, its models' last votes and where to replay the debate from."""
    for r in rows:
        if r.get("status") != "done":
            continue
        for cat in cats:
            key = case_key(r["item_id"], cat)
            gold, soft = _gold(r.get("gold"), cat)
            case = cases.setdefault(
                key, HardCase(item_id=str(r["item_id"]), text=r["text"], category=cat, gold=gold, gold_split=soft)
            )
            sig = decision_signals(r.get("events") or [], cat)
            label = _pick(r.get("prediction"), cat)
            case.verdicts.append(
                {
                    "run": run.name,
                    "protocol": opts.get("protocol", ""),
                    "label": label,
                    "confidence": sig["confidence"],
                    "number": sig["number"],
                    "consensus": sig["consensus"],
                    "correct": None if case.gold is None or label is None else label == case.gold,
                }
            )
            case.votes += [{"run": run.name, **v} for v in sig["votes"]]
            case.debates.append({"run": str(run), "item_id": str(r["item_id"]), "protocol": opts.get("protocol", "")})


def _lowest(verdicts: list[dict], key: str) -> float | None:
    """The lowest of the runs' values (the least sure run speaks for the case), None when no run gave one."""
    values = [v[key] for v in verdicts if v[key] is not None]
    return min(values) if values else None


def _reasons(case: HardCase, consensus_below: float, confidence_below: float) -> list[str]:
    """Every reason (of REASONS, in their order) that makes the case hard, from its verdicts and gold."""
    preds = [v["label"] for v in case.verdicts]
    reasons = []
    if len({p for p in preds if p is not None}) > 1:
        reasons.append("protocols disagree")
    if case.consensus is not None and case.consensus + 1e-9 < consensus_below:
        reasons.append("low consensus")
    if case.confidence is not None and case.confidence + 1e-9 < confidence_below:
        reasons.append("low confidence")
    if case.gold is not None and any(p is not None and p != case.gold for p in preds):
        reasons.append("wrong")
    if any(p is None for p in preds):
        reasons.append("no verdict")
    if case.gold_split:
        reasons.append("annotators split")
    return reasons


def _hardest_first(case: HardCase) -> tuple[int, float, float]:
    """Cases with more reasons first, then the least confident, then the least agreed."""
    return (
        -len(case.reasons),
        case.confidence if case.confidence is not None else 1.0,
        case.consensus if case.consensus is not None else 1.0,
    )


def _hard_cases(
    cases: Iterable[HardCase], wanted: set[str], consensus_below: float, confidence_below: float, limit: int | None
) -> list[HardCase]:
    """The cases with at least one wanted reason, hardest first, at most `limit` (0 or None: all)."""
    picked = []
    for case in cases:
        case.confidence = _lowest(case.verdicts, "confidence")
        case.consensus = _lowest(case.verdicts, "consensus")
        case.reasons = [r for r in _reasons(case, consensus_below, confidence_below) if r in wanted]
        if case.reasons:
            picked.append(case)
    picked.sort(key=_hardest_first)
    return picked[:limit] if limit else picked


# -- from an uploaded file in a dataset's own format ---------------------------------------------------
FORMAT_NAMES = ("checkthat", "averitec", "liar")


def _decode(filename: str, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidInput(
            f"{filename}: the file is not UTF-8 text ({e.reason} at byte {e.start}).", "Save it as UTF-8."
        ) from e


def _sniff_upload(filename: str, data: bytes) -> str | None:
    suffix = Path(filename or "").suffix.lower()
    if suffix not in (".tsv", ".txt", ".json"):
        return None
    return sniff_text(_decode(filename, data), suffix)


def from_dataset_file(filename: str, data: bytes, fmt: str, *, name: str = "") -> QueueSpec:
    """Cases from a file in CheckThat / AVeriTeC / LIAR format: one case per tweet and category for
    CheckThat (soft labels kept as "annotators split", those cases first), one per claim otherwise.
    Each case keeps its original record so the export writes the file back in the same format."""
    from debate.datasets import FORMATS, LIAR_COLUMNS

    text = _decode(filename, data)
    items = read_format(fmt, text, filename)
    spec = FORMATS[fmt]
    cases: list[HardCase] = []
    if fmt == "checkthat":  # each tweet's labels cell as written (soft values such as 0.33 kept exactly)
        raw = {r[0].strip(): r[2].strip() for r in csv.reader(io.StringIO(text), delimiter="\t") if len(r) >= 3}
        for it in items:
            for c in spec.categories:
                g = (it.gold if isinstance(it.gold, dict) else {}).get(c)  # per category here
                case = HardCase(
                    item_id=it.id,
                    text=it.text,
                    category=int(c),
                    gold=None if g == SPLIT else g,
                    gold_split=g == SPLIT,
                    reasons=["annotators split" if g == SPLIT else "uploaded"],
                    source={"labels": raw[it.id]} if raw.get(it.id) else {},
                )
                cases.append(case)
        cases.sort(key=lambda c: not c.gold_split)  # stable: split cases first, file order kept within
    elif fmt == "averitec":
        records = json.loads(text)
        for it in items:
            cases.append(
                HardCase(
                    item_id=it.id,
                    text=it.text,
                    gold=it.gold if isinstance(it.gold, str) else None,  # one label per item here
                    reasons=["uploaded"],
                    source={"record": records[int(it.id)]},
                )
            )
    else:  # liar: the row as read (QUOTE_NONE), to write back unchanged but for the label
        rows = {  # (a 15th column is this app's adjudicated label: not part of the file's own row)
            r[0]: r[: len(LIAR_COLUMNS)]
            for r in csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
            if len(r) in (len(LIAR_COLUMNS), len(LIAR_COLUMNS) + 1)
        }
        for it in items:
            cases.append(
                HardCase(
                    item_id=it.id,
                    text=it.text,
                    gold=it.gold if isinstance(it.gold, str) else None,
                    reasons=["uploaded"],
                    source={"row": rows.get(it.id, [])},
                )
            )
    return QueueSpec(
        name=name or f"upload · {filename}",
        task=spec.task,
        labels=list(spec.labels),
        cases=cases,
        dataset=Path(filename).stem,
        source={"kind": "upload", "file": filename, "format": fmt},
        format=fmt,
    )


# -- from an uploaded file ------------------------------------------------------------------------
TEXT_COLS = ("text", "claim", "statement", "tweet")
ID_COLS = ("id", "index", "item_id")
GOLD_COLS = ("gold", "label")
VERDICT_COLS = ("verdict", "prediction", "pred")


def _bounded_row(filename: str, line: int, rec: dict, before: int) -> tuple[int, dict]:
    """(line, rec) when the file has room for one more row and no cell of `rec` is too long."""
    if before >= MAX_UPLOAD_CASES:
        raise InvalidInput(
            f"{filename}, line {line}: more than {MAX_UPLOAD_CASES:,} rows; a queue holds at most "
            f"{MAX_UPLOAD_CASES:,} cases.",
            SPLIT_HINT,
        )
    for column, value in rec.items():
        _bounded_cell(filename, f"line {line}", str(column)[:60], value)
    return line, rec


def _records(filename: str, data: bytes) -> list[tuple[int, dict]]:
    suffix = Path(filename or "").suffix.lower()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidInput(
            f"{filename}: the file is not UTF-8 text ({e.reason} at byte {e.start}).", "Save it as UTF-8 CSV or JSONL."
        ) from e
    rows: list[tuple[int, dict]] = []
    if suffix in (".jsonl", ".ndjson"):
        for n, raw in enumerate(text.splitlines(), 1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except json.JSONDecodeError as e:
                raise InvalidInput(
                    f"{filename}, line {n}: invalid JSON ({e.msg}).", "Write one JSON object per line."
                ) from e
            except RecursionError:
                raise InvalidInput(
                    f"{filename}, line {n}: the JSON is nested too deeply.",
                    "Write one flat JSON object per line (text, id, category, label ...).",
                ) from None
            except ValueError as e:  # e.g. an integer of more than 4,300 digits
                raise InvalidInput(
                    f"{filename}, line {n}: invalid JSON ({str(e)[:120]}).", "Write one JSON object per line."
                ) from None
            if not isinstance(rec, dict):
                raise InvalidInput(f"{filename}, line {n}: not a JSON object.", "Write one JSON object per line.")
            rows.append(_bounded_row(filename, n, rec, len(rows)))
    elif suffix in (".csv", ".tsv"):
        reader = csv.DictReader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ",")
        for rec in reader:
            if None in rec:
                raise InvalidInput(
                    f"{filename}, line {reader.line_num}: more fields than the header has.",
                    "Quote fields that contain a comma.",
                )
            rows.append(
                _bounded_row(filename, reader.line_num, {k.strip().lower(): v for k, v in rec.items() if k}, len(rows))
            )
    else:
        raise InvalidInput(
            f"{filename}: unsupported file type {suffix or '(none)'!r} (or a .json that is not "
            "AVeriTeC's list of claims).",
            "Upload a .csv, .tsv or .jsonl file, or AVeriTeC JSON.",
        )
    if not rows:
        raise InvalidInput(f"{filename}: no rows.", "Upload a file with a header and at least one row.")
    return rows


def _category(raw: Any, where: str) -> int | None:
    """A category cell as a small whole number (1.0 is 1): "inf", "1e400", "nan", 1.5 or 10**400 are told
    to the person, not turned into an OverflowError on the page."""
    text = str(raw if raw is not None else "").strip()[:40]
    if not text:
        return None
    try:
        value = float(text)
    except (ValueError, OverflowError):
        value = math.nan
    if not (math.isfinite(value) and value.is_integer() and 0 <= value <= 99):
        raise InvalidInput(
            f"{where}: category {text!r} is not a category number.",
            "Use 1, 2 or 3 for CheckThat categories, or leave it empty.",
        )
    return int(value)


def _col(rec: dict, names: tuple[str, ...]) -> str | None:
    return next((n for n in names if n in rec), None)


def from_upload(
    filename: str, data: bytes, *, task: str = "custom", labels: list[str] | None = None, name: str = ""
) -> QueueSpec:
    """`_from_upload`, with what a hostile file can still raise beyond the checks there (values nested
    too deeply to print, numbers too large to convert) told as InvalidInput instead of reaching the page,
    and the file bounded: MAX_UPLOAD_MB, MAX_UPLOAD_CASES rows or cases, MAX_CELL_CHARS per text cell."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise InvalidInput(
            f"{filename}: the file has {len(data) / 2**20:,.1f} MB; at most {MAX_UPLOAD_MB} MB are read.", SPLIT_HINT
        )
    try:
        spec = _from_upload(filename, data, task=task, labels=labels, name=name)
    except csv.Error as e:  # e.g. a field longer than the csv module's own limit (131,072 characters)
        raise InvalidInput(
            f"{filename}: the file cannot be read as CSV/TSV ({str(e)[:120]}); a cell may hold at "
            f"most {MAX_CELL_CHARS:,} characters.",
            "Check the quotes (an unclosed quote runs to the end of the file) and shorten long cells. " + SPLIT_HINT,
        ) from None
    except (RecursionError, OverflowError, MemoryError) as e:
        raise InvalidInput(
            f"{filename}: the file cannot be read as cases ({type(e).__name__}: values nested "
            "too deeply or numbers too large).",
            "Upload flat rows: text, and optionally id, category, label, verdict, confidence.",
        ) from None
    if len(spec.cases) > MAX_UPLOAD_CASES:  # a dataset's own file (a CSV/JSONL stops at its first row too many)
        raise InvalidInput(
            f"{filename}: {len(spec.cases):,} cases; a queue holds at most {MAX_UPLOAD_CASES:,}.", SPLIT_HINT
        )
    for case in spec.cases:
        _bounded_cell(filename, f"case {str(case.item_id)[:40]!r}", "text", case.text)
    return spec


def _bounded_cell(filename: str, where: str, column: str, value: Any) -> None:
    """InvalidInput when a text value is longer than MAX_CELL_CHARS (it is stored and shown on pages)."""
    if isinstance(value, str) and len(value) > MAX_CELL_CHARS:
        raise InvalidInput(
            f"{filename}, {where}: {column!r} has {len(value):,} characters; a cell may hold at most "
            f"{MAX_CELL_CHARS:,}.",
            "Shorten it (a case is one claim or tweet), or leave that column out of the file.",
        )


def _from_upload(
    filename: str, data: bytes, *, task: str = "custom", labels: list[str] | None = None, name: str = ""
) -> QueueSpec:
    """Cases from a CSV/TSV/JSONL: a text column (text|claim|statement|tweet) and optionally id, category,
    gold|label, verdict|prediction, confidence, debate_id. Raises InvalidInput naming the line at fault.

    A file in a supported dataset's own format (CheckThat 4a TSV, AVeriTeC JSON, LIAR TSV) is read by
    that dataset's loader instead (see `from_dataset_file`)."""
    fmt = _sniff_upload(filename, data)
    if fmt:
        return from_dataset_file(filename, data, fmt, name=name)
    cases = _uploaded_cases(filename, _records(filename, data), task)
    labels = _upload_labels(filename, task, labels, cases)
    return QueueSpec(
        name=name or f"upload · {filename}",
        task=task or "custom",
        labels=list(labels),
        cases=cases,
        dataset=Path(filename).stem,
        source={"kind": "upload", "file": filename},
    )


@dataclass(frozen=True)
class _Columns:
    """Which of an uploaded file's columns hold the text, the id, the gold label and the verdict."""

    text: str
    id: str | None
    gold: str | None
    verdict: str | None


def _columns(filename: str, first: dict) -> _Columns:
    """The columns, named by the first row's keys; InvalidInput when none holds the text."""
    tcol = _col(first, TEXT_COLS)
    if tcol is None:
        names = sorted(map(str, first))  # a file's own header: a short list in words, not a Python list
        raise InvalidInput(
            f"{filename}: no text column; the columns are "
            + ", ".join(n[:60] for n in names[:12])
            + (f" and {len(names) - 12} more" if len(names) > 12 else "")
            + ".",
            f"Name the column with the claim one of: {', '.join(TEXT_COLS)}.",
        )
    return _Columns(tcol, _col(first, ID_COLS), _col(first, GOLD_COLS), _col(first, VERDICT_COLS))


def _uploaded_cases(filename: str, rows: list[tuple[int, dict]], task: str) -> list[HardCase]:
    """One case per row, in the file's order; InvalidInput naming the first line at fault."""
    cols = _columns(filename, rows[0][1])
    cases, seen = [], set()
    for n, (line, rec) in enumerate(rows):
        text, iid, cat = _row_identity(filename, line, n, rec, cols, task)
        key = case_key(iid, cat)
        if key in seen:
            raise InvalidInput(f"{filename}, line {line}: duplicate id {iid!r}.", "Ids (with category) must be unique.")
        seen.add(key)
        conf = _confidence(rec.get("confidence"), f"{filename}, line {line}")
        cases.append(_uploaded_case(filename, rec, cols, item_id=iid, text=text, category=cat, confidence=conf))
    return cases


def _row_identity(
    filename: str, line: int, n: int, rec: dict, cols: _Columns, task: str
) -> tuple[str, str, int | None]:
    """(text, id, category) of a row: the text must be there, the id is the row's number when the file
    gives none, and a CheckThat case must name one of its three questions."""
    text = str(rec.get(cols.text) or "").strip()
    if not text:
        raise InvalidInput(f"{filename}, line {line}: empty {cols.text!r}.", "Every row needs a claim text.")
    icol = cols.id
    iid = str(rec.get(icol)).strip() if icol and str(rec.get(icol) or "").strip() else str(n)
    cat = _category(rec.get("category"), f"{filename}, line {line}")
    if task == "checkthat" and cat not in (1, 2, 3):  # YES/NO answers one of three questions: without
        # it the page has no definition to show and the CheckThat export has no column for the label
        raise InvalidInput(
            f"{filename}, line {line}: "
            + ("no category" if cat is None else f"category {cat}")
            + ": a CheckThat case is one of its three questions.",
            "Add a column “category” with 1 (scientific claim), 2 (reference to a study) or 3 "
            "(scientific entities) on every row, or choose another task for these cases.",
        )
    return text, iid, cat


def _confidence(raw: Any, where: str) -> float | None:
    """A confidence cell as a number from 0 to 1, None when empty; anything else (NaN and inf too) is told."""
    try:
        conf = float(raw) if raw not in (None, "") else None
    except (TypeError, ValueError, OverflowError):
        conf = math.nan
    if conf is not None and not 0.0 <= conf <= 1.0:  # also NaN and inf
        raise InvalidInput(
            f"{where}: confidence {str(raw)[:40]!r} is not a number between 0 and 1.",
            "Write confidences as numbers between 0 and 1.",
        )
    return conf


def _uploaded_case(
    filename: str, rec: dict, cols: _Columns, *, item_id: str, text: str, category: int | None, confidence: float | None
) -> HardCase:
    """A row's case: its gold label, the verdict it brings (shown as the file's run) and its debate to replay."""
    verdict = norm_label(rec.get(cols.verdict)) if cols.verdict else None
    case = HardCase(
        item_id=item_id,
        text=text,
        category=category,
        gold=norm_label(rec.get(cols.gold)) if cols.gold else None,
        confidence=confidence,
        reasons=["uploaded"],
    )
    if verdict is not None or confidence is not None:
        case.verdicts.append(
            {
                "run": filename,
                "protocol": str(rec.get("protocol") or ""),
                "label": verdict,
                "confidence": confidence,
                "consensus": None,
                "correct": None if case.gold is None or verdict is None else verdict == case.gold,
            }
        )
    if str(rec.get("debate_id") or "").strip():
        case.debates.append({"debate_id": str(rec["debate_id"]).strip()})
    return case


def _upload_labels(filename: str, task: str, labels: list[str] | None, cases: list[HardCase]) -> list[str]:
    """The queue's labels: those given, else the task's, else (a custom task) every label the file uses;
    InvalidInput when there are none, or when a gold label is not among them."""
    if not labels:
        if task and task != "custom":
            from debate.tasks import task_labels

            labels = list(task_labels(task))
        else:
            labels = sorted({x for c in cases for x in [c.gold] + [v["label"] for v in c.verdicts] if x})
    if not labels:
        raise InvalidInput(
            f"{filename}: no label set: the file has no gold or verdict labels and no task was chosen.",
            "Choose the task (its labels are used) or add a `label` column.",
        )
    bad = sorted({c.gold for c in cases if c.gold and c.gold not in labels})
    if bad:
        raise InvalidInput(
            f"{filename}: gold labels {bad} are not in the task's labels {labels}.",
            "Pick the task that matches the file, or fix the labels.",
        )
    return labels
