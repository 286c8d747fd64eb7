"""Learn's step notes read as plain words: no raw event name for any kind the engine emits, the fitting
jargon behind "How is this computed?", every note writer short (pure, milliseconds)."""

from __future__ import annotations

import ast
import re
from dataclasses import fields
from pathlib import Path

import pytest

from debate import events as ev
from debate.teaching import notes
from debate.teaching import steps as tc
from tests.support.engine import FakeRetriever, run, scripted

KINDS = sorted(ev.EVENT_TYPES)  # every kind the engine emits, from the event contract itself
RAW = re.compile("|".join(re.escape(k) for k in KINDS if "_" in k))  # snake_case tags never read as words
JARGON = ("fitted", "liar-train", "stratified", "seed ", "τ", "θ", "Alg.", "logprobs", "tokens")


def _filled(kind: str) -> dict:
    """An event of `kind` with every field set to something a note might print."""
    cls = ev.EVENT_TYPES[kind]
    d = cls(seq=1).to_dict()
    for f in fields(cls):
        v = d.get(f.name)
        if isinstance(v, str) and f.name not in ("type", "status", "decision", "outcome", "basis", "method"):
            d[f.name] = f"{f.name} text"
        elif v is None and "label" in f.name:
            d[f.name] = "YES"
    return d


def _readable(title: str, note: str, kind: str) -> None:
    for text in (title, note):
        assert not RAW.search(text), (kind, text)
        assert text.strip() != kind and text.strip() != "event", (kind, text)
    for word in JARGON:
        assert word not in note and word not in title, (kind, word, note)


def test_every_event_kind_has_a_note_writer_and_no_note_names_an_event():
    assert set(KINDS) <= set(notes.WRITERS), set(KINDS) - set(notes.WRITERS)
    started = {"type": "debate_started", "seq": 0, "protocol": "council", "lineup": []}
    for kind in KINDS:
        e = _filled(kind)
        cx = notes.Context([started, e], 1, notes.Said.of([started, e]))
        n = notes.note_of(e, cx)
        assert n.title and n.note and n.kind, kind
        _readable(n.title, n.note, kind)
        assert not RAW.search(n.kind), kind
    odd = notes.note_of({"type": "someone_elses_event", "seq": 0}, notes.Context([], 0, notes.Said.of([])))
    assert "someone_elses_event" not in odd.title + odd.note and "someone_elses_event" in odd.detail


@pytest.mark.parametrize(
    "protocol,task,kw",
    [
        ("council", "checkthat", {"params": {"rounds": 2}}),
        ("single", "checkthat", {"params": {"rounds": 1}}),
        ("team", "checkthat", {"params": {"rounds": 1}}),
        ("radar", "halftruth", {"params": {"rounds": 1}, "evidence": True}),
        ("radar-single", "halftruth", {"evidence": True}),
    ],
)
def test_every_step_of_every_protocol_reads_plainly(protocol, task, kw):
    client, _ = scripted()
    events = [
        e.to_dict()
        for e in run(client, protocol, task, 2 if task == "checkthat" else None, n=4, retriever=FakeRetriever(), **kw)
    ]
    all_steps = tc.steps(events)
    assert {s.kind for s in all_steps} >= {"debate_started", "turn_finished", "verdict", "finished"}
    assert not {s.kind for s in all_steps} & set(tc.PROGRESS)  # progress is folded into what it led to
    for s in all_steps:
        _readable(s.title, s.note, s.kind)
        assert not RAW.search(s.kind_words), s
    finished = all_steps[-1]
    assert "Why it ended then:" in finished.note, finished.note  # why it stopped, in the last step


def test_the_verdicts_fitting_jargon_is_behind_the_expander():
    aid = "class weights fitted on liar-train, stratified sample of 90 (seed 0): FALSE ×12.18"
    verdict = {
        "type": "verdict",
        "seq": 1,
        "label": "TRUE",
        "source": "judge",
        "reading": "written",
        "calibrated_label": "FALSE",
        "aid": aid,
        "confidence": 0.7,
        "basis": "calibrated",
        "basis_note": "after " + aid,
    }
    (step,) = tc.steps([{"type": "debate_started", "seq": 0, "task": "halftruth"}, verdict])[1:]
    assert "would have said FALSE" in step.note and "the verdict is the label the judge wrote" in step.note
    assert "fitted" not in step.note and "Calibrated reading: FALSE" in step.detail and aid in step.detail


def test_no_note_writer_is_longer_than_a_screen():
    tree = ast.parse(Path(notes.__file__).read_text(encoding="utf-8"))
    long = [
        (f.name, f.end_lineno - f.lineno + 1)
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef) and f.end_lineno - f.lineno + 1 > 100
    ]
    assert not long, long


def test_a_stored_files_odd_settings_never_break_a_note():
    """An imported file's settings are anyone's: values that are not numbers are read as absent."""
    odd = {
        "type": "debate_started",
        "seq": 0,
        "protocol": "council",
        "settings": {"params": {"theta": "x", "rounds": [1]}},
    }
    (step,) = tc.steps([odd])
    assert "80%" in step.note and "at most a few discussion round(s)" in step.note
    (step,) = tc.steps([dict(odd, settings={"params": ["theta"]})])
    assert step.title == "Council debate starts"


@pytest.mark.parametrize("early_stop", [True, False])
def test_radars_first_note_says_whether_a_stop_check_runs(early_stop):
    """At the live-demo pace RADAR's early stop is off: the first note once promised a stop check after every
    round anyway, and a student reading the quiz looked for one that never came."""
    client, _ = scripted()
    params = {"rounds": 1, "early_stop": early_stop}
    events = [
        e.to_dict() for e in run(client, "radar", "halftruth", None, n=4, retriever=FakeRetriever(), params=params)
    ]
    first = tc.steps(events)[0]
    ran_checks = any(e["type"] == "stop_check" for e in events)
    assert ran_checks is early_stop
    if early_stop:
        assert "stops early when the stop agent's margin reaches 0.5" in first.note, first.note
        assert "confidence reaches 0.8" in first.note
    else:
        assert "Early stopping is off in this debate" in first.note and "stop check asks" not in first.note
    assert "closings" in first.note  # the closing phase is named before it comes
