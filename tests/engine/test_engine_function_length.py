"""No function of the engine or the app is longer than 100 lines.

Why: a long function hides decisions that should be pure, named, testable steps. A reader has to hold
the whole body in mind to see what one branch depends on, a test can reach a decision only through
everything around it, and the next change lands in the middle of it. Small modules named for what they
hold, made of short functions named for what they decide, keep each decision where it can be read and
tested alone.

The length is read from the source (ast): from the `def` line to the function's last line
(end_lineno - lineno + 1), nested functions and methods included, for every .py file under debate/, ui/
and pages/, and app.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIMIT = 100
ROOTS = ("debate", "ui", "pages")


def source_files() -> list[Path]:
    """Every Python file of the engine and the app, in a stable order."""
    files = [p for root in ROOTS for p in sorted((REPO / root).rglob("*.py"))]
    return [*files, REPO / "app.py"]


def long_functions(path: Path, root: Path = REPO, limit: int = LIMIT) -> list[str]:
    """`file:line name (N lines)` for every function or method in the file longer than `limit` lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_the_check_sees_a_long_function_and_a_long_method(tmp_path):
    body = "\n".join(f"        x{i} = {i}" for i in range(LIMIT))
    sample = tmp_path / "sample.py"
    sample.write_text(
        f"def short():\n    return 1\n\n\nclass A:\n    async def long(self):\n{body}\n", encoding="utf-8"
    )
    assert long_functions(sample, root=tmp_path) == [f"sample.py:6 long ({LIMIT + 1} lines)"]
    assert long_functions(sample, root=tmp_path, limit=LIMIT + 1) == []


def test_no_function_is_longer_than_the_limit():
    assert len(source_files()) > 50  # the roots are found: an empty walk would pass for nothing
    found = [line for path in source_files() for line in long_functions(path)]
    assert found == [], "functions longer than 100 lines: split them into named steps\n" + "\n".join(found)
