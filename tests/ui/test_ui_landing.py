"""Values the app sets in widgets (the live-demo pace, RADAR's task switch, the small-model aids), when the
browser's widget state races the page.

Streamlit lets the browser's widget state win over a value the app set, even in a widget callback: a
browser that sends a rerun (a person typing in another field) before it has drawn the app's new value sends
the old value back, and its old sentinel number with it (ui.landing). These tests play that order of
events on the real callbacks and ui.landing with the session state as a plain dict."""

from __future__ import annotations

import pytest
import streamlit

from debate.lineups import load_lineup
from debate.live import pace as pace_mod
from debate.protocols import PROTOCOLS, resolve_agents
from ui import catalog, landing, setup, widgets

ROUNDS = "p_council_rounds"
DEMO_ROUNDS = pace_mod.DEMO_PARAMS["council"]["rounds"]


@pytest.fixture
def state(monkeypatch):
    s: dict = {}
    monkeypatch.setattr(streamlit, "session_state", s)
    return s


def _paper_rounds() -> int:
    return PROTOCOLS["council"].params["rounds"][0]


def _page_drawn(state: dict) -> None:
    """A run drew the widgets and the sentinel; the browser drew them too (it sends the sentinel back)."""
    landing.mark_drawn()


def _stale_rerun(state: dict, seen: str, **widgets_sent) -> None:
    """The browser's rerun, sent before it drew the app's last values: its widgets and its old sentinel;
    the page's run starts (redo_lost, before the widgets)."""
    state.update(widgets_sent)
    state[landing.SEEN] = seen
    landing.redo_lost()


def _open_page(state: dict, **values) -> str:
    state.update(values)
    _page_drawn(state)
    return state[landing.SEEN]


def test_a_pace_the_browser_overwrote_is_set_again(state):
    seen = _open_page(state, cfg_pace=True, **{ROUNDS: DEMO_ROUNDS, "cfg_max_tokens": pace_mod.max_tokens("demo")})
    state["cfg_pace"] = False  # the person switches the pace off: the toggle's on_change runs
    widgets._apply_pace()
    assert state[ROUNDS] == _paper_rounds() and state["cfg_max_tokens"] == pace_mod.max_tokens("paper")
    _page_drawn(state)  # the app drew them; the browser has not yet
    _stale_rerun(state, seen, **{ROUNDS: DEMO_ROUNDS, "cfg_max_tokens": pace_mod.max_tokens("demo")})
    assert state[ROUNDS] == _paper_rounds(), "the lost pace must be set again"
    assert state["cfg_max_tokens"] == pace_mod.max_tokens("paper")
    info = catalog.protocols()["council"]
    assert setup.run_params("council", info, {"rounds": state[ROUNDS]})["rounds"] == _paper_rounds()


def test_once_the_browser_drew_the_pace_the_persons_own_rounds_stay(state):
    _open_page(state, cfg_pace=True, **{ROUNDS: DEMO_ROUNDS})
    state["cfg_pace"] = False
    widgets._apply_pace()
    _page_drawn(state)
    # the browser drew the paper's rounds (it sends the new number back); the person puts the demo's back
    state[ROUNDS] = DEMO_ROUNDS
    for _ in range(2):  # that rerun and the next
        landing.redo_lost()
        _page_drawn(state)
        assert state[ROUNDS] == DEMO_ROUNDS


def test_after_another_page_nothing_is_redone(state):
    """Back from a page without the set-up: the sentinel was not drawn (its key is gone), so no browser
    state can be judged, and the person's value (the one before the app's) stays."""
    _open_page(state, cfg_pace=True, **{ROUNDS: DEMO_ROUNDS})
    state["cfg_pace"] = False
    widgets._apply_pace()
    _page_drawn(state)
    state[ROUNDS] = DEMO_ROUNDS  # the person's, after the browser drew the paper's
    landing.redo_lost()
    del state[landing.SEEN]  # the Library: no sentinel drawn, Streamlit drops the widget's key
    landing.redo_lost()
    assert state[ROUNDS] == DEMO_ROUNDS


def test_a_value_the_person_typed_while_the_browser_was_behind_is_theirs(state):
    seen = _open_page(state, cfg_pace=True, **{ROUNDS: DEMO_ROUNDS})
    state["cfg_pace"] = False
    widgets._apply_pace()
    _page_drawn(state)
    _stale_rerun(state, seen, **{ROUNDS: _paper_rounds() + 2})  # neither the app's value nor the one before
    assert state[ROUNDS] == _paper_rounds() + 2 and ROUNDS not in state[landing.UNLANDED]


