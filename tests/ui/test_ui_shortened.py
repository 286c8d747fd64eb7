"""The viewer says when an agent read a shortened debate (its context window
could not hold it all), live and when reopened from the Library.

A council on scripted members whose answers are long, with `max_context_chars` set below what the
whole discussion needs: the engine condenses the oldest turns, emits a TranscriptShortened event, and the
Debate page and the Library show it as a line in that round.
"""

from __future__ import annotations

from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from tests.ui.test_ui_app import _app, _html, _run_to_end, _set, _store


def _long(label: str) -> str:
    return "I weigh the link and the wording. " * 40 + f'VOTE: {label}\n{{"vote": "{label}", "explanation": "e"}}'


def test_shortened_transcript_is_shown_in_the_debate_and_the_library():
    store = _store()
    store.save_lineup(
        "long-lineup",
        {
            "name": "long-lineup",
            "members": [{"name": "yes", "model": "scripted:long-yes"}, {"name": "no", "model": "scripted:long-no"}],
            "judge": {"name": "judge", "model": "scripted:chair"},
            "chair": {"name": "chair", "model": "scripted:chair"},
        },
    )
    backend = ScriptedBackend(
        {
            "long-yes": _long("YES"),
            "long-no": _long("NO"),
            "chair": '{"status": "CONSENSUS NOT REACHED", "summary": "Look again."}',
        }
    )
    at = _app(_client=ModelClient({"scripted": backend}))
    at.text_area(key="claim").input("Shortened transcript test claim")
    at.selectbox(key="cfg_preset").set_value("saved:long-lineup").run()
    _set(at, "cfg_aids", False)  # the papers' prompts: the whole debate is in the slots being shortened
    at.run()
    _set(at, "p_council_rounds", 2)  # 1 YES / 1 NO: no consensus, two discussion rounds
    _set(at, "p_council_examples", False)
    _set(at, "p_council_max_context_chars", 3000)
    row = _run_to_end(at, timeout=300)
    assert row["status"] == "completed"
    kinds = [e for e in store.events(row["id"]) if e.type == "transcript_shortened"]
    assert kinds and all(e.budget_chars == 3000 and e.final_chars <= 3000 < e.original_chars for e in kinds)
    assert "read a shortened debate" in _html(at)
    at.switch_page("pages/library.py").run()
    at.text_input(key="lib_search").input("Shortened transcript").run()
    assert at.selectbox(key="lib_open").value == row["id"]
    assert "read a shortened debate" in _html(at) and not at.exception
