"""The type checker holds the protocols to their step types: a protocol step is a generator
(`Steps[T] = Generator[Event, None, T]`), so `msgs = ctx.prompt(...)` without `yield from` is a type error.

tests/engine/typing_canary.py holds such mistakes, each marked `# type: ignore[code]`; `make lint` checks
it with debate/ and fails when a marked line stops being an error (warn_unused_ignores). This test checks the
other side: with the marks taken off, mypy reports every one of them, and nothing else. It reuses the
repository's mypy cache, which `make lint` (run before the tests) has filled: about a second then."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CANARY = REPO / "tests" / "engine" / "typing_canary.py"
MARK = re.compile(r"\s*# type: ignore\[([a-z-]+)\]$", re.M)


def marked(text: str) -> set[tuple[int, str]]:
    """(line, error code) of every mistake the canary marks."""
    return {(n, m.group(1)) for n, line in enumerate(text.splitlines(), 1) if (m := MARK.search(line))}


def test_lint_checks_the_canary():
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert str(CANARY.relative_to(REPO)) in cfg["files"]
    assert cfg["warn_unused_ignores"] is True
    assert {code for _, code in marked(CANARY.read_text(encoding="utf-8"))} == {
        "arg-type",
        "attr-defined",
        "union-attr",
    }


def test_mypy_reports_each_mistake_of_the_canary(tmp_path):
    pytest.importorskip("mypy")
    text = CANARY.read_text(encoding="utf-8")
    bare = tmp_path / "canary_bare.py"
    bare.write_text(MARK.sub("", text), encoding="utf-8")  # the same lines, unmarked
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), str(bare)],
        cwd=REPO,
        # this checkout's debate/ (not another one an editable install may point at), and its cache
        env={**os.environ, "MYPYPATH": str(REPO), "MYPY_CACHE_DIR": str(REPO / ".mypy_cache")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = {
        (int(n), code) for n, code in re.findall(r"canary_bare\.py:(\d+): error: .*\[([a-z-]+)\]$", out.stdout, re.M)
    }
    assert found == marked(text), out.stdout + out.stderr
    assert out.returncode == 1
