"""The aids' values in the parameter widgets, when the browser's widget state races the page.

Streamlit lets the browser's widget state win over a value the script set: a browser that sends its
widgets (a person typing in another field) before it has drawn the value the aids just set sends the old
value back. A lost revert left `calibration = threshold` in the widget with the aids off, no longer marked
as the aids', so it ran as the person's choice: a council of models with no fitted threshold failed at
once. These tests play that order of events on `ui.setup` with the session state as a plain dict."""

from __future__ import annotations

import pytest
import streamlit

from debate.lineups import load_lineup
from debate.protocols import resolve_agents
from ui import catalog, setup

TASK = {"task": "checkthat", "category": 1, "custom_title": "", "custom_description": ""}
KEY = "p_council_calibration"


@pytest.fixture
def state(monkeypatch):
    s: dict = {}
    monkeypatch.setattr(streamlit, "session_state", s)
    return s


def _settle(on: bool) -> bool:
    agents = resolve_agents(load_lineup("embedded"), "council")
    return setup.settle_aids("council", catalog.protocols()["council"], TASK, agents, on)


def _next_run(state: dict) -> None:
    """The script's rerun: the pending values are set before the widgets are drawn."""
    setup.apply_pending()


def test_a_revert_the_browser_overwrote_is_made_again(state):
    assert _settle(True) and state[setup.PENDING][KEY] == "threshold"  # the embedded council has thresholds
    _next_run(state)
    assert state[KEY] == "threshold" and not _settle(True)
    assert _settle(False) and state[setup.PENDING][KEY] == "none"  # aids off: the paper's value again
    _next_run(state)
    state[KEY] = "threshold"  # the browser had not drawn "none" yet and sent its old value back
    assert _settle(False), "the lost revert must be made again"
    assert state[setup.PENDING][KEY] == "none"
    _next_run(state)
    assert state[KEY] == "none" and not _settle(False)
    run = setup.run_params("council", catalog.protocols()["council"], {"calibration": state[KEY]})
    assert run["calibration"] == "none"


def test_after_the_revert_showed_the_persons_own_choice_stays(state):
    _settle(True)
    _next_run(state)
    _settle(False)
    _next_run(state)
    assert not _settle(False) and state[KEY] == "none"  # the widget showed the paper's value
    state[KEY] = "threshold"  # now the person picks it
    assert not _settle(False) and state[KEY] == "threshold"
    run = setup.run_params("council", catalog.protocols()["council"], {"calibration": state[KEY]})
    assert run["calibration"] == "threshold"  # sent as their choice


def test_an_aid_the_browser_overwrote_is_set_again(state):
    assert _settle(True)
    _next_run(state)
    state[KEY] = "none"  # the browser's stale state: the paper's value
    assert _settle(True) and state[setup.PENDING][KEY] == "threshold"


def test_a_changed_aid_the_browser_overwrote_is_changed_again(state):
    """With the aids on, a lineup whose models have no fitted threshold turns calibration back to none;
    if the browser sends the old value, the change is made again rather than left as the person's."""
    _settle(True)
    _next_run(state)
    scripted = [{"agent": "a", "role": "member", "model": "scripted:unfitted"}]
    info = catalog.protocols()["council"]
    assert setup.settle_aids("council", info, TASK, scripted, True)
    assert state[setup.PENDING][KEY] == "none"
    _next_run(state)
    state[KEY] = "threshold"  # lost
    assert setup.settle_aids("council", info, TASK, scripted, True) and state[setup.PENDING][KEY] == "none"
