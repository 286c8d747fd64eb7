"""Model text made safe for the places it is exported to: terminals, spreadsheets, Markdown readers.

The app's pages escape through ui/safe.py; these are the other sinks, for the engine and the CLI (no
Streamlit here). Every function is one linear pass: model text is hostile input.
"""

from __future__ import annotations

import html
import re
from typing import Any

# ANSI/VT escape sequences (CSI, OSC up to BEL or ST, two-character ESC forms), then any other C0 control
# except tab and newline, DEL and the C1 controls: a model answer must not move the cursor, retitle the
# window, hide text or rewrite the line the person is reading (\r).
_TERMINAL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]?|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -~]?"
                       r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# a cell a spreadsheet would run as a formula (OWASP's list: = + - @ and tab / carriage return)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def strip_terminal(text: str) -> str:
    """`text` without terminal control sequences or control characters (tab and newline kept)."""
    return _TERMINAL.sub("", text or "")


def clean_for_terminal(obj: Any) -> Any:
    """A copy of a JSON-like value (an event's dict) with every string passed through strip_terminal."""
    if isinstance(obj, str):
        return strip_terminal(obj)
    if isinstance(obj, dict):
        return {k: clean_for_terminal(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean_for_terminal(v) for v in obj]
    return obj


def csv_cell(value: Any) -> Any:
    """A cell value that a spreadsheet shows as text: strings starting like a formula get a leading `'`."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_row(row: dict) -> dict:
    return {k: csv_cell(v) for k, v in row.items()}


def md_text(text: Any) -> str:
    """Text for a Markdown file: raw HTML (`<script>`, `<img onerror>`, `<a href>`) shown, not rendered."""
    return html.escape("" if text is None else str(text), quote=False)
