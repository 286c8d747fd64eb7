"""A key goes only to the URL it was saved for, also when that server redirects elsewhere.

The HTTP clients follow redirects (the ollama client by default, ours for the openai SDK), and httpx
drops Authorization when a redirect leaves the origin, but our transport sets the secret headers on
every request it sends, so a redirected request must not get them back. Two real loopback servers:
the one the key was saved for answers every request with 307 to the other, which records what it got.
"""

from __future__ import annotations

import pytest

from debate.models.ollama_backend import OllamaBackend
from debate.models.openai_backend import OpenAIBackend
from tests.support.hostile_servers import recorder

SECRET = "sk-secret-for-the-first-server-0123"


def test_an_ollama_key_is_not_sent_on_to_the_host_a_redirect_names():
    with recorder() as other, recorder("redirect", redirect_to="") as mine:
        mine.redirect_to = other.host
        backend = OllamaBackend(host=mine.host, api_key=SECRET)
        names = [m.name for m in backend.list_models()]
        assert names, "the redirected model list was read from the other server"
        assert other.requests, "the other server was asked"
        assert set(mine.authorizations()) == {f"Bearer {SECRET}"}  # the key went to its own host
        assert not any(SECRET in a for a in other.authorizations()), other.authorizations()


def test_openai_secrets_are_not_sent_on_to_the_host_a_redirect_names(monkeypatch):
    monkeypatch.setenv("DEBATE_CACHE", "0")
    with recorder() as other, recorder("redirect") as mine:
        mine.redirect_to = other.host
        monkeypatch.setenv("OPENAI_BASE_URL", mine.url)
        monkeypatch.setenv("OPENAI_ORG_ID", "org-secret-0123")
        monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-secret-0123")
        backend = OpenAIBackend(base_url=mine.url, api_key=SECRET)
        assert backend.list_models()
        assert other.requests
        assert mine.requests[0]["headers"].get("openai-organization") == "org-secret-0123"
        for r in other.requests:
            sent = " ".join(r["headers"].values())
            assert SECRET not in sent and "org-secret" not in sent and "proj-secret" not in sent, r["headers"]


@pytest.mark.parametrize("url", ["http://127.0.0.1:1/v1", "http://127.0.0.1:1"])
def test_the_transport_still_sends_its_secrets_to_its_own_origin(url):
    from debate.models.transport import carries_secrets

    assert carries_secrets(url, "http://127.0.0.1:1/v1/models")
    assert carries_secrets(url, "HTTP://127.0.0.1:1/api/tags")
    assert not carries_secrets(url, "http://127.0.0.1:2/v1/models")
    assert not carries_secrets(url, "https://127.0.0.1:1/v1/models")
    assert not carries_secrets(url, "http://localhost:1/v1/models")


@pytest.mark.parametrize("service", ["brave", "tavily"])
def test_a_search_services_key_is_not_sent_on_to_the_host_a_redirect_names(service):
    """Brave's key rides in a header (httpx keeps custom headers on a redirect), Tavily's in the POST body
    (a 307 resends it): neither may reach a host the service's address redirects to."""
    import json

    from debate.retrieval.sources import SourceError, SourceSettings, make

    with recorder() as other, recorder("redirect") as mine:
        mine.redirect_to = other.host
        st = SourceSettings(
            allow_private_addresses=("127.0.0.1",),
            **{f"{service}_key": SECRET, f"{service}_url": f"{mine.host}/{service}"},
        )
        src = make("web", st)
        src.cache = None
        assert src.backend == service
        with pytest.raises(SourceError) as got:
            src.search("coffee", 3)
        assert "redirect" in got.value.message  # said, not a silent empty result
        assert any(SECRET in json.dumps(r) for r in mine.requests)  # the key went to its own address
        assert not any(SECRET in json.dumps(r) for r in other.requests), other.requests


def test_a_spec_whose_url_holds_a_password_is_refused_not_sent_to_the_default_server(monkeypatch):
    """`openai:m@http://user:pw@host/v1` split at its last `@` read as a model named `m@http://user:pw`
    on the default server: the password went there, with that server's key. It is refused instead, before
    anything is sent (a password in a spec would also be stored with every debate and shown on pages)."""
    from debate.errors import InvalidInput
    from debate.models.registry import default_client

    monkeypatch.setenv("DEBATE_CACHE", "0")
    with recorder() as default:
        monkeypatch.setenv("OPENAI_BASE_URL", default.url)
        client = default_client({})
        with pytest.raises(InvalidInput) as got:
            client.chat(
                "openai:scripted@http://user:pw-0123@127.0.0.1:9/v1", [{"role": "user", "content": "hi"}]
            ).result()
        assert "password" in got.value.message and "Models page" in got.value.hint
        assert "pw-0123" not in got.value.message + got.value.hint  # the refusal does not show it either
        assert not any("pw-0123" in str(r) for r in default.requests), default.requests
