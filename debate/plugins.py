"""Other packages' extensions, read from their entry points: the one loop every registry (protocols, tasks,
backends, evidence sources) shares.

A plug-in that fails to load must not stop the app: its error is kept (the registry's FAILED, which the
command line's listings show) and logged, and the rest load.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from importlib.metadata import entry_points
from typing import Any

log = logging.getLogger(__name__)


def load_entry_points(
    group: str, kind: str, known: Collection[str], register: Callable[[Any], Any], failed: dict[str, str]
) -> None:
    """`register(ep.load())` for every entry point of `group` whose name is not `known` already; each one
    that raises is kept in `failed` (name -> why) and logged as a `kind` not loaded."""
    for ep in entry_points(group=group):
        if ep.name in known:
            continue
        try:
            register(ep.load())
        except Exception as e:  # noqa: BLE001 - anything another package raises on import is reported, not fatal
            failed[ep.name] = f"{type(e).__name__}: {e}"
            log.warning("%s %r (%s) not loaded: %s", kind, ep.name, ep.value, failed[ep.name])
