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

Idle priority has one failure: when other programs keep every core busy, an idle process gets no CPU at
all, and a debate that waits for it (the council's demonstrations, RADAR's query) waits for ever. An
unprivileged process cannot raise its priority again, so the worker is replaced instead: while a debate
waits, its threads' time waiting for a CPU is read from /proc (`schedstat`); once the worker has spent
most of `STARVED_AFTER_S` seconds runnable but not running, a new worker starts at normal priority and
takes over (the load, or the pending request, is sent again). A quiet machine never triggers it: there
the idle worker gets the free core.
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
STARVED_AFTER_S = 3.0  # a debate waiting this long on a worker that waited for a CPU most of it: restart
STARVED_SHARE = 0.5  # runnable-but-not-running time over wall time that counts as starved
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


def child_main(conn, idle: bool = True) -> None:
    """Entry point of the worker (top level in an importable module, so spawn finds it without
    re-running the parent's main script): load, say so, then embed until told to stop."""
    priority = _lower_priority() if idle else "normal"
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


def run_queue_ns(pid: int) -> int | None:
    """Nanoseconds the threads of process `pid` have spent runnable but waiting for a CPU (the second field
    of /proc/PID/task/TID/schedstat, summed); None where the kernel does not say (not Linux)."""
    total, seen = 0, False
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as f:
                total += int(f.read().split()[1])
                seen = True
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
    return total if seen else None


class _Starved(Exception):
    """The idle worker got no CPU while a debate waited for it."""


class ProcessEmbedder:
    """The Embedder's surface, answered by a worker process. One request at a time (a lock around
    send/receive): the worker encodes serially anyway. `idle`: start the worker at idle priority (the
    app's default); a debate that waits on a starved idle worker replaces it by a normal one."""

    model_id = MODEL_ID
    dim = DIM

    def __init__(self, idle: bool = True) -> None:
        self.priority = ""
        self.ready = False
        self.restarts = 0  # idle workers replaced because a debate waited on them while they starved
        self._lock = threading.Lock()
        self._waiting = 0  # debates blocked on the lock: the holder watches for starvation on their behalf
        self._failed: tuple | None = None  # the load's error reply, for every later caller
        self._start(idle)
        atexit.register(self.close)

    def _start(self, idle: bool) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self._conn, child_conn = ctx.Pipe()
        self._proc = ctx.Process(target=child_main, args=(child_conn, idle), name="debate-embedder", daemon=True)
        _start_without_main(self._proc)
        child_conn.close()  # so the parent sees EOF when the child dies
        self.pid = self._proc.pid
        self.idle = idle
        self.ready = False

    @property
    def alive(self) -> bool:
        return self._proc.is_alive()

    def _receive(self, what: str, timeout: float | None, urgent: bool = False):
        """Wait for a reply while the child lives: poll() releases the GIL, and a dead child or a
        timeout becomes a clear error instead of a hang. While a debate waits (`urgent`, or another
        thread blocked on the lock) on an idle worker, raise _Starved once it has mostly waited for a CPU."""
        deadline = None if timeout is None else time.monotonic() + timeout
        probe: tuple[float, int] | None = None
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
                    if self.idle and (urgent or self._waiting):
                        probe = self._check_starved(probe)
                    else:
                        probe = None
                    continue
            self._proc.join(5)
            code = self._proc.exitcode
            self.close()
            raise ModelFileError(
                f"The embedding worker process (pid {self.pid}) exited (code {code}) while {what}.", FALLBACK_HINT
            )

    def _check_starved(self, probe: tuple[float, int] | None) -> tuple[float, int] | None:
        waited = run_queue_ns(self.pid) if self.pid is not None else None
        now = time.monotonic()
        if waited is None:
            return None  # no schedstat: no judgement (the load timeout still bounds the wait)
        if probe is None:
            return (now, waited)
        span = now - probe[0]
        if span >= STARVED_AFTER_S:
            if (waited - probe[1]) / 1e9 >= STARVED_SHARE * span:
                raise _Starved
            return (now, waited)  # it ran: watch the next window
        return probe

    def _call(self, request: tuple | None, what: str, urgent: bool, load_timeout: float | None = None):
        """(lock held) Load if not loaded, then answer `request` (None: only load); an idle worker that
        starves while a debate waits is replaced by a normal one and the call goes on with it."""
        if load_timeout is None:
            load_timeout = float(os.environ.get("DEBATE_EMBED_LOAD_TIMEOUT", LOAD_TIMEOUT_S))
        while True:
            if self._failed is not None:  # a caller that queued behind a failed load gets its reason too
                _raise_reply(self._failed)
            try:
                if not self.ready:
                    reply = self._receive("loading the model", load_timeout, urgent)
                    if reply[0] == "error":
                        self._failed = reply
                        self.close()
                        _raise_reply(reply)
                    _, self.pid, self.priority = reply
                    self.ready = True
                if request is None:
                    return None
                try:
                    self._conn.send(request)
                except (OSError, ValueError):
                    pass  # a dead child: _receive reports it
                return self._receive(what, None, urgent)
            except _Starved:
                self._abandon()
                self.restarts += 1
                self._start(idle=False)

    def _acquire(self, urgent: bool) -> None:
        """Take the lock; an urgent caller that has to wait for it is counted, so that the holder watches
        for starvation on its behalf."""
        if not urgent:
            self._lock.acquire()
            return
        if self._lock.acquire(blocking=False):
            return
        self._waiting += 1
        try:
            self._lock.acquire()
        finally:
            self._waiting -= 1

    def wait_ready(self, timeout: float | None = None, urgent: bool = False) -> ProcessEmbedder:
        """Block until the child has loaded the model; its load error is raised here, unchanged.
        `urgent`: a debate is waiting (a starved idle worker is replaced)."""
        if self.ready:
            return self
        self._acquire(urgent)
        try:
            self._call(None, "loading the model", urgent, timeout)
        finally:
            self._lock.release()
        return self

    def embed(self, texts: list[str], batch_size: int | None = None, progress: bool = False):
        """float32 array (len(texts), 384), L2-normalised; `progress` is ignored (no bar from a worker).
        Always urgent: whoever asks for vectors is waiting for them."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype="float32")
        self._acquire(urgent=True)
        try:
            reply = self._call((list(texts), batch_size or BATCH_SIZE), "embedding", urgent=True)
        finally:
            self._lock.release()
        if reply[0] == "error":
            _raise_reply(reply)
        return reply[1]

    def _abandon(self) -> None:
        """Kill a starved worker without waiting for it: it gets no CPU to exit politely, and the debate
        is waiting (multiprocessing reaps it when the next worker starts)."""
        self._proc.kill()
        try:
            self._conn.close()
        except OSError:
            pass

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
