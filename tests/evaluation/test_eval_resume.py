"""Resume after a real `kill -9`: the eval CLI runs in a subprocess, is SIGKILLed mid-run and re-run.

The subprocess gets its scripted model through DEBATE_EVAL_HOOK=tests.evaluation.test_eval_resume:hook, which
registers a slow ScriptedBackend in the real ModelClient and logs every item it starts, so the test
can prove that no item committed before the kill is run again and no item is lost.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LOG_ENV = "EVAL_TEST_START_LOG"


def hook(client):
    """Called inside the eval subprocess with its ModelClient."""
    from debate.models.scripted import ScriptedBackend
    from tests.evaluation.test_eval_runner import engine_or_fake, scripted_answer

    client.register(
        "scripted", ScriptedBackend(default=scripted_answer, delay_s=float(os.environ.get("EVAL_TEST_DELAY", "0.05")))
    )
    engine = engine_or_fake()
    log = os.environ[LOG_ENV]

    def logged(config, client, retriever=None, cancel=None):
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(fd, f"{config.debate_id}\n".encode())
        os.close(fd)
        yield from engine(config, client, retriever, cancel)

    return {"run_debate": logged}


def _cmd(out: Path, lineup: Path, limit: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "debate",
        "eval",
        "--dataset",
        "checkthat-dev",
        "--protocol",
        "baseline",
        "--lineup",
        str(lineup),
        "--category",
        "1",
        "--limit",
        str(limit),
        "--concurrency",
        "3",
        "--max-tokens",
        "32",
        "--no-progress",
        "--out",
        str(out),
    ]


def _done(db: Path) -> set[str]:
    if not db.exists():
        return set()
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as c:
            return {r[0] for r in c.execute("SELECT item_id FROM items WHERE status='done'")}
    except sqlite3.OperationalError:
        return set()


@pytest.mark.timeout(300)
def test_kill_9_then_rerun_loses_nothing_and_repeats_nothing(tmp_path):
    out, log1, log2 = tmp_path / "run", tmp_path / "starts1.log", tmp_path / "starts2.log"
    lineup = tmp_path / "lineup.json"
    lineup.write_text('{"name": "scripted", "members": [{"name": "bot", "model": "scripted:bot"}]}')
    limit = 40
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "DEBATE_EVAL_HOOK": "tests.evaluation.test_eval_resume:hook",
        "DEBATE_HOME": str(tmp_path / "home"),
        "EVAL_TEST_DELAY": "0.05",
    }
    db = out / "checkpoint.sqlite"

    proc = subprocess.Popen(
        _cmd(out, lineup, limit),
        cwd=REPO,
        env={**env, LOG_ENV: str(log1)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 120
    while len(_done(db)) < 8 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL

    done_before = _done(db)
    assert 8 <= len(done_before) < limit
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        interrupted = {r[0] for r in c.execute("SELECT item_id FROM items WHERE status='running'")}
    assert interrupted, "the kill should have caught items mid-debate"

    res = subprocess.run(
        _cmd(out, lineup, limit), cwd=REPO, env={**env, LOG_ENV: str(log2)}, capture_output=True, text=True, timeout=240
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert f"{len(done_before)} already done" in res.stdout

    from debate.datasets import load_dataset

    expected = {it.id for it in load_dataset("checkthat-dev").items[:limit]}
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT item_id, status FROM items").fetchall()
    assert sorted(r[0] for r in rows) == sorted(expected)  # none lost, none duplicated
    assert all(s == "done" for _, s in rows)
    rerun = {line.rsplit("-", 1)[-1] for line in log2.read_text().split()}
    assert not rerun & done_before, "an item committed before the kill was run again"
    assert rerun == expected - done_before  # interrupted and never-started items, each once
    assert len(log2.read_text().split()) == len(rerun)
