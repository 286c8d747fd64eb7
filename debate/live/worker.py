"""Debates that outlive the page: each runs in a daemon thread that writes every event to the store.

A Streamlit script is rerun on every click and stopped when the user switches page, so a debate
cannot live inside it. `start_debate` hands the debate to a worker thread and returns its id; the
page then renders whatever the store holds for that id. Each debate has its own id, thread and cancel
flag, so two browser sessions never see each other's events.

An invalid config must reach the person who pressed Run as an inline message, not as a dead row in
the Library: `start_debate` waits (briefly) for the first event and re-raises a DebateError raised
before it, deleting the row it had created.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from debate.audience import relay
from debate.errors import DebateError, InvalidInput
from debate.events import DebateFinished, ErrorEvent, Event

RunFn = Callable[..., Iterator[Event]]


@dataclass
class LiveDebate:
    debate_id: str
    cancel: threading.Event
    thread: threading.Thread | None = None
    started: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    spoke: threading.Event = field(default_factory=threading.Event)  # the first words are in the store
    error: BaseException | None = None  # raised before the first event, while start_debate waits
    handed_over: bool = False  # start_debate has returned: errors now go into the transcript
    lock: threading.Lock = field(default_factory=threading.Lock)
    events_written: int = 0
    t_start: float = field(default_factory=time.perf_counter)


_REGISTRY: dict[str, LiveDebate] = {}
_LOCK = threading.Lock()


def _default_run() -> RunFn:
    from debate.runner import run_debate  # read at call time: the engine may be replaced in tests

    return run_debate


def new_debate_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def _config_dict(config: Any) -> dict:
    from dataclasses import asdict, is_dataclass

    d = asdict(config) if is_dataclass(config) and not isinstance(config, type) else dict(config)
    if isinstance(d.get("fork"), dict):  # the parent's turns are in the events already: keep only where from
        d["fork"] = {k: d["fork"].get(k) for k in ("parent_id", "round", "notes")}
    return d


WAIT_WORDS_S = 2.0  # the Debate page's Run waits at most this long for the first words (start_debate)
TOKEN_FLUSH_S = 0.1  # streamed tokens wait at most this long (or TOKEN_FLUSH_N tokens) to be written
TOKEN_FLUSH_N = 32


class _Writer:
    """Writes a debate's events to the store, token deltas in small batches (one SQLite commit
    per token competed with the model for the CPU). Any other event first flushes the tokens
    before it, so order is kept and a finished turn is always stored whole; `flush` runs before any
    error is recorded, so nothing streamed is lost."""

    def __init__(self, store: Any, debate_id: str) -> None:
        self.store, self.debate_id = store, debate_id
        self.pending: list[Event] = []
        self.since = 0.0
        self.spoken = False  # the debate's first token is written at once: the room waits for it

    def write(self, ev: Event) -> None:
        if ev.type == "token":
            if not self.pending:
                self.since = time.perf_counter()
            self.pending.append(ev)
            if (
                not self.spoken
                or len(self.pending) >= TOKEN_FLUSH_N
                or time.perf_counter() - self.since >= TOKEN_FLUSH_S
            ):
                self.spoken = True
                self.flush()
            return
        self.flush()
        self.store.append_event(self.debate_id, ev)

    def flush(self) -> None:
        if self.pending:
            batch, self.pending = self.pending, []
            if hasattr(self.store, "append_events"):
                self.store.append_events(self.debate_id, batch)
            else:
                for ev in batch:
                    self.store.append_event(self.debate_id, ev)


def _worker(live: LiveDebate, config: Any, client: Any, retriever: Any, store: Any, run: RunFn) -> None:
    seq = -1
    finished = False
    writer = _Writer(store, live.debate_id)
    try:
        stream = run(config, client, retriever=retriever, cancel=live.cancel)
        for ev in stream:
            if ev.seq is None or ev.seq < 0:
                ev.seq = seq + 1
            seq = ev.seq
            writer.write(ev)
            live.events_written += 1
            if ev.type != "token" or not writer.pending:
                live.started.set()  # start_debate returns once the first event is in the store
            if ev.type in ("token", "turn_finished", "verdict") and not writer.pending:
                live.spoke.set()
            if ev.type == "finished":
                finished = True
    except BaseException as e:  # noqa: BLE001 - the worker is the last place an error can be kept
        try:
            writer.flush()
        except Exception:  # noqa: BLE001 - the store failed: the error is still recorded below if it can be
            pass
        with live.lock:  # before the first event, and while start_debate still waits: the caller's error
            keep_for_caller = not live.started.is_set() and not live.handed_over
            if keep_for_caller:
                live.error = e
        if not keep_for_caller:
            msg = e.message if isinstance(e, DebateError) else f"{type(e).__name__}: {e}"
            hint = (
                e.hint if isinstance(e, DebateError) else "This is a bug in the engine; the transcript so far is kept."
            )
            try:
                store.append_event(
                    live.debate_id,
                    ErrorEvent(
                        error=type(e).__name__,
                        message=msg,
                        hint=hint,
                        seq=seq + 1,
                        t=time.perf_counter() - live.t_start,
                    ),
                )
                store.append_event(
                    live.debate_id,
                    DebateFinished(
                        status="error",
                        stop_reason=msg,
                        seq=seq + 2,
                        t=time.perf_counter() - live.t_start,
                        wall_s=time.perf_counter() - live.t_start,
                    ),
                )
                finished = True
            except Exception:  # noqa: BLE001 - the store itself failed: the finally below still ends the debate
                pass
    finally:
        try:
            writer.flush()  # tokens streamed before the end are kept, whatever ended the debate
        except Exception:  # noqa: BLE001 - the store failed: _end still frees the page
            pass
        _end(live, store, finished)


def _end(live: LiveDebate, store: Any, finished: bool) -> None:
    """Every exit path of a worker comes here: the row gets a final status if it can, and whatever
    happens the page is freed (done is set, so Run is enabled and the live view stops ticking) and
    the store stops the debate's heartbeat, so a row the failing store left "running" is marked
    interrupted by the next mark_interrupted instead of staying "running" forever."""
    try:
        if not finished and live.error is None:
            # the engine ended without its closing event: keep the row honest
            store.set_status(
                live.debate_id,
                "stopped" if live.cancel.is_set() else "error",
                "the engine ended without a closing event",
            )
    except Exception:  # noqa: BLE001 - nothing more can be written; the heartbeat's end tells the rest
        pass
    finally:
        release = getattr(store, "release", None)
        if release is not None:
            release(live.debate_id)
        live.started.set()
        live.spoke.set()
        live.done.set()


def start_debate(
    config: Any,
    client: Any,
    retriever: Any,
    store: Any,
    *,
    run: RunFn | None = None,
    debate_id: str | None = None,
    wait_first_s: float = 20.0,
    wait_words_s: float = 0.0,
) -> str:
    """Start `config` in a daemon thread; returns the debate id once its first event is stored, or, with
    `wait_words_s`, once its first words are (at most that long).

    Why wait for words: the page's next full run and the worker's opening share one interpreter. Run
    while the worker sets up the first turns, the page's run slowed that opening about twentyfold
    (1 s against 0.05 s on 2 cores), and the first words then waited for the live round's next tick. Run
    after the first token is stored, the page shows it in that very run.

    `run` defaults to debate.runner.run_debate (tests may pass another generator with its contract).
    A DebateError raised before the first event is re-raised here and leaves no row behind.
    Starting an id that is already running returns that id and starts nothing: a start is idempotent.
    """
    run = run or _default_run()
    debate_id = debate_id or getattr(config, "debate_id", None) or new_debate_id()
    try:
        config = replace(config, debate_id=debate_id)
    except TypeError:
        pass
    live = LiveDebate(debate_id=debate_id, cancel=threading.Event())
    with _LOCK:  # checked and claimed at once: a second start of the same id finds the first
        first = _REGISTRY.get(debate_id)
        if first is None or first.done.is_set():
            _REGISTRY[debate_id] = live
    if first is not None and not first.done.is_set():
        # started again while it runs (a second click on Run): the first start is the debate, nothing new
        first.started.wait(wait_first_s)
        return debate_id
    try:
        store.create_debate(_config_dict(config), debate_id)
    except BaseException:
        with _LOCK:
            _REGISTRY.pop(debate_id, None)
        raise
    live.thread = threading.Thread(
        target=_worker, args=(live, config, client, retriever, store, run), name=f"debate-{debate_id}", daemon=True
    )
    live.thread.start()
    if getattr(config, "humans", None) and getattr(store, "path", None):
        relay.start(store.path, debate_id, live.done)  # turns typed on phones (the audience server's seat links)
    live.started.wait(wait_first_s)
    if wait_words_s > 0:
        live.spoke.wait(wait_words_s)
    with live.lock:
        live.handed_over = True
    if live.error is not None:
        with _LOCK:
            _REGISTRY.pop(debate_id, None)
        store.delete(debate_id)
        if hasattr(store, "release"):
            store.release(debate_id)
        err = live.error
        if isinstance(err, DebateError):
            raise err
        raise InvalidInput(
            f"The debate could not start: {type(err).__name__}: {err}",
            "Check the lineup and parameters; the log has the details.",
        ) from err
    return debate_id


def stop(debate_id: str) -> bool:
    """Ask a running debate to stop between tokens; True if it was running here."""
    with _LOCK:
        live = _REGISTRY.get(debate_id)
    if live is None or live.done.is_set():
        return False
    live.cancel.set()
    return True


def is_running(debate_id: str) -> bool:
    with _LOCK:
        live = _REGISTRY.get(debate_id)
    return live is not None and not live.done.is_set()


def running() -> list[str]:
    with _LOCK:
        return [k for k, v in _REGISTRY.items() if not v.done.is_set()]


def wait(debate_id: str, timeout: float | None = None) -> bool:
    """Block until the debate's worker ends (tests, the command line); True if it ended."""
    with _LOCK:
        live = _REGISTRY.get(debate_id)
    return True if live is None else live.done.wait(timeout)
