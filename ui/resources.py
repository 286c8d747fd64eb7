"""The only place that knows about caching: shared, thread-safe objects behind @st.cache_resource.

Objects here are shared by every session and every worker thread (model client with its per-model
locks, the store, the retriever). Paths and settings are read when a factory is called and passed as
arguments, so a test that points DEBATE_HOME elsewhere gets its own store. Tests may inject their own
client or run function through session_state keys `_client`, `_retriever`, `_run`.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from typing import Any

import streamlit as st

from debate import config
from debate.errors import DebateError
from debate.store import DebateStore

# -- settings (Models page) ---------------------------------------------------------------------
settings_path = config.settings_path


def load_settings() -> dict:
    """Backend settings saved from the Models page; a broken file counts as none (the page offers Save)."""
    try:
        return config.load_settings()
    except DebateError:
        return {}


def save_settings(settings: dict) -> None:
    config.save_settings(settings)  # atomic, mode 0600
    _client.clear()


# -- factories ----------------------------------------------------------------------------------
@st.cache_resource(show_spinner=False)
def _store(path: str) -> DebateStore:
    store = DebateStore(path)
    store.mark_interrupted()  # debates a dead process left "running"
    return store


_last_sweep: dict[str, float] = {}


def get_store() -> DebateStore:
    """The shared store; at most once per heartbeat it marks debates whose process died (a restarted app
    sees its killed debate turn "interrupted" within a few seconds, not only at start-up)."""
    path = str(config.store_db())
    store = _store(path)
    from debate.store import heartbeat_s

    now = time.monotonic()
    if now - _last_sweep.get(path, 0.0) >= heartbeat_s():
        _last_sweep[path] = now
        try:
            store.mark_interrupted()
        except DebateError:  # a busy database: the next page load sweeps again
            pass
    return store


@st.cache_resource(show_spinner=False)
def _client(settings_json: str, cache_db: str) -> Any:
    from debate.models.registry import default_client

    return default_client(json.loads(settings_json), from_page=True)  # specs typed on pages: debate/models/reach.py


def get_client() -> Any:
    injected = st.session_state.get("_client")
    if injected is not None:
        return injected
    return _client(json.dumps(load_settings(), sort_keys=True), str(config.cache_db()))


@st.cache_resource(show_spinner=False)
def _retriever(index_dir: str) -> Any:
    """The shared retriever, embedding in a worker process at idle priority: loading torch in an app
    thread held the GIL against the llama.cpp turn thread and made the first debate ~2x slower."""
    from debate.retrieval import default_retriever
    from debate.retrieval import embed as embed_mod

    embed_mod.use_process(True)  # before warm(): the app process never imports torch
    r = default_retriever()
    if hasattr(r, "warm") and os.environ.get("DEBATE_WARM_RETRIEVER", "1") != "0":
        r.warm()  # load or build the index in the background; the first RADAR debate waits for it
    return r


def get_retriever(sources: str | None = "") -> Any:
    """The local index alone (`sources` ""), or the sources asked for ranked together (None: every
    one that answers its health check)."""
    if "_retriever" in st.session_state:
        return st.session_state["_retriever"]
    local = _retriever(str(config.index_dir()))
    if sources == "":
        return local
    return _multi(
        str(config.index_dir()),
        sources or "auto",
        json.dumps(load_settings().get("evidence_sources") or {}, sort_keys=True),
    )


def retriever_for(config: Any) -> Any:
    """The retriever a debate of this set-up searches with, the same on every page: the sources its
    config asks for (None: every one that answers), ranked together under the relevance floor. A page
    that passed the bare local index instead showed the top-k passages however far from the claim,
    while another page said, for the same claim, that none passed the floor."""
    return get_retriever(getattr(config, "sources", None))


@st.cache_resource(show_spinner=False)
def _multi(index_dir: str, sources: str, settings_json: str) -> Any:
    """One MultiRetriever per choice of sources and settings, shared: its health checks and back-offs
    then hold across debates and sessions."""
    from debate.retrieval.multi import MultiRetriever
    from debate.retrieval.sources import SourceSettings

    return MultiRetriever(
        None if sources == "auto" else sources,
        local=_retriever(index_dir),
        settings=SourceSettings.load(json.loads(settings_json)),
    )


def get_run() -> Any:
    """The engine entry point (tests may inject another generator with run_debate's contract)."""
    injected = st.session_state.get("_run")
    if injected is not None:
        return injected
    from debate.runner import run_debate

    return run_debate


# -- health checks, off the render path ------------------------------------------------------------
# Listing a backend's models asks a server, which may hang for the whole health timeout. A page never
# waits for that: each check runs in a worker thread, the page waits at most CHECK_WAIT_S, then shows the
# previous answer (or "checking…") and the next rerun picks up the result. Results are reused CHECK_TTL_S.
CHECK_TTL_S = 15.0
CHECK_WAIT_S = 2.0
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="health-check")
_CHECKS: dict[str, dict] = {}  # key -> {"value", "at", "future"}
_CHECKS_LOCK = threading.Lock()


