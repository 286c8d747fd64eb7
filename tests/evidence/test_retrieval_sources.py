"""Evidence sources against loopback stand-ins that speak each service's real HTTP API (OpenAlex
/works, MediaWiki api.php, DuckDuckGo's HTML endpoint, article pages), and every failure the sources
must survive: a service that never answers, 429 with Retry-After, 500, an HTML error page where JSON
belongs, a 20 MB body and a body that never ends. Ranking, the floor and the offline path run on the
real packaged MiniLM embedder."""

from __future__ import annotations

import json

import pytest

from debate.errors import InvalidInput
from debate.retrieval.sources import (
    SourceError,
    SourceRateLimited,
    SourceSettings,
    SourceTimeout,
    SourceTooLarge,
    make,
    parse_names,
)
from tests.support.hostile_servers import evidence_services
from tests.support.servers import closed_port

CLAIM = "New study: people who drink 3 cups of coffee a day live longer, researchers found"


def settings_for(s, **kw) -> SourceSettings:
    return SourceSettings(
        openalex_url=s["openalex"].url,
        wikipedia_url=s["mediawiki"].url + "/w/api.php",
        ddg_url=s["ddg"].url + "/html/",
        allow_private_addresses=("127.0.0.1",),
        contact_email="factcheck@example.org",
        **kw,
    )


def fresh(name: str, st: SourceSettings):
    src = make(name, st)
    src.cache = None
    return src


def test_scholar_reads_openalex_works_through_pyalex_with_the_polite_pool_address():
    with evidence_services() as s:
        hits, how = fresh("scholar", settings_for(s)).search("coffee mortality", 5)
        req = s["openalex"].requests[-1]
    assert how == "live" and len(hits) == 1
    h = hits[0]
    assert h.source == "scholar" and h.title.startswith("Coffee drinking and mortality")
    assert h.doi == "10.1000/standin.0" and h.url == "https://doi.org/10.1000/standin.0"
    assert h.authors == "Ada Lovelace, Alan Turing" and h.venue == "Journal of Stand-ins" and h.date == "2021-03-15"
    assert "500,000 adults" in h.text  # the abstract, rebuilt from OpenAlex's inverted index
    assert req["path"] == "/works" and req["query"]["search"] == "coffee mortality"
    assert req["query"]["mailto"] == "factcheck@example.org" and req["query"]["per-page"] == "5"
    assert "factcheck@example.org" in req["headers"]["user-agent"]


def test_wikipedia_searches_then_reads_the_introductions():
    with evidence_services() as s:
        src = fresh("wikipedia", settings_for(s))
        assert src.health() == (True, "")
        hits, _ = src.search("sea level", 5)
        kinds = [(r["query"].get("list"), r["query"].get("prop")) for r in s["mediawiki"].requests]
    assert ("search", None) in kinds and (None, "extracts|info") in kinds
    assert hits and all(h.source == "wikipedia" and h.site == "wikipedia.org" for h in hits)
    assert hits[0].title.startswith("Global mean sea level") and "/wiki/Global_mean_sea_level" in hits[0].url
    assert "tide gauge" in hits[0].text and "<span" not in hits[0].text


def test_web_search_reads_result_pages_and_keeps_their_provenance():
    with evidence_services() as s:
        hits, _ = fresh("web", settings_for(s)).search("coffee cups mortality", 5)
        ddg = s["ddg"].requests[-1]
    assert ddg["method"] == "POST" and ddg["query"]["q"] == "coffee cups mortality"  # ddgs's own form payload
    assert hits and hits[0].url == s["pages"].url + "/pages/coffee"
    h = hits[0]
    assert h.site == "Science Daily Stand-in" and h.date == "2023-06-01" and "Coffee drinking" in h.title
    assert "500,000 adults" in h.text and "Copyright" not in h.text and "Home | News" not in h.text  # main text only


def test_a_key_goes_only_to_the_service_it_was_saved_for():
    with evidence_services() as s:
        st = settings_for(s, brave_key="secret-brave-key", brave_url=s["openalex"].url + "/brave")
        src = fresh("web", st)
        assert src.backend == "brave"
        hits, _ = src.search("coffee", 3)  # the stand-in is no Brave: an answer without web.results is no hits
        assert hits == []
        sent = [r for srv in s.values() for r in srv.requests if "secret-brave-key" in json.dumps(r)]
    assert sent and all(r["path"] == "/brave" for r in sent)
    assert all(r["headers"].get("x-subscription-token") == "secret-brave-key" for r in sent)


