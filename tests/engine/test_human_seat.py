"""A person takes a seat: the engine asks, waits on the seat's inbox, refuses what its parser cannot read,
passes the turn when the countdown ends, and the agents read the person's words like any model's.

Real parts: the embedded SmolLM2 model as the proponent, a real loopback HTTP server that speaks OpenAI's
chat API as the judge (it logs every request, so the judge's prompt can be read word for word), the real
SQLite store and the live worker. The council case runs on the scripted backend (protocol logic only).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time

import pytest

from debate import live, seats
from debate.errors import InvalidInput
from debate.events import event_from_dict
from debate.models.registry import default_client
from debate.runner import DebateConfig, run_debate
from debate.sharing import exports
from debate.sharing.fork import fork_config
from debate.store import DebateStore
from tests.conftest import REPO
from tests.support.engine import by_type, scripted
from tests.support.engine import lineup as scripted_lineup
from tests.support.hostile_servers import recorder

CLAIM = "A new study in Nature shows coffee lowers the risk of heart disease https://www.nature.com/articles/x1"
REBUTTAL = "The link goes to a press summary, not to the study itself; nothing here reports a measured result."
OPENING = "A tweet that only links to a journal page does not make a scientific claim of its own."
JUDGE_REPLY = '{"category": 0, "explanation": "The opponent showed the tweet only links a page."}'


def person_lineup(judge_url: str) -> dict:
    """SmolLM2 argues for the claim; the opponent's model is replaced by the person; the judge is the
    loopback server."""
    smol = {"name": "smol", "model": "local:smollm2-135m", "temperature": 0.0, "seed": 1}
    return {
        "name": "person-test",
        "members": [smol, dict(smol, name="smol-b")],
        "judge": {"name": "judge", "model": f"openai:scripted@{judge_url}", "temperature": 0.0, "seed": 0},
    }


def answer_when_asked(debate_id: str, answers: list[str], log: list, stop: threading.Event) -> threading.Thread:
    """A person at the page: answers each seat the debate opens, in order (refusals are logged)."""

    def run() -> None:
        todo = list(answers)
        while todo and not stop.is_set():
            for seat in seats.waiting(debate_id):
                try:
                    seats.answer(debate_id, seat.turn_id, todo[0])
                    log.append(("accepted", seat.phase, todo.pop(0)))
                except InvalidInput as e:
                    log.append(("refused", seat.phase, e.message))
                    todo.pop(0)
                break
            time.sleep(0.02)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def judge_prompts(srv) -> list[str]:
    return [
        "\n".join(m.get("content", "") for m in r["body"].get("messages", []))
        for r in srv.requests
        if r["method"] == "POST"
    ]


@pytest.mark.timeout(900)
def test_person_takes_the_opponents_seat_and_the_judge_reads_the_rebuttal_word_for_word(tmp_path):
    store = DebateStore(tmp_path / "debates.sqlite")
    with recorder(reply=JUDGE_REPLY) as srv:
        cfg = DebateConfig(
            claim=CLAIM,
            protocol="single",
            category=1,
            lineup=person_lineup(srv.url),
            params={"rounds": 1, "examples": False},
            max_tokens=16,
            humans=["opponent"],
            human_timeout_s=600,
            debate_id="person-single",
        )
        stop, log = threading.Event(), []
        person = answer_when_asked("person-single", [OPENING, REBUTTAL, "I rest my case."], log, stop)
        did = live.start_debate(cfg, default_client(cache=False), None, store)
        assert live.wait(did, 800)
        stop.set()
        person.join(2)
        prompts = judge_prompts(srv)
    events = store.events(did)
    assert events[-1].type == "finished" and events[-1].status == "completed"
    opp = [e for e in events if e.type == "turn_finished" and e.role == "opponent"]
    assert [(e.phase, e.text, e.human, e.model) for e in opp] == [
        ("opening", OPENING, True, seats.PERSON_SPEC),
        ("rebuttal", REBUTTAL, True, seats.PERSON_SPEC),
        ("closing", "I rest my case.", True, seats.PERSON_SPEC),
    ]
    started = [e for e in events if e.type == "turn_started" and e.role == "opponent"]
    assert all(e.human for e in started) and len(started) == 3
    asked = by_type(events, "human_asked")
    assert [a.phase for a in asked] == ["opening", "rebuttal", "closing"]
    # what the seat showed the person is the role's prompt: the claim, and from round 1 the proponent's words
    pro_opening = next(e.text for e in events if e.type == "turn_finished" and e.role == "proponent")
    assert CLAIM in asked[0].prompt and pro_opening.strip()[:40] in asked[1].prompt
    assert asked[0].timeout_s == 600 and asked[0].answer_format.startswith("Free text")
    # the proponent (a real model) read the person's opening through the same prompt assembly
    assert all(not e.human for e in events if e.type == "turn_finished" and e.role == "proponent")
    # the judge's logged prompt carries the person's rebuttal word for word
    assert len(prompts) == 1 and REBUTTAL in prompts[0] and OPENING in prompts[0]
    assert by_type(events, "verdict")[0].label == "NO"
    # kept by every export
    md = exports.export_markdown(store, did)
    assert REBUTTAL in md and "written by a person" in md
    assert any(
        r["human"] == "True" and r["text"] == REBUTTAL
        for r in __import__("csv").DictReader(__import__("io").StringIO(exports.export_csv(store, did)))
    )
    from debate.sharing.html import to_html

    assert "written by a person" in to_html(store.event_dicts(did))
    # a fork after round 0 replays the person's opening as theirs
    fork = fork_config(store.event_dicts(did), 0)
    assert fork.seats and any(s["model"] == seats.PERSON_SPEC for s in fork.seats)


def test_a_council_vote_that_is_not_a_vote_is_refused_and_a_vote_counts():
    client, backend = scripted()
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="council",
        category=2,
        lineup=scripted_lineup(3),
        params={"rounds": 0},
        max_tokens=32,
        humans=["m2"],
        human_timeout_s=600,
        debate_id="person-vote",
    )
    stop, log = threading.Event(), []
    person = answer_when_asked(
        "person-vote",
        ["I find this claim rather interesting, honestly.", "VOTE: NO — the link is a press release"],
        log,
        stop,
    )
    events = list(run_debate(cfg, client))
    stop.set()
    person.join(2)
    assert log[0][0] == "refused" and "this turn needs a vote (one of YES, NO)" in log[0][2]
    assert log[1] == ("accepted", "vote", "VOTE: NO — the link is a press release")
    m2 = next(e for e in events if e.type == "turn_finished" and e.agent == "m2")
    assert m2.human and m2.label == "NO" and m2.valid and m2.parsed["refused"] == 1
    assert by_type(events, "votes_tallied")[0].votes == {"m1": "YES", "m2": "NO", "m3": "YES"}
    # the person's turn never reached the scripted models; the other members were not held up by it
    assert all(c["model"] != "person" for c in backend.calls)


def test_check_answer_messages_say_what_to_write():
    seat = seats.Seat(
        debate_id="d",
        turn_id="t1",
        agent="judge",
        role="judge",
        phase="judge",
        round=0,
        prompt="",
        answer_format="ANSWER: YES/NO — your reason",
        timeout_s=5,
        parse=lambda s: __import__("debate.protocols.parsing", fromlist=["x"]).parse_label(s, ("YES", "NO")),
        labels=("YES", "NO"),
    )
    with pytest.raises(InvalidInput) as e:
        seats.check_answer(seat, "maybe")
    assert "needs a verdict" in e.value.message and "ANSWER: YES/NO" in e.value.hint
    with pytest.raises(InvalidInput, match="empty"):
        seats.check_answer(seat, "   ")
    with pytest.raises(InvalidInput, match="at most"):
        seats.check_answer(seat, "YES " * 2000)
    with pytest.raises(InvalidInput, match="no longer waiting"):
        seats.answer("d", "t1", "YES")  # never opened


def test_an_unattended_seat_times_out_and_the_debate_goes_on_and_records_it(tmp_path):
    store = DebateStore(tmp_path / "debates.sqlite")
    client, _ = scripted()
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="single",
        category=1,
        lineup=scripted_lineup(2),
        params={"rounds": 0},
        max_tokens=32,
        humans=["judge"],
        human_timeout_s=1,
        debate_id="person-timeout",
    )
    did = live.start_debate(cfg, client, None, store)  # nobody at the page: the tab was closed
    assert live.wait(did, 60)
    events = store.events(did)
    out = by_type(events, "human_timeout")
    assert len(out) == 1 and out[0].agent == "judge" and out[0].timeout_s == 1
    assert "within 1 s: the turn passed" in out[0].message
    judge = next(e for e in events if e.type == "turn_finished" and e.role == "judge")
    assert judge.human and not judge.valid and judge.parsed["timed_out"]
    assert by_type(events, "verdict")[0].label is None
    assert events[-1].type == "finished" and events[-1].status == "completed"
    assert seats.waiting(did) == []
    md = exports.export_markdown(store, did)
    assert "turn passed" in md and "no answer (countdown ended)" in md
    from debate.transcript import render_text

    assert "NO ANSWER (the person's countdown ended)" in render_text(events)
    from ui.transcript import build_view

    assert [t.timed_out for t in build_view(events).turns.values() if t.human] == [True]


def test_a_stopped_debate_closes_its_open_seat():
    client, _ = scripted()
    cancel = threading.Event()
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="single",
        category=1,
        lineup=scripted_lineup(2),
        params={"rounds": 0},
        max_tokens=32,
        humans=["opponent"],
        human_timeout_s=600,
        debate_id="person-stop",
    )
    events = []
    for ev in run_debate(cfg, client, cancel=cancel):
        events.append(ev)
        if ev.type == "human_asked":
            cancel.set()
    assert events[-1].status == "stopped" and seats.waiting("person-stop") == []


def test_unknown_seat_is_refused_before_the_debate_starts():
    client, _ = scripted()
    cfg = DebateConfig(claim=CLAIM, protocol="single", lineup=scripted_lineup(2), humans=["goalkeeper"])
    with pytest.raises(InvalidInput, match="no seat 'goalkeeper'") as e:
        run_debate(cfg, client)
    assert "proponent" in e.value.hint and "judge" in e.value.hint


@pytest.mark.timeout(900)
def test_cli_run_with_human_file(tmp_path):
    answers = tmp_path / "answers.txt"
    answers.write_text(
        f"{OPENING}\n---\nI rest my case.\n---\nnot a verdict at all, just words\n---\nANSWER: NO — {REBUTTAL}\n"
    )
    out = tmp_path / "events.jsonl"
    with recorder(reply="An argument from the loopback server.") as srv:
        lu = tmp_path / "lineup.json"
        lu.write_text(json.dumps({**person_lineup(srv.url), "name": "cli-person"}))
        env = {**os.environ, "PYTHONPATH": str(REPO), "DEBATE_CACHE": "0"}
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "debate",
                "run",
                "--protocol",
                "single",
                "--rounds",
                "0",
                "--param",
                "examples=false",
                "--max-tokens",
                "12",
                "--lineup",
                str(lu),
                "--human",
                "proponent",
                "--human",
                "judge",
                "--human-file",
                str(answers),
                "--events",
                str(out),
                CLAIM,
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env,
            timeout=800,
        )
    assert r.returncode == 0, r.stderr
    events = [event_from_dict(json.loads(line)) for line in out.read_text().splitlines()]
    mine = [e for e in events if e.type == "turn_finished" and e.human]
    assert [(e.role, e.phase, e.text) for e in mine] == [
        ("proponent", "opening", OPENING),
        ("proponent", "closing", "I rest my case."),
        ("judge", "judge", f"ANSWER: NO — {REBUTTAL}"),
    ]
    assert mine[2].label == "NO" and mine[2].parsed["refused"] == 1
    assert by_type(events, "verdict")[0].label == "NO"
    # the opponent (SmolLM2) answered; the file's third block was refused as a verdict, with the reason shown
    assert any(e.type == "turn_finished" and e.role == "opponent" and not e.human for e in events)
    assert "Refused: this turn needs a verdict" in r.stderr and "Your turn: judge" in r.stderr
    assert "written by a person" in r.stdout
    assert events[-1].type == "finished" and events[-1].status == "completed"


def test_cli_refuses_a_file_without_a_seat(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("x")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run(
        [sys.executable, "-m", "debate", "run", "--human-file", str(f), CLAIM],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert r.returncode == 2 and "no seat is played by a person" in r.stderr and "Traceback" not in r.stderr


def test_a_person_judging_radar_is_asked_once_per_check_not_sampled():
    client, backend = scripted()
    cfg = DebateConfig(
        claim="The minimum wage doubled last year.",
        protocol="radar",
        task="halftruth",
        category=None,
        lineup=scripted_lineup(2),
        params={"rounds": 1, "stop_method": "samples"},
        max_tokens=32,
        humans=["judge"],
        human_timeout_s=600,
        debate_id="person-radar",
    )
    stop, log = threading.Event(), []
    person = answer_when_asked(
        "person-radar", ["[REASON]: It leaves out inflation.\n[VERDICT]: HALF-TRUE"] * 6, log, stop
    )
    events = list(run_debate(cfg, client))
    stop.set()
    person.join(2)
    asked = by_type(events, "human_asked")
    checks = by_type(events, "stop_check")
    judge_turns = [e for e in events if e.type == "turn_finished" and e.role == "judge"]
    assert checks and len(asked) == len(judge_turns)
    assert len([t for t in judge_turns if t.phase == "round-judge"]) == len(checks)  # once per check
    assert all(t.human and t.label == "HALF-TRUE" for t in judge_turns)
    assert all("[VERDICT]" in a.answer_format for a in asked)
    assert by_type(events, "verdict")[-1].label == "HALF-TRUE"
    # the stop agent (a model) still samples
    assert all(c["detail"]["samples"] == {"stop-agent": 3, "judge": 1} for c in [x.to_dict() for x in checks])


def test_a_fork_replays_the_persons_turns_as_theirs_and_asks_them_again_after_the_fork():
    client, _ = scripted()
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="single",
        category=1,
        lineup=scripted_lineup(2),
        params={"rounds": 1},
        max_tokens=32,
        humans=["opponent"],
        human_timeout_s=600,
        debate_id="person-parent",
    )
    stop, log = threading.Event(), []
    person = answer_when_asked("person-parent", [OPENING, REBUTTAL, "Closing words."], log, stop)
    parent = [e.to_dict() for e in run_debate(cfg, client)]
    stop.set()
    person.join(2)
    fork = fork_config(parent, 0, say="Consider the date.", debate_id="person-fork")
    assert fork.human_timeout_s == 600
    stop2, log2 = threading.Event(), []
    person2 = answer_when_asked("person-fork", ["A new rebuttal after the note.", "New closing."], log2, stop2)
    events = list(run_debate(fork, client))
    stop2.set()
    person2.join(2)
    opp = [e for e in events if e.type == "turn_finished" and e.role == "opponent"]
    assert [(e.phase, e.text, e.human, e.replayed) for e in opp] == [
        ("opening", OPENING, True, True),
        ("rebuttal", "A new rebuttal after the note.", True, False),
        ("closing", "New closing.", True, False),
    ]
    assert [e.human for e in events if e.type == "turn_started" and e.role == "opponent"] == [True] * 3
    assert "Consider the date." in by_type(events, "human_asked")[0].prompt  # the note reaches the person too


def test_cli_human_seat_answered_from_the_terminal(tmp_path):
    lu = tmp_path / "lineup.json"
    lu.write_text(
        json.dumps(
            {
                "name": "scripted-cli",
                "members": [{"name": "a", "model": "scripted:a"}, {"name": "b", "model": "scripted:b"}],
            }
        )
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "DEBATE_CACHE": "0"}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "debate",
            "run",
            "--protocol",
            "single",
            "--rounds",
            "0",
            "--lineup",
            str(lu),
            "--human",
            "judge",
            "--no-check",
            CLAIM,
        ],
        input="\nno idea\nANSWER: NO — only a link\n",
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("Refused") == 1 and "Your answer is empty" in r.stderr and "Answer accepted" in r.stderr
    assert re.search(r"VERDICT[^\n]*: NO", r.stdout) and "written by a person" in r.stdout
    assert "· 4 model calls ·" in r.stdout  # the person's turn is not counted as a model call


def test_turns_that_run_at_once_do_not_wait_for_the_person():
    client, _ = scripted(delay_s=0.01)
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="council",
        category=2,
        lineup=scripted_lineup(3),
        params={"rounds": 0},
        max_tokens=32,
        humans=["m2"],
        human_timeout_s=600,
        debate_id="person-concurrent",
    )
    order = []
    for ev in run_debate(cfg, client):  # the person answers only once both other members have finished
        if ev.type == "turn_finished":
            order.append(ev.agent)
        if ev.type in ("turn_finished", "human_asked") and {"m1", "m3"} <= set(order) and "m2" not in order:
            for seat in seats.waiting("person-concurrent"):
                seats.answer("person-concurrent", seat.turn_id, "VOTE: YES")
    assert order[:3] in (["m1", "m3", "m2"], ["m3", "m1", "m2"])


@pytest.mark.timeout(900)
def test_a_person_in_the_embedded_council_with_the_small_model_aids_on():
    """The app's default set-up (embedded lineup, aids on: members vote by their own fitted thresholds):
    a person's vote is the label they wrote, and the model member keeps its threshold."""
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="council",
        category=2,
        lineup="embedded",
        params={"rounds": 0, "members": 2},
        max_tokens=16,
        aids=True,
        humans=["smol-a"],
        human_timeout_s=600,
        debate_id="person-aids",
    )
    stop, log = threading.Event(), []
    person = answer_when_asked("person-aids", ["VOTE: NO — a link is not a study"], log, stop)
    events = list(run_debate(cfg, default_client(cache=False)))
    stop.set()
    person.join(2)
    assert events[-1].status == "completed", [e.message for e in by_type(events, "error")]
    assert events[0].settings["params"]["calibration"] == "threshold"  # the aids still apply to the model
    tally = by_type(events, "votes_tallied")[0]
    assert tally.votes["smol-a"] == "NO" and tally.votes["qwen-a"] in ("YES", "NO")
    assert log == [("accepted", "vote", "VOTE: NO — a link is not a study")]