def _env_key(key: str) -> str:
    """The environment fills what settings leave empty, so it is part of what a check depends on."""
    return key + json.dumps(
        [os.environ.get(v) for v in ("OLLAMA_HOST", "OPENAI_BASE_URL")] + [bool(os.environ.get("OPENAI_API_KEY"))]
    )


def _submit(key: str, fn: Callable[[], Any], refresh: bool = False) -> Future | None:
    """Start `fn` for `key` unless a fresh value or a running check exists; the running/new future."""
    with _CHECKS_LOCK:
        entry = _CHECKS.setdefault(key, {})
        fresh = "value" in entry and time.monotonic() - entry["at"] < CHECK_TTL_S and not refresh
        fut = entry.get("future")
        if fut is not None and not fut.done():
            return fut
        if fresh:
            return None

        def run() -> Any:
            try:
                value = fn()
            except Exception as e:  # noqa: BLE001 - handed to the page that asks, which says what failed
                value = e
            with _CHECKS_LOCK:
                entry.update(value=value, at=time.monotonic())
            return value

        entry["future"] = fut = _POOL.submit(run)
        return fut


def off_render(
    checks: dict[str, Callable[[], Any]], refresh: bool = False, wait_s: float = CHECK_WAIT_S
) -> dict[str, Any]:
    """key -> the latest value of each check (None if none has finished yet), waiting at most `wait_s`
    in all for the checks that are running. A check that raised gives its exception as the value."""
    futures = [f for f in (_submit(_env_key(k), fn, refresh) for k, fn in checks.items()) if f is not None]
    if futures:
        wait_futures(futures, timeout=wait_s)
    with _CHECKS_LOCK:
        return {k: _CHECKS.get(_env_key(k), {}).get("value") for k in checks}


def known_models(refresh: bool = False) -> list:
    """Every model with its status; each backend listed in its own background check (see off_render),
    so a hung server shows as "checking…" and then as timed out, and never holds the page."""
    injected = st.session_state.get("_client")
    if injected is not None:
        return injected.list_models()
    from debate.models.backends import listed
    from debate.models.base import ModelInfo
    from debate.models.registry import known_models as list_backend

    settings = load_settings()
    # what the listing depends on: the settings and the folder the packaged models are assembled in
    key = json.dumps([settings, str(config.models_dir())], sort_keys=True)
    shown = listed()
    values = off_render(
        {f"models:{b}:{key}": (lambda b=b: list_backend(settings, (b,))) for b in shown}, refresh=refresh
    )
    rows: list = []
    for b in shown:
        got = values[f"models:{b}:{key}"]
        if isinstance(got, list):
            rows.extend(got)
        else:  # still running, or failed outside the backend's own error handling
            rows.append(
                ModelInfo(
                    spec=f"{b}:",
                    backend=b,
                    name="",
                    status="checking" if got is None else "error",
                    detail="checking… (refresh in a moment)" if got is None else str(got),
                )
            )
    return rows


@st.cache_data(show_spinner=False)
def examples(task: str, n: int = 60) -> list[dict]:
    from ui.examples import load_examples

    return load_examples(task, n)


