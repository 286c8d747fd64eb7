"""Engine side of the teaching and presenting views: what a fork will do (said before it runs), the
Learn note on evidence the agents did or did not see, recorded playback beat by beat, the Markdown
export's sections and the models' readiness. Protocol logic runs on the scripted backend; the pages
that show these are tested in test_ui_teach_present*.py."""

from __future__ import annotations

import pytest

from debate.errors import InvalidInput
from debate.runner import run_debate
from debate.sharing import playback
from debate.sharing.fork import fork_config, fork_plan
from debate.store import to_markdown
from debate.teaching import steps as teaching
from tests.support.engine import FakeRetriever, by_type, run, scripted

NOTE = "Is the study peer-reviewed?"


def _d(events) -> list[dict]:
    return [e.to_dict() for e in events if e.type != "token"]


def test_a_fork_of_a_council_that_agreed_at_once_says_it_runs_nothing_and_offers_to_argue():
    client, _ = scripted()  # every member votes YES: consensus at round 0
    parent = _d(run(client, "council", n=3, params={"rounds": 2}, debate_id="agreed"))
    plan = fork_plan(parent, 0)
    assert not plan.runs_new
    assert "would run nothing new" in plan.says and "agreed at round 0 (100% ≥ θ 80%)" in plan.says
    assert plan.argue == {"min_rounds": 1} and "Make them argue" in plan.argue_says
    with pytest.raises(InvalidInput, match="would run nothing new"):  # never an empty fork run silently
        fork_config(parent, 0, say=NOTE)
    # with the offer taken, the chair and every member speak again, reading the note
    client2, backend = scripted()
    ev = list(run_debate(fork_config(parent, 0, say=NOTE, params=plan.argue), client2))
    new = [e for e in by_type(ev, "turn_finished") if not e.replayed]
    assert sorted(e.role for e in new) == ["chair", "member", "member", "member"]
    assert all(NOTE in c["messages"][-1]["content"] for c in backend.calls)
    assert ev[-1].status == "completed" and ev[-1].model_calls == 4
    assert fork_plan(parent, 0, plan.argue).runs_new


def test_fork_plans_of_rounds_that_continue_say_which_rounds_run_anew():
    def split(messages, options):
        return '{"vote": "%s", "explanation": "e"}' % ("YES" if (options.seed or 0) % 2 else "NO")

    client, _ = scripted({"vote": split})
    council = _d(run(client, "council", n=3, params={"rounds": 2, "stable_rounds": 9}))
    p = fork_plan(council, 0)
    assert p.runs_new and "replays round 0" in p.says and "vote again from round 1" in p.says
    last = fork_plan(council, 2)
    assert not last.runs_new and "round 2 was the council's last (rounds=2)" in last.says
    assert last.argue == {"min_rounds": 3, "rounds": 3}
    single = _d(run(scripted()[0], "single", n=2, params={"rounds": 2}))
    assert "rounds 1–2 are argued anew and both sides sum up and the judge decides" in fork_plan(single, 0).says
    end = fork_plan(single, 2)
    assert end.runs_new and "only the end" in end.says and end.argue == {"rounds": 3}
    stop = scripted({"stop": "DECISION: STOP"})[0]
    radar = _d(
        run(
            stop,
            "radar",
            task="halftruth",
            category=None,
            retriever=FakeRetriever(),
            params={"rounds": 2, "tau_s": 0, "tau_c": 0},
        )
    )
    rp = fork_plan(radar, 0)
    assert "it said STOP in the parent" in rp.says and rp.argue == {"early_stop": False}


def test_learn_says_whether_the_agents_saw_the_evidence():
    client, _ = scripted()
    seen = _d(run(client, "council", n=3, params={"rounds": 0}, retriever=FakeRetriever(), evidence=True))
    shown = _d(run(client, "council", n=3, params={"rounds": 0}, retriever=FakeRetriever(), evidence=False))
    note_seen = next(s for s in teaching.steps(seen) if s.kind == "evidence")
    note_shown = next(s for s in teaching.steps(shown) if s.kind == "evidence")
    assert "agents see them numbered [E1]" in note_seen.note
    assert "did not see them" in note_shown.note and "[E1]" not in note_shown.note
    assert "for the viewer only" in note_shown.title


def test_vote_dynamics_of_a_council_that_agreed_at_once_draw_the_votes_into_the_verdict():
    client, _ = scripted()
    ev = _d(run(client, "council", n=3, params={"rounds": 2}))
    d = teaching.debate_dynamics(ev)
    sk = d["sankey"]
    assert sk["nodes"] and sum(sk["value"]) == 3  # three members' votes, not an empty chart
    assert any(n.startswith("R0 · YES") for n in sk["nodes"]) and "Verdict · YES" in sk["nodes"]


