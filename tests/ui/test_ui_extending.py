"""The app with the toy extensions of docs/architecture.md installed (AppTest): each (protocol, source,
backend, task) is offered where the app lists its kind and a run uses it. The toys are the doc's own code blocks, installed by pip into a
temporary folder and registered through their entry points as the app registers them
(tests/support/extending.py); scripted models vote, the toy backend and source answer themselves."""

from __future__ import annotations

import time

import pytest

from debate.retrieval.multi import MultiRetriever
from tests.support.extending import install, load_into_process
from tests.ui.test_ui_app import _app, _html, _run_to_end, _scripted_client, _scripted_lineup, _set, _store

CLAIM = "Coffee drinkers live longer, a study of half a million adults says."


@pytest.fixture(scope="module")
def toys(tmp_path_factory):
    with load_into_process(install(tmp_path_factory.mktemp("toys"))):
        yield


@pytest.mark.timeout(300)
def test_the_debate_page_offers_the_toy_protocol_and_runs_it(toys):
    preset = _scripted_lineup(_store(), "toy-protocol-lineup", ["steady"])
    at = _app(_client=_scripted_client())
    assert "Toy debate" in at.radio(key="cfg_protocol").options  # by its title, beside the papers' protocols
    at.radio(key="cfg_protocol").set_value("toy").run()
    at.text_area(key="claim").input(CLAIM)
    at.selectbox(key="cfg_preset").set_value(preset).run()
    row = _run_to_end(at, timeout=120)
    assert row["status"] == "completed", row
    events = _store().events(row["id"])
    assert events[0].protocol == "toy"
    assert [e.prompt_id for e in events if e.type == "turn_finished"] == ["toy.speak", "toy.judge"]
    assert next(e for e in events if e.type == "verdict").label == "YES"


@pytest.mark.timeout(300)
def test_the_debate_page_offers_the_toy_source_and_a_debate_reads_it(toys):
    preset = _scripted_lineup(_store(), "toy-source-lineup", ["steady", "other"])
    at = _app(_client=_scripted_client(), _retriever=MultiRetriever(["notes"], floor=None))
    assert "Toy notes" in at.multiselect(key="cfg_sources").options  # by its title, beside the built-in ones
    at.text_area(key="claim").input(CLAIM)
    at.selectbox(key="cfg_preset").set_value(preset).run()
    at.multiselect(key="cfg_sources").set_value(["notes"])
    _set(at, "cfg_evidence_council", True)  # the scripted members agree at once: no discussion round
    row = _run_to_end(at, timeout=240)
    assert row["status"] == "completed", row
    events = _store().events(row["id"])
    assert events[0].settings["sources"] == "notes"  # the debate records the source picked
    (ev,) = [e for e in events if e.type == "evidence"]
    assert ev.passages and {p["origin"] for p in ev.passages} == {"notes"}
    assert ">notes</span>" in _html(at)  # the toy's badge on its passages


@pytest.mark.timeout(300)
def test_the_models_page_lists_the_toy_backend_and_a_prompt_runs_on_it(toys):
    at = _app()
    at.switch_page("pages/models.py").run()
    for _ in range(50):  # each backend is listed off the render path: the page says "checking" until then
        if "echo:YES" in at.selectbox(key="try_model").options:
            break
        time.sleep(0.1)
        at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any(m.value.startswith("**Echo**  \n🟢 1 model(s) ready") for m in at.markdown)  # its column
    assert "echo:YES" in at.selectbox(key="try_model").options  # its model, listed as ready
    at.selectbox(key="try_model").set_value("echo:YES")
    at.text_area(key="try_prompt").input("Say something.")
    at.button(key="try_send").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert '<div class="txt">YES</div>' in [m.value for m in at.markdown]  # the toy's answer


@pytest.mark.timeout(300)
def test_the_debate_page_offers_the_toy_task_and_a_debate_decides_it(toys):
    preset = _scripted_lineup(_store(), "toy-task-lineup", ["steady", "other"])
    at = _app(_client=_scripted_client())
    assert "Satire (YES / NO)" in at.selectbox(key="cfg_task").options  # by its title, beside the papers' tasks
    at.selectbox(key="cfg_task").set_value("satire").run()
    at.text_area(key="claim").input("BREAKING: Local man wins lottery, immediately loses ticket in a sandwich.")
    at.selectbox(key="cfg_preset").set_value(preset).run()
    row = _run_to_end(at, timeout=120)
    assert row["status"] == "completed", row
    events = _store().events(row["id"])
    assert events[0].task == "satire" and events[0].category is None
    verdict = next(e for e in events if e.type == "verdict")
    assert f"{verdict.label} — this tweet is {'satire' if verdict.label == 'YES' else 'not satire'}" in _html(at)
