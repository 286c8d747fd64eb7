"""The project as a new user gets it: a copy of the clone in a folder of its own (no `shared/` beside it),
DEBATE_SHARED_DATA pointing at an empty folder and a fresh DEBATE_HOME.

Everything runs from that copy as separate processes, as a user would run it: the default council with
the small-model aids and a RADAR debate reach a verdict (RADAR saying its local index has no corpus), a
named evaluation of a dataset that is not there says what is missing and how to fetch it, every page
renders through AppTest, and `make run` fetches what it can (nothing: this machine is offline, or the
stand-in addresses refuse), says so and serves the app until its health check answers.

The copy holds the files git would check out (tracked, plus new files not ignored) and links the
environment (.venv) of this checkout; assembled models come from DEBATE_MODELS_DIR as in every test,
and DEBATE_INDEX_DIR stays the shared cache of embeddings (keyed by file fingerprint, so the shipped
CheckThat train split finds its own), which only saves the set-up's minute of embedding.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.browser import free_port, stop_group, wait_healthy

CLAIM = "Drinking coffee daily lowers the risk of heart failure, a new study finds."


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("lonely") / "repo"
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, listed):
        src = REPO / rel
        if rel == ".venv" or not src.is_file() or src.is_symlink():
            continue
        dst = repo / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)  # keeps times: the Makefile's stamps stay newer than the requirement files
    os.symlink((REPO / ".venv").resolve(), repo / ".venv")
    assert not (repo.parent / "shared").exists() and (repo / "data" / "checkthat2025_4a" / "ct_train.tsv").is_file()
    return repo


def _env(tmp_path: Path, **extra: str) -> dict:
    (tmp_path / "empty-data").mkdir(exist_ok=True)
    return {
        **os.environ,
        "DEBATE_HOME": str(tmp_path / "home"),
        "DEBATE_SHARED_DATA": str(tmp_path / "empty-data"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        # a machine with a network must not reach the publishers from a test: a closed loopback port
        "DEBATE_DATA_URL_AVERITEC": "http://127.0.0.1:9/dev.json",
        "DEBATE_DATA_URL_LIAR": "http://127.0.0.1:9/liar_dataset.zip",
        **extra,
    }


def _debate(clone: Path, env: dict, *args: str, timeout: float = 1500) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-m", "debate", *args],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_status_finds_only_the_shipped_data(clone, tmp_path):
    r = _debate(clone, _env(tmp_path), "data", "status", timeout=60)
    assert r.returncode == 0, r.stderr
    assert "beside the checkout" in r.stdout and "(absent)" in r.stdout
    assert "checkthat2025_4a/ct_train.tsv    ok       shipped: " + str(clone / "data") in r.stdout
    assert r.stdout.count("not found (python -m debate data fetch)") == 3  # AVeriTeC dev, LIAR train + valid


@pytest.mark.real_model
@pytest.mark.timeout(1800)
def test_the_default_council_with_aids_reaches_a_verdict(clone, tmp_path):
    r = _debate(
        clone,
        _env(tmp_path),
        "run",
        "--protocol",
        "council",
        "--lineup",
        "embedded",
        "--aids",
        "--pace",
        "demo",
        "--color",
        "never",
        CLAIM,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "VERDICT · category 1:" in r.stdout and "══ completed" in r.stdout
    assert "does not exist" not in r.stdout + r.stderr


@pytest.mark.real_model
@pytest.mark.timeout(1800)
def test_a_radar_debate_reaches_a_verdict_and_says_there_is_no_local_corpus(clone, tmp_path):
    r = _debate(
        clone,
        _env(tmp_path),
        "run",
        "--protocol",
        "radar",
        "--task",
        "halftruth",
        "--lineup",
        "embedded",
        "--aids",
        "--pace",
        "demo",
        "--rounds",
        "0",
        "--max-tokens",
        "48",
        "--color",
        "never",
        CLAIM,
        timeout=1700,
    )  # openings and the judge: the evidence step and the verdict are what is tested
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "VERDICT" in r.stdout and "══ completed" in r.stdout
    assert (
        "Local index: No local corpus: AVeriTeC dev (averitec/dev.json, CC BY-NC 4.0) is not on this machine"
        in r.stdout
    )
    assert "python -m debate data fetch averitec" in r.stdout


def test_evaluating_a_dataset_that_is_not_there_says_what_is_missing(clone, tmp_path):
    r = _debate(
        clone,
        _env(tmp_path),
        "eval",
        "--dataset",
        "liar-valid",
        "--protocol",
        "baseline",
        "--lineup",
        "embedded",
        "--limit",
        "1",
        "--out",
        str(tmp_path / "run"),
        timeout=300,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert "LIAR (train, valid) (liar/valid.tsv, research use only) is not on this machine" in r.stderr
    assert "python -m debate data fetch liar" in r.stderr and "DEBATE_SHARED_DATA" in r.stderr
    listing = _debate(clone, _env(tmp_path), "datasets", timeout=120)
    assert listing.returncode == 0, listing.stderr
    rows = {ln.split()[0]: ln for ln in listing.stdout.splitlines() if ln.strip()}
    assert all("not on this machine" in rows[n] for n in ("liar-valid", "liar-train", "averitec-dev"))
    assert all("not on this machine" not in rows[n] for n in ("checkthat-train", "checkthat-dev", "checkthat-test"))


@pytest.mark.timeout(1200)
def test_every_page_renders_and_says_which_examples_are_missing(clone, tmp_path):
    env = _env(tmp_path, DEBATE_WARM_AHEAD="0", PYTHONPATH=str(clone))
    r = subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-m", "tests.support.lonely_pages"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=1100,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    pages = {p.stem for p in (clone / "pages").glob("*.py")}
    assert pages <= set(seen) and "debate" in pages
    for page, got in seen.items():
        assert not got["exceptions"], (page, got["exceptions"])
        assert not any("does not exist" in e or "Traceback" in e for e in got["errors"]), (page, got["errors"])
    assert any(
        "No examples: LIAR valid and AVeriTeC dev are not on this machine" in c
        for c in seen["debate:halftruth"]["captions"]
    ), seen["debate:halftruth"]["captions"]
    assert any("No examples: AVeriTeC dev is not on this machine" in c for c in seen["debate:averitec"]["captions"])
    assert not any("not on this machine" in c for c in seen["debate"]["captions"])  # CheckThat examples ship


@pytest.mark.timeout(900)
def test_make_run_says_what_it_could_not_fetch_and_serves_the_app(clone, tmp_path):
    port = free_port()
    log = open(tmp_path / "make-run.log", "w+")  # noqa: SIM115 - make writes to it until the finally closes it
    # -o: never remake the environment's install stamp (the linked .venv belongs to the checkout)
    proc = subprocess.Popen(
        ["make", "-o", ".venv/.deps-stamp", "run", f"PORT={port}"],
        cwd=clone,
        env=_env(tmp_path, DEBATE_WARM_RETRIEVER="0"),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        healthy = wait_healthy(f"http://127.0.0.1:{port}", proc, 600)
        log.seek(0)
        out = log.read()
        assert healthy, out[-4000:]
        assert "missing, and what works without it" in out and "no local corpus" in out
        assert "set-up goes on without them" in out and "export DEBATE_SHARED_DATA=" in out
        assert "Error" not in out.split("data fetch", 1)[1].split("streamlit run", 1)[0]
    finally:
        stop_group(proc, grace=20)
        log.close()
