"""Questions for the search (AVeriTeC / RADAR style): off by default (no model call), 1-3 written by the
lineup's judge model when asked for, searched beside the claim, recorded in the evidence event. The
model's answer is hostile: its parsing is bounded and linear, and an answer with no usable question
leaves the claim's query alone, with a note. One test runs the real embedded judge model."""

from __future__ import annotations

import json

import pytest

from debate.errors import InvalidInput
from debate.retrieval import questions as q
from debate.retrieval.multi import MultiRetriever
from debate.retrieval.retriever import Retriever
from debate.retrieval.sources.local import LocalSource
from debate.runner import DebateConfig, prepare, run_debate
from tests.support.engine import by_type, lineup, run, scripted

CLAIM = "New study: people who drink 3 cups of coffee a day live longer, researchers at Harvard found"
FACTS = [
    ("coffee", "Adults who drank two to three cups of coffee a day had a lower risk of death in a cohort study."),
    ("harvard", "The Harvard T.H. Chan School of Public Health ran the Nurses' Health Study on diet and mortality."),
    ("tides", "The Moon's gravity is the main cause of ocean tides on Earth."),
]


@pytest.fixture
def local(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_INDEX_DIR", str(tmp_path / "indexes"))
    f = tmp_path / "facts.jsonl"
    f.write_text(
        "\n".join(
            json.dumps({"id": i, "text": t, "source": f"https://facts.example/{i}", "title": i}) for i, t in FACTS
        )
    )
    return Retriever("qfacts", corpus=f)


def _retriever(local) -> MultiRetriever:
    return MultiRetriever(["local"], sources=[LocalSource(local)], floor=None)


def _question_calls(backend) -> list:
    return [c for c in backend.calls if "You help a fact-checker search the web" in c["messages"][-1]["content"]]


# -- parsing ------------------------------------------------------------------------------------
def test_questions_are_read_from_a_numbered_list_cleaned_and_bounded():
    text = (
        "Here are questions:\n1. What did the Harvard study find?\n2) Who \x1b[31mfunded\x1b[0m the study? "
        "It matters.\nQ3: \u202eHow many adults were followed?\n- What did the Harvard study find?\n"
        "4. Was it a trial?"
    )
    assert q.parse(text, 3) == [
        "What did the Harvard study find?",
        "Who funded the study?",
        "How many adults were followed?",
    ]
    assert q.parse(text, 1) == ["What did the Harvard study find?"]


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "I cannot help with that.",
        "?" * 5000,
        "Why?\nHow?",
        "What " + "very " * 80 + "long question is this?",
        '{"questions": []}',
        "\x00\x07\x1b]0;title\x07",
        "a" * 200_000 + "?",
    ],
)
def test_an_answer_with_no_usable_question_gives_none(junk):
    assert q.parse(junk, 3) == []


def test_the_claim_itself_is_not_taken_as_a_question():
    assert (
        q.parse("Do 3 cups of coffee make you live longer?\n", 3, claim="Do 3 cups of coffee make you live longer?")
        == []
    )


def test_the_count_is_checked_before_any_model_call():
    for bad in (4, -1, "two", 2.5):
        with pytest.raises(InvalidInput) as e:
            prepare(DebateConfig(claim=CLAIM, protocol="radar", lineup=lineup(2), questions=bad))
        assert "0 to 3" in e.value.message
    assert prepare(DebateConfig(claim=CLAIM, protocol="radar", lineup=lineup(2), questions="2")).config.questions == 2


# -- in a debate, scripted models -----------------------------------------------------------------
def test_by_default_no_question_is_written_and_the_claim_alone_is_searched(local):
    client, backend = scripted()
    ev = run(
        client,
        "radar-single",
        task="halftruth",
        category=None,
        retriever=_retriever(local),
        evidence=True,
        claim=CLAIM,
        lineup=lineup(2),
        params={"single_mode": "judge"},
    )
    assert _question_calls(backend) == []
    e = by_type(ev, "evidence")[0]
    assert e.questions == [] and e.questions_note == "" and "queries" not in e.sources[0]
    assert not any(p.stage == "questions" for p in by_type(ev, "evidence_progress"))


def test_the_judge_models_questions_are_searched_beside_the_claim_and_recorded(local):
    client, backend = scripted()
    ev = run(
        client,
        "radar-single",
        task="halftruth",
        category=None,
        retriever=_retriever(local),
        evidence=True,
        claim=CLAIM,
        lineup=lineup(2),
        params={"single_mode": "judge"},
        questions=2,
    )
    (call,) = _question_calls(backend)
    assert call["model"] == "judge" and "Write 2 short" in call["messages"][-1]["content"]
    e = by_type(ev, "evidence")[0]
    assert e.questions == ["What did the coffee study find?", "Who ran the coffee study?"]
    assert e.questions_model == "scripted:judge" and e.questions_note == ""
    assert e.sources[0]["queries"] == [e.query, *e.questions]  # each searched
    stages = [p.stage for p in by_type(ev, "evidence_progress")]
    assert stages[0] == "questions" and "searching" in stages
    assert by_type(ev, "finished")[0].model_calls == len(backend.calls)  # the question call is counted


