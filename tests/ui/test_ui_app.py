"""The Debate page through AppTest: every error state, and the page's other paths (every protocol on the
embedded lineup is run from the page in tests/real_model/test_engine_real.py, beside the engine's own runs
whose answers it reuses). Error states that need a
backend failing on cue use a ScriptedBackend injected through session_state (`_client`), with the
real engine in between.
"""

from __future__ import annotations

import json
import time

from streamlit.testing.v1 import AppTest

from debate import config
from debate.errors import BackendUnavailable
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.store import DebateStore
from tests.conftest import data_path
from tests.support.real_cases import CLAIM

APP = "../../app.py"


def _app(**state) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _store() -> DebateStore:
    return DebateStore(config.store_db())


def _set(at: AppTest, key: str, value) -> None:
    for kind in ("number_input", "toggle", "selectbox", "text_input", "text_area"):
        try:
            w = getattr(at, kind)(key=key)
        except KeyError:
            continue
        w.set_value(value)
        return
    raise KeyError(key)


def _run_to_end(at: AppTest, timeout: float = 900) -> dict:
    at.button(key="run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    debate_id = at.session_state["debate_id"]
    store = _store()
    deadline = time.time() + timeout
    while store.get(debate_id)["status"] == "running" and time.time() < deadline:
        time.sleep(0.5)
        at.run()  # the fragment does not tick by itself in AppTest
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return store.get(debate_id)


def _html(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


# -- error states ---------------------------------------------------------------------------------


def test_empty_claim_is_refused_inline():
    at = _app()
    at.button(key="run").click().run()
    assert not at.exception
    assert any("The claim is empty" in e.value for e in at.error)
    assert "debate_id" not in at.session_state


def test_invalid_parameter_is_refused_inline():
    at = _app()
    at.text_area(key="claim").input(CLAIM)
    _set(at, "p_council_theta", 1.5)
    n_before = len(_store().list())
    at.button(key="run").click().run()
    assert not at.exception
    assert any("theta" in e.value and "between 0 and 1" in e.value for e in at.error)
    assert len(_store().list()) == n_before  # nothing half-started is left in the Library


def test_custom_task_without_title_is_refused():
    at = _app()
    at.text_area(key="claim").input(CLAIM)
    at.selectbox(key="cfg_task").set_value("custom").run()
    at.button(key="run").click().run()
    assert any("no title" in e.value for e in at.error)


def test_unknown_model_is_flagged_before_the_run():
    _store().save_lineup(
        "typo",
        {"members": [{"name": "a", "model": "local:no-such-model"}, {"name": "b", "model": "local:smollm2-135m"}]},
    )
    at = _app()
    at.text_area(key="claim").input(CLAIM)
    at.selectbox(key="cfg_preset").set_value("saved:typo").run()
    assert not at.exception
    assert any("local:no-such-model" in w.value for w in at.warning)  # said before Run
    at.button(key="run").click().run()
    assert any("not available" in e.value for e in at.error)
    assert "debate_id" not in at.session_state


def test_unreachable_backend_is_flagged_with_what_to_do(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # nothing listens on the discard port
    at = _app()
    at.text_area(key="claim").input(CLAIM)
    at.selectbox(key="cfg_preset").set_value("paper-council-ollama").run()
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "ollama:gemma3:12b" in warning and "Ollama" in warning
    at.button(key="run").click().run()
    assert at.error and "debate_id" not in at.session_state


class _Flaky(ScriptedBackend):
    """Answers normally, except model 'flaky' which dies after a few tokens (a backend going away)."""

    def stream(self, model, messages, options):
        for i, chunk in enumerate(super().stream(model, messages, options)):
            if model == "flaky" and i == 3:
                raise BackendUnavailable("Lost the connection to the model server.", "Restart the server.")
            yield chunk


def _scripted_lineup(store: DebateStore, name: str, members: list[str]) -> str:
    store.save_lineup(
        name,
        {
            "name": name,
            "members": [{"name": m, "model": f"scripted:{m}"} for m in members],
            "judge": {"name": "judge", "model": "scripted:steady"},
            "chair": {"name": "chair", "model": "scripted:steady"},
        },
    )
    return f"saved:{name}"


VOTE = '{"vote": "YES", "explanation": "It cites a study in Nature [E1] <script>alert(1)</script>."}'


def _scripted_client(delay: float = 0.0) -> ModelClient:
    backend = _Flaky(
        {"steady": VOTE, "flaky": VOTE, "other": VOTE, "slow": "Let me think. " * 100 + VOTE}, delay_s=delay
    )
    return ModelClient({"scripted": backend})


def test_backend_failing_mid_debate_ends_cleanly_and_keeps_what_was_said():
    preset = _scripted_lineup(_store(), "flaky-lineup", ["steady", "flaky"])
    at = _app(_client=_scripted_client(0.01))
    at.text_area(key="claim").input(CLAIM)
    at.selectbox(key="cfg_preset").set_value(preset).run()
    _set(at, "p_council_rounds", 1)
    row = _run_to_end(at, timeout=60)
    assert row["status"] == "error"
    assert any("Lost the connection" in e.value for e in at.error)  # inline, with its hint
    assert not at.exception
    kinds = [e.type for e in _store().events(row["id"])]
    assert "token" in kinds and kinds[-1] == "finished"
    assert len(at.chat_message) >= 1  # what was said stays on the page


def test_model_output_and_claim_are_rendered_as_text():
    preset = _scripted_lineup(_store(), "steady-lineup", ["steady", "other"])
    at = _app(_client=_scripted_client())
    at.text_area(key="claim").input("<img src=x onerror=alert(1)> **bold** claim")
    at.selectbox(key="cfg_preset").set_value(preset).run()
    row = _run_to_end(at, timeout=60)
    assert row["status"] == "completed"
    html = _html(at)
    assert "<script" not in html and "<img" not in html and "**bold**" not in html
    assert "&#60;script&#62;" in html and "&#60;img" in html
    assert "verdict-card" in html and 'class="chip green">YES' in html


def test_stop_keeps_partial_transcript():
    preset = _scripted_lineup(_store(), "slow-lineup", ["slow", "slow"])
    at = _app(_client=_scripted_client(delay=0.05))
    at.text_area(key="claim").input(CLAIM)
    at.selectbox(key="cfg_preset").set_value(preset).run()
    at.button(key="run").click().run()
    debate_id = at.session_state["debate_id"]
    store = _store()
    # Stop only once words have been stored: on a loaded machine the worker may not have streamed any yet.
    deadline = time.time() + 60
    while not any(e.type == "token" for e in store.events(debate_id)) and time.time() < deadline:
        time.sleep(0.1)
    at.run()
    assert not at.button(key="stop").disabled
    at.button(key="stop").click().run()
    deadline = time.time() + 30
    while store.get(debate_id)["status"] == "running" and time.time() < deadline:
        time.sleep(0.2)
    at.run()
    row = store.get(debate_id)
    assert row["status"] == "stopped"
    assert any(e.type == "token" for e in store.events(debate_id))
    # the page says so (st.badge is a markdown element: ":orange-badge[:material/stop_circle: Stopped]")
    assert any("-badge[" in m.value and "Stopped" in m.value for m in at.markdown)
    assert at.chat_message  # and keeps what was said


def test_library_lists_filters_opens_and_deletes(monkeypatch):
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    files: dict[str, bytes] = {}  # what each download button would hand the browser, by its file id
    load = MemoryMediaFileStorage.load_and_get_id

    def keep(self, data, mimetype, kind, filename=None):
        file_id = load(self, data, mimetype, kind, filename)
        files[file_id] = data.encode() if isinstance(data, str) else data
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)
    store = _store()
    preset = _scripted_lineup(store, "lib-lineup", ["steady", "other"])
    at = _app(_client=_scripted_client())
    at.text_area(key="claim").input("Library test claim about vaccines")
    at.selectbox(key="cfg_preset").set_value(preset).run()
    row = _run_to_end(at, timeout=60)
    at.switch_page("pages/library.py").run()
    assert not at.exception
    at.text_input(key="lib_search").input("vaccines").run()
    assert at.selectbox(key="lib_open").value == row["id"]
    assert "verdict-card" in _html(at)
    buttons = {b.key: b for b in at.get("download_button")}
    assert {buttons[k].label for k in ("lib_json", "lib_md", "lib_csv", "lib_html")} == {
        "JSON",
        "Markdown",
        "CSV",
        "HTML",
    }

    def sent(key: str) -> str:
        return files[buttons[key].url.rsplit("/", 1)[-1].split(".")[0]].decode()

    assert json.loads(sent("lib_json"))["debate"]["id"] == row["id"]
    assert "Library test claim about vaccines" in sent("lib_md")
    assert sent("lib_csv").startswith("round,phase,agent") and "steady" in sent("lib_csv")
    assert "Library test claim about vaccines" in sent("lib_html") and "verdict" in sent("lib_html")
    at.segmented_control(key="lib_pace").set_value("recorded pace").run()
    assert not at.exception and at.get("progress")
    at.button(key="lib_delete").click().run()
    at.button(key="lib_delete_yes").click().run()
    assert store.get(row["id"]) is None


def test_models_page_sends_a_prompt_and_shows_text():
    at = _app(_client=ModelClient({"scripted": ScriptedBackend({"echo": "Hello <b>there</b>"})}))
    at.switch_page("pages/models.py").run()
    assert not at.exception
    at.selectbox(key="try_model").set_value("scripted:echo")
    at.text_area(key="try_prompt").input("hi")
    at.button(key="try_send").click().run()
    assert not at.exception
    assert any("Hello &#60;b&#62;there" in m.value for m in at.markdown)
    at.text_area(key="try_prompt").input("")
    at.button(key="try_send").click().run()
    assert any("prompt is empty" in e.value for e in at.error)


def test_cited_evidence_is_highlighted_and_linked_to_its_passage():
    """Agents' [E#] citations point at the retrieved passages (real evidence index, scripted voters)."""
    from ui.safe import anchor

    data_path("averitec/dev.json")  # the real index is AVeriTeC dev's evidence

    preset = _scripted_lineup(_store(), "cite-lineup", ["steady", "other"])
    at = _app(_client=_scripted_client())
    # an AVeriTeC dev claim: its own evidence is in the bundled index and clears the relevance floor (a
    # claim the index knows nothing about now gets "no passage is about this claim" instead)
    at.text_area(key="claim").input(
        "More than 225,000 people dead, 225,000. The estimates are, if we’d have "
        "acted responsibly, there’d be 160,000 fewer dead."
    )
    at.selectbox(key="cfg_preset").set_value(preset).run()
    _set(at, "cfg_evidence_council", True)  # the agents see the passages
    _set(at, "cfg_top_k", 3)
    row = _run_to_end(at, timeout=300)
    assert row["status"] == "completed", row
    events = _store().events(row["id"])
    (ev,) = [e for e in events if e.type == "evidence"]
    assert ev.in_prompts and [p["id"] for p in ev.passages] == ["E1", "E2", "E3"]
    assert all(p["source"] and p["score"] > 0 for p in ev.passages)
    assert any(e.type == "turn_finished" and e.citations == ["E1"] for e in events)
    html = _html(at)
    link = anchor(row["id"], "E1")
    assert f'href="#{link}"' in html  # the citation in the turn links ...
    assert f'class="passage cited" id="{link}"' in html  # ... to its highlighted passage
    assert f'class="passage" id="{anchor(row["id"], "E2")}"' in html  # uncited ones are not highlighted


def test_models_page_saves_settings_the_cli_then_reads(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_HOME", str(tmp_path))
    at = _app()
    at.switch_page("pages/models.py").run()
    at.text_input(key="set_ollama_host").input("http://127.0.0.1:9")
    at.selectbox(key="set_openai_json").set_value("json_object")
    next(b for b in at.button if "Save" in b.label).click().run()
    assert not at.exception
    saved = config.load_settings()
    assert saved["ollama"] == {"host": "http://127.0.0.1:9"} and saved["openai"] == {"json_format": "json_object"}
    from debate.models.registry import default_client
    from debate.models.spec import ModelSpec

    backend = default_client(cache=False).backend_for(ModelSpec("openai", "-"))
    assert backend.json_format == "json_object"


def test_live_demo_pace_is_the_default_and_one_toggle_restores_the_papers_settings(monkeypatch):
    """The app opens at a pace the embedded models can finish while people watch, says what
    that pace changes, and gives the papers' settings back with one toggle (and the pace again)."""
    monkeypatch.setenv("DEBATE_WARM_AHEAD", "0")
    at = _app()
    captions = lambda: " ".join(c.value for c in at.sidebar.caption)
    assert at.toggle(key="cfg_pace").value is True
    assert at.number_input(key="p_council_rounds").value == 2 and at.number_input(key="cfg_max_tokens").value == 128
    assert "Live-demo pace: rounds 2 (paper: 5)" in captions() and "at most 128 tokens" in captions()
    at.toggle(key="cfg_pace").set_value(False).run()
    assert at.number_input(key="p_council_rounds").value == 5 and at.number_input(key="cfg_max_tokens").value == 256
    assert "The papers' rounds and answer length." in captions()  # (the aids, on, still read the votes)
    at.radio(key="cfg_protocol").set_value("single").run()  # every protocol follows the toggle
    assert at.number_input(key="p_single_rounds").value == 3
    at.toggle(key="cfg_pace").set_value(True).run()
    assert at.number_input(key="p_single_rounds").value == 1 and at.number_input(key="cfg_max_tokens").value == 128


def test_small_model_aids_are_the_default_and_one_toggle_restores_the_papers_settings(monkeypatch):
    """The app opens with the small-model aids, says what they change beside the papers' values,
    and the debate it starts records the parameters that actually ran; off gives the papers' settings."""
    monkeypatch.setenv("DEBATE_WARM_AHEAD", "0")
    preset = _scripted_lineup(_store(), "aids-lineup", ["steady", "other"])
    at = _app(_client=_scripted_client())
    assert at.toggle(key="cfg_aids").value is True
    at.text_area(key="claim").input(CLAIM)
    at.selectbox(key="cfg_category").set_value(2)
    at.radio(key="cfg_protocol").set_value("baseline").run()
    at.selectbox(key="cfg_preset").set_value(preset).run()
    captions = " ".join(c.value for c in at.caption)
    assert "Small-model aids: The label is written first, under a JSON schema, so every answer is readable" in captions
    assert "Values: answer = label-first (paper: paper), demos = dialogue (paper: paper)" in captions
    row = _run_to_end(at, timeout=120)
    assert row["status"] == "completed", row
    started = _store().events(row["id"])[0]
    assert started.settings["aids"] is True
    assert (started.settings["params"]["answer"], started.settings["params"]["demos"]) == ("label-first", "dialogue")
    at.toggle(key="cfg_aids").set_value(False).run()
    assert "Small-model aids:" not in " ".join(c.value for c in at.caption)
    row = _run_to_end(at, timeout=120)
    params = _store().events(row["id"])[0].settings["params"]
    assert (params["answer"], params["demos"], params["calibration"]) == ("paper", "paper", "none")
