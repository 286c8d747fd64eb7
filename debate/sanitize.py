"""Model text made safe for the places it is exported to: terminals, spreadsheets, Markdown readers.

The app's pages escape through ui/safe.py; these are the other sinks, for the engine and the CLI (no
Streamlit here). Every function is one linear pass: model text is hostile input.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Iterable
from typing import Any

# ANSI/VT escape sequences (CSI, OSC up to BEL or ST, two-character ESC forms), then any other C0 control
# except tab and newline, DEL and the C1 controls: a model answer must not move the cursor, retitle the
# window, hide text or rewrite the line the person is reading (\r).
_TERMINAL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
# a cell a spreadsheet would run as a formula (OWASP's list: = + - @ and tab / carriage return)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# ... and a formula start inside a cell, after a character some spreadsheet starts a new cell at: the
# separator of another locale (";" where "," is the decimal mark, a tab) or a line break whose quotes it no
# longer pairs once it splits at ";" (its quotes then open mid-cell and are read as text), with the spaces
# and quotes a spreadsheet skips. Guarding only the first character holds for one separator only.
_INNER_FORMULA = re.compile(r'([,;\t\r\n][ "]*)(?=[=+\-@\t\r])')
# bidirectional controls (embeddings, overrides, isolates, marks): U+202E makes "exe.txt" read "txt.exe"
# and can make an exported transcript say the opposite of what was written
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Markdown image syntax (inline and reference): a viewer fetches the image, a beacon to any host
_MD_IMAGE = re.compile(r"!(?=\[)")
# a link whose target is not http(s) (`[j](javascript:...)`, `data:`, `file:`, a relative path), inline or as
# a reference definition (`[j]: javascript:...`): a click would run it or open a local file
_MD_LINK = re.compile(r"\]\((?!\s*https?://)", re.IGNORECASE)
_MD_REFERENCE = re.compile(r"^( {0,3})\[(?=[^\]\n]*\]:(?!\s*https?://))", re.IGNORECASE | re.MULTILINE)


def strip_terminal(text: str) -> str:
    """`text` without terminal control sequences or control characters (tab and newline kept)."""
    return _TERMINAL.sub("", text or "")


def clean_for_terminal(obj: Any) -> Any:
    """A copy of a JSON-like value (an event's dict) with every string passed through plain_text: no
    terminal control sequences, and bidirectional controls shown as `[U+202E]`, since a terminal lays text
    out by them as a page does (a replayed answer could show "txt.exe" for "exe.txt")."""
    if isinstance(obj, str):
        return plain_text(obj)
    if isinstance(obj, dict):
        return {k: clean_for_terminal(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean_for_terminal(v) for v in obj]
    return obj


def plain_text(text: Any) -> str:
    """Text for a file a person opens (Markdown, HTML): terminal sequences and control characters removed
    (ESC, BEL, ...; tab and newline kept), bidirectional controls shown as `[U+202E]` instead of acting."""
    return _BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", strip_terminal("" if text is None else str(text)))


def csv_cell(value: Any) -> Any:
    """A cell value that a spreadsheet shows as text, whatever separator it reads the file with: a string
    starting like a formula gets a leading `'`, and so does each part of it that would start a cell when
    a spreadsheet splits it at ";", "," or a tab, or at a line break (`x; =A1` -> `x; '=A1`)."""
    if not isinstance(value, str):
        return value
    value = _INNER_FORMULA.sub(r"\1'", value)
    return "'" + value if value.startswith(_FORMULA_START) else value


def csv_row(row: dict) -> dict:
    return {k: csv_cell(v) for k, v in row.items()}


def csv_text(cols: list[str], rows: Iterable[dict], **fmt: Any) -> str:
    """A CSV document whose header and cells a spreadsheet shows as text (column names can come from
    people too, e.g. an annotator's name in `label:NAME`). `fmt`: csv.writer options (delimiter, ...)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", **fmt)
    w.writerow([csv_cell(c) for c in cols])
    for r in rows:
        w.writerow([csv_cell("" if r.get(c) is None else r.get(c)) for c in cols])
    return buf.getvalue()


def md_text(text: Any) -> str:
    """Text for a Markdown file: raw HTML (`<script>`, `<img onerror>`, `<a href>`) shown, not rendered;
    image syntax `![..](url)` shown as text (no fetch when the file is opened); a link to anything but an
    http(s) address (`[j](javascript:...)`) shown as text, not a link; controls as plain_text."""
    out = _MD_IMAGE.sub("!\\\\", html.escape(plain_text(text), quote=False))
    return _MD_REFERENCE.sub(r"\1\\[", _MD_LINK.sub("]\\\\(", out))


# Markdown a model writes for emphasis and structure: `**bold**`, `*it*`, `` `code` ``, an ATX heading's
# hashes, a bullet's star. Every view shows model text as plain text (the page escapes it, the exports quote it),
# so these marks would show as stray characters: they are taken out instead, the words kept.
_MD_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", re.DOTALL)
_MD_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")
_MD_CODE = re.compile(r"`([^`\n]+)`")
_MD_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+", re.MULTILINE)
_MD_BULLET = re.compile(r"^([ \t]*)[*+][ \t]+", re.MULTILINE)


def unmarked(text: Any) -> str:
    """Model text without the Markdown marks of emphasis, code and headings (words kept; a `*` bullet becomes
    `-`), so every view shows `**Support position:**` as `Support position:`. Links stay as written: each
    sink neutralises them (md_text, html.escape, ui/safe)."""
    s = "" if text is None else str(text)
    if not any(c in s for c in "*_`#"):
        return s
    s = _MD_STRONG.sub(r"\1", s)
    s = _MD_EMPHASIS.sub(r"\1", s)
    s = _MD_CODE.sub(r"\1", s)
    s = _MD_HEADING.sub("", s)
    return _MD_BULLET.sub(r"\1- ", s)
