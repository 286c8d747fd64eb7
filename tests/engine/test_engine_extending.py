"""Adding a protocol, an evidence source or a model backend as docs/architecture.md says, and nothing more:
its code blocks are the code that runs.

The doc's packages are written to a temporary folder and installed as the docs say (tests/support/extending.py:
pip, into a folder of their own; one install for the three), then each runs through the command line on
scripted or toy models. When the docs and the code drift apart, this fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from debate import lineups, prompts
from debate.errors import InvalidInput
from debate.protocols import PROTOCOLS, register, resolve_agents
from debate.protocols.base import ProtocolInfo, params
from tests.support.extending import SECTIONS, doc_blocks, install

REPO = Path(__file__).resolve().parents[2]
CLAIM = "Coffee drinkers live longer, a study says."


@pytest.fixture(scope="module")
def toys(tmp_path_factory) -> Path:
    """The doc's three packages, installed once for this file's command-line tests."""
    return install(tmp_path_factory.mktemp("toys"))


def _debate(site: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)]), "DEBATE_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "debate", *args], capture_output=True, text=True, env=env, cwd=home.parent, timeout=120
    )


def _events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_docs_name_the_files_of_each_extension():
    assert set(doc_blocks(*SECTIONS["protocol"])) == {"toy_debate/toy.py", "toy_debate/toy.toml", "pyproject.toml"}
    assert set(doc_blocks(*SECTIONS["source"])) == {"toy_evidence/notes.py", "pyproject.toml"}
    assert set(doc_blocks(*SECTIONS["backend"])) == {"toy_backend/echo.py", "pyproject.toml"}
    assert set(doc_blocks(*SECTIONS["task"])) == {"toy_task/satire.py", "pyproject.toml"}


@pytest.mark.timeout(240)
def test_a_protocol_written_as_the_docs_say_runs_from_the_command_line(toys, tmp_path):
    listed = _debate(toys, tmp_path / "home", "protocols")
    assert listed.returncode == 0 and "toy" in listed.stdout and "One speaker argues" in listed.stdout, listed.stderr
    assert "not loaded" not in listed.stdout
    lineup = tmp_path / "lineup.json"
    lineup.write_text(json.dumps({"name": "scripted", "members": [{"model": "scripted:a"}]}))
    events = tmp_path / "toy.jsonl"
    ran = _debate(
        toys, tmp_path / "home", "run", CLAIM, "--protocol", "toy", "--lineup", str(lineup),
        "--events", str(events), "--color", "never", "--no-check",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    evs = _events(events)
    started = evs[0]
    assert started["type"] == "debate_started" and started["protocol"] == "toy"
    assert [a["agent"] for a in started["lineup"]] == ["speaker", "judge"]  # the seats of its declared roles
    turns = [e for e in evs if e["type"] == "turn_finished"]
    assert [t["prompt_id"] for t in turns] == ["toy.speak", "toy.judge"]  # its own templates, found by name
    verdict = next(e for e in evs if e["type"] == "verdict")
    assert verdict["label"] == "YES"  # the scripted models' answer, read by the judge's parser
    assert evs[-1]["type"] == "finished" and evs[-1]["status"] == "completed"


@pytest.mark.timeout(240)
def test_a_backend_written_as_the_docs_say_runs_from_the_command_line(toys, tmp_path):
    listed = _debate(toys, tmp_path / "home", "models", "--backend", "echo")
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert "[echo]" in listed.stdout and "echo:YES" in listed.stdout and "answers YES" in listed.stdout
    lineup = tmp_path / "lineup.json"
    lineup.write_text(json.dumps({"name": "echoes", "members": [{"model": "echo:YES"}, {"model": "echo:YES"}]}))
    events = tmp_path / "echo.jsonl"
    ran = _debate(
        toys,
        tmp_path / "home",
        "run",
        CLAIM,
        "--protocol",
        "council",
        "--lineup",
        str(lineup),
        "--events",
        str(events),
        "--color",
        "never",
    )  # fmt: skip: the lineup check asks the toy backend for its models too
    assert ran.returncode == 0, ran.stderr[-2000:]
    evs = _events(events)
    assert {a["model"] for a in evs[0]["lineup"]} == {"echo:YES"}
    votes = [e for e in evs if e["type"] == "turn_finished"]
    assert votes and all(t["text"] == "YES" and t["label"] == "YES" for t in votes)  # the toy's own answers
    verdict = next(e for e in evs if e["type"] == "verdict")
    assert verdict["label"] == "YES" and evs[-1]["status"] == "completed"


@pytest.mark.timeout(240)
def test_an_evidence_source_written_as_the_docs_say_runs_from_the_command_line(toys, tmp_path):
    lineup = tmp_path / "lineup.json"
    lineup.write_text(json.dumps({"name": "scripted", "members": [{"model": "scripted:a"}]}))
    events = tmp_path / "notes.jsonl"
    ran = _debate(
        toys, tmp_path / "home", "run", CLAIM, "--protocol", "council", "--lineup", str(lineup),
        "--evidence", "--sources", "notes", "--events", str(events), "--color", "never", "--no-check",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    evs = _events(events)
    assert evs[0]["settings"]["sources"] == "notes"
    (evidence,) = [e for e in evs if e["type"] == "evidence"]
    assert [s["name"] for s in evidence["sources"]] == ["notes"] and evidence["sources"][0]["state"] == "live"
    assert evidence["passages"] and {p["origin"] for p in evidence["passages"]} == {"notes"}
    assert any("cohort study" in p["text"] for p in evidence["passages"])  # the toy's own notes
    assert evs[-1]["status"] == "completed"


@pytest.mark.timeout(240)
def test_a_task_written_as_the_docs_say_runs_from_the_command_line(toys, tmp_path):
    helped = _debate(toys, tmp_path / "home", "run", "--help")
    assert helped.returncode == 0 and "satire" in helped.stdout, helped.stderr  # a --task choice
    lineup = tmp_path / "lineup.json"
    lineup.write_text(json.dumps({"name": "scripted", "members": [{"model": "scripted:a"}]}))
    events = tmp_path / "satire.jsonl"
    ran = _debate(
        toys, tmp_path / "home", "run", "BREAKING: Local man wins lottery, immediately loses ticket in a sandwich.",
        "--task", "satire", "--protocol", "council", "--lineup", str(lineup),
        "--events", str(events), "--color", "never", "--no-check",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    evs = _events(events)
    assert evs[0]["task"] == "satire" and evs[0]["category"] is None  # a task without sections
    verdict = next(e for e in evs if e["type"] == "verdict")
    assert verdict["label"] == "YES" and evs[-1]["status"] == "completed"
    assert "this tweet is satire" in ran.stdout  # the verdict in the task's own words
    wrong = _debate(toys, tmp_path / "home", "run", "x", "--task", "sarcasm", "--no-check")
    assert wrong.returncode != 0 and "satire" in wrong.stderr  # an unknown task names the ones there are


def test_a_registered_task_fills_the_prompts_and_every_label_list(tmp_path):
    from debate import tasks
    from tests.support.engine import run, scripted
    from tests.support.extending import write_package

    namespace: dict = {}
    exec((write_package("task", tmp_path) / "toy_task" / "satire.py").read_text(), namespace)
    info = namespace["INFO"]
    try:
        tasks.register(info)
        assert tasks.TASK_TITLES["satire"] == "Satire (YES / NO)"  # what the pickers list
        assert tasks.task_labels("satire") == ("YES", "NO") and not tasks.is_truth("satire")
        assert tasks.task_categories("satire", None) == [None]
        client, backend = scripted()
        evs = run(client, "council", task="satire", category=None, n=3)
        assert evs[-1].status == "completed"
        first = backend.calls[0]["messages"]
        assert "whether a tweet is satire" in " ".join(m["content"] for m in first)  # its phrase, in the paper's prompt
        assert "Satire mocks its subject" in " ".join(m["content"] for m in first)  # its description
        verdict = next(e for e in evs if e.type == "verdict")
        assert tasks.verdict_sentences(verdict, evs[0])[0].endswith(tasks.get("satire").words[verdict.label])
        with pytest.raises(InvalidInput, match="already registered"):
            tasks.register(tasks.TaskInfo("satire", "Other", ("YES", "NO"), info.resolve))
        with pytest.raises(InvalidInput, match="TaskInfo"):
            tasks.register(object())  # type: ignore[arg-type]
    finally:
        tasks.TASKS.pop("satire", None)
    assert "satire" not in tasks.TASK_TITLES  # the titles are a view of the registry


def test_unknown_backend_and_source_names_say_which_exist():
    from debate.models.spec import ModelSpec
    from debate.retrieval.sources import parse_names

    with pytest.raises(InvalidInput, match="Use one of: local, ollama, openai, scripted, human"):
        ModelSpec.parse("nosuch:model")
    with pytest.raises(InvalidInput, match="Choose from: local, scholar, wikipedia, web"):
        parse_names("local,nosuch")


def test_seats_follow_the_declared_roles():
    lu = lineups.load_lineup(
        {
            "members": [{"model": "scripted:a"}, {"model": "scripted:b"}, {"model": "scripted:c"}],
            "judge": {"model": "scripted:j"},
            "roles": {"critic": {"model": "scripted:x"}},
        }
    )
    seats = lineups.seats_from_roles(lu, ("speaker", "critic", "other", "judge"))
    assert [(a.agent, a.role, a.model) for a in seats] == [
        ("speaker", "speaker", "scripted:a"),  # the first member
        ("critic", "critic", "scripted:x"),  # the lineup's entry for the role
        ("other", "other", "scripted:c"),  # the member in its place: the third
        ("judge", "judge", "scripted:j"),
    ]


def test_a_registered_protocol_gets_its_seats_and_templates_and_a_clash_is_refused(tmp_path):
    toml = tmp_path / "mine.toml"
    toml.write_text('[[template]]\nid = "mine.ask"\nsource = "test"\ntext = "Is {claim} true?"\n')
    info = ProtocolInfo(
        "mine", "Mine", "One line.", ("asker", "judge"), params({}), run=lambda ctx: iter(()), prompt_file=toml
    )
    try:
        register(info)
        assert prompts.render("mine.ask", claim="x") == "Is x true?"
        lu = lineups.load_lineup({"members": [{"model": "scripted:a"}]})
        assert [a.role for a in resolve_agents(lu, "mine")] == ["asker", "judge"]
        with pytest.raises(InvalidInput, match="already registered"):
            register(ProtocolInfo("mine", "Other", "", ("a",), {}, run=lambda ctx: iter(())))
    finally:
        PROTOCOLS.pop("mine", None)
        prompts._EXTRA.remove(toml)
        prompts.templates.cache_clear()


def test_a_backend_or_source_registered_twice_or_as_something_else_is_refused():
    from debate.models import backends
    from debate.retrieval import sources

    with pytest.raises(InvalidInput, match="already registered"):
        backends.register(backends.BackendInfo("ollama", "Mine", lambda spec, section, guard: None))
    with pytest.raises(InvalidInput, match="BackendInfo"):
        backends.register(object())
    with pytest.raises(InvalidInput, match="cannot start a model spec"):
        backends.register(backends.BackendInfo("My Backend", "Mine", lambda spec, section, guard: None))
    with pytest.raises(InvalidInput, match="already registered"):
        sources.register(sources.SourceInfo("web", "Mine", lambda settings, retriever: None))
    with pytest.raises(InvalidInput, match="cannot be chosen"):
        sources.register(sources.SourceInfo("auto", "Mine", lambda settings, retriever: None))
    assert "My Backend" not in backends.names() and "auto" not in sources.names()


def test_a_plugin_that_fails_to_load_is_kept_as_failed_and_the_others_load(monkeypatch, caplog):
    from importlib.metadata import EntryPoint

    from debate import plugins

    declared = [
        EntryPoint("broken", "no_such_module_here:INFO", "debate.tasks"),
        EntryPoint("known", "json:dumps", "debate.tasks"),
        EntryPoint("fine", "json:loads", "debate.tasks"),
    ]
    monkeypatch.setattr(plugins, "entry_points", lambda group: [ep for ep in declared if ep.group == group])
    registered: list = []
    failed: dict[str, str] = {}
    plugins.load_entry_points("debate.tasks", "task", {"known"}, registered.append, failed)
    assert registered == [json.loads]  # the known name is skipped, the broken one does not stop the rest
    assert list(failed) == ["broken"] and "ModuleNotFoundError" in failed["broken"]
    assert "task 'broken'" in caplog.text and "not loaded" in caplog.text
