"""The audience server on a loopback port: a poll voted from several phones (each its own cookie jar),
a person's seat answered from a phone, and everything else refused.

Real parts: the Starlette app under uvicorn in a thread of this process on a real socket, httpx clients, the real SQLite
file the presenter's pages read (people store, debate store), and for the seat a real council debate run by
the live worker on scripted models (protocol logic only), whose person's seat is handed the phone's turn by
the relay.
"""

from __future__ import annotations

import re
import time

import httpx
import pytest

from debate import live
from debate.audience import links, relay
from debate.audience.limits import RateLimiter
from debate.runner import DebateConfig, run_debate
from debate.store import DebateStore
from debate.store.people import PeopleStore
from tests.support.audience import audience_server
from tests.support.scripted_runs import SCRIPTED_LINEUP, scripted_client

DID, OTHER = "20261205-secret-id", "20261205-other-id"
CLAIM = "<script>alert(1)</script> Coffee cures colds, a study says."


def form_token(html: str) -> str:
    """The form token of the page (bound to the phone's cookie)."""
    m = re.search(r'name="form" value="([^"]+)"', html)
    assert m, html[:500]
    return m.group(1)


def vote(client: httpx.Client, url: str, label: str) -> httpx.Response:
    page = client.get(url)
    assert page.status_code == 200
    return client.post(url, data={"form": form_token(page.text), "label": label})


@pytest.fixture
def poll(tmp_path):
    db = tmp_path / "debates.sqlite"
    people = PeopleStore(db)
    people.open_poll(DID, "before", ("TRUE", "FALSE"), claim=CLAIM)
    people.open_poll(OTHER, "before", ("TRUE", "FALSE"), claim="another debate")
    token = links.AudienceStore(db).link("poll", DID)
    return db, people, token


def test_phones_vote_once_per_stage_and_nothing_else_is_reachable(poll):
    db, people, token = poll
    with audience_server(db) as base:
        url = f"{base}/p/{token}"
        with httpx.Client() as a, httpx.Client() as b:
            page = a.get(url)
            assert page.status_code == 200
            assert "<script>alert(1)</script>" not in page.text and "&lt;script&gt;" in page.text
            assert DID not in page.text and "another debate" not in page.text  # no id, no other debate
            assert "script-src" not in page.headers["content-security-policy"]  # no script at all
            assert page.headers["referrer-policy"] == "no-referrer"
            assert "server" not in page.headers

            token_a = form_token(page.text)
            first = a.post(url, data={"form": token_a, "label": "TRUE"})
            assert first.status_code == 303
            assert 'name="label"' not in a.get(url).text  # voted: no buttons any more
            again = a.post(url, data={"form": token_a, "label": "FALSE"})  # the same phone, posted by hand
            assert again.status_code == 409 and "already voted" in again.text
            assert vote(b, url, "FALSE").status_code == 303  # a second phone counts
            assert people.tallies(DID)["before"] == {"TRUE": 1, "FALSE": 1}

            # the voter cookie changed by hand: refused, nothing counted
            c = httpx.Client()
            page = c.get(url)
            voter = c.cookies.get("phone")
            c.cookies.set("phone", voter[:-3] + ("aaa" if not voter.endswith("aaa") else "bbb"))
            tampered = c.post(url, data={"form": form_token(page.text), "label": "TRUE"})
            assert tampered.status_code == 403
            # a form without its XSRF token (another site posting for the phone): refused
            assert httpx.Client().post(url, data={"label": "TRUE"}).status_code == 403
            assert people.tallies(DID)["before"] == {"TRUE": 1, "FALSE": 1}

            # after the debate: a new stage, one more vote each; results only when the presenter shows them
            people.open_poll(DID, "after", ("TRUE", "FALSE"))
            assert vote(a, url, "FALSE").status_code == 303
            assert "swing" not in a.get(url).text
            links.AudienceStore(db).show_results(DID, True)
            shown = a.get(url).text
            assert "swing" in shown and 'http-equiv="refresh"' in shown
            assert people.tallies(DID)["after"] == {"TRUE": 0, "FALSE": 1}

        with httpx.Client() as x:
            guessed = "A" * len(token)
            for path in (
                "/",
                "/p/",
                f"/p/{guessed}",
                f"/s/{token}",
                f"/p/{DID}",
                "/library",
                f"/?debate={DID}&poll=1",
                "/_stcore/health",
                "/static/x.js",
                "/favicon.ico",
                f"/p/{token}/../../library",
            ):
                assert x.get(base + path).status_code == 404, path
            assert x.request("DELETE", url).status_code in (404, 405)
            assert x.post(base + "/anything", data={"a": "b"}).status_code == 404
            # oversized body: 413 from its declared length, before it is read
            big = x.post(
                url, content=b"label=" + b"x" * 100_000, headers={"content-type": "application/x-www-form-urlencoded"}
            )
            assert big.status_code == 413
    assert people.tallies(OTHER)["before"] == {"TRUE": 0, "FALSE": 0}


def test_rate_limit_per_address(poll):
    db, _, token = poll
    with audience_server(db, limiter=RateLimiter(rate=0.5, burst=5)) as base, httpx.Client() as c:
        codes = [c.get(f"{base}/p/{token}").status_code for _ in range(8)]
        assert codes[:5] == [200] * 5 and codes[5:] == [429] * 3
        r = c.get(f"{base}/p/{token}")
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1