@pytest.mark.parametrize("name,service", [("scholar", "openalex"), ("wikipedia", "mediawiki"), ("web", "ddg")])
@pytest.mark.parametrize(
    "mode,error",
    [
        ("timeout", SourceTimeout),
        ("500", SourceError),
        ("html", SourceError),
        ("huge", SourceTooLarge),
        ("endless", SourceError),
    ],
)
def test_a_failing_service_gives_a_clear_error_in_bounded_time(name, service, mode, error):
    with evidence_services(**{service: mode}) as s:
        src = fresh(name, settings_for(s, timeout_s=1.0))
        with pytest.raises(error) as got:
            src.search("coffee mortality", 5)
        ok, why = src.health(fresh=True)
    msg = got.value.message
    assert msg and "Traceback" not in msg and not ok and why
    if mode == "html" and name != "web":
        assert "HTML page instead of JSON" in msg
    if mode == "endless":
        assert "cap" in msg or "still sending" in msg


@pytest.mark.parametrize("name,service", [("scholar", "openalex"), ("wikipedia", "mediawiki"), ("web", "ddg")])
def test_429_backs_off_for_retry_after_and_says_so(name, service):
    with evidence_services(**{service: "429"}) as s:
        src = fresh(name, settings_for(s))
        with pytest.raises(SourceRateLimited) as first:
            src.search("coffee", 5)
        asked = len(s[service].requests)
        with pytest.raises(SourceRateLimited) as second:
            src.search("coffee", 5)
        assert len(s[service].requests) == asked  # not asked again while backing off
    assert "429" in first.value.message and "backing off 7 s" in first.value.message
    assert "backing off" in second.value.message and 0 < second.value.retry_after <= 7


@pytest.mark.parametrize("page", ["huge", "endless", "error"])
def test_an_unreadable_result_page_falls_back_to_its_snippet(page):
    with evidence_services() as s:
        s["ddg"].extra_results = [s["pages"].url + f"/pages/{page}"]
        src = fresh("web", settings_for(s, timeout_s=1.5, page_max_bytes=500_000))
        hits, _ = src.search("nothing matches here", 5)
    assert [h.text for h in hits] == ["snippet of a page that may not be readable"]
    assert hits[0].url.endswith(f"/pages/{page}")


def test_results_are_cached_on_disk_by_query():
    with evidence_services() as s:
        st = settings_for(s)
        first, how1 = make("scholar", st).search("coffee mortality study cache", 5)
        n = len(s["openalex"].requests)
        again, how2 = make("scholar", st).search("coffee mortality study cache", 5)  # a new object: from disk
        assert len(s["openalex"].requests) == n
    assert (how1, how2) == ("live", "cache") and [h.to_dict() for h in again] == [h.to_dict() for h in first]


def test_source_names_are_checked():
    assert parse_names("web, scholar") == ["web", "scholar"] and parse_names("auto") is None
    with pytest.raises(InvalidInput) as e:
        parse_names("web,google")
    assert "'google'" in e.value.message and "local, scholar, wikipedia, web" in e.value.hint


def test_non_http_addresses_are_never_fetched():
    from debate.retrieval.sources import http

    with pytest.raises(SourceError) as e:
        http.request("x", "GET", "file:///etc/passwd", timeout_s=1, max_bytes=10)
    assert "only http and https" in e.value.message


def test_offline_services_are_reported_unavailable():
    dead = f"http://127.0.0.1:{closed_port()}"
    st = SourceSettings(openalex_url=dead, wikipedia_url=dead + "/w/api.php", ddg_url=dead + "/html/")
    for name in ("scholar", "wikipedia", "web"):
        ok, why = make(name, st).health(fresh=True)
        assert not ok and "cannot be reached" in why


def test_the_export_shows_provenance_escaped():
    from debate.events import DebateFinished, DebateStarted, EvidenceRetrieved, TurnFinished
    from debate.sharing.html import to_html

    p = {
        "id": "E1",
        "text": "An abstract.",
        "origin": "scholar",
        "title": "<script>alert(1)</script> Coffee",
        "url": "https://doi.org/10.1/x",
        "source": "https://doi.org/10.1/x",
        "site": "Journal <b>X</b>",
        "date": "2021-03-15",
        "doi": "10.1/x",
        "query": 'coffee "mortality"',
        "score": 0.61,
    }
    events = [
        DebateStarted(debate_id="d1", protocol="radar", claim="c"),
        EvidenceRetrieved(
            query="q",
            passages=[p],
            floor=0.48,
            sources=[
                {
                    "name": "scholar",
                    "label": "OpenAlex",
                    "state": "live",
                    "passages": 1,
                    "ms": 5,
                    "note": "",
                    "query": "coffee",
                }
            ],
        ),
        TurnFinished(turn_id="t1", agent="scientist", text="As [E1] shows."),
        DebateFinished(status="completed"),
    ]
    html = to_html(events)
    assert (
        "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html and "Journal &lt;b&gt;X&lt;/b&gt;" in html
    )
    assert ">OpenAlex</span>" in html and 'DOI <a href="https://doi.org/10.1/x"' in html
    assert "query “coffee &quot;mortality&quot;”" in html and "cited by scientist" in html
    assert "relevance floor 0.48" in html and "2021-03-15" in html
