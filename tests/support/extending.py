"""The toy extensions of docs/architecture.md "Where new code goes", built from the doc's own code blocks.

Each section ("A protocol", "An evidence source", "A model backend", "A task") shows the files of a package of one's
own; `install` writes them to a temporary folder and installs the packages as the doc says (pip, into a
folder of their own: the shared environment is left as it is). The command-line tests put that folder on
PYTHONPATH; the AppTests put it on sys.path and load the entry points as the app does (`load_into_process`).
When the docs and the code drift apart, the tests that use this fail.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "architecture.md"
# kind -> (the section's heading, the next heading): the doc's text between them
SECTIONS = {
    "protocol": ("**A protocol.**", "**An evidence source.**"),
    "source": ("**An evidence source.**", "**A model backend.**"),
    "backend": ("**A model backend.**", "**A task.**"),
    "task": ("**A task.**", "**A page.**"),
}


def doc_blocks(start: str, end: str) -> dict[str, str]:
    """The fenced code blocks between two headings of the architecture doc, by the path their first line names."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index(start) : text.index(end)]
    out = {}
    for m in re.finditer(r"^( *)```\w+\n(.*?)^\1```", section, re.M | re.S):
        body = textwrap.dedent(m.group(2))
        first, _, rest = body.partition("\n")
        out[first.removeprefix("#").strip()] = body
    return out


def write_package(kind: str, root: Path) -> Path:
    """The doc's package of `kind` written under root/kind (its module folder gets an empty __init__.py)."""
    pkg = root / kind
    for rel, body in doc_blocks(*SECTIONS[kind]).items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(body, encoding="utf-8")
        if rel.endswith(".py"):
            (pkg / rel).parent.joinpath("__init__.py").touch()
    return pkg


def install(root: Path, kinds: tuple[str, ...] = tuple(SECTIONS)) -> Path:
    """`pip install` of the doc's packages, into root/site (no network: the build backend is the environment's)."""
    site = root / "site"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-build-isolation"]
        + ["--target", str(site)]
        + [str(write_package(k, root / "src")) for k in kinds],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert pip.returncode == 0, pip.stderr[-2000:]
    return site


@contextmanager
def load_into_process(site: Path) -> Iterator[None]:
    """The installed toys registered in this process, through their entry points as the app loads them, and
    taken out again afterwards (the registries, the prompt templates, sys.path)."""
    from debate import prompts, tasks
    from debate import protocols as protocol_registry
    from debate.models import backends
    from debate.retrieval import sources

    sys.path.insert(0, str(site))
    _forget_built_objects()
    registries = (protocol_registry.PROTOCOLS, backends.BACKENDS, sources.SOURCES, tasks.TASKS)
    had = tuple(dict(r) for r in registries)
    extra = list(prompts._EXTRA)
    try:
        protocol_registry._load_entry_points()
        tasks._load_entry_points()
        backends._entry_points_loaded = sources._entry_points_loaded = False
        backends.registry()
        sources.registry()
        yield
    finally:
        for registry, before in zip(registries, had):
            for name in set(registry) - set(before):
                registry.pop(name)
        prompts._EXTRA[:] = extra
        prompts.templates.cache_clear()
        sys.path.remove(str(site))
        for name in [
            m for m in sys.modules if m.split(".")[0] in ("toy_debate", "toy_evidence", "toy_backend", "toy_task")
        ]:
            del sys.modules[name]
        _forget_built_objects()


def _forget_built_objects() -> None:
    """The app's shared objects built from the registries (ui/resources.py: the clients, the retrievers that
    rank every source that answers) dropped, so that none built while the toys were registered outlives them:
    a later test in this process whose page searched "every source" got the toy's passages from the cache.
    The local index itself is kept (it holds no registry entry, and loading it again costs a minute)."""
    resources = sys.modules.get("ui.resources")
    if resources is not None:
        resources._multi.clear()
        resources._client.clear()
