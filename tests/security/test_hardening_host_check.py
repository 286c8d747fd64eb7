"""DNS rebinding on loopback: the real app (started as `make run` starts it, with the repository's
.streamlit/config.toml) refuses a websocket whose Host is not this machine's, even when its Origin
matches that Host as a rebound page's does, and accepts the browser's own."""

from __future__ import annotations

import socket
import tomllib
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.support.browser import app_server

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    home = tmp_path_factory.mktemp("host-check-home")
    with app_server(home, {"DEBATE_WARM_AHEAD": "0", "DEBATE_WARM_RETRIEVER": "0"}) as url:
        yield url


def _websocket(url: str, host: str, origin: str) -> str:
    """Open the app's websocket over loopback as if the browser had asked `host` from a page at
    `origin`: "accepted" or "refused (HTTP status)"."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    port = urlparse(url).port
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        with connect(
            f"ws://{host}:{port}/_stcore/stream", sock=sock, origin=origin, subprotocols=["streamlit"], open_timeout=10
        ):
            return "accepted"
    except InvalidStatus as e:
        return f"refused ({e.response.status_code})"


def test_the_config_lists_only_this_machine():
    server = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["server"]
    assert server["allowedHosts"] == ["localhost", "127.0.0.1", "::1"]
    assert server["enableCORS"] is True and server["corsAllowedOrigins"] == [] and server["enableXsrfProtection"]


@pytest.mark.parametrize(
    "host, origin",
    [
        ("rebound.example", "http://rebound.example:{port}"),  # a rebound page: same origin, a foreign name
        ("rebound.example", "http://127.0.0.1:{port}"),
        ("127.0.0.1.rebound.example", "http://127.0.0.1.rebound.example:{port}"),
    ],
)
def test_a_websocket_under_a_foreign_host_is_refused(app, host, origin):
    port = urlparse(app).port
    assert _websocket(app, host, origin.format(port=port)).startswith("refused")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_the_browsers_own_websocket_is_accepted(app, host):
    port = urlparse(app).port
    assert _websocket(app, host, f"http://{host}:{port}") == "accepted"


def test_a_page_elsewhere_cannot_read_the_apps_answers(app):
    request = urllib.request.Request(app + "/_stcore/health", headers={"Origin": "http://rebound.example"})
    with urllib.request.urlopen(request, timeout=10) as r:
        allowed = r.headers.get("Access-Control-Allow-Origin")
    assert allowed in (None, ""), allowed  # no CORS grant: a script on another origin reads nothing
