"""Record each test's time from a full run's report, for the fast loop's choice of tests (tests/conftest.py).

    make test PYTEST_ADDOPTS=--durations=0 2>&1 | tee run.log
    python scripts/record_durations.py run.log          # writes tests/durations.json

Reads pytest's `--durations=0` lines ("12.34s call     tests/x.py::test_y[a]"), sums a test's setup, call and
teardown (a module fixture that starts an app is paid by the first test that uses it), and keeps the largest
sum when a log holds a test twice. Why a file and not a marker written by hand: what is slow changes with
every change to a fixture, and a list nobody maintains is wrong within a week; this one is regenerated from
the run that CI makes anyway.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

LINE = re.compile(r"^\s*([0-9.]+)s (setup|call|teardown)\s+(tests/\S+::\S+)")
OUT = Path(__file__).resolve().parent.parent / "tests" / "durations.json"


def parse(text: str) -> dict[str, float]:
    runs: list[dict[str, float]] = [defaultdict(float)]
    for line in text.splitlines():
        if "slowest" in line and "durations" in line:  # a report of its own (the run after the workers' run)
            runs.append(defaultdict(float))
        m = LINE.match(line)
        if m:
            runs[-1][m.group(3)] += float(m.group(1))
    out: dict[str, float] = {}
    for run in runs:
        for k, v in run.items():
            out[k] = max(out.get(k, 0.0), round(v, 3))
    return dict(sorted(out.items()))


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        sys.exit(__doc__)
    took = parse(Path(argv[0]).read_text(encoding="utf-8", errors="replace"))
    if not took:
        sys.exit(f"{argv[0]}: no `--durations=0` lines in it (run pytest with --durations=0)")
    OUT.write_text(json.dumps(took, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    slow = sum(v > 1.0 for v in took.values())
    print(f"wrote {OUT}: {len(took)} tests, {slow} over 1 s, {sum(took.values()):.0f} s in all")


if __name__ == "__main__":
    main(sys.argv[1:])
