"""The app runs with Streamlit's magic off; no page may count on it.

Magic turns a bare expression into ``st.write``. It is off in ``.streamlit/config.toml`` because its
parse into Python AST objects can fail in CPython 3.11 before 3.11.8 when two threads parse at once
(python/cpython#106905). With magic off a bare expression shows nothing, silently: this test names it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from streamlit import config
from streamlit.runtime.scriptrunner import magic

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]


def magic_writes(source: str, path: str) -> list[int]:
    """Lines where magic would have displayed a bare expression."""
    tree = magic.add_magic(source, path)
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "__streamlitmagic__"
    ]


def test_magic_is_off_in_the_apps_config():
    assert config.get_option("runner.magicEnabled") is False


def test_no_page_writes_a_bare_expression():
    found = {str(p.relative_to(ROOT)): magic_writes(p.read_text(encoding="utf-8"), str(p)) for p in SCRIPTS}
    assert len(found) >= 9
    assert {k: v for k, v in found.items() if v} == {}


def test_a_bare_expression_is_found():
    """The check can fail: a page that shows a value by magic is named, with its line."""
    src = 'import streamlit as st\nst.title("x")\n"shown by magic only"\n'
    assert magic_writes(src, "page.py") == [3]
