"""Search results and search services are other people's text: one result whose address or redirect no
parser reads the same way costs that result only, never the whole web source (loopback stand-ins); a
Brave or Tavily key goes only to the address it was configured for, as the model backends' keys do."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from debate.retrieval.sources import SourceSettings, http, make
from tests.support.hostile_servers import evidence_services


def _web(s, **kw):
    src = make(
        "web",
        SourceSettings(ddg_url=s["ddg"].url + "/html/", pages=10, timeout_s=3.0, **kw),
    )
    src.cache = None
    return src


@pytest.mark.parametrize("url", ["http://0177.0.0.1/", "http://0x7f.1/", "http:\\\\example.org", "http://[::1/x"])
def test_addresses_that_parsers_read_differently_are_refused(url):
    with pytest.raises(http.SourceBlocked, match="could not be read"):
        http.readable_url(url)


@pytest.mark.parametrize(
    "url", ["https://example.org/a%20b?q=1#x", "http://Bücher.example/", "http://[2001:db8::1]:8080/"]
)
def test_plain_addresses_pass(url):
    assert http.readable_url(url) == url


def test_an_unreadable_address_or_redirect_skips_that_result_only():
    with evidence_services() as s:
        pages = s["pages"].url
        # quoted twice: the result list's parser unquotes the address once, the stand-in the `to` parameter
        bad_redirect = f"{pages}/pages/redirect?to={quote(quote(chr(92) * 2 + 'example.org', safe=''))}"
        bad_redirect_abs = f"{pages}/pages/redirect?to={quote(quote('http:' + chr(92) * 2 + 'example.org', safe=''))}"
        s["ddg"].extra_results = ["http://0177.0.0.1/", bad_redirect, bad_redirect_abs, f"{pages}/a{chr(92)}b"]
        hits, how = _web(s, allow_private_addresses=("127.0.0.1",)).search("coffee cups", 10)
        paths = [r["path"] for r in s["pages"].requests]
    assert how == "live"
    assert any("500,000 adults" in h.text for h in hits)  # the good result is still read
    why = {h.url: h.skipped for h in hits if h.skipped}
    assert why["http://0177.0.0.1/"] == "Not fetched: its address could not be read."
    assert why[f"{pages}/a{chr(92)}b"] == "Not fetched: its address could not be read."
    redirected = [u for u in why if "/pages/redirect" in u]
    assert len(redirected) == 2, why
    for url in redirected:
        assert why[url].startswith("Not fetched: it redirected to an address that could not be read"), why
    assert all(p in ("/pages/coffee", "/pages/redirect") for p in paths)  # no hop after the bad redirects


def test_a_brave_key_goes_only_to_the_address_it_was_configured_for(monkeypatch):
    monkeypatch.setenv("DEBATE_EVIDENCE_BRAVE_KEY", "env-brave-key")
    monkeypatch.delenv("DEBATE_EVIDENCE_BRAVE_URL", raising=False)
    with evidence_services() as s:
        stand_in = s["openalex"].url + "/brave"  # answers anything: an answer without web.results is no hits
        # the settings file names another address than the one the environment's key is for (Brave's own)
        src = make("web", SourceSettings.load({"brave_url": stand_in, "pages": 0}))
        src.cache = None
        assert src.backend == "brave"
        with pytest.raises(http.SourceError, match="saved for another address"):
            src.search("coffee", 3)
        assert s["openalex"].requests == []  # not even asked without the key
        monkeypatch.setenv("DEBATE_EVIDENCE_BRAVE_URL", stand_in)  # now the key's own address
        src = make("web", SourceSettings.load({"pages": 0}))
        src.cache = None
        src.search("coffee", 3)
        sent = list(s["openalex"].requests)
    assert [r["headers"].get("x-subscription-token") for r in sent] == ["env-brave-key"]


def test_a_key_saved_with_an_address_in_the_settings_file_belongs_to_that_address(monkeypatch):
    for name in ("BRAVE_URL", "BRAVE_KEY", "TAVILY_URL", "TAVILY_KEY"):
        monkeypatch.delenv(f"DEBATE_EVIDENCE_{name}", raising=False)
    s = SourceSettings.load({"tavily_key": "saved", "tavily_url": "http://mirror.example/search"})
    assert s.key_for("tavily") == "saved"
    monkeypatch.setenv("DEBATE_EVIDENCE_TAVILY_KEY", "env-key")
    s = SourceSettings.load({"tavily_url": "http://mirror.example/search"})  # the environment's key is Tavily's
    assert s.tavily_key == "env-key" and s.key_for("tavily") is None
    monkeypatch.setenv("DEBATE_EVIDENCE_TAVILY_URL", "http://other.example/search")
    s = SourceSettings.load({})
    assert s.tavily_url == "http://other.example/search" and s.key_for("tavily") == "env-key"
    s = SourceSettings.load(
        {"keys": {"http://mirror.example/search": "per-url"}, "tavily_url": "http://mirror.example/search"}
    )
    assert s.key_for("tavily") == "per-url"
    code_set = SourceSettings(brave_key="k", brave_url="http://127.0.0.1:9/search")  # a test's stand-in
    assert code_set.key_for("brave") == "k"
