"""Teaching views on hand-built event lists: step notes, replay prefixes, vote dynamics, flow diagrams."""

from __future__ import annotations

import re

import pytest

from debate.teaching import steps as tc
from debate.teaching.flow import flow_dot, flow_graph


def _council(votes_by_round: list[dict], threshold: float = 0.8, last_reached: bool = False) -> list[dict]:
    """A council debate as the engine would store it (tokens included)."""
    ev: list[dict] = [
        {
            "type": "debate_started",
            "protocol": "council",
            "task": "checkthat",
            "category": 1,
            "lineup": [{"agent": a, "role": "member"} for a in votes_by_round[0]]
            + [{"agent": "chair", "role": "chair"}],
        }
    ]
    for r, votes in enumerate(votes_by_round, 1):
        ev.append(
            {
                "type": "phase_started",
                "phase": "vote" if r == 1 else "discussion",
                "round": r,
                "title": f"Round {r}",
                "note": "" if r > 1 else "Alg. 3: every member votes.",
            }
        )
        for a in votes:
            ev.append({"type": "turn_started", "turn_id": f"{a}{r}", "agent": a, "role": "member", "round": r})
        for a, lab in votes.items():
            ev.append({"type": "token", "turn_id": f"{a}{r}", "agent": a, "text": "I think"})
            ev.append(
                {
                    "type": "turn_finished",
                    "turn_id": f"{a}{r}",
                    "agent": a,
                    "role": "member",
                    "round": r,
                    "label": lab,
                    "confidence": 0.75,
                    "valid": lab is not None,
                    "text": f"{lab}",
                }
            )
        counts = {k: list(votes.values()).count(k) for k in ("YES", "NO")}
        share = max(counts.values()) / len(votes)
        reached = share >= threshold
        ev.append(
            {
                "type": "votes_tallied",
                "round": r,
                "votes": votes,
                "counts": counts,
                "consensus_share": share,
                "threshold": threshold,
                "reached": reached,
                "majority": max(counts, key=counts.get),
            }
        )
        if not reached and r < len(votes_by_round):
            ev.append({"type": "chair_summary", "round": r, "agent": "chair", "summary": "both sides..."})
    ev.append(
        {"type": "verdict", "label": "YES", "source": "majority", "confidence": None, "gold": "YES", "correct": True}
    )
    ev.append(
        {
            "type": "finished",
            "status": "completed",
            "rounds": len(votes_by_round),
            "prompt_tokens": 100,
            "completion_tokens": 50,
            "model_calls": 7,
            "wall_s": 3.2,
        }
    )
    for i, e in enumerate(ev):
        e["seq"] = i
    return ev


R1 = {"a": "YES", "b": "NO", "c": "YES"}
R2 = {"a": "YES", "b": "YES", "c": "YES"}


def test_steps_and_notes_of_a_council_debate():
    ev = _council([R1, R2])
    steps = tc.steps(ev)
    kinds = [s.kind for s in steps]
    assert "token" not in kinds and "turn_started" not in kinds
    assert kinds.count("turn_finished") == 6 and kinds[0] == "debate_started" and kinds[-1] == "finished"
    notes = {s.title: s.note for s in steps}
    tally1 = next(s for s in steps if s.kind == "votes_tallied" and s.round == 1)
    assert tally1.title == "Votes, round 1: 2 of 3 members voted YES (2 YES, 1 NO)"
    assert tally1.note.startswith("67% of the members agree on one label (the consensus), and the council needs 80%")
    assert "not enough yet: the chairperson summarises and a new round starts." in tally1.note
    assert "consensus 67% vs threshold 80%: not reached" in tally1.detail  # debate.outcome's words, in the detail
    tally2 = next(s for s in steps if s.kind == "votes_tallied" and s.round == 2)
    assert "That is enough: the council stops here and the majority label, YES, is the verdict." in tally2.note
    assert notes["Round 1"].startswith("Every member reads the claim and votes on its own")  # plain words
    assert "Alg. 3: every member votes." in steps[1].detail  # the paper's reference, behind the expander
    assert notes["Round 2"].startswith("Members read the discussion so far")
    b2 = [s for s in steps if s.kind == "turn_finished" and s.agent == "b"][1]
    assert b2.title == "b (member) votes YES"
    assert b2.note.startswith("b (member) votes YES in round 2 — changed from NO: in the round before, it voted NO.")
    assert b2.detail.startswith("P(YES) 0.75: its own probability of the label it wrote.")
    assert "The dataset's answer (the gold label) is YES, so the debate got it right." in notes["Verdict: YES"]
    assert notes["Debate completed"] == (
        "The debate finished normally after 2 rounds. Why it ended then: 100% of the members agreed, "
        "at least the 80% needed."
    )
    assert steps[-1].detail == "150 tokens, 7 model calls, 3.2 s."


