"""Shared test set-up: an isolated DEBATE_HOME per test session, offline hub settings.

Area-specific fixtures live in tests/support/<area>.py and are imported by the tests that need them.
Assembled model files are reused from the user's cache (DEBATE_MODELS_DIR) because assembling them
is set-up, not behaviour under test; `make test` prepares them first.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# Under pytest-xdist (`make test TEST_WORKERS=2`) each worker runs its models on one thread: llama.cpp's
# threads wait for each other at every layer, so two workers with two threads each on two cores spend
# their time waiting for a descheduled thread. Subprocesses (the app under test, servers) inherit it.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("DEBATE_N_THREADS", "1")

_REAL_HOME = Path(os.environ.get("DEBATE_HOME", Path.home() / ".cache" / "debate-viewer")).expanduser()
os.environ.setdefault("DEBATE_MODELS_DIR", str(_REAL_HOME / "models"))


@pytest.fixture(scope="session", autouse=True)
def debate_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("debate-home")
    os.environ["DEBATE_HOME"] = str(home)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # One response cache for the session's workers: a deterministic request that a test on one worker made
        # is answered in the other's from the real answer recorded then, as it already was within one worker
        # (the product's own cache; tests/support/real_cases.py). The file is the session's, beside the
        # workers' own folders; a test that points DEBATE_HOME elsewhere (the browser's app, a lonely clone)
        # keeps an empty cache of its own, so its models answer live.
        shared = tmp_path_factory.getbasetemp().parent / "response-cache.sqlite"
        os.close(os.open(shared, os.O_CREAT | os.O_WRONLY, 0o600))
        (home / "response-cache.sqlite").symlink_to(shared)
    # indexes are costly to build and keyed by corpus fingerprint + model id: share them
    os.environ.setdefault("DEBATE_INDEX_DIR", str(_REAL_HOME / "indexes"))
    return home


REPO = Path(__file__).resolve().parent.parent


def data_path(rel: str) -> Path:
    """A dataset file found in the project's data search order (debate.data.locate), or the test is
    skipped: AVeriTeC and LIAR are on a machine only once fetched or pointed at (docs/data.md)."""
    from debate.data import locate

    p = locate.find(rel)
    if p is None:
        pytest.skip(f"{rel} is not on this machine (python -m debate data fetch)")
    return p


# Tests are grouped in folders by what they hold (scripts/group_tests.py puts them there by name). Two groups
# carry their marker by folder, so `pytest -m "not browser and not real_model"` (the fast loop) leaves them
# out without each file having to say so; files elsewhere mark their slow tests themselves.
FOLDER_MARKERS = {"browser": "browser", "real_model": "real_model"}


# The fast loop (`make test-fast`) also leaves out every test that took longer than SLOW_S (half a second) in the last
# recorded full run (tests/durations.json, written by scripts/record_durations.py from a run's
# `--durations=0` report): its time is in a few hundred tests that start apps, servers and models. A test
# the file does not know yet (new since the recording) runs in the fast loop until the next recording.
SLOW_S = 0.5
DURATIONS = Path(__file__).resolve().parent / "durations.json"


def recorded_durations() -> dict[str, float]:
    import json

    try:
        return {str(k): float(v) for k, v in json.loads(DURATIONS.read_text(encoding="utf-8")).items()}
    except (OSError, ValueError, AttributeError):
        return {}


# Collected first, so a worker starts on it at once: the engine's short real-model debates
# (tests/support/real_cases.py), whose recorded answers the session's shared response cache then gives every later
# test that runs the same case (the pages, the command-line parents of the share tests, the vote comparisons).
# In collection order these came after the browser folder, and a test that ran a case at the same moment on the
# other worker recorded it a second time.
FIRST = ("real_model/test_engine_real.py",)


def pytest_collection_modifyitems(config, items) -> None:
    tests_dir = Path(__file__).resolve().parent
    took = recorded_durations()
    first = {tests_dir / f for f in FIRST}
    items.sort(key=lambda item: Path(item.path).resolve() not in first)  # stable: the rest keep their order
    for item in items:
        if took.get(item.nodeid, 0.0) > SLOW_S:
            item.add_marker("slow")
        try:
            group = Path(item.path).resolve().relative_to(tests_dir).parts[0]
        except ValueError:
            continue
        if group in FOLDER_MARKERS:
            item.add_marker(FOLDER_MARKERS[group])
