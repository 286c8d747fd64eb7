"""Values the app sets in widgets (the live-demo pace, RADAR's task switch), when the browser's widget state
races the page.

Streamlit lets the browser's widget state win over a value the app set, even in a widget callback: a
browser that sends a rerun (a person typing in another field) before it has drawn the app's new value sends
the old value back. These tests play that order of events on the real callbacks and ui.landing with the
session state as a plain dict: a callback's write, the run cut short before the page got past its widgets
(no `confirm`), the browser's stale value, then the next run."""

from __future__ import annotations

import pytest
import streamlit

from debate.live import pace as pace_mod
from debate.protocols import PROTOCOLS
from ui import catalog, landing, setup, widgets

ROUNDS = "p_council_rounds"


@pytest.fixture
def state(monkeypatch):
    s: dict = {}
    monkeypatch.setattr(streamlit, "session_state", s)
    return s


def _paper_rounds() -> int:
    return PROTOCOLS["council"].params["rounds"][0]


def _pace_on(state: dict) -> None:
    """The person switches the live-demo pace on: the toggle's on_change runs before the script."""
    state["cfg_pace"] = True
    widgets._apply_pace()


def _run_drew_the_widgets() -> None:
    """A run that drew the set-up widgets and got past them (the pages' settle_aids is that point)."""
    landing.redo_lost()
    landing.confirm()


def test_a_pace_the_browser_overwrote_is_set_again(state):
    state.update({"cfg_pace": False, ROUNDS: _paper_rounds(), "cfg_max_tokens": pace_mod.max_tokens("paper")})
    _pace_on(state)
    assert state[ROUNDS] == pace_mod.DEMO_PARAMS["council"]["rounds"] != _paper_rounds()
    # the run is cut short by the browser's next rerun, which had not drawn the pace's values yet
    state[ROUNDS] = _paper_rounds()
    state["cfg_max_tokens"] = pace_mod.max_tokens("paper")
    landing.redo_lost()  # the next run, before the widgets
    assert state[ROUNDS] == pace_mod.DEMO_PARAMS["council"]["rounds"], "the lost pace must be set again"
    assert state["cfg_max_tokens"] == pace_mod.max_tokens("demo")
    info = catalog.protocols()["council"]
    assert setup.run_params("council", info, {"rounds": state[ROUNDS]})["rounds"] == state[ROUNDS]


def test_once_the_pace_showed_the_persons_own_rounds_stay(state):
    state.update({"cfg_pace": False, ROUNDS: _paper_rounds()})
    _pace_on(state)
    _run_drew_the_widgets()
    state[ROUNDS] = _paper_rounds()  # now the person wants the paper's rounds back
    _run_drew_the_widgets()
    assert state[ROUNDS] == _paper_rounds()
    assert not state[landing.UNLANDED]


def test_a_third_value_in_a_cut_run_is_the_persons(state):
    state.update({"cfg_pace": False, ROUNDS: _paper_rounds()})
    _pace_on(state)
    state[ROUNDS] = _paper_rounds() + 1  # typed by the person into the widget: neither the pace's value nor the one before
    _run_drew_the_widgets()
    assert state[ROUNDS] == _paper_rounds() + 1 and ROUNDS not in state[landing.UNLANDED]


def test_radars_task_switch_the_browser_overwrote_is_made_again(state):
    state.update({"cfg_task": "checkthat", "cfg_protocol": "radar"})
    setup.follow_protocol_widget("cfg_protocol")  # the radio's on_change
    assert state["cfg_task"] == "halftruth"
    state["cfg_task"] = "checkthat"  # the browser's stale task
    landing.redo_lost()
    assert state["cfg_task"] == "halftruth"
    # the page's note about the switch stays, rather than taking the stale task for the person's choice
    assert state[setup.SWITCH_NOTE][0] == "halftruth"


def test_a_protocol_picked_in_the_racing_run_reads_the_task_the_page_showed(state):
    """RADAR picked, then (before the browser drew the switched task) Council: the second callback decides
    on the task the page showed, so the task goes back to the person's yes/no task."""
    state.update({"cfg_task": "checkthat", "cfg_protocol": "radar"})
    setup.follow_protocol_widget("cfg_protocol")
    state.update({"cfg_task": "checkthat", "cfg_protocol": "council"})  # stale task, the new protocol
    setup.follow_protocol_widget("cfg_protocol")
    landing.redo_lost()
    landing.confirm()
    assert state["cfg_task"] == "checkthat" and setup.BEFORE_RADAR not in state
    assert not state[landing.UNLANDED]
