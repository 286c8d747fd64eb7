"""Hardening (crashes): no debate is left "running" for ever, and no worker exit leaves the page busy.

The first is checked the hard way: a separate process runs a real debate on the embedded SmolLM2 model
through the live worker into a real SQLite store and is killed with SIGKILL mid-stream. A fresh process
(this one, standing for the restarted app, even with the dead process's pid) marks the debate
interrupted from its stopped heartbeat, and the Library page shows it with its transcript so far.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from debate import live
from debate.events import DebateStarted, TokenDelta
from debate.runner import DebateConfig
from debate.store import DebateStore
from tests.conftest import REPO

WORKER = textwrap.dedent("""
    import sys, time
    from debate import live
    from debate.models.registry import default_client
    from debate.runner import DebateConfig
    from debate.store import DebateStore
    m = {"name": "smol", "model": "local:smollm2-135m", "temperature": 0.7}
    lineup = {"name": "k", "members": [m, {**m, "name": "smol2", "seed": 2}], "judge": m, "chair": m}
    cfg = DebateConfig(claim="A new study shows coffee doubles lifespan.", protocol="single", lineup=lineup,
                       max_tokens=200, params={"rounds": 3})
    d = live.start_debate(cfg, default_client(cache=False), None, DebateStore(sys.argv[1]), wait_first_s=300)
    print(d, flush=True)
    time.sleep(600)
""")


@pytest.mark.real_model
@pytest.mark.timeout(300)
def test_kill_9_mid_debate_then_restart_shows_it_interrupted(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("DEBATE_HOME", str(home))
    monkeypatch.setenv("DEBATE_HEARTBEAT_S", "0.2")
    db = home / "debates.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(db)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        env={**os.environ, "DEBATE_CACHE": "0", "PYTHONPATH": str(REPO)},
        text=True,
    )
    try:
        debate_id = proc.stdout.readline().strip()
        assert debate_id, "the worker process did not start a debate"
        store = DebateStore(db)
        deadline = time.monotonic() + 240
        while sum(e["type"] == "token" for e in store.event_dicts(debate_id)) < 5:
            assert time.monotonic() < deadline and proc.poll() is None, "no tokens streamed"
            time.sleep(0.1)
        assert store.get(debate_id)["status"] == "running"
        assert store.mark_interrupted() == []  # alive and beating: not touched
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    kept = store.event_dicts(debate_id)
    assert store.get(debate_id)["status"] == "running"  # SIGKILL: nothing could write a final status
    # the restarted app: a new process that may well have been given the dead one's pid
    store._tx(lambda c: c.execute("UPDATE debates SET owner_pid=? WHERE id=?", (os.getpid(), debate_id)))
    restarted = DebateStore(db)
    deadline = time.monotonic() + 10
    while restarted.mark_interrupted() != [debate_id]:
        assert time.monotonic() < deadline, "the killed debate was never marked interrupted"
        time.sleep(0.2)
    row = restarted.get(debate_id)
    assert row["status"] == "interrupted" and "stopped while" in row["stop_reason"]
    assert restarted.event_dicts(debate_id) == kept  # the transcript so far, every event

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file("../../app.py", default_timeout=120)
    at.run()
    at.switch_page("pages/library.py").run()
    assert not at.exception, [e.message for e in at.exception]
    listed = json.dumps(at.dataframe[0].value.to_dict("records"), default=str)
    assert "interrupted" in listed and "running" not in listed
    from ui.safe import escape

    said = "".join(e["text"] for e in kept if e["type"] == "token").split()
    shown = "\n".join(m.value for m in at.markdown)
    assert all(escape(w) in shown for w in said[:5]), "the partial transcript is not shown"


def test_a_row_with_this_process_pid_but_no_heartbeat_is_interrupted(tmp_path):
    """The container case: the restarted app has the dead one's pid; the old pid check kept the row."""
    store = DebateStore(tmp_path / "s.sqlite")
    store._tx(
        lambda c: c.execute(
            "INSERT INTO debates (id, created_at, updated_at, status, owner_pid, heartbeat_at) "
            "VALUES ('old', '2026-01-01', '2026-01-01', 'running', ?, ?)",
            (os.getpid(), time.time() - 3600),
        )
    )
    assert store.mark_interrupted() == ["old"]
    assert store.get("old")["status"] == "interrupted"


class _FailingStore(DebateStore):
    """A real store whose final writes fail (disk full, database locked for too long)."""

    def append_event(self, debate_id, event):
        if getattr(event, "type", None) in ("finished", "error"):
            raise OSError("disk full")
        return super().append_event(debate_id, event)

    def set_status(self, debate_id, status, reason=""):
        raise OSError("disk full")


@pytest.mark.parametrize("ending", ["closing event", "engine crash", "no closing event"])
def test_every_worker_exit_frees_the_page_even_when_the_final_write_fails(tmp_path, monkeypatch, ending):
    monkeypatch.setenv("DEBATE_HEARTBEAT_S", "0.05")
    store = _FailingStore(tmp_path / "s.sqlite")

    def run(config, client, retriever=None, cancel=None):
        from debate.events import DebateFinished

        yield DebateStarted(debate_id=config.debate_id, claim=config.claim, seq=0)
        yield TokenDelta(turn_id="t1", agent="A", text="half", seq=1)
        if ending == "engine crash":
            raise RuntimeError("boom")
        if ending == "closing event":
            yield DebateFinished(status="completed", seq=2)

    d = live.start_debate(DebateConfig(claim="c"), None, None, store, run=run)
    assert live.wait(d, 10), "the worker never ended"
    assert not live.is_running(d)  # the page enables Run and stops refreshing
    assert d not in store.owned()  # its heartbeat stopped ...
    deadline = time.monotonic() + 5
    while store.get(d)["status"] == "running":  # ... so the row does not stay "running"
        assert time.monotonic() < deadline
        store.mark_interrupted()
        time.sleep(0.05)
    assert store.get(d)["status"] == "interrupted"
    assert [e.type for e in store.events(d)] == ["debate_started", "token"]