def _concurrent_radar() -> list[dict]:
    """A RADAR debate whose two openings overlap and take minutes, as on a busy CPU."""
    ev = _d(
        run(
            scripted()[0],
            "radar",
            task="halftruth",
            category=None,
            retriever=FakeRetriever(),
            params={"rounds": 1, "early_stop": False},
        )
    )
    t = 0.0
    for e in ev:  # spread the recorded times: every turn took 300 s
        t += 300.0 if e["type"] == "turn_finished" else 0.1
        e["t"] = t
    return ev


def test_recorded_playback_shows_every_turn_even_concurrent_openings_at_5x():
    ev = _concurrent_radar()
    bs = playback.beats(ev)
    durs = playback.durations(bs, 5.0)
    turns = [b for b in bs if b.kind == "turn"]
    assert len(turns) == len(by_type_d(ev, "turn_finished"))
    assert max(durs) < 20  # a 300 s turn plays in the time it takes to read it, not a minute
    seen: set[str] = set()
    pos = 0.0
    while pos < len(bs):  # step through the playback as the ticking fragment would
        shown, focus, reveal = playback.frame(ev, bs, pos)
        if focus is not None and focus.kind == "turn" and reveal >= 1.0:
            done = {e["turn_id"] for e in shown if e["type"] == "turn_finished"}
            assert focus.turn_id in done
            seen.add(focus.turn_id)
        pos = playback.advance(pos, 0.3, durs)
    assert seen == {b.turn_id for b in turns}  # the politician's opening included
    roles = [e["role"] for e in ev if e["type"] == "turn_finished" and e["phase"] == "opening"]
    assert set(roles) >= {"politician", "scientist"}


def by_type_d(ev: list[dict], t: str) -> list[dict]:
    return [e for e in ev if e["type"] == t]


def test_playback_positions_step_and_hold_while_paused():
    ev = _concurrent_radar()
    bs = playback.beats(ev)
    durs = playback.durations(bs, 1.0)
    assert playback.step(0.0, +1, len(bs)) == 1.0 and playback.step(2.5, -1, len(bs)) == 2.0
    assert playback.step(2.0, -1, len(bs)) == 1.0 and playback.step(0.0, -1, len(bs)) == 0.0
    assert playback.advance(0.0, 1e9, durs) == len(bs)
    first, focus, reveal = playback.frame(ev, bs, 0.0)
    assert focus.kind == "turn" and reveal == 0.0
    # the other opening, started at the same time, is not on screen before its own beat
    other = bs[1]
    assert other.kind == "turn" and all(e.get("turn_id") != other.turn_id for e in first)


def test_markdown_export_puts_the_evidence_in_its_own_section_and_drops_empty_headings():
    client, _ = scripted()
    ev = _d(run(client, "council", n=3, params={"rounds": 0}, retriever=FakeRetriever(), evidence=False))
    # the viewer's search arrives in the middle of the first round, as in the app
    evidence = next(e for e in ev if e["type"] == "evidence")
    ev.remove(evidence)
    at = next(i for i, e in enumerate(ev) if e["type"] == "phase_started" and e["phase"] == "vote") + 1
    ev.insert(at, evidence)
    md = to_markdown(
        {
            "id": "d1",
            "claim": "A claim.",
            "protocol": "council",
            "task": "checkthat",
            "status": "completed",
            "created_at": "now",
        },
        ev,
    )
    sections = md.split("\n## ")
    votes = next(s for s in sections if s.startswith("Initial votes"))
    assert "### m1" in votes and "**Votes, round 0:**" in votes
    ev_sec = next(s for s in sections if s.startswith("Evidence"))
    assert "### " not in ev_sec and "Votes" not in ev_sec and "the agents did not see these passages" in ev_sec
    assert md.index("## Evidence") < md.index("## Initial votes")
    lines = md.splitlines()
    for i, line in enumerate(lines):  # no heading with nothing under it
        if line.startswith("## "):
            nxt = next(x for x in lines[i + 1 :] if x.strip())
            assert not nxt.startswith("## "), line


def test_a_packaged_model_not_yet_assembled_reads_assembled_on_first_use():
    from debate.models.base import ModelInfo
    from debate.models.registry import readiness

    later = ModelInfo(spec="local:x", backend="local", name="x", status="ready", extra={"on_first_use": True})
    now = ModelInfo(spec="local:y", backend="local", name="y", status="ready", extra={"on_first_use": False})
    assert readiness(later) == "assembled on first use" and readiness(now) == "ready"
