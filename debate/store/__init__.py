"""Storage: every debate and its events in SQLite (debates.py, whose public names are re-exported here,
so `from debate.store import DebateStore` works), on the WAL plumbing it shares with the annotation
store (sqlite.py).

Services layer, but it needs only the foundation and the transcript: it never imports the runner, so a
stored debate can be read without any model code. Exports (JSON, CSV, Markdown) are not storage: they live in
debate/sharing/exports.py; `to_markdown` is still named here for the programs that import it from here.
"""

from debate.store.debates import (
    INTERRUPTED,
    MIGRATIONS,
    STALE_BEATS,
    STATUSES,
    DebateStore,
    compact_verdict,
    heartbeat_s,
    row_title,
    seconds_since,
    started_at,
    to_markdown,
)

__all__ = [
    "INTERRUPTED",
    "MIGRATIONS",
    "STALE_BEATS",
    "STATUSES",
    "DebateStore",
    "compact_verdict",
    "heartbeat_s",
    "row_title",
    "seconds_since",
    "started_at",
    "to_markdown",
]
