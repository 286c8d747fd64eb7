"""Result pages are read only from public addresses: a search result (or a redirect from one) that points
at this machine, the local network or a cloud metadata service is skipped, with the reason recorded, and
no connection is made to it. The loopback stand-ins of the other tests are let through only by the
explicit `allow_private_addresses` they pass."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from debate.retrieval.multi import MultiRetriever
from debate.retrieval.sources import SourceSettings, http, make
from tests.support.hostile_servers import evidence_services


def _settings(s, **kw) -> SourceSettings:
    return SourceSettings(
        openalex_url=s["openalex"].url,
        wikipedia_url=s["mediawiki"].url + "/w/api.php",
        ddg_url=s["ddg"].url + "/html/",
        pages=10,
        timeout_s=3.0,
        **kw,
    )


def _web(st: SourceSettings):
    src = make("web", st)
    src.cache = None
    return src


@pytest.mark.parametrize(
    "address,kind",
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.0.10", "private"),
        ("172.16.5.4", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("0.0.0.0", "unspecified"),
        ("100.64.0.1", "public"),
        ("64:ff9b::a00:1", "private"),
        ("224.0.0.1", "multicast"),
    ],
)
def test_non_public_addresses_are_named(address, kind):
    what = http.address_problem(address)
    assert what is not None and (kind in what or kind == "public" and "not a public" in what)


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_pass(address):
    assert http.address_problem(address) is None


def test_result_pages_on_private_addresses_are_skipped_and_never_contacted():
    with evidence_services() as s:
        port = s["pages"].port
        s["ddg"].extra_results = [
            f"http://localhost:{port}/pages/sealevel",
            "http://169.254.169.254/latest/meta-data/",
            "http://10.0.0.1/admin",
            f"http://[::1]:{port}/pages/sealevel",
        ]
        hits, _ = _web(_settings(s)).search("coffee cups", 10)  # no allowance: a real user's settings
        contacted = list(s["pages"].requests)
    assert contacted == []  # not even the stand-in's own 127.0.0.1 page
    assert not any(h.text for h in hits)
    why = {h.url: h.skipped for h in hits}
    assert why[s["pages"].url + "/pages/coffee"] == "Not fetched: 127.0.0.1 is a loopback address (this machine)."
    assert why[f"http://localhost:{port}/pages/sealevel"].startswith("Not fetched: localhost resolves to ")
    assert "loopback" in why[f"http://localhost:{port}/pages/sealevel"]
    assert why["http://169.254.169.254/latest/meta-data/"] == (
        "Not fetched: 169.254.169.254 is a link-local address (e.g. a cloud metadata service)."
    )
    assert why["http://10.0.0.1/admin"] == "Not fetched: 10.0.0.1 is a private-network address."
    assert "::1 is a loopback address" in why[f"http://[::1]:{port}/pages/sealevel"]


def test_the_evidence_event_says_which_pages_were_skipped_and_why():
    with evidence_services() as s:
        s["ddg"].extra_results = ["http://169.254.169.254/latest/meta-data/"]
        m = MultiRetriever(["web"], settings=_settings(s), floor=None)
        for src in m.sources.values():
            src.cache = None
        g = m.gather("coffee cups", 5)
    (web,) = g.sources
    assert web["passages"] == 0 and g.passages == []
    assert {x["url"] for x in web["skipped"]} == {
        s["pages"].url + "/pages/coffee",
        "http://169.254.169.254/latest/meta-data/",
    }
    assert "result page(s) skipped: Not fetched:" in web["note"]
    json.dumps(g.sources)  # the states go into the stored event as they are


@pytest.mark.parametrize(
    "target,kind",
    [
        ("http://127.0.0.2:{port}/pages/coffee", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::1]:{port}/pages/coffee", "loopback"),
    ],
)
def test_a_redirect_to_a_private_address_is_stopped_at_the_hop(target, kind):
    with evidence_services() as s:
        port = s["pages"].port
        to = target.format(port=port)
        # the stand-in's 127.0.0.1 plays a public site here (allowed by exact address); where it redirects is not
        s["ddg"].extra_results = [f"{s['pages'].url}/pages/redirect?to={quote(to, safe='')}"]
        hits, _ = _web(_settings(s, allow_private_addresses=("127.0.0.1",))).search("nothing matches", 5)
        paths = [r["path"] for r in s["pages"].requests]
    assert paths == ["/pages/redirect"]  # the first hop was read; the target never was
    (h,) = hits
    assert h.text == "" and h.skipped.startswith("Not fetched: ") and kind in h.skipped


def test_the_stand_ins_are_read_only_when_a_test_allows_their_address():
    with evidence_services() as s:
        hits, _ = _web(_settings(s, allow_private_addresses=("127.0.0.1",))).search("coffee cups", 5)
    assert hits and "500,000 adults" in hits[0].text and not hits[0].skipped


def test_the_allowance_is_never_read_from_the_environment_or_the_settings_file(monkeypatch):
    monkeypatch.setenv("DEBATE_EVIDENCE_ALLOW_PRIVATE_ADDRESSES", "127.0.0.1")
    assert SourceSettings.load({}).allow_private_addresses == ()
    assert SourceSettings.load({"allow_private_addresses": ["127.0.0.1"]}).allow_private_addresses == ()