def test_malformed_questions_leave_the_claim_query_alone_with_a_note(local):
    client, backend = scripted({"questions": "Sure! \x1b[2J I think the claim is plausible.\n" + "x" * 10_000})
    ev = run(
        client,
        "radar-single",
        task="halftruth",
        category=None,
        retriever=_retriever(local),
        evidence=True,
        claim=CLAIM,
        lineup=lineup(2),
        params={"single_mode": "judge"},
        questions=3,
    )
    assert len(_question_calls(backend)) == 1
    e = by_type(ev, "evidence")[0]
    assert e.questions == [] and "no usable question" in e.questions_note and "claim alone" in e.questions_note
    assert "queries" not in e.sources[0] and e.sources[0]["query"] == e.query
    assert by_type(ev, "finished")[0].status == "completed"


def test_a_failing_judge_model_costs_the_questions_not_the_debate(local):
    def boom(messages, options):
        from debate.errors import BackendUnavailable

        raise BackendUnavailable("the judge model is not loaded")

    client, backend = scripted({"questions": boom})
    ev = run(
        client,
        "radar-single",
        task="halftruth",
        category=None,
        retriever=_retriever(local),
        evidence=True,
        claim=CLAIM,
        lineup=lineup(2),
        params={"single_mode": "judge"},
        questions=1,
    )
    e = by_type(ev, "evidence")[0]
    assert e.questions == [] and "could not write questions" in e.questions_note
    assert by_type(ev, "finished")[0].status == "completed"


# -- the real embedded judge model -------------------------------------------------------------------
@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_the_embedded_judge_writes_questions_that_are_searched(local):
    pytest.importorskip("llama_cpp")
    from debate.models.registry import default_client

    client = default_client(cache=False)
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="radar-single",
        task="halftruth",
        category=None,
        lineup="embedded",
        params={"single_mode": "judge"},
        max_tokens=16,
        top_k=3,
        questions=2,
    )
    events = []
    for ev in run_debate(cfg, client, retriever=_retriever(local)):
        events.append(ev)
        if ev.type == "evidence":
            break  # the debate after the search is not what this test is about
    e = by_type(events, "evidence")[0]
    assert e.questions_model == "local:qwen2.5-coder-0.5b"
    assert 1 <= len(e.questions) <= 2, e.questions_note
    assert all(x.endswith("?") and len(x) <= q.MAX_QUESTION_CHARS for x in e.questions)
    assert e.sources[0]["queries"] == [e.query, *e.questions]
    assert e.passages  # found by the claim's query and the questions together


def test_the_export_shows_the_queries_escaped():
    from debate.events import DebateFinished, DebateStarted, EvidenceRetrieved
    from debate.sharing.html import to_html

    events = [
        DebateStarted(debate_id="d1", protocol="radar", claim="c"),
        EvidenceRetrieved(
            query="coffee claim",
            passages=[],
            floor=0.49,
            questions=["Who ran <b>it</b>?"],
            questions_model="local:qwen2.5-coder-0.5b",
            sources=[
                {
                    "name": "local",
                    "label": "Local index",
                    "state": "live",
                    "passages": 0,
                    "ms": 5,
                    "note": "",
                    "query": "coffee claim",
                }
            ],
        ),
        DebateFinished(status="completed"),
    ]
    html = to_html(events)
    assert "queries: “coffee claim” · “Who ran &lt;b&gt;it&lt;/b&gt;?”" in html and "<b>it</b>" not in html
    assert "questions by local:qwen2.5-coder-0.5b" in html


@pytest.mark.parametrize(
    "cmd",
    [
        ["run", "--protocol", "radar", "--questions", "9", "--no-check", "A claim"],
        ["eval", "--dataset", "checkthat-dev", "--protocol", "radar", "--questions", "4", "--out", "unused-run-folder"],
    ],
)
def test_the_command_line_refuses_a_bad_count_with_a_hint(cmd, tmp_path):
    import os
    import subprocess
    import sys

    from tests.support.servers import REPO

    r = subprocess.run(
        [sys.executable, "-m", "debate", *cmd],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert r.returncode != 0 and "is not a number from 0 to 3" in r.stderr + r.stdout
    assert "Traceback" not in r.stderr and not (tmp_path / "unused-run-folder").exists()
