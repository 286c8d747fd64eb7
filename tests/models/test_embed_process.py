"""The embedding worker process the app uses: same vectors, idle priority (a normal-priority worker when a
debate waits on a starved one), torch never in the parent,
clear errors instead of hangs, and no re-run of a Streamlit app script in the child.

Real model and real processes throughout; the shared AVeriTeC index comes from DEBATE_INDEX_DIR (see
conftest.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from debate.errors import ModelFileError
from debate.retrieval import embed as embed_mod
from debate.retrieval.embed_process import ProcessEmbedder
from tests.conftest import REPO, data_path

TEXTS = ["The Moon causes ocean tides.", "A kitten sat on a rug.", "Stock markets fell sharply on Monday."]


def _idle_or_nice19(pid: int) -> bool:
    if os.sched_getscheduler(pid) == os.SCHED_IDLE:
        return True
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(stat[16]) == 19  # field 19 of /proc/PID/stat: nice


@pytest.mark.timeout(600)
def test_worker_gives_the_same_vectors_at_idle_priority_and_reports_its_death(monkeypatch):
    import numpy as np

    worker = ProcessEmbedder().wait_ready()
    try:
        assert worker.pid != os.getpid() and worker.ready and _idle_or_nice19(worker.pid)
        got = worker.embed(TEXTS)
        assert (
            got.shape == (3, 384)
            and got.dtype == np.float32
            and (worker.model_id, worker.dim) == (embed_mod.MODEL_ID, embed_mod.DIM)
        )
        assert np.allclose(got, embed_mod.Embedder().embed(TEXTS), atol=1e-5)
        monkeypatch.setattr(embed_mod, "_embedder", worker)
        assert embed_mod.loaded()
        os.kill(worker.pid, signal.SIGKILL)
        t0 = time.monotonic()
        with pytest.raises(ModelFileError) as e:
            worker.embed(["anything"])
        assert "exited" in e.value.message and "DEBATE_EMBED_PROCESS=0" in e.value.hint
        assert time.monotonic() - t0 < 30 and not embed_mod.loaded()
    finally:
        worker.close()


def test_worker_that_cannot_load_says_why_without_hanging(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_EMBED_MODEL_DIR", str(tmp_path))  # an empty folder: no model file
    worker = ProcessEmbedder()
    t0 = time.monotonic()
    with pytest.raises(ModelFileError) as e:
        worker.wait_ready(timeout=120)
    assert "model.safetensors is missing" in e.value.message and "make setup" in e.value.hint
    assert time.monotonic() - t0 < 120 and not worker.alive and not worker.ready
    with pytest.raises(ModelFileError, match="model.safetensors is missing"):
        worker.embed(["a caller that queued behind the load gets the same reason"])


SEARCH = """
import json, sys
from debate.retrieval import default_retriever
hits = default_retriever().search("Joe Biden wants to ban fracking", k=5)
print(json.dumps({"torch": "torch" in sys.modules, "st": "sentence_transformers" in sys.modules,
                  "hits": [h["text"] for h in hits]}))
"""


@pytest.mark.timeout(600)
def test_app_path_never_imports_torch_in_the_parent():
    data_path("averitec/dev.json")  # the search runs over the default corpus, AVeriTeC dev's evidence
    env = dict(os.environ, DEBATE_EMBED_PROCESS="1")
    out = subprocess.run([sys.executable, "-c", SEARCH], cwd=REPO, env=env, capture_output=True, text=True, timeout=500)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["torch"] is False and got["st"] is False
    assert len(got["hits"]) == 5 and all(len(t) > 20 for t in got["hits"])
    assert any("frack" in t.lower() for t in got["hits"])


APP = """
import os
import streamlit as st
from debate.retrieval.embed_process import ProcessEmbedder
with open({marker!r}, "a") as f:
    f.write(str(os.getpid()) + "\\n")
w = ProcessEmbedder()
try:
    w.wait_ready(timeout=120)
except Exception as e:
    st.session_state["error"] = str(e)
"""


def test_streamlit_script_is_not_rerun_in_the_worker(tmp_path, monkeypatch):
    """Streamlit installs a fake __main__ (the app script) while a page runs; spawn must not run it."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("DEBATE_EMBED_MODEL_DIR", str(tmp_path))  # fails fast after the child started
    marker = tmp_path / "runs.txt"
    script = tmp_path / "app_script.py"
    script.write_text(APP.format(marker=str(marker)))
    at = AppTest.from_file(str(script), default_timeout=180).run()
    assert "model.safetensors is missing" in at.session_state["error"]
    assert marker.read_text().split() == [str(os.getpid())]


def test_run_queue_time_is_read_for_a_live_process_and_none_for_a_gone_one():
    from debate.retrieval.embed_process import run_queue_ns

    if not Path(f"/proc/{os.getpid()}/task").is_dir():
        pytest.skip("no /proc: the worker is never judged starved here")
    assert isinstance(run_queue_ns(os.getpid()), int) and run_queue_ns(os.getpid()) >= 0
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert run_queue_ns(gone.pid) is None


def _ends(pid: int, within: float = 60.0) -> bool:
    """The process is gone or a zombie within `within` s (killed: a starved process dies when it next runs)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except OSError:
            return True
        time.sleep(0.5)
    return False


@pytest.mark.quiet
@pytest.mark.timeout(600)
def test_a_debate_waiting_on_a_starved_idle_worker_gets_a_normal_one():
    """Other programs keep every core busy: an idle-priority worker gets no CPU at all, and a debate that
    waits for its vectors would wait for ever. The wait replaces it by a worker at normal priority."""
    import numpy as np

    if not Path(f"/proc/{os.getpid()}/task").is_dir() or not hasattr(os, "SCHED_IDLE"):
        pytest.skip("needs Linux /proc and SCHED_IDLE")
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range((os.cpu_count() or 2) + 1)]
    worker = None
    try:
        time.sleep(1)  # the hogs hold every core before the worker starts
        worker = ProcessEmbedder()
        idle_pid = worker.pid
        t0 = time.monotonic()
        got = worker.embed(TEXTS)  # a debate's request: urgent
        took = time.monotonic() - t0
        assert worker.restarts == 1 and worker.priority == "normal" and not worker.idle, (worker.priority, took)
        assert worker.pid != idle_pid and got.shape == (3, 384)
        assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-4)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        if worker is not None:
            worker.close()
    assert _ends(idle_pid), "the starved worker was left behind"


@pytest.mark.quiet
@pytest.mark.timeout(600)
def test_a_quiet_machine_keeps_the_idle_worker():
    worker = ProcessEmbedder()
    try:
        assert worker.embed(TEXTS).shape == (3, 384)
        assert worker.restarts == 0 and worker.idle and _idle_or_nice19(worker.pid)
    finally:
        worker.close()
