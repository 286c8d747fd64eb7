"""In Debian's chromium: a password saved in a server URL (settings.json of an older version, and
OPENAI_BASE_URL / OLLAMA_HOST in the app's environment) reaches neither the Models page's text, its HTML,
its input boxes, nor any frame the browser receives over the app's websocket."""

from __future__ import annotations

import json

import pytest

from tests.support.browser import app_server, browser_page, have_browser, poll, wait_settled

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not have_browser(), reason="needs /usr/bin/chromium and playwright"),
]

PASSWORD = "hunter2-pw-b7c1"


@pytest.mark.timeout(300)
def test_models_page_in_a_browser_receives_no_password(tmp_path):
    (tmp_path / "settings.json").write_text(
        json.dumps(
            {
                "ollama": {"host": f"http://alice:{PASSWORD}@127.0.0.1:9"},
                "openai": {
                    "base_url": f"http://bob:{PASSWORD}@127.0.0.1:9/v1",
                    "keys": {f"http://bob:{PASSWORD}@127.0.0.1:9/v1": "sk-saved-0001"},
                },
            }
        )
    )
    env = {"OLLAMA_HOST": f"carol:{PASSWORD}@127.0.0.1:9", "OPENAI_BASE_URL": f"http://dave:{PASSWORD}@127.0.0.1:9/v1"}
    received: list[bytes] = []
    with app_server(tmp_path, env) as url, browser_page() as page:
        page.on(
            "websocket",
            lambda ws: ws.on(
                "framereceived", lambda f: received.append(f if isinstance(f, bytes) else str(f).encode())
            ),
        )
        page.goto(url + "/models")
        wait_settled(page)
        page.get_by_text("Settings", exact=True).first.click()  # the expander with the saved URLs
        wait_settled(page)
        assert poll(lambda: "user name or password" in page.inner_text("body"), 30), page.inner_text("body")[:2000]
        boxes = [page.locator(f".st-key-{k} input").input_value() for k in ("set_ollama_host", "set_openai_base")]
        assert boxes == ["http://***@127.0.0.1:9", "http://***@127.0.0.1:9/v1"]
        text, html = page.inner_text("body"), page.content()
    assert received  # the page's frames were seen
    for seen in (text, html, *(f.decode("latin-1") for f in received)):
        assert PASSWORD not in seen
        assert not [n for n in ("alice:", "bob:", "carol:", "dave:") if n in seen]