# -- reading the next debate's first prompts ahead (first token at once) -----------------------------------------
_WARM = {"key": None, "failed": None, "doing": None, "want": None, "thread": None, "step": None}
# "step": what the warm-up does now, for the page's "Preparing" line: {"what": "debate" | "reading",
# "since": time.time(), "model", "i", "n"} (None before the first step)
_WARM_LOCK = threading.Lock()


def _warm_key(config: Any) -> str | None:
    from dataclasses import asdict

    from debate.models.local import served

    try:  # a warm-up is stale once any real request has run since: the models' state moved on
        return json.dumps([asdict(config), served()], sort_keys=True, default=str)
    except TypeError:
        return None


def warm_state(config: Any) -> str:
    """ "ready" when the models have read this set-up's opening prompts, "failed" when they could not
    (Run then reports why), else "reading" (or "off")."""
    if os.environ.get("DEBATE_WARM_AHEAD", "1") == "0" or "_client" in st.session_state:
        return "off"
    key = _warm_key(config)
    with _WARM_LOCK:
        if key is not None and key == _WARM["key"]:
            return "ready"
        if key is not None and key == _WARM.get("failed"):
            return "failed"
    return "reading"


def warm_step() -> dict | None:
    """What the warm-up is doing now (see `_WARM["step"]`), for the page to say what "Ready" waits for."""
    with _WARM_LOCK:
        return dict(_WARM["step"]) if _WARM["step"] else None


def _set_step(what: str, model: str = "", i: int = 0, n: int = 0) -> None:
    with _WARM_LOCK:
        _WARM["step"] = {"what": what, "since": time.time(), "model": model, "i": i, "n": n}


def warm_ahead(config: Any) -> None:
    """Let the models read the first prompts of the debate the page is set up for, in the background,
    so that after Run the first token comes at once (model loaded, instructions and examples already in
    llama.cpp's state). The latest set-up wins; nothing is done while a debate runs in this process, and
    a warm-up gives way to any real request (debate.live.warmup)."""
    if os.environ.get("DEBATE_WARM_AHEAD", "1") == "0" or "_client" in st.session_state:
        return
    key = _warm_key(config)
    if key is None:
        return
    client = get_client()
    with _WARM_LOCK:
        if key in (_WARM["key"], _WARM["doing"], (_WARM["want"] or (None,))[0]):
            return
        _WARM["want"] = (key, config, client, _warm_retriever(config))
        t = _WARM["thread"]
        if t is None or not t.is_alive():
            _WARM["thread"] = t = threading.Thread(target=_warm_loop, name="warm-ahead", daemon=True)
            t.start()


def _warm_retriever(config: Any) -> Any:
    """The retriever Run will use, for a protocol whose prompts carry evidence (RADAR): its first prompts
    are then read ahead with their passages. None for the others (their evidence is shown beside them)."""
    try:
        from debate.runner import prepare

        return retriever_for(config) if prepare(config).evidence_on else None
    except Exception:  # noqa: BLE001 - warming is an optimisation: Run reports real problems
        return None


def _warm_loop() -> None:
    from debate import live
    from debate.live.warmup import warm

    while True:
        with _WARM_LOCK:
            want, _WARM["want"], _WARM["doing"], _WARM["step"] = _WARM["want"], None, None, None
            if want is None:
                _WARM["thread"] = None
                return
            _WARM["doing"] = want[0]
        key, config, client, retriever = want
        if live.running():
            _set_step("debate")
        while live.running():  # a debate owns the CPU: wait for its end, unless the set-up changes
            time.sleep(0.5)
            with _WARM_LOCK:
                if _WARM["want"] is not None:
                    break
        else:
            key = _warm_key(config) or key  # the debate moved the models' state on: that is the key now
        with _WARM_LOCK:
            if _WARM["want"] is not None:
                continue
        try:
            rows = warm(
                config,
                client,
                give_way=lambda: _WARM["want"] is not None,  # a newer set-up wins
                retriever=retriever,
                on_step=lambda model, i, n: _set_step("reading", model, i, n),
            )
        except Exception:  # noqa: BLE001 - warming is an optimisation: Run reports real problems
            rows = None
        with _WARM_LOCK:
            _WARM["doing"] = None
            if rows is None:
                _WARM["failed"] = key
            elif all(r["done"] for r in rows):
                _WARM["key"] = key
