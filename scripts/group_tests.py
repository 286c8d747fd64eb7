"""Put every test file of tests/ into the folder of its group, by name, and mend what the move would break.

Why by name and by script: helpers and contributors add `tests/test_*.py` files in parallel; after a merge
`scripts/tidy.sh` runs this again and the new files land in their group too. A file that matches no rule
stops the script with its name and the rule table to extend: a test in the wrong folder would run under
the wrong markers (tests/browser/ and tests/real_model/ are marked by folder in tests/conftest.py), so
no file is put in a default group by guessing.

What a move mends: the file's own path arithmetic (`Path(__file__)...parent.parent` is one level short in a
subfolder), the scripts it hands to Streamlit's AppTest (`AppTest.from_file("../app.py")` is read relative to
the test file, so it becomes "../../app.py") and every mention of the file elsewhere in the repository (`from tests.test_x import`, the path
`tests/test_x.py` in docs and docstrings). Running it again moves nothing (idempotent).

Usage: python scripts/group_tests.py [--check]   (--check: list what would move, exit 1 if anything would)
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"

# (group folder, name patterns), first match wins. The order matters: a browser test of the UI is a
# browser test (it needs chromium), a real-model UI test a real_model one.
RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("browser", ("*_browser.py",)),
    ("real_model", ("*_real.py", "test_lonely_clone.py")),
    ("ui", ("test_ui_*.py", "test_numbers_on_screen.py")),
    (
        "security",
        (
            "test_hardening_*.py",
            "test_hostile_*.py",
            "test_secrets_*.py",
            "test_redirects_*.py",
            "test_trust_*.py",
            "test_*_bounds.py",
            "test_export_formula_guard.py",
            "test_parsing_hostile.py",
            "test_retrieval_ssrf.py",
            "test_injection*.py",
            "test_prompt_injection*.py",
        ),
    ),
    (
        "models",
        (
            "test_models_*.py",
            "test_lineup_server.py",
            "test_embed_process.py",
            "test_router*.py",
            "test_fleet*.py",
            "test_backend*.py",
            "test_label_position.py",
        ),
    ),
    ("evidence", ("test_retrieval_*.py", "test_evidence_*.py", "test_radar_shared_evidence.py", "test_sources*.py")),
    ("evaluation", ("test_eval_*.py", "test_data*.py", "test_reproduc*.py")),
    (
        "aids",
        (
            "test_calibration.py",
            "test_small_models.py",
            "test_council_views.py",
            "test_lexical_views.py",
            "test_aids*.py",
        ),
    ),
    ("review", ("test_adjudication*.py", "test_people.py", "test_teach*.py")),
    (
        "services",
        (
            "test_store*.py",
            "test_share_*.py",
            "test_verdict_*.py",
            "test_live_*.py",
            "test_export*.py",
            "test_audience*.py",
        ),
    ),
    (
        "engine",
        (
            "test_engine_*.py",
            "test_decisions.py",
            "test_parsing*.py",
            "test_protocol*.py",
            "test_contracts.py",
            "test_vote_*.py",
            "test_human_seat.py",
            "test_content*.py",
            "test_layers.py",
            "test_cli_*.py",
        ),
    ),
)
GROUPS = tuple(group for group, _ in RULES)

# the file's own way to the repository root, one level deeper after the move
_DEPTH = (
    ("Path(__file__).resolve().parent.parent", "Path(__file__).resolve().parents[2]"),
    ("Path(__file__).parents[1]", "Path(__file__).parents[2]"),
    (
        "os.path.dirname(os.path.dirname(os.path.abspath(__file__)))",
        "os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))",
    ),
)
# paths relative to the test file's folder: the app and its pages, as AppTest.from_file takes them
_RELATIVE = re.compile(r"""(["'])\.\./(app\.py|pages/)""")
_MENTIONS = ("*.py", "*.md", "*.sh", "*.toml", "*.yml", "*.cfg", "*.txt", "Makefile")


def group_of(name: str) -> str | None:
    """The group folder for a test file's name, or None when no rule covers it."""
    return next((g for g, patterns in RULES if any(fnmatch.fnmatch(name, p) for p in patterns)), None)


def loose_tests() -> list[Path]:
    """Test files directly in tests/, the ones still to be grouped."""
    return sorted(TESTS.glob("test_*.py"))


def _tracked(path: Path) -> bool:
    return (
        subprocess.run(["git", "ls-files", "--error-unmatch", str(path)], cwd=REPO, capture_output=True).returncode == 0
    )


def _text_files() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", *_MENTIONS],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [REPO / p for p in out if (REPO / p).is_file()]


def move(path: Path, group: str) -> Path:
    folder = TESTS / group
    folder.mkdir(exist_ok=True)
    init = folder / "__init__.py"
    if not init.exists():
        init.write_text("")
    target = folder / path.name
    if target.exists():
        sys.exit(f"error: {target.relative_to(REPO)} exists already; {path.relative_to(REPO)} not moved")
    if _tracked(path):
        subprocess.run(["git", "mv", str(path), str(target)], cwd=REPO, check=True)
    else:
        path.rename(target)
    text = target.read_text(encoding="utf-8")
    for old, new in _DEPTH:
        text = text.replace(old, new)
    text = _RELATIVE.sub(r"\1../../\2", text)
    target.write_text(text, encoding="utf-8")
    return target


def mend_mentions(moved: dict[str, str]) -> int:
    """Rewrite `tests.test_x` and `tests/test_x.py` for every grouped module (stem -> group), everywhere.
    Returns how many files changed."""
    if not moved:
        return 0
    names = "|".join(sorted(map(re.escape, moved), key=len, reverse=True))
    dotted = re.compile(rf"\btests\.({names})\b")
    slashed = re.compile(rf"\btests/({names})\.py\b")
    changed = 0
    for f in _text_files():
        try:
            text = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = dotted.sub(lambda m: f"tests.{moved[m.group(1)]}.{m.group(1)}", text)
        new = slashed.sub(lambda m: f"tests/{moved[m.group(1)]}/{m.group(1)}.py", new)
        if new != text:
            f.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def main(argv: list[str]) -> int:
    loose = loose_tests()
    unplaced = [p.name for p in loose if group_of(p.name) is None]
    if unplaced:
        print(
            "error: no group for " + ", ".join(unplaced) + ": add its name pattern to RULES in "
            "scripts/group_tests.py (groups: " + ", ".join(GROUPS) + ")",
            file=sys.stderr,
        )
        return 2
    if "--check" in argv:
        for p in loose:
            print(f"{p.relative_to(REPO)} -> tests/{group_of(p.name)}/")
        return 1 if loose else 0
    for p in loose:
        move(p, group_of(p.name))
    # every grouped file, not only those moved now: a file merged later may still name an old place
    grouped = {p.stem: p.parent.name for g in GROUPS for p in sorted((TESTS / g).glob("test_*.py"))}
    changed = mend_mentions(grouped)
    print(f"group_tests: {len(loose)} test files moved, mentions mended in {changed} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
