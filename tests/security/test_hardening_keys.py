"""Hardening (keys): an API key goes only to the base URL it was saved for, never back to a
browser, and settings.json is written atomically, readable by its owner only.

The servers are real HTTP servers on loopback that record every request's headers
(tests/support/hostile_servers.py); the debate is a real council run through the engine.
"""

import json
import os
import stat

import pytest

from debate import config
from debate.models.openai_backend import key_for
from debate.models.registry import default_client
from debate.protocols import validate_lineup
from debate.runner import DebateConfig, run_debate
from tests.support.hostile_servers import recorder

SECRET = "sk-secret-0123456789abcd"


@pytest.fixture
def env_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("DEBATE_CACHE", "0")


def _council(url: str) -> DebateConfig:
    members = [{"name": f"m{i}", "model": f"openai:scripted@{url}", "temperature": 0.7, "seed": i} for i in (1, 2)]
    lineup = {"name": "shared", "members": members, "judge": members[0], "chair": members[0]}
    return DebateConfig(
        claim="A new study shows X.", protocol="council", lineup=lineup, max_tokens=32, params={"rounds": 1}
    )


def test_a_lineup_naming_another_url_never_receives_the_environment_key(env_key):
    with recorder() as srv:
        client = default_client({})
        rows = validate_lineup(_council(srv.url).lineup, client, "council", {"rounds": 1})  # the status check
        assert rows and all(r["ok"] for r in rows), rows
        events = list(run_debate(_council(srv.url), client))
        assert events[-1].type == "finished" and events[-1].status == "completed"
        auth = srv.authorizations()
        assert len(auth) >= 3  # /models for the check, then the members' chat calls
        assert not any(SECRET in a for a in auth), auth


def test_a_saved_key_goes_to_its_own_url_only(env_key):
    with recorder() as mine, recorder() as other:
        settings = {"openai": {"base_url": mine.url, "api_key": "sk-saved-for-mine"}}
        client = default_client(settings)
        assert client.chat(f"openai:scripted@{mine.url}", [{"role": "user", "content": "hi"}]).result().text
        assert client.chat(f"openai:scripted@{other.url}", [{"role": "user", "content": "hi"}]).result().text
        assert client.chat("openai:scripted", [{"role": "user", "content": "hi"}]).result().text  # no @url: mine
        assert set(mine.authorizations()) == {"Bearer sk-saved-for-mine"}
        assert not any("sk-saved" in a or SECRET in a for a in other.authorizations())


def test_key_for_is_scoped_per_url():
    env = {"OPENAI_API_KEY": "sk-env"}
    assert key_for("https://api.openai.com/v1/", {}, env) == "sk-env"
    assert key_for("http://127.0.0.1:8000/v1", {}, env) is None
    assert key_for("http://evil.example/v1", {"api_key": "sk-s"}, env) is None
    assert key_for("https://api.openai.com/v1", {"api_key": "sk-s"}, env) == "sk-s"
    s = {"base_url": "http://Box:8000/v1/", "api_key": "sk-box", "keys": {"http://other:1/v1": "sk-other"}}
    assert key_for("http://box:8000/v1", s, env) == "sk-box"
    assert key_for("http://other:1/v1/", s, env) == "sk-other"
    assert key_for("https://api.openai.com/v1", s, env) == "sk-env"  # the environment's own URL
    assert key_for("https://api.openai.com/v1", s, {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://x/v1"}) is None


@pytest.fixture
def own_home(tmp_path, monkeypatch):
    """settings.json of these tests must not leak into the session's other tests."""
    monkeypatch.setenv("DEBATE_HOME", str(tmp_path))
    return tmp_path


def test_settings_are_written_atomically_and_private(own_home):
    config.save_settings({"openai": {"keys": {"http://h/v1": SECRET}}})
    p = config.settings_path()
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
    assert json.loads(p.read_text())["openai"]["keys"]["http://h/v1"] == SECRET
    assert [f.name for f in p.parent.iterdir() if f.name.startswith(p.name)] == [p.name]  # no temp file left
    os.chmod(p, 0o644)  # an older file with default permissions is tightened on the next save
    config.save_settings({"openai": {}})
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o600


def test_models_page_never_sends_the_key_to_the_browser(own_home):
    from streamlit.testing.v1 import AppTest

    url = "http://127.0.0.1:9/v1"
    config.save_settings({"openai": {"base_url": url, "keys": {url: SECRET}}})
    at = AppTest.from_file("../../app.py", default_timeout=60)
    at.run()
    at.switch_page("pages/models.py").run()
    assert not at.exception, at.exception
    shown = json.dumps(
        [getattr(e, "value", None) for e in at.text_input]
        + [m.value for m in at.markdown]
        + [c.value for c in at.caption],
        default=str,
    )
    assert SECRET not in shown and "abcd" in shown  # only the last four characters
    # saving the form with the key box left empty keeps the saved key
    at.text_input(key="set_ollama_host").set_value("http://127.0.0.1:11434")
    next(b for b in at.button if "Save" in b.label).click().run()
    assert not at.exception, at.exception
    saved = config.load_settings()["openai"]
    assert saved["keys"][url] == SECRET
    assert SECRET not in json.dumps([e.value for e in at.text_input])
