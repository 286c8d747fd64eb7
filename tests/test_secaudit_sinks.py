"""Text that people or servers wrote reaches the page as text, never as markup (AppTest, the real
Debate page on a real SQLite store): a saved lineup's seat names are shown through raw-HTML markdown,
so they must be escaped like model output."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from debate import config
from debate.store import DebateStore

APP = "../app.py"
HOSTILE = "<img src=x onerror=alert(1)>"


def test_a_saved_lineups_seat_names_are_shown_as_text_in_the_lineup_editor():
    DebateStore(config.store_db()).save_lineup("hostile", {
        "name": "hostile", "members": [{"name": HOSTILE, "model": "scripted:steady"},
                                       {"name": "plain", "model": "scripted:steady"}],
        "judge": {"name": "judge", "model": "scripted:steady"}, "chair": {"name": "chair", "model": "scripted:steady"}})
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.selectbox(key="cfg_preset").set_value("saved:hostile").run()
    assert not at.exception, [e.message for e in at.exception]
    shown = "\n".join(m.value for m in at.markdown)
    assert "&#60;img src=x onerror=alert(1)&#62;" in shown  # the seat is listed, as text
    assert "<img" not in shown
