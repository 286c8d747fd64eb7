"""The app's pages say what the exports say: a stored council (a member counted otherwise than it wrote, a
chair whose status field contradicts the tally) opened on the Library (where `?debate=ID` opens it), Learn
(its last step and its vote dynamics) and Present (the end of its recorded playback) through AppTest, their
text read by debate/content/consistency.py beside every export: no statement contradicts another, and each
page states the votes, the tally's state and the verdict it is checked on (a few seconds)."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from debate.content.consistency import statements
from debate.store import DebateStore
from tests.services.test_verdict_outcome import council_cfg, council_events
from tests.support.consistency import assert_one_truth, export_screens, page_screens


@pytest.mark.timeout(300)
def test_the_library_learn_and_present_pages_agree_with_every_export():
    store = DebateStore()
    did = store.create_debate(asdict(council_cfg()), "consist01")
    store.append_events(did, council_events())
    store.release(did)
    pages = page_screens(did)
    assert set(pages) == {"page:library", "page:learn", "page:learn-steps", "page:present"}
    assert_one_truth({**export_screens(store, did), **pages})
    said = {name: {s.key: s.value for s in statements(name, text)} for name, text in pages.items()}
    for name in ("page:library", "page:learn"):  # the bubbles' tags, round by round
        assert said[name].get("vote:r1:smol:written") == "NO" and said[name].get("vote:r1:smol:counted") == "YES", (
            name,
            said[name],
        )
        assert said[name].get("consensus:r0") == "not reached", (name, said[name])
    for name in pages:
        assert said[name].get("verdict") == "YES", (name, said[name])
    assert said["page:learn-steps"].get("counts:r1:written") == "NO=1,YES=2"  # every step's title
