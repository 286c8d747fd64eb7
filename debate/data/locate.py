"""Where a dataset file is found: the one search order of the project.

Every reader of a research dataset (the named evaluation splits, the aids' demonstrations, the
Debate page's examples, the default evidence corpus, the benchmarks) asks `find(rel)`, so the order
below is stated and implemented here only.
"""

from __future__ import annotations

import os
from pathlib import Path

from debate import config
from debate.errors import InvalidInput


def fetched_dir() -> Path:
    """Where `python -m debate data fetch` stores what it downloads: DEBATE_HOME/data."""
    return config.home() / "data"


def shipped_dir() -> Path:
    """The data that ships with the repository (CheckThat! 2025 Task 4a, CC BY 4.0)."""
    return config.REPO_ROOT / "data"


def search_roots() -> list[tuple[str, Path]]:
    """The folders searched for a dataset file, first match wins, file by file:

    1. `DEBATE_SHARED_DATA`, when set: your own copy of the datasets (any subset of them);
    2. the fetched copy in `DEBATE_HOME/data` (`python -m debate data fetch` writes there);
    3. the shipped `data/` folder of the repository;
    4. a `shared/data` folder beside the checkout, when one exists (the last resort: a development
       set-up that keeps the full sets next to the repository).

    File by file means a DEBATE_SHARED_DATA that holds only LIAR still lets the shipped CheckThat files
    and a fetched AVeriTeC be found; an empty one changes nothing.
    """
    roots: list[tuple[str, Path]] = []
    env = os.environ.get("DEBATE_SHARED_DATA", "").strip()
    if env:
        roots.append(("DEBATE_SHARED_DATA", Path(env).expanduser()))
    roots.append(("fetched", fetched_dir()))
    roots.append(("shipped", shipped_dir()))
    roots.append(("beside the checkout", config.REPO_ROOT.parent / "shared" / "data"))
    return roots


def find(rel: str) -> Path | None:
    """The first existing file `rel` (e.g. "liar/train.tsv") in the search order, or None."""
    for _, root in search_roots():
        p = root / rel
        if p.is_file():
            return p
    return None


def where(rel: str) -> tuple[str, Path] | None:
    """(name of the place, path) of the file `find` returns, for status lines."""
    for name, root in search_roots():
        p = root / rel
        if p.is_file():
            return name, p
    return None


def missing_message(rel: str) -> tuple[str, str]:
    """(what is missing, what to do) for a dataset file that no folder holds, naming what works
    without it when the catalogue knows the file."""
    from debate.data.catalog import file_for

    known = file_for(rel)
    searched = ", ".join(str(root) for _, root in search_roots())
    if known is None:
        return (
            f"The data file {rel} is not on this machine (searched {searched}).",
            f"Set DEBATE_SHARED_DATA to a folder holding {rel}.",
        )
    src, _ = known
    what = f"{src.title} ({rel}, {src.licence}) is not on this machine (searched {searched})."
    if src.shipped:
        return what, "It ships in the repository's data/ folder: restore it with `git checkout -- data`."
    return (
        what + f" Without it: {src.without}.",
        f"Fetch it with `python -m debate data fetch {src.name}`, or set DEBATE_SHARED_DATA to a folder holding {rel}.",
    )


def require(rel: str) -> Path:
    """`find(rel)`, or an InvalidInput saying what is missing, what works without it and how to get it."""
    p = find(rel)
    if p is None:
        raise InvalidInput(*missing_message(rel))
    return p
