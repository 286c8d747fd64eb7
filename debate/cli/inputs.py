"""Debates read back for the commands that show or continue one (replay, export, fork, robustness).

EVENTS may be a JSONL events file (`run --events`), a Library JSON export or a stored debate's id. Files
may come from anyone: whatever is wrong with one is an InvalidInput naming the file, line or event.
"""

from __future__ import annotations

import json
from pathlib import Path

from debate.errors import InvalidInput
from debate.transcript import events_path, read_events


def load_events(ref: str) -> list:
    """Events from a JSONL file, a Library JSON export ({"debate", "events"}) or a stored debate's id.
    A file may be anyone's: whatever is wrong with it is an InvalidInput naming it, never a traceback."""
    p = Path(ref).expanduser()
    if p.is_dir():
        events_path(p)  # says it is a folder
    if p.is_file():
        try:
            head = p.open("rb").read(200).decode("utf-8", errors="replace").lstrip()
        except OSError as e:
            raise InvalidInput(f"Cannot read {p}: {e.strerror or e}.", "Check the path and its permissions.") from None
        if head.startswith("{") and '"debate"' in head:
            return _library_export(p) or read_events(p)
        return read_events(p)
    from debate import config
    from debate.store import DebateStore

    store = DebateStore(config.store_db()) if config.store_db().is_file() else None
    if store is not None and store.get(ref) is not None:
        return store.events(ref)
    raise InvalidInput(
        f"{ref} is neither an events file nor the id of a stored debate.",
        "Pass the JSONL written by `python -m debate run --events FILE`, a Library JSON export, "
        "or an id from the Library.",
    )


def _library_export(p: Path) -> list | None:
    """The events of a Library JSON export, checked one by one; None when the file is not one."""
    from debate.events import checked_event

    try:
        data = json.loads(p.read_bytes().decode("utf-8"))
    except (ValueError, RecursionError):  # not one JSON document: perhaps JSONL, whose reader says what is wrong
        return None
    if not (isinstance(data, dict) and isinstance(data.get("events"), list)):
        return None
    out = []
    for n, d in enumerate(data["events"], 1):
        try:
            out.append(checked_event(d))
        except ValueError as e:
            raise InvalidInput(
                f"{p}: event {n} of the export is not an event ({str(e)[:200]}).",
                "Export the debate again from the Library, or pass its JSONL events file.",
            ) from None
    if not out:
        raise InvalidInput(f"{p}: the export holds no events.", "Export the debate again from the Library.")
    return out
