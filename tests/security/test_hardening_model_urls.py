"""A model spec typed on a page reaches only the servers the presenter configured, or public addresses
through the web pages' guard; a server that is neither is never contacted, and the error text of one
the presenter did not configure is not shown (loopback servers keeping a secret in their error body,
the app's own client, and the Models page through AppTest)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from debate.errors import DebateError, InvalidInput
from debate.models.base import GenOptions
from debate.models.reach import configured_origins
from debate.models.registry import default_client
from tests.support.hostile_servers import recorder

SECRET = "internal-token-7f3a9c"  # what the internal service's error body holds


def _ask(client, spec: str) -> DebateError:
    with pytest.raises(DebateError) as e:
        stream = client.chat(spec, [{"role": "user", "content": "hi"}], GenOptions(max_tokens=4, cache=False))
        "".join(stream)
    return e.value


def test_configured_servers_are_the_settings_the_keys_and_the_environment():
    env = {"OLLAMA_HOST": "10.0.0.5:11434", "OPENAI_BASE_URL": "http://gpu.lan:8000/v1"}
    settings = {
        "ollama": {"host": "http://192.168.1.9:11434", "keys": {"http://ollama.lan:11434": "k"}},
        "openai": {"base_url": "http://127.0.0.1:8080/v1", "keys": {"https://router.lan/v1": "k"}},
    }
    got = configured_origins(settings, env)
    assert got >= {
        ("http", "10.0.0.5", 11434),
        ("http", "gpu.lan", 8000),
        ("http", "192.168.1.9", 11434),
        ("http", "ollama.lan", 11434),
        ("http", "127.0.0.1", 8080),
        ("https", "router.lan", 443),
        ("http", "127.0.0.1", 11434),  # Ollama's default
        ("https", "api.openai.com", 443),
    }


@pytest.mark.parametrize("backend", ["openai", "ollama"])
def test_a_typed_loopback_server_is_refused_before_any_request(monkeypatch, backend):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    with recorder("error", status=500, error_text=f"denied: {SECRET}") as srv:
        url = srv.url if backend == "openai" else srv.host  # srv.url ends in /v1
        e = _ask(default_client({}, cache=False, from_page=True), f"{backend}:m@{url}")
        asked = list(srv.requests)
    assert isinstance(e, InvalidInput) and "not one configured for this app" in e.message
    assert "loopback" in e.message and "Models page" in e.hint
    assert SECRET not in str(e) and asked == []


def test_the_presenters_own_server_is_reached_and_its_text_shown_to_them(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with recorder("error", status=500, error_text=f"denied: {SECRET}") as srv:
        settings = {"openai": {"base_url": srv.url, "retries": 1}}  # saved on the Models page
        e = _ask(default_client(settings, cache=False, from_page=True), f"openai:m@{srv.url}")
        assert srv.requests
    assert "HTTP 500" in e.message and SECRET in e.message  # the presenter's own server: its words help them


@pytest.mark.parametrize("backend", ["openai", "ollama"])
def test_an_unconfigured_server_that_passes_the_guard_has_its_error_text_withheld(monkeypatch, backend):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    with recorder("error", status=500, error_text=f"denied: {SECRET}") as srv:
        url = srv.url if backend == "openai" else srv.host
        # 127.0.0.1 let through by exact address, as the web tests do: it stands for a public server here
        no_retries = {"openai": {"retries": 1}, "ollama": {"retries": 1}}
        client = default_client(no_retries, cache=False, from_page=True, allow=("127.0.0.1",))
        e = _ask(client, f"{backend}:m@{url}")
        assert srv.requests  # reached, through the guard
    assert "HTTP 500" in e.message and SECRET not in str(e), str(e)
    assert "not shown for an address the presenter did not configure" in e.message


def _page_asks(spec: str) -> None:
    """What the Models page's "Try a model" does with a typed spec: the app's client, the error box."""
    import streamlit as st

    from debate.errors import DebateError
    from debate.models.base import GenOptions
    from ui import resources
    from ui.safe import error_md

    try:
        "".join(resources.get_client().chat(spec, [{"role": "user", "content": "hi"}], GenOptions(max_tokens=4)))
    except DebateError as e:
        st.error(error_md(e))


def test_the_apps_client_refuses_a_typed_internal_server_and_the_page_shows_no_secret(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with recorder("error", status=500, error_text=f"denied: {SECRET}") as srv:
        at = AppTest.from_function(_page_asks, args=(f"openai:m@{srv.url}",), default_timeout=60)
        at.run()
        asked = list(srv.requests)
    assert not at.exception, [e.message for e in at.exception]
    said = " ".join(e.value for e in at.error)
    assert "not one configured for this app" in said and SECRET not in said, said
    assert asked == []
