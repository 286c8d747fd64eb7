"""A password already in a saved server URL (settings.json from an older version, OPENAI_BASE_URL,
OLLAMA_HOST) never reaches a page, an error message, a lineup name or a stored artifact: such a URL is
refused where a backend is made from it, with a message that shows it redacted and says what to do."""

from __future__ import annotations

import json
import time

import pytest

from debate import config
from debate.errors import InvalidInput
from debate.lineup_server import parse_server
from debate.models.registry import known_models, make_backend
from debate.models.spec import ModelSpec, redacted
from debate.sharing import exports

PASSWORD = "hunter2-pw-9f3a"
OLLAMA_URL = f"http://alice:{PASSWORD}@127.0.0.1:9"
OPENAI_URL = f"http://bob:{PASSWORD}@127.0.0.1:9/v1"


@pytest.fixture
def own_home(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_HOME", str(tmp_path))
    for var in ("OPENAI_BASE_URL", "OLLAMA_HOST", "OPENAI_API_KEY", "OLLAMA_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def test_redacted_replaces_userinfo_and_keeps_the_rest():
    assert redacted(OLLAMA_URL) == "http://***@127.0.0.1:9"
    assert redacted(OPENAI_URL) == "http://***@127.0.0.1:9/v1"
    assert redacted(f"alice:{PASSWORD}@gpu:11434") == "***@gpu:11434"  # OLLAMA_HOST without a scheme
    assert redacted(f"openai:m@{OPENAI_URL}") == "openai:m@http://***@127.0.0.1:9/v1"  # a whole spec
    assert redacted("http://127.0.0.1:9/v1?who=a@b") == "http://127.0.0.1:9/v1?who=a@b"  # no userinfo
    assert redacted("org/model@rev") == "org/model@rev" and redacted("") == ""


@pytest.mark.parametrize(
    "backend,section,field,env",
    [("ollama", "ollama", "host", "OLLAMA_HOST"), ("openai", "openai", "base_url", "OPENAI_BASE_URL")],
)
def test_a_url_with_a_password_is_refused_at_load_without_showing_it(
    own_home, monkeypatch, backend, section, field, env
):
    url = OLLAMA_URL if backend == "ollama" else OPENAI_URL
    for settings in ({section: {field: url}}, {}):
        if not settings:
            monkeypatch.setenv(env, url)
        with pytest.raises(InvalidInput) as e:
            make_backend(ModelSpec(backend, "m"), settings)
        text = f"{e.value.message} {e.value.hint}"
        assert PASSWORD not in text and "alice" not in text and "bob" not in text
        assert "***@127.0.0.1:9" in text and "user name or password" in text
        assert (env if not settings else f"{section}.{field}") in text  # says where it came from
        rows = known_models(settings, (backend,))
        assert rows[0].status == "error" and PASSWORD not in json.dumps([r.detail for r in rows])


def test_a_server_url_with_a_password_is_refused_without_showing_it():
    for text in (f"openai@{OPENAI_URL}", OPENAI_URL, f"ollama@{OLLAMA_URL}"):
        with pytest.raises(InvalidInput) as e:
            parse_server(text)
        assert PASSWORD not in f"{e.value.message} {e.value.hint}"
    with pytest.raises(InvalidInput) as e:
        parse_server(f"vllm@{OPENAI_URL}")  # the unknown-kind message quotes the text
    assert PASSWORD not in f"{e.value.message} {e.value.hint}"


def _everything(at) -> str:
    """All the page sends to the browser, as text: every element's protobuf, recursively."""
    out: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        for child in (getattr(node, "children", None) or {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(out)


def test_models_page_never_shows_a_password_saved_in_a_url(own_home, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("OPENAI_BASE_URL", OPENAI_URL.replace("bob", "carol"))
    config.save_settings({"ollama": {"host": OLLAMA_URL}, "openai": {"keys": {OPENAI_URL: "sk-saved-key-0001"}}})
    at = AppTest.from_file("../../app.py", default_timeout=60)
    at.run()
    at.switch_page("pages/models.py").run()
    deadline = time.time() + 30
    while "checking" in _everything(at) and time.time() < deadline:
        time.sleep(0.3)
        at.run()
    assert not at.exception, at.exception
    shown = _everything(at)
    assert "user name or password" in shown  # the person is told why the servers are not used
    assert PASSWORD not in shown and "alice" not in shown and "carol" not in shown
    assert at.text_input(key="set_ollama_host").value == "http://***@127.0.0.1:9"


@pytest.mark.timeout(300)
def test_debate_page_with_a_password_in_openai_base_url_says_why_without_it(own_home, monkeypatch):
    """The Debate page's model check and Run, for a lineup on the environment's OpenAI-compatible server."""
    from streamlit.testing.v1 import AppTest

    from debate.store import DebateStore

    monkeypatch.setenv("OPENAI_BASE_URL", OPENAI_URL)
    monkeypatch.setenv("DEBATE_WARM_AHEAD", "0")  # no embedded model is read ahead: this lineup has none
    seats = [{"name": m, "model": "openai:qwen"} for m in ("m1", "m2")]
    DebateStore(config.store_db()).save_lineup(
        "on-env", {"name": "on-env", "members": seats, "judge": seats[0], "chair": seats[0]}
    )
    at = AppTest.from_file("../../app.py", default_timeout=120)
    at.run()
    at.text_area(key="claim").input("A new study shows that coffee doubles lifespan.")
    at.selectbox(key="cfg_preset").set_value("saved:on-env").run()
    deadline = time.time() + 30
    while "checking" in _everything(at) and time.time() < deadline:
        time.sleep(0.3)
        at.run()
    at.button(key="run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    shown = _everything(at)
    assert "user name or password" in shown and "***@127.0.0.1:9" in shown
    assert PASSWORD not in shown and "bob" not in shown


def test_redacted_never_runs_across_json_strings():
    text = json.dumps({"a": "http://example.com", "b": "x@y", "spec": f"openai:m@{OPENAI_URL}"})
    out = json.loads(redacted(text))
    mail = json.dumps({"text": "write to a@b.com", "n": 1})  # no URL: left as it is
    assert redacted(mail) == mail and redacted("alice@example.org") == "***@example.org"
    assert out == {"a": "http://example.com", "b": "x@y", "spec": "openai:m@http://***@127.0.0.1:9/v1"}


def test_a_debate_an_older_version_stored_with_a_password_is_read_and_exported_without_it(own_home):
    """What the store gives every page and export (the Library, Learn, share/fork, JSON/Markdown/CSV)."""
    from debate.events import DebateStarted, TurnFinished
    from debate.store import DebateStore

    spec = f"openai:qwen@{OPENAI_URL}"
    store = DebateStore(config.store_db())
    seats = [{"agent": "A", "role": "member", "model": spec}]
    store.create_debate(
        {
            "claim": "A claim.",
            "protocol": "council",
            "task": "checkthat",
            "category": 1,
            "lineup": {"name": "old", "members": [{"model": spec}]},
        },
        "old1",
    )
    for i, ev in enumerate(
        [
            DebateStarted(
                debate_id="old1", protocol="council", task="checkthat", category=1, claim="A claim.", lineup=seats
            ),
            TurnFinished(turn_id="t1", agent="A", role="member", model=spec, phase="vote", text="No.", label="NO"),
        ]
    ):
        ev.seq = i
        store.append_event("old1", ev)
    store._tx(
        lambda db: db.execute(
            "INSERT INTO lineups VALUES (?,?,?)", ("old", json.dumps({"members": [{"model": spec}]}), "2025-01-01")
        )
    )
    read = json.dumps([store.get("old1"), store.event_dicts("old1"), store.lineups(), store.list()], default=str)
    files = [
        exports.export_json(store, "old1"),
        exports.export_markdown(store, "old1"),
        exports.export_csv(store, "old1"),
    ]
    for text in (read, *files):
        assert PASSWORD not in text and "bob" not in text
    assert "http://***@127.0.0.1:9/v1" in read and any("***@127.0.0.1:9" in t for t in files)


def test_an_evaluation_run_an_older_version_stored_with_a_password_is_read_without_it(tmp_path):
    """What the Evaluate page and reports read of a run folder: its options and its items' events."""
    from contextlib import closing

    from debate.evaluation.checkpoint import Checkpoint, read_meta

    spec = f"openai:qwen@{OPENAI_URL}"
    with closing(Checkpoint(tmp_path)) as cp:
        cp.set_meta("options", {"lineup": {"members": [{"model": spec}]}, "note": "mail a@b.org"})
    shown = {"lineup": {"members": [{"model": "openai:qwen@http://***@127.0.0.1:9/v1"}]}, "note": "mail a@b.org"}
    assert read_meta(tmp_path, "options") == shown