def test_notes_for_last_round_stabilised_stop_check_and_invalid():
    ev = _council([R1, R1])  # never reached, no rounds left
    last = [s for s in tc.steps(ev) if s.kind == "votes_tallied"][-1]
    assert "no rounds are left: the majority vote (YES) decides" in last.note
    assert "the discussion rounds ran out before 80% agreed" in tc.steps(ev)[-1].note  # why it ended
    stab = tc.steps(
        [
            {
                "type": "votes_tallied",
                "seq": 0,
                "round": 3,
                "consensus_share": 0.6,
                "threshold": 0.8,
                "stabilised": True,
                "majority": "NO",
                "counts": {},
            }
        ]
    )[0]
    assert "no vote changed" in stab.note
    stop = tc.steps(
        [
            {
                "type": "stop_check",
                "seq": 0,
                "round": 1,
                "stop_margin": 0.4,
                "verdict_confidence": 0.5,
                "tau_s": 0.3,
                "tau_c": 0.6,
                "decision": "continue",
                "method": "samples",
            }
        ]
    )[0]
    assert stop.title == "Stop check after round 1"
    assert stop.note == (
        "Two signals must both pass. The stop agent's push to stop (from −1, all for going on, to +1, all for "
        "stopping) scores 0.40; it needs 0.30: passes. The round judge's confidence in its verdict is 0.50; it "
        "needs 0.60: too low. "
        "At least one signal is below its threshold, so the debate goes on."
    )
    assert stop.detail.startswith(
        "stop margin 0.40 ≥ τs 0.30 and the round judge's sample share of the verdict 0.50 < τc 0.60 (from samples)."
    )
    stop2 = tc.steps(
        [
            {
                "type": "stop_check",
                "seq": 0,
                "round": 2,
                "stop_margin": 0.5,
                "verdict_confidence": 0.9,
                "tau_s": 0.3,
                "tau_c": 0.6,
                "decision": "stop",
                "preliminary_verdict": "FALSE",
                "method": "logprobs",
            }
        ]
    )[0]
    assert stop2.note.endswith("So the debate stops early; the preliminary verdict, FALSE, is the answer.")
    bad = tc.steps([{"type": "turn_finished", "seq": 0, "agent": "x", "role": "member", "valid": False}])[0]
    assert "invalid vote, never guessed" in bad.note


def test_events_until_shows_finished_turns_only():
    ev = _council([R1, R2])
    steps = tc.steps(ev)
    first_turn = next(s for s in steps if s.kind == "turn_finished")
    shown = tc.events_until(ev, first_turn)
    assert all(e["type"] != "token" for e in shown)
    started = [e["turn_id"] for e in shown if e["type"] == "turn_started"]
    assert started == ["a1"]  # b and c had started too, but have not finished at this step
    assert tc.events_until(ev, steps[-1])[-1]["type"] == "finished"


def test_vote_dynamics_of_one_debate():
    ev = _council(
        [{"a": "YES", "b": "NO", "c": "NO"}, {"a": "YES", "b": "YES", "c": "NO"}, {"a": "YES", "b": "YES", "c": "YES"}]
    )
    d = tc.debate_dynamics(ev)
    assert d["changes"] == [
        {"agent": "b", "round": 2, "from": "NO", "to": "YES", "category": 1},
        {"agent": "c", "round": 3, "from": "NO", "to": "YES", "category": 1},
    ]
    # b switched to YES, held only by a -> a gets 1; c switched to YES, held by a and b -> 0.5 each
    pers = {(p["persuader"], p["persuaded"]): p["credit"] for p in d["persuasion"]}
    assert pers == {("a", "b"): 1.0, ("a", "c"): 0.5, ("b", "c"): 0.5}
    assert [round(a["share"], 3) for a in d["agreement"]] == [0.667, 0.667, 1.0]
    sk = d["sankey"]
    assert sk["nodes"] == ["R1 · NO", "R1 · YES", "R2 · NO", "R2 · YES", "R3 · YES", "Verdict · YES"]
    links = {(sk["nodes"][s], sk["nodes"][t]): v for s, t, v in zip(sk["source"], sk["target"], sk["value"])}
    assert links == {
        ("R1 · NO", "R2 · NO"): 1,
        ("R1 · NO", "R2 · YES"): 1,
        ("R1 · YES", "R2 · YES"): 1,
        ("R2 · NO", "R3 · YES"): 1,
        ("R2 · YES", "R3 · YES"): 2,
        ("R3 · YES", "Verdict · YES"): 3,
    }
    fig = tc.sankey_figure(sk)
    assert fig.data[0].type == "sankey" and list(fig.data[0].link.value) == sk["value"]


