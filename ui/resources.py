"""The only place that knows about caching: shared, thread-safe objects behind @st.cache_resource.

Objects here are shared by every session and every worker thread (model client with its per-model
locks, the store, the retriever). Paths and settings are read when a factory is called and passed as
arguments, so a test that points DEBATE_HOME elsewhere gets its own store. Tests may inject their own
client or run function through session_state keys `_client`, `_retriever`, `_run`.
"""

from __future__ import annotations

import json
import os
import time
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
    return default_client(json.loads(settings_json))


def get_client() -> Any:
    injected = st.session_state.get("_client")
    if injected is not None:
        return injected
    return _client(json.dumps(load_settings(), sort_keys=True), str(config.cache_db()))


@st.cache_resource(show_spinner=False)
def _retriever(index_dir: str) -> Any:
    from debate.retrieval import default_retriever
    r = default_retriever()
    if hasattr(r, "warm") and os.environ.get("DEBATE_WARM_RETRIEVER", "1") != "0":
        r.warm()  # load or build the index in the background; the first RADAR debate waits for it
    return r


def get_retriever() -> Any:
    if "_retriever" in st.session_state:
        return st.session_state["_retriever"]
    return _retriever(str(config.index_dir()))


def get_run() -> Any:
    """The engine entry point (tests may inject another generator with run_debate's contract)."""
    injected = st.session_state.get("_run")
    if injected is not None:
        return injected
    from debate.runner import run_debate
    return run_debate


@st.cache_resource(show_spinner=False, ttl=15)
def _known_models(settings_json: str) -> list:
    from debate.models.registry import known_models
    return known_models(json.loads(settings_json))


def known_models(refresh: bool = False) -> list:
    """Every model with its status; cached 15 s so status dots do not ping servers on every rerun."""
    injected = st.session_state.get("_client")
    if injected is not None:
        return injected.list_models()
    if refresh:
        _known_models.clear()
    key = json.dumps(load_settings(), sort_keys=True)
    try:
        return _known_models(key)
    except Exception:  # noqa: BLE001 - status dots must never take the page down
        return []


@st.cache_data(show_spinner=False)
def examples(task: str, n: int = 60) -> list[dict]:
    from ui.examples import load_examples
    return load_examples(task, n)