def test_limiter_refills_and_forgets_old_addresses():
    now = [0.0]
    lim = RateLimiter(rate=2, burst=2, max_keys=2, clock=lambda: now[0])
    assert [lim.allow("a")[0] for _ in range(3)] == [True, True, False]
    now[0] += 0.5
    assert lim.allow("a") == (True, 0.0)
    lim.allow("b"), lim.allow("c")  # "a" is forgotten: a full bucket again
    assert len(lim._buckets) == 2 and "a" not in lim._buckets


def test_a_person_types_their_turn_on_a_phone_and_it_reaches_the_store(tmp_path, monkeypatch):
    monkeypatch.setattr(relay, "RELAY_EVERY_S", 0.05)
    db = tmp_path / "debates.sqlite"
    store = DebateStore(db)
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="council",
        task="checkthat",
        category=1,
        lineup=SCRIPTED_LINEUP,
        params={"rounds": 1},
        max_tokens=32,
        humans=["ben"],
        human_timeout_s=30,
    )
    did = live.start_debate(cfg, scripted_client("flip"), None, store, run=run_debate)
    audience = links.AudienceStore(db)
    token = audience.link("seat", did, "ben")
    other = audience.link("seat", did, "ana")  # a seat no person plays: never asked
    try:
        with audience_server(db) as base, httpx.Client() as phone:
            url = f"{base}/s/{token}"
            assert phone.get(f"{base}/s/{'B' * len(token)}").status_code == 404  # a wrong secret
            assert phone.get(f"{base}/p/{token}").status_code == 404  # a seat's token is no poll's
            page = ""
            for _ in range(200):
                page = phone.get(url).text
                if 'name="turn"' in page:
                    break
                time.sleep(0.05)
            assert 'name="turn"' in page, page
            assert "&lt;script&gt;" in page and "<script>" not in page
            assert "Your turn" not in httpx.get(f"{base}/s/{other}").text
            fmt = re.search(r"Answer format: ([^<]*)", page).group(1)
            turn = re.search(r'name="turn" value="([^"]+)"', page).group(1)
            # refused by the turn's own parser (no vote in it), then accepted
            phone.post(url, data={"form": form_token(page), "turn": turn, "text": "I am not sure."})
            for _ in range(100):
                page = phone.get(url).text
                if "Refused" in page:
                    break
                time.sleep(0.05)
            assert "Refused" in page, page
            words = "ANSWER: YES — the tweet names no study."
            assert "ANSWER:" in fmt or "VOTE:" in fmt, fmt
            words = words if "ANSWER:" in fmt else words.replace("ANSWER:", "VOTE:")
            sent = phone.post(url, data={"form": form_token(page), "turn": turn, "text": words})
            assert sent.status_code == 303
            turns = {turn}
            deadline = time.monotonic() + 60
            while live.is_running(did) and time.monotonic() < deadline:  # later turns of the seat, if any
                page = phone.get(url).text
                m = re.search(r'name="turn" value="([^"]+)"', page)
                if m and m.group(1) not in turns:
                    turns.add(m.group(1))
                    phone.post(url, data={"form": form_token(page), "turn": m.group(1), "text": words})
                time.sleep(0.05)
            assert "The debate has ended" in phone.get(url).text
    finally:
        live.stop(did)
        live.wait(did, 30)
    mine = [e for e in store.event_dicts(did) if e["type"] == "turn_finished" and e.get("human")]
    assert [e["text"] for e in mine] == [words] * len(turns)
    assert all(audience.last_answer(did, "ben", t)["status"] == "accepted" for t in turns)


def test_a_seat_is_open_from_its_question_until_its_turn_ends():
    from datetime import UTC, datetime

    from debate.audience import views

    start = {
        "type": "debate_started",
        "lineup": [
            {"agent": "ben", "role": "member", "model": "human:person"},
            {"agent": "ana", "role": "member", "model": "local:x"},
        ],
    }
    ask = {"type": "human_asked", "turn_id": "t1", "agent": "ben", "t": 10.0, "timeout_s": 60.0}
    assert views.person_seats([start]) == [("ben", "member")]
    assert views.open_ask([start, ask], "ben") == ask
    assert views.open_ask([start, ask], "ana") is None
    assert views.open_ask([start, ask, {"type": "turn_finished", "turn_id": "t1"}], "ben") is None
    assert views.open_ask([start, ask, {"type": "human_timeout", "turn_id": "t1"}], "ben") is None
    assert views.open_ask([start, ask, {"type": "finished"}], "ben") is None
    created = "2026-12-05T10:00:00.000+00:00"
    assert views.seconds_left(created, ask, datetime(2026, 12, 5, 10, 0, 30, tzinfo=UTC)) == 40
    assert views.seconds_left(created, ask, datetime(2026, 12, 5, 10, 5, tzinfo=UTC)) == 0
    assert views.seconds_left("not a time", ask, datetime.now(UTC)) == 0


def test_links_are_opaque_and_made_once(tmp_path):
    store = links.AudienceStore(tmp_path / "d.sqlite")
    token = store.link("poll", DID)
    assert store.link("poll", DID) == token and DID not in token and links.well_formed(token)
    assert store.find(token, "poll")["debate_id"] == DID
    assert store.find(token, "seat") is None and store.find("' OR 1=1 --", "poll") is None
    assert store.link("seat", DID, "ben") not in (token, store.link("seat", DID, "ana"))
