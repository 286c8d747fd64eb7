"""The embedding model in its own process, at idle CPU priority, for the app.

Why: loading sentence-transformers/torch and MiniLM is ~10 s of mostly GIL-holding import work. In a
thread of the app process it ran alongside the first debate, holding the GIL against the thread that
drives llama.cpp (which needs it for every token) and taking a core from llama.cpp's threads: the app's
first debate took about twice as long as the same debate from the CLI. Lowering that thread's priority
made it worse (the GIL holder starved at idle priority: priority inversion). A separate process has its
own GIL, so idle priority there only means "use the cycles the models leave free"; the app process never
imports torch and only waits on a pipe, which releases the GIL.

The child builds the ordinary `minilm.Embedder` (same SHA-256 check, same error messages) and answers
requests over a Pipe; `ProcessEmbedder` has the Embedder's surface (`model_id`, `dim`, `embed`).
"""

from __future__ import annotations

import atexit
import os
import threading
import time

from debate import errors
from debate.errors import DebateError, ModelFileError
from debate.retrieval.minilm import BATCH_SIZE, DIM, MODEL_ID, Embedder

LOAD_TIMEOUT_S = 900.0  # at idle priority on 2 busy cores the load may wait for the models' turns
POLL_S = 0.25
FALLBACK_HINT = (
    "Restart the app; if it happens again, set DEBATE_EMBED_PROCESS=0 to embed in the app "
    "process, and check free memory (the worker needs ~300 MB)."
)


# -- child side ---------------------------------------------------------------------------------------
def _lower_priority() -> str:
    """Before torch starts its threads, so they inherit the policy (Linux scheduling is per thread)."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return "SCHED_IDLE"
    except (AttributeError, OSError):
        try:
            os.nice(19 - os.nice(0))
        except OSError:
            pass
        return f"nice {os.nice(0)}"


def _error_reply(e: BaseException) -> tuple:
    if isinstance(e, DebateError):
        return ("error", type(e).__name__, e.message, e.hint)
    return ("error", "ModelFileError", f"The embedding worker failed: {type(e).__name__}: {e}", FALLBACK_HINT)


def child_main(conn) -> None:
    """Entry point of the worker (top level in an importable module, so spawn finds it without
    re-running the parent's main script): load, say so, then embed until told to stop."""
    priority = _lower_priority()
    for var, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false")):
        os.environ.setdefault(var, value)
    try:
        model = Embedder()
    except BaseException as e:  # noqa: BLE001 - every load failure goes back to the parent, described
        conn.send(_error_reply(e))
        conn.close()
        return
    conn.send(("ready", os.getpid(), priority))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if request is None:
            return
        texts, batch_size = request
        try:
            conn.send(("ok", model.embed(texts, batch_size=batch_size)))
        except Exception as e:  # noqa: BLE001 - a failed request must not kill the worker
            conn.send(_error_reply(e))


# -- parent side --------------------------------------------------------------------------------------
_spawn_lock = threading.Lock()


def _start_without_main(proc) -> None:
    """Start `proc` without spawn re-running the parent's main module in the child.

    Under `streamlit run app.py`, Streamlit installs a fake `__main__` whose __file__ is app.py while a
    page runs; spawn would then execute app.py (and its pages) in the worker. The worker needs nothing
    from `__main__`, so its preparation data leaves the main module out."""
    from multiprocessing import spawn

    original = spawn.get_preparation_data

    def preparation_data(name):
        data = original(name)
        data.pop("init_main_from_name", None)
        data.pop("init_main_from_path", None)
        return data

    with _spawn_lock:
        spawn.get_preparation_data = preparation_data
        try:
            proc.start()
        finally:
            spawn.get_preparation_data = original


def _raise_reply(reply: tuple):
    _, name, message, hint = reply
    cls = getattr(errors, name, None)
    if not (isinstance(cls, type) and issubclass(cls, DebateError)):
        cls = ModelFileError
    raise cls(message, hint)


class ProcessEmbedder:
    """The Embedder's surface, answered by a worker process. One request at a time (a lock around
    send/receive): the worker encodes serially anyway."""

    model_id = MODEL_ID
    dim = DIM

    def __init__(self) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self._conn, child_conn = ctx.Pipe()
        self._proc = ctx.Process(target=child_main, args=(child_conn,), name="debate-embedder", daemon=True)
        _start_without_main(self._proc)
        child_conn.close()  # so the parent sees EOF when the child dies
        self.pid = self._proc.pid
        self.priority = ""
        self.ready = False
        self._lock = threading.Lock()
        atexit.register(self.close)

    @property
    def alive(self) -> bool:
        return self._proc.is_alive()

    def _receive(self, what: str, timeout: float | None):
        """Wait for a reply while the child lives: poll() releases the GIL, and a dead child or a
        timeout becomes a clear error instead of a hang."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                if self._conn.poll(POLL_S):
                    return self._conn.recv()
            except (EOFError, OSError):
                pass  # the child closed its end: reported below with its exit code
            else:
                if self._proc.is_alive():
                    if deadline is not None and time.monotonic() > deadline:
                        self.close()
                        raise ModelFileError(
                            f"The embedding worker (pid {self.pid}) did not finish {what} within {timeout:.0f} s.",
                            FALLBACK_HINT,
                        )
                    continue
            self._proc.join(5)
            code = self._proc.exitcode
            self.close()
            raise ModelFileError(
                f"The embedding worker process (pid {self.pid}) exited (code {code}) while {what}.", FALLBACK_HINT
            )

    def wait_ready(self, timeout: float | None = None) -> ProcessEmbedder:
        """Block until the child has loaded the model; its load error is raised here, unchanged."""
        if timeout is None:
            timeout = float(os.environ.get("DEBATE_EMBED_LOAD_TIMEOUT", LOAD_TIMEOUT_S))
        with self._lock:
            if self.ready:
                return self
            reply = self._receive("loading the model", timeout)
            if reply[0] == "error":
                self.close()
                _raise_reply(reply)
            _, self.pid, self.priority = reply
            self.ready = True
        return self

    def embed(self, texts: list[str], batch_size: int | None = None, progress: bool = False):
        """float32 array (len(texts), 384), L2-normalised; `progress` is ignored (no bar from a worker)."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype="float32")
        self.wait_ready()
        with self._lock:
            try:
                self._conn.send((list(texts), batch_size or BATCH_SIZE))
            except (OSError, ValueError):
                pass  # a dead child: _receive reports it
            reply = self._receive("embedding", None)
        if reply[0] == "error":
            _raise_reply(reply)
        return reply[1]

    def close(self) -> None:
        """Stop the worker (also run at interpreter exit); it is a daemon, so it never outlives us."""
        if self._proc.is_alive():
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
            self._proc.join(2)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(2)
        try:
            self._conn.close()
        except OSError:
            pass
