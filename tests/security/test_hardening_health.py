"""Hardening (hostile servers): a server that accepts connections and never answers does not freeze a page.

The servers are real loopback HTTP servers that read each request and never reply. Model lists use a
short health timeout (not the 120/300 s generation timeouts), and the app runs them off the render path.
"""

import time

import pytest

from debate.models.base import HEALTH_TIMEOUT_S
from debate.models.ollama_backend import OllamaBackend
from debate.models.openai_backend import OpenAIBackend
from tests.support.hostile_servers import recorder


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_hung_server_is_reported_down_within_the_health_timeout(kind):
    with recorder("hang") as srv:
        backend = OpenAIBackend(srv.url) if kind == "openai" else OllamaBackend(srv.host)
        assert backend.timeout_s >= 120  # generations keep their long timeout
        backend.client  # noqa: B018 - import the SDK first: its import time is not the check's
        t = time.monotonic()
        rows = backend.list_models()
        took = time.monotonic() - t
    assert took < HEALTH_TIMEOUT_S + 2, took
    assert len(rows) == 1 and rows[0].status == "unreachable"
    assert f"within {HEALTH_TIMEOUT_S:g} s" in rows[0].detail and "health_timeout_s" in rows[0].detail


def test_models_and_debate_pages_render_while_servers_hang(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from debate import config

    monkeypatch.setenv("DEBATE_HOME", str(tmp_path))
    with recorder("hang") as oll, recorder("hang") as oai:
        # a long health timeout makes the point: the page must not wait for the check at all
        config.save_settings(
            {
                "ollama": {"host": oll.host, "health_timeout_s": 60},
                "openai": {"base_url": oai.url, "health_timeout_s": 60},
            }
        )
        at = AppTest.from_file("../../app.py", default_timeout=120)
        at.run()  # the Debate page, whose lineup editor checks the lineup's models
        at.switch_page("pages/models.py")
        t = time.monotonic()
        at.run()
        took = time.monotonic() - t
        assert not at.exception, [e.message for e in at.exception]
        captions = " ".join(c.value for c in at.caption)
        assert "checking" in captions, captions
        assert took < 20, f"the Models page took {took:.1f} s with two hung servers"
        assert oll.requests and oai.requests  # the checks did go out, in the background
