#!/usr/bin/env bash
# The repository's mechanical rewrites, in one place, so they can be run again after any merge:
#   1. every tests/test_*.py into the folder of its group (scripts/group_tests.py: by name, fails loudly
#      on a name no rule covers), with the imports and mentions that name it mended;
#   2. ruff's safe autofixes, plus the few unsafe ones that only rename an unused loop variable or drop a
#      needless list()/set() around a comprehension (each checked by hand once: none changes behaviour);
#   3. ruff format.
# Idempotent: a second run changes nothing. Hand-written fixes never go here.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
RUFF=${RUFF:-$PY -m ruff}

$PY scripts/group_tests.py
$RUFF format -q .
$RUFF check --silent --fix --exit-zero .
$RUFF check --silent --fix --unsafe-fixes --exit-zero --select C401,C405,C416,B007 .
$RUFF format -q .
$RUFF check .
$RUFF format --check -q .
