"""AppTest of the presenter's side of the audience server: with an audience server running for this home,
Present and the poll controls show the poll's link (a token, not the debate's id) as a QR code, and the
presenter decides whether phones see the results; the Debate page's seat links name each person's seat."""

from __future__ import annotations

import os
from contextlib import contextmanager

from streamlit.testing.v1 import AppTest

from debate import config
from debate.audience import address, links
from debate.events import DebateStarted
from debate.store import DebateStore
from tests.support.scripted_runs import stored_council_debate

T = 90
URL = "http://192.0.2.10:8502"


@contextmanager
def published():
    """An audience server announced in this home (this process stands in for it: its pid is alive)."""
    address.publish(URL)
    try:
        yield
    finally:
        (config.home() / address.INFO_FILE).unlink(missing_ok=True)


def _texts(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [m.value for m in at.caption] + [c.value for c in at.code])


def test_present_shows_the_poll_link_as_a_qr_code_and_the_presenter_decides_what_phones_see():
    did = stored_council_debate("Scan to vote on this.")
    with published():
        at = AppTest.from_file("../../app.py", default_timeout=T)
        at.query_params["debate"] = did
        at.switch_page("pages/present.py").run()
        at.button(key="pres_poll_before").click().run()
        assert not at.exception, at.exception
        token = links.store_at(DebateStore().path).link("poll", did)
        text = _texts(at)
        assert f"{URL}/p/{token}" in text and f"/p/{did}" not in text
        assert len(at.image) >= 1  # the QR code (Present's own, and the poll controls')
        store = links.store_at(DebateStore().path)
        assert not store.results_shown(did)
        at.toggle(key=f"pres_phones_see_{did}").set_value(True).run()
        assert store.results_shown(did)
    assert address.published_url() is None


def _seat_links(did: str) -> None:
    from ui import seat_view

    seat_view.seat_links(did)


def test_debate_page_seat_links_name_each_persons_seat(tmp_path):
    store = DebateStore()
    did = "seat-links-" + str(os.getpid())
    store.create_debate({"claim": "A seat on a phone.", "protocol": "single"}, did)
    lineup = [
        {"agent": "opponent", "role": "opponent", "model": "human:person"},
        {"agent": "proponent", "role": "proponent", "model": "local:smollm2-135m"},
    ]
    store.append_event(did, DebateStarted(debate_id=did, protocol="single", claim="A seat on a phone.", lineup=lineup))
    with published():
        at = AppTest.from_function(_seat_links, args=(did,), default_timeout=T).run()
        assert not at.exception, at.exception
        token = links.store_at(store.path).link("seat", did, "opponent")
        text = _texts(at)
        assert f"{URL}/s/{token}" in text and "proponent" not in text
        assert len(at.image) == 1
    store.release(did)
