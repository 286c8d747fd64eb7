"""Every environment variable the code names is in the one table of docs/environment.md."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# a variable's name as the code spells it: a whole string literal (os.environ.get("X"), url_env="X")
NAME = re.compile(r"""["']((?:DEBATE|OPENAI|OLLAMA)_[A-Z0-9_]*[A-Z0-9]|NO_COLOR)["']""")


def named_in_code() -> set[str]:
    out: set[str] = set()
    for folder in ("debate", "ui", "pages"):
        for path in (REPO / folder).rglob("*.py"):
            out |= set(NAME.findall(path.read_text(encoding="utf-8")))
    out |= {"DEBATE_EVIDENCE_<FIELD>"}  # read as f"DEBATE_EVIDENCE_{field}" (retrieval/sources/base.py)
    return out


def test_every_variable_is_in_the_table():
    table = (REPO / "docs" / "environment.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`((?:DEBATE|OPENAI|OLLAMA)_[A-Z0-9_<>]+|NO_COLOR)`", table))
    found = named_in_code()
    assert len(found) > 20  # the scan sees the code
    assert found <= documented, f"not in docs/environment.md: {sorted(found - documented)}"
