"""Adding a protocol as docs/architecture.md says, and nothing more: its code blocks are the code that runs.

The test writes each code block of the section "A protocol" to the file its first line names, in a
temporary folder, installs that package as the docs say (pip, into a folder of its own: the shared
environment is left as it is), and runs the protocol through the command line on scripted models.
When the docs and the code drift apart, this fails.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from debate import lineups, prompts
from debate.errors import InvalidInput
from debate.protocols import PROTOCOLS, register, resolve_agents
from debate.protocols.base import ProtocolInfo, params

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "architecture.md"


def doc_blocks(start: str, end: str) -> dict[str, str]:
    """The fenced code blocks between two headings of the architecture doc, by the path their first line names."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index(start) : text.index(end)]
    out = {}
    for m in re.finditer(r"^( *)```\w+\n(.*?)^\1```", section, re.M | re.S):
        body = textwrap.dedent(m.group(2))
        first, _, rest = body.partition("\n")
        out[first.removeprefix("#").strip()] = body
    return out


def test_the_docs_name_the_files_of_a_protocol():
    blocks = doc_blocks("**A protocol.**", "**An evidence source.**")
    assert set(blocks) == {"toy_debate/toy.py", "toy_debate/toy.toml", "pyproject.toml"}


@pytest.mark.timeout(180)
def test_a_protocol_written_as_the_docs_say_runs_from_the_command_line(tmp_path):
    pkg = tmp_path / "toy-debate"
    for rel, body in doc_blocks("**A protocol.**", "**An evidence source.**").items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(body, encoding="utf-8")
    (pkg / "toy_debate" / "__init__.py").write_text("")
    site = tmp_path / "site"
    # `pip install .`, into its own folder (no network: the build backend is the environment's setuptools)
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-build-isolation"]
        + ["--target", str(site), str(pkg)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert pip.returncode == 0, pip.stderr[-2000:]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)]), "DEBATE_HOME": str(tmp_path / "home")}

    def debate(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "debate", *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
        )

    listed = debate("protocols")
    assert listed.returncode == 0 and "toy" in listed.stdout and "One speaker argues" in listed.stdout, listed.stderr
    assert "not loaded" not in listed.stdout
    lineup = tmp_path / "lineup.json"
    lineup.write_text(json.dumps({"name": "scripted", "members": [{"model": "scripted:a"}]}))
    events = tmp_path / "toy.jsonl"
    ran = debate(
        "run", "Coffee drinkers live longer, a study says.", "--protocol", "toy", "--lineup", str(lineup),
        "--events", str(events), "--color", "never", "--no-check",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    evs = [json.loads(line) for line in events.read_text().splitlines()]
    started = evs[0]
    assert started["type"] == "debate_started" and started["protocol"] == "toy"
    assert [a["agent"] for a in started["lineup"]] == ["speaker", "judge"]  # the seats of its declared roles
    turns = [e for e in evs if e["type"] == "turn_finished"]
    assert [t["prompt_id"] for t in turns] == ["toy.speak", "toy.judge"]  # its own templates, found by name
    verdict = next(e for e in evs if e["type"] == "verdict")
    assert verdict["label"] == "YES"  # the scripted models' answer, read by the judge's parser
    assert evs[-1]["type"] == "finished" and evs[-1]["status"] == "completed"


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
