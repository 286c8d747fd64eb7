"""In Debian's chromium: a stored debate whose events carry Markdown images from elsewhere (a server's
error text, a web page's title with a blank line, a phase's note, the stop reason; an imported events file
can hold any of them) is opened in the Library, and a loopback server counts the image requests. Before
the escaping, the browser fetched every one of them (a beacon to whoever wrote the text)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, app_server, have_browser, wait_settled

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not have_browser(), reason="chromium + playwright not installed")]


def _beacon_server() -> tuple[ThreadingHTTPServer, list[str]]:
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, hits


def test_markdown_images_in_stored_events_are_never_fetched(tmp_path):
    from playwright.sync_api import sync_playwright

    from debate.store import DebateStore

    srv, hits = _beacon_server()
    img = lambda name: f"![x](http://127.0.0.1:{srv.server_address[1]}/{name}.png)"
    did = "d-beacons"
    events = [
        {
            "type": "debate_started",
            "seq": 0,
            "debate_id": did,
            "protocol": "council",
            "task": "checkthat",
            "category": 1,
            "claim": "Coffee helps.",
        },
        {
            "type": "evidence",
            "seq": 1,
            "passages": [
                {
                    "id": "E1",
                    "text": "Coffee drinkers lived longer.",
                    "title": "Coffee study\n\n" + img("title"),
                    "url": "https://example.org/coffee",
                    "site": "Example\n\n" + img("site"),
                    "origin": "web",
                    "score": 0.9,
                }
            ],
        },
        {"type": "phase_started", "seq": 2, "phase": "discussion", "round": 1, "note": img("note")},
        {
            "type": "error",
            "seq": 3,
            "error": "BackendUnavailable",
            "message": "m1 failed: " + img("error"),
            "hint": img("hint"),
            "agent": "m1",
            "fatal": True,
        },
        {"type": "finished", "seq": 4, "status": "error", "stop_reason": img("stop")},
    ]
    home = tmp_path / "home"
    home.mkdir()
    store = DebateStore(home / "debates.sqlite")
    store.create_debate({"claim": "Coffee helps.", "protocol": "council", "task": "checkthat", "category": 1}, did)
    for e in events:
        store.append_event(did, e)
    store.close()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 3000})
            with app_server(home) as url:
                page.goto(f"{url}/library?debate={did}")
                wait_settled(page)
                page.get_by_text("Coffee drinkers lived longer.").first.wait_for(timeout=60_000)
                body = page.inner_text("body")
                page.wait_for_timeout(1500)  # images load after the text is drawn
            browser.close()
    finally:
        srv.shutdown()
        srv.server_close()
    assert hits == [], hits
    assert "Coffee study" in body and "m1 failed" in body and "/error.png" in body  # shown, as text