def test_vote_series_from_turns_when_no_tally():
    ev = [
        {"type": "turn_finished", "agent": "pol", "role": "politician", "round": 1, "label": "TRUE"},
        {"type": "turn_finished", "agent": "sci", "role": "scientist", "round": 1, "label": "FALSE"},
        {"type": "turn_finished", "agent": "judge", "role": "judge", "round": 1, "label": "FALSE"},
        {"type": "turn_finished", "agent": "pol", "role": "politician", "round": 2, "label": "FALSE"},
        {"type": "turn_finished", "agent": "sci", "role": "scientist", "round": 2, "label": "FALSE"},
    ]
    (s,) = tc.vote_series(ev)
    assert s.source == "turns" and s.votes == [{"pol": "TRUE", "sci": "FALSE"}, {"pol": "FALSE", "sci": "FALSE"}]
    assert tc.persuasion(s) == {("sci", "pol"): 1.0}


def test_aggregate_over_debates():
    a = _council([{"a": "YES", "b": "NO", "c": "NO"}, {"a": "YES", "b": "YES", "c": "NO"}])
    b = _council([{"a": "NO", "b": "NO", "c": "YES"}, {"a": "NO", "b": "NO", "c": "NO"}])
    agg = tc.aggregate_dynamics([a, b])
    assert agg["debates"] == 2 and agg["changes_per_round"] == {2: 2}
    assert agg["agreement"][0] == {"round": 1, "mean_share": pytest.approx(2 / 3), "n": 2}
    assert sum(agg["sankey"]["value"]) == 12  # 3 agents x (1 transition + into the verdict) x 2 debates


def test_flow_graph_and_dot_from_traces():
    agree = _council([R2])
    split = _council([R1, R1, R1])
    g = flow_graph([agree, split])
    assert {"start", "phase:vote", "phase:discussion", "tally", "chair", "verdict", "end"} <= set(g["nodes"])
    edges = g["edges"]
    assert edges[("tally", "verdict", "reached")] == 1
    assert edges[("tally", "chair", "not reached")] == 2
    assert ("tally", "verdict", "not reached") in edges  # no rounds left
    assert g["nodes"]["phase:vote"]["order"] == ["member ×3"]  # three members at once
    dot = flow_dot(g, "Council", {"theta": 0.8, "rounds": 5})
    assert dot.startswith("digraph") and '"tally" -> "chair" [label="not reached, rounds left"]' in dot
    assert '"tally" -> "verdict" [label="not reached, no rounds left"]' in dot  # one outcome, two places
    assert "theta=0.8" in dot and "shape=diamond" in dot


@pytest.mark.timeout(120)
def test_protocol_diagrams_are_traced_from_the_engine():
    """Every registered protocol yields a diagram by running it (real runner, scripted backend)."""
    from debate.protocols import PROTOCOLS
    from debate.teaching.flow import protocol_dot, trace_protocol

    for name in PROTOCOLS:
        dot = protocol_dot(name)
        assert dot.startswith("digraph") and '"start"' in dot and '"verdict" -> "end"' in dot, name
        assert all(t[-1]["type"] == "finished" and t[-1]["status"] == "completed" for t in trace_protocol(name)), name
    council = protocol_dot("council")
    assert '"tally" -> "verdict" [label="reached"]' in council and '"tally" -> "phase:discussion"' in council
    for dot in (council, protocol_dot("radar")):  # every edge leaving a node says something of its own
        out = re.findall(r'^  ("[^"]+") -> "[^"]+" \[label=("[^"]+")', dot, re.M)
        assert len(out) == len(set(out)), out
    radar = protocol_dot("radar")
    assert '"stop_check" -> "verdict" [label="stop"]' in radar and '"start" -> "evidence"' in radar
    with pytest.raises(Exception, match="Unknown protocol"):
        protocol_dot("nonsense")


def test_start_and_end_notes_say_what_a_number_means_for_a_student():
    """A reader of Learn who had not read the papers took "members=0" beside "3 members" for a contradiction,
    missed that unchanged votes stop a council, and read "after 0 rounds" after an opening and a closing as if
    nothing had happened."""
    ev = _council([R1, R1])
    ev[0]["settings"] = {"params": {"members": 0, "stable_rounds": 3, "theta": 0.8, "rounds": 2}}
    start = tc.steps(ev)[0]
    assert "nobody has changed their vote for 3 rounds in a row" in start.note
    assert "members=0 (the lineup's own number: 3)" in start.detail and "stable_rounds=3" in start.detail
    for proto, said in (
        ("council", "at its first vote, with no discussion round"),
        ("radar-single", "after the opening and the closing (this protocol has no rounds)"),
        ("radar", "after the openings, with no rebuttal round"),
    ):
        end = [
            {"type": "debate_started", "protocol": proto, "task": "halftruth", "lineup": []},
            {"type": "finished", "status": "completed", "rounds": 0},
        ]
        assert tc.steps(end)[-1].note.startswith(f"The debate finished normally {said}."), tc.steps(end)[-1].note
