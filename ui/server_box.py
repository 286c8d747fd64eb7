"""The lineup editor's "Run every seat on" box: the app's form of `--server` / `--model-map`.

The engine does the work (debate/lineup_server.py); this draws three widgets, asks the server for its
models off the render path (resources.off_render) and says before Run which models it lacks and what to do.
The Debate page's lineup editor uses `server_box`; Compare draws `server_choice` once and applies it to
every column's lineup with `put_on_server`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import streamlit as st

from debate.errors import DebateError
from debate.lineup_server import (
    Server,
    list_server,
    missing_error,
    on_server,
    parse_model_map,
    parse_server,
    unused_keys,
)
from debate.models.backends import get, servers
from ui import resources
from ui.keep import keep, remember
from ui.safe import escape  # server names and messages are the server's text: never Markdown


def kinds() -> dict[str, str]:
    """The box's choices: the lineup as it is, or one of the server backends (the backends registry)."""
    out = {"lineup": "as the lineup says"}
    for name in servers():
        info = get(name)
        what = f"{'an' if info.title[:1].lower() in 'aeiou' else 'a'} {info.title} server"
        out[name] = f"{what} ({info.one_line})" if info.one_line and info.one_line != what else what
    return out


def _server_models(server: Server) -> Any:
    """The server's model names, an exception saying why not, or None while still asking."""
    injected = st.session_state.get("_client")
    if injected is not None:  # tests with an injected client: ask it directly
        try:
            return list_server(server, injected)
        except DebateError as e:
            return e
    key = "server-models:" + json.dumps(
        [server.backend, server.base_url, resources.load_settings()], sort_keys=True, default=str
    )
    client = resources.get_client()
    return resources.off_render({key: lambda: list_server(server, client)})[key]


def _tag(lineup: dict) -> str:
    """Part of the per-seat widget keys: new seat models (another server or map) start new widgets."""
    return "@" + hashlib.sha1(json.dumps(lineup, sort_keys=True, default=str).encode()).hexdigest()[:10]


def show(e: Any, level: str = "error") -> None:
    """A DebateError (or any exception) as a Streamlit error or warning: message in bold, then the hint,
    both escaped, since they may quote the server's own text."""
    how = st.error if level == "error" else st.warning
    how(
        f"**{escape(str(getattr(e, 'message', e)))}**  \n{escape(getattr(e, 'hint', ''))}",
        icon=":material/error:" if level == "error" else ":material/warning:",
    )


def server_choice() -> tuple[Server, dict[str, str]] | None:
    """The three widgets (server kind, URL, model map): (the server, the map), or None when the lineup runs
    as it says or the text cannot be read (then an error says why and what to write)."""
    keep("cfg_server_kind", "lineup")
    choices = kinds()
    kind = st.selectbox(
        "Run every seat on",
        list(choices),
        key="cfg_server_kind",
        format_func=choices.get,
        help="Point all the lineup's models at one server, e.g. a GPU host running the paper's "
        "council. A key goes only to the URL it was saved for (Models page).",
    )
    remember("cfg_server_kind")
    if kind == "lineup":
        return None
    keep("cfg_server_url", "")
    keep("cfg_server_map", "")
    url = st.text_input(
        "Server URL",
        key="cfg_server_url",
        placeholder=get(kind).url_example,
        help="Empty: the one saved on the Models page (or OPENAI_BASE_URL / OLLAMA_HOST).",
    )
    mapping = st.text_area(
        "The server's names for the lineup's models (optional)",
        key="cfg_server_map",
        height=80,
        placeholder="gemma3:12b=google/gemma-3-12b-it\nqwen3:8b=Qwen/Qwen3-8B",
        help="One lineup-name=server-name per line (or JSON). Unmapped models are looked "
        "up in the server's model list by name, family and size.",
    )
    remember("cfg_server_url", "cfg_server_map")
    try:
        return (parse_server(f"{kind}@{url.strip()}" if url.strip() else kind), parse_model_map(mapping, files=False))
    except DebateError as e:
        show(e)
        return None


def put_on_server(base: dict, server: Server, model_map: dict[str, str]) -> tuple[dict, DebateError | None]:
    """`base` with every seat on `server`, and why it cannot run there (the server cannot be asked, or lacks
    models), or None. Says so where it is called, or which server model each lineup model got."""
    available = _server_models(server)
    problem = available if isinstance(available, DebateError) else None
    if isinstance(available, Exception):
        show(available, "warning")
    listed = available if isinstance(available, list) else None
    try:
        lineup, rows = on_server(base, server, model_map, listed)
    except DebateError as e:  # e.g. a saved lineup whose seat names several endpoints
        show(e)
        return base, e
    if listed is None and not isinstance(available, Exception):
        st.caption(f"Asking {server.where()} for its models…")
    elif listed is not None and any(r["server_model"] is None for r in rows):
        problem = missing_error(server, rows, listed, unused_keys(base, model_map))
        show(problem, "warning")
    elif listed is not None:
        st.caption(" · ".join(f"{escape(r['model'])} → {escape(r['server_model'])} ({r['how']})" for r in rows))
    return lineup, problem


def server_box(base: dict) -> tuple[dict, str]:
    """(the lineup with every seat on the chosen server, a key suffix for the seat widgets); `base` and ""
    when the lineup runs as it says."""
    choice = server_choice()
    if choice is None:
        return base, ""
    lineup, _ = put_on_server(base, *choice)  # (Run's own model check refuses what cannot run)
    return lineup, _tag(lineup)