def test_radars_task_switch_the_browser_overwrote_is_made_again(state):
    seen = _open_page(state, cfg_task="checkthat", cfg_protocol="council")
    state["cfg_protocol"] = "radar"
    setup.follow_protocol_widget("cfg_protocol")  # the radio's on_change
    assert state["cfg_task"] == "halftruth"
    _page_drawn(state)
    _stale_rerun(state, seen, cfg_task="checkthat")
    assert state["cfg_task"] == "halftruth"
    assert state[setup.SWITCH_NOTE][0] == "halftruth"  # the page's note about the switch still holds


def test_a_protocol_picked_in_the_racing_rerun_reads_the_task_the_page_showed(state):
    """RADAR picked, then (before the browser drew the switched task) Council: the second callback decides
    on the task the app set, so the task goes back to the person's yes/no task."""
    seen = _open_page(state, cfg_task="checkthat", cfg_protocol="council")
    state["cfg_protocol"] = "radar"
    setup.follow_protocol_widget("cfg_protocol")
    _page_drawn(state)
    state.update({"cfg_task": "checkthat", "cfg_protocol": "council", landing.SEEN: seen})  # stale task
    setup.follow_protocol_widget("cfg_protocol")  # (the sentinel's on_change may run before or after)
    landing.redo_lost()
    assert state["cfg_task"] == "checkthat" and setup.BEFORE_RADAR not in state


TASK = {"task": "checkthat", "category": 1, "custom_title": "", "custom_description": ""}
CALIBRATION = "p_council_calibration"


def test_an_aid_the_browser_overwrote_after_its_run_finished_is_set_again(state):
    """The aids' value landed in a run that finished (so settle_aids took it as shown), and the browser,
    slower than the app, sent its old value afterwards: it is set again, not taken as the person's."""
    agents = resolve_agents(load_lineup("embedded"), "council")
    info = catalog.protocols()["council"]
    seen = _open_page(state, **{CALIBRATION: "none"})  # the paper's value in the widget
    assert setup.settle_aids("council", info, TASK, agents, True)  # this run: rerun with the aid pending
    setup.apply_pending()  # the next run
    assert state[CALIBRATION] == "threshold" and not setup.settle_aids("council", info, TASK, agents, True)
    _page_drawn(state)
    _stale_rerun(state, seen, **{CALIBRATION: "none"})
    assert state[CALIBRATION] == "threshold"
    assert not setup.settle_aids("council", info, TASK, agents, True)  # still the aids' value
    run = setup.run_params("council", info, {"calibration": state[CALIBRATION]})
    assert run["calibration"] == "none"  # sent as the paper's default: the engine applies the aid itself


def test_an_example_the_browser_overwrote_fills_the_claim_again(state):
    seen = _open_page(state, claim="")
    ex = {"text": "Coffee cures colds, a new study shows.", "source": "test"}
    widgets._use_example(ex)  # the example button's on_click
    _page_drawn(state)
    _stale_rerun(state, seen, claim="")  # the browser had not drawn the example's text yet
    assert state["claim"] == ex["text"]
    _stale_rerun(state, seen, claim="My own claim")  # typed by the person: theirs
    assert state["claim"] == "My own claim"


def test_the_debate_page_fills_an_example_and_picks_a_saved_lineup_through_the_landing_rule(monkeypatch):
    """The real page (AppTest): the example button and Save still put their values in the widgets, the
    hidden sentinel carries the number of the last value set, and nothing is redone over them."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("DEBATE_WARM_AHEAD", "0")  # no model warming: this test runs no debate

    at = AppTest.from_file("../../app.py", default_timeout=180)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    at.button(key="ex_0").click().run()
    claim = at.text_area(key="claim").value
    assert claim and claim == at.session_state["example"]["text"]
    assert any(c.value.startswith("Example from") for c in at.caption)
    assert at.text_input(key=landing.SEEN).value == str(at.session_state[landing.COUNT])
    at.text_input(key="lineup_name").input("landing-test").run()
    at.button(key="lineup_save").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="cfg_preset").value == "saved:landing-test"
    at.run()  # a later rerun (the browser up to date) leaves both as they are
    assert at.text_area(key="claim").value == claim and at.selectbox(key="cfg_preset").value == "saved:landing-test"
