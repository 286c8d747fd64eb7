"""Turn a user's corpus file (JSONL, CSV/TSV, a folder of .txt/.md) into deduplicated passages.

Ingestion is strict about structure (a missing text column or a broken JSON line stops with the file,
the line and the fix) because a silently half-read corpus gives evidence that looks complete and is
not. It is lenient about content: rows whose text is blank are skipped and counted.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from debate.errors import InvalidInput

TEXT_KEYS = ("text", "content", "body", "passage", "answer")
TITLE_KEYS = ("title", "headline", "name")
SOURCE_KEYS = ("source", "url", "source_url", "link")
DATE_KEYS = ("date", "published", "published_at", "timestamp")
ID_KEYS = ("id", "doc_id", "document_id")
TEXT_FILE_SUFFIXES = (".txt", ".md", ".markdown")

DEFAULT_MAX_WORDS = 120
DEFAULT_OVERLAP = 30


@dataclass
class Document:
    doc_id: str
    text: str
    title: str = ""
    source: str = ""
    date: str = ""
    meta: dict = field(default_factory=dict)


@dataclass
class Passage:
    passage_id: str
    doc_id: str
    text: str
    title: str = ""
    source: str = ""
    date: str = ""
    meta: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        return text_key(self.text)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class IngestReport:
    documents: int = 0
    passages: int = 0
    duplicates: int = 0
    skipped_blank: int = 0


def normalise(text: str) -> str:
    """Lower-case, keep letters/digits only, collapse spaces: reposts differing in case,
    punctuation or whitespace count as the same passage."""
    return " ".join(re.findall(r"\w+", text.lower()))


def text_key(text: str) -> str:
    return hashlib.sha1(normalise(text).encode("utf-8")).hexdigest()


def _bad(path: Path, line: int | None, what: str, fix: str) -> InvalidInput:
    where = f"{path}" + (f", line {line}" if line else "")
    return InvalidInput(f"Cannot read corpus {where}: {what}.", f"Fix: {fix}")


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise _bad(
            path, None, f"the file cannot be opened ({e.strerror})", "check the path and its permissions"
        ) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise _bad(
            path,
            line,
            f"byte 0x{raw[e.start]:02x} is not valid UTF-8",
            f"re-save the file as UTF-8, e.g. `iconv -f latin1 -t utf-8 {path.name} > fixed.{path.suffix.lstrip('.')}`",
        ) from None
    if not text.strip():
        raise _bad(path, None, "the file is empty", "point --corpus at a file that contains documents")
    return text


def _pick(record: dict, keys: Iterable[str]) -> str:
    lowered = {str(k).strip().lower(): v for k, v in record.items() if k is not None}
    for k in keys:
        v = lowered.get(k)
        if v not in (None, ""):
            return str(v).strip()
    return ""


def _has_any(names: Iterable[str], keys: Iterable[str]) -> bool:
    lowered = {str(n).strip().lower() for n in names if n is not None}
    return any(k in lowered for k in keys)


def _doc(record: dict, fallback_id: str) -> Document:
    return Document(
        doc_id=_pick(record, ID_KEYS) or fallback_id,
        text=_pick(record, TEXT_KEYS),
        title=_pick(record, TITLE_KEYS),
        source=_pick(record, SOURCE_KEYS),
        date=_pick(record, DATE_KEYS),
    )


def read_jsonl(path: Path) -> list[Document]:
    docs = []
    for n, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise _bad(
                path,
                n,
                f"not valid JSON ({e.msg} at column {e.colno})",
                'each line must be one JSON object, e.g. {"text": "...", "source": "https://..."}',
            ) from None
        if not isinstance(rec, dict):
            raise _bad(
                path,
                n,
                f"expected a JSON object, found {type(rec).__name__}",
                'each line must be one JSON object with a "text" field',
            )
        if not _has_any(rec, TEXT_KEYS):
            raise _bad(
                path,
                n,
                f"no text field (found: {', '.join(map(str, rec)) or 'nothing'})",
                f'add a "text" field (accepted names: {", ".join(TEXT_KEYS)})',
            )
        docs.append(_doc(rec, f"{path.stem}:{n}"))
    return docs


def read_table(path: Path) -> list[Document]:
    text = _read_text(path)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    reader = csv.DictReader(text.splitlines(), delimiter=delimiter)
    header = reader.fieldnames or []
    if not _has_any(header, TEXT_KEYS):
        kind = "tab" if delimiter == "\t" else "comma"
        raise _bad(
            path,
            1,
            f"the header has no text column (found: {', '.join(header) or 'nothing'})",
            f'make line 1 a {kind}-separated header with a column named "text" '
            f"(accepted: {', '.join(TEXT_KEYS)}), plus optional title, source, date",
        )
    docs = []
    for row in reader:
        line = reader.line_num
        if None in row:  # more cells than header columns
            raise _bad(
                path,
                line,
                f"{len(header) + len(row[None])} cells but the header has {len(header)}",
                "quote cells that contain the delimiter, or remove the extra cells",
            )
        docs.append(_doc(row, f"{path.stem}:{line}"))
    return docs


def read_folder(path: Path) -> list[Document]:
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_FILE_SUFFIXES)
    if not files:
        raise _bad(
            path,
            None,
            "the folder has no .txt or .md files",
            "put one document per .txt/.md file in the folder, or use a JSONL/CSV file",
        )
    docs = []
    for f in files:
        text = _read_text(f)
        heading = re.match(r"\s*#+\s*(.+)", text)
        title = heading.group(1).strip() if heading else f.stem.replace("_", " ").replace("-", " ")
        docs.append(Document(doc_id=str(f.relative_to(path)), text=text, title=title, source=f.as_uri()))
    return docs


def read_documents(path: str | Path) -> list[Document]:
    p = Path(path).expanduser()
    if not p.exists():
        raise _bad(p, None, "no such file or folder", "check the path (JSONL, CSV, TSV or a folder of .txt/.md files)")
    if p.is_dir():
        return read_folder(p)
    suffix = p.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return read_jsonl(p)
    if suffix in (".csv", ".tsv"):
        return read_table(p)
    if suffix in TEXT_FILE_SUFFIXES:
        return read_folder_file(p)
    raise _bad(
        p,
        None,
        f"unknown corpus format {suffix or '(no extension)'}",
        "use .jsonl, .csv, .tsv, or a folder of .txt/.md files",
    )


def read_folder_file(path: Path) -> list[Document]:
    """A single .txt/.md file is a one-document corpus."""
    text = _read_text(path)
    return [Document(doc_id=path.name, text=text, title=path.stem, source=path.resolve().as_uri())]


def split_words(text: str, max_words: int = DEFAULT_MAX_WORDS, overlap: int = DEFAULT_OVERLAP) -> list[str]:
    """Windows of max_words words, each starting max_words - overlap after the last, so a fact that
    straddles a boundary is whole in at least one passage."""
    if max_words < 1 or not 0 <= overlap < max_words:
        raise InvalidInput(
            f"Passage size {max_words} words with overlap {overlap} is not usable.",
            "Use max_words >= 1 and 0 <= overlap < max_words.",
        )
    words = text.split()
    if len(words) <= max_words:
        return [" ".join(words)] if words else []
    step = max_words - overlap
    out = []
    for start in range(0, len(words), step):
        out.append(" ".join(words[start : start + max_words]))
        if start + max_words >= len(words):
            break
    return out


def to_passages(
    docs: Iterable[Document],
    max_words: int = DEFAULT_MAX_WORDS,
    overlap: int = DEFAULT_OVERLAP,
    seen: set[str] | None = None,
    taken_ids: set[str] | None = None,
) -> tuple[list[Passage], IngestReport]:
    """Split and drop passages whose normalised text was already seen (`seen` and `taken_ids` are
    updated in place, so an incremental add skips what the index already holds and keeps ids unique)."""
    seen = set() if seen is None else seen
    taken_ids = set() if taken_ids is None else taken_ids
    report = IngestReport()
    passages: list[Passage] = []
    for doc in docs:
        report.documents += 1
        chunks = split_words(doc.text, max_words, overlap)
        if not chunks:
            report.skipped_blank += 1
            continue
        for i, chunk in enumerate(chunks):
            key = text_key(chunk)
            if key in seen or not normalise(chunk):
                report.duplicates += 1
                continue
            seen.add(key)
            pid = base = doc.doc_id if len(chunks) == 1 else f"{doc.doc_id}#{i}"
            n = 1
            while pid in taken_ids:  # a corpus may repeat an id; citations need unique ones
                n += 1
                pid = f"{base}~{n}"
            taken_ids.add(pid)
            passages.append(
                Passage(
                    passage_id=pid,
                    doc_id=doc.doc_id,
                    text=chunk,
                    title=doc.title,
                    source=doc.source,
                    date=doc.date,
                    meta=dict(doc.meta),
                )
            )
    report.passages = len(passages)
    return passages, report


def load_corpus(
    path: str | Path, max_words: int = DEFAULT_MAX_WORDS, overlap: int = DEFAULT_OVERLAP
) -> tuple[list[Passage], IngestReport]:
    passages, report = to_passages(read_documents(path), max_words, overlap)
    if not passages:
        raise _bad(Path(path), None, "no document has any text", "fill the text column/field; blank rows are skipped")
    return passages, report


def corpus_fingerprint(passages: Iterable[Passage]) -> str:
    h = hashlib.sha256()
    for p in passages:
        h.update(json.dumps([p.passage_id, p.text, p.title, p.source, p.date], ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()
