"""Text that people or servers wrote reaches the page as text, never as markup (AppTest, the real
Debate page on a real SQLite store): a saved lineup's seat names are shown through raw-HTML markdown,
so they must be escaped like model output."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from debate import config
from debate.store import DebateStore

APP = "../../app.py"
HOSTILE = "<img src=x onerror=alert(1)>"


def test_a_saved_lineups_seat_names_are_shown_as_text_in_the_lineup_editor():
    beacon = "![x](http://198.51.100.7/beacon.png)"
    DebateStore(config.store_db()).save_lineup(
        "hostile",
        {
            "name": "hostile",
            "description": f"Mine {beacon}",
            "members": [
                {"name": HOSTILE, "model": "scripted:steady"},
                {"name": "plain", "model": f"scripted:x`{beacon}`"},
            ],
            "judge": {"name": "judge", "model": "scripted:steady"},
            "chair": {"name": "chair", "model": "scripted:steady"},
        },
    )
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.selectbox(key="cfg_preset").set_value("saved:hostile").run()
    assert not at.exception, [e.message for e in at.exception]
    shown = "\n".join(m.value for m in at.markdown)
    assert "&#60;img src=x onerror=alert(1)&#62;" in shown  # the seat is listed, as text
    assert "<img" not in shown
    said = shown + "\n".join(c.value for c in at.caption)
    assert said.count("198.51.100.7/beacon.png") >= 2, said  # the description and the spec are shown
    assert "![" not in said and "](" not in said, said


def _render_hostile_events() -> None:
    """A stored debate whose events hold Markdown from elsewhere (an imported events file, a server's
    error text) in the fields shown through plain Markdown: a phase's note, an error, the stop reason."""
    from debate.events import event_from_dict
    from ui.render import render_debate
    from ui.transcript import build_view

    beacon = "![x](http://198.51.100.7/beacon.png) [click me](http://198.51.100.7/phish)"
    events = [
        {
            "type": "debate_started",
            "seq": 0,
            "debate_id": "d-hostile",
            "protocol": "council",
            "task": "checkthat",
            "claim": "A claim.",
        },
        {"type": "phase_started", "seq": 1, "phase": "discussion", "round": 1, "note": beacon},
        {
            "type": "error",
            "seq": 2,
            "error": "BackendUnavailable",
            "message": f"m1 failed: {beacon}",
            "hint": beacon,
            "agent": "m1",
            "fatal": True,
        },
        {"type": "finished", "seq": 3, "status": "error", "stop_reason": beacon},
    ]
    render_debate(build_view([event_from_dict(e) for e in events]), "d-hostile")


def test_markdown_from_events_is_shown_as_text_not_as_images_or_links():
    at = AppTest.from_function(_render_hostile_events, default_timeout=60)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    shown = [e.value for e in (*at.error, *at.warning, *at.caption)]
    assert sum("198.51.100.7/beacon.png" in s for s in shown) >= 3, shown  # note, error and stop reason shown
    assert not any("![" in s or "](" in s for s in shown), shown


def test_a_servers_error_text_is_shown_as_text_on_the_models_page(monkeypatch):
    """The server's own error message reaches st.error (Markdown): an image there is fetched by the
    browser of whoever opens the page, a link invites a click."""
    from debate.models.client import ModelClient
    from debate.models.openai_backend import OpenAIBackend
    from tests.support.hostile_servers import recorder

    monkeypatch.setenv("DEBATE_CACHE", "0")
    beacon = "![x](http://198.51.100.7/beacon.png) [click me](http://198.51.100.7/phish)"
    with recorder("error", status=400, error_text=beacon, list_ok=True) as srv:
        client = ModelClient({f"openai@{srv.url}": OpenAIBackend(base_url=srv.url, url_in_spec=True)})
        at = AppTest.from_file(APP, default_timeout=120)
        at.session_state["_client"] = client
        at.run()
        at.switch_page("pages/models.py").run()
        at.selectbox(key="try_model").set_value(f"openai:scripted@{srv.url}")
        at.text_area(key="try_prompt").input("hi")
        at.button(key="try_send").click().run()
    assert not at.exception, [e.message for e in at.exception]
    errors = [e.value for e in at.error]
    assert any("198.51.100.7/beacon.png" in e for e in errors), errors  # the server's text is shown
    assert not any("![" in e or "](" in e for e in errors), errors


def _render_hostile_evidence() -> None:
    """Evidence whose provenance (a web page's title and site, the query, a source's note) holds a blank
    line and Markdown: the raw-HTML block of the evidence panel must not end inside it."""
    from debate.events import event_from_dict
    from ui.render import render_evidence
    from ui.transcript import build_view

    md = "\n\n![x](http://198.51.100.7/beacon.png) *shout*"
    passage = {
        "id": "E1",
        "text": "Coffee drinkers lived longer.",
        "title": "Coffee study" + md,
        "url": "https://example.org/coffee",
        "site": "Example" + md,
        "origin": "web",
        "query": "coffee" + md,
        "score": 0.9,
    }
    events = [
        {
            "type": "debate_started",
            "seq": 0,
            "debate_id": "d-ev",
            "protocol": "council",
            "task": "checkthat",
            "claim": "Coffee helps.",
        },
        {
            "type": "evidence",
            "seq": 1,
            "passages": [passage],
            "note": "note" + md,
            "sources": [{"name": "web", "label": "web", "state": "failed", "note": "cut" + md, "passages": 0}],
        },
    ]
    render_evidence(build_view([event_from_dict(e) for e in events]), "d-ev")


def test_web_page_titles_with_blank_lines_stay_inside_the_evidence_html():
    at = AppTest.from_function(_render_hostile_evidence, default_timeout=60)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    html_blocks = [m.value for m in at.markdown if m.value.lstrip().startswith("<")]
    assert any("Coffee study" in h and "Example" in h and "198.51.100.7/beacon.png" in h for h in html_blocks)
    # a blank line ends a raw-HTML block in Markdown: what follows would be read as Markdown (an image)
    assert not [h for h in html_blocks if "\n\n" in h.strip()], html_blocks


def test_a_lone_carriage_return_cannot_end_the_raw_html_block_of_model_text():
    """CommonMark ends a line at CR as at LF: two CRs are a blank line, which ends the raw-HTML block that
    text_html builds, and what follows would be read as Markdown (`www.` becomes a link)."""
    from ui.safe import text_html

    out = text_html("a\r\rwww.198-51-100-7.example/phish\r\nb\nc")
    assert "\r" not in out and "\n" not in out
    assert out.count("<br>") == 4 and "www.198-51-100-7.example/phish" in out


def test_the_models_page_refuses_a_server_url_holding_a_password(tmp_path, monkeypatch):
    """The saved URL is sent back to the browser as the box's value, shown in errors and in the list of
    URLs with keys: a password in it would go everywhere a key never goes."""
    monkeypatch.setenv("DEBATE_HOME", str(tmp_path))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/models.py").run()
    at.text_input(key="set_openai_base").input("http://user:pw-0123@127.0.0.1:9/v1")
    next(b for b in at.button if "Save" in b.label).click().run()
    assert not at.exception, [e.message for e in at.exception]
    errors = " ".join(e.value for e in at.error)
    assert "password" in errors and "pw-0123" not in errors
    assert "pw-0123" not in json.dumps(config.load_settings())  # nothing saved
