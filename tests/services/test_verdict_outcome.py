"""One truth per debate (debate/outcome.py): what a council voted (as written and as counted), whether it
reached consensus, what its chair's status was, and what the verdict is, said the same way by the card's
view, the bubbles' tags, Learn's notes and charts, Present and every export.

A scripted council reproduces what a reader once saw on one screen contradict another: a member that writes
NO while the tally counts YES from its probabilities, a chair whose status field says "CONSENSUS REACHED"
above a tally that is not, a member persuaded while the only other holder of its new vote gave no reason.
Scripted models for the protocol; the real engine, store and exports in between (milliseconds)."""

from __future__ import annotations

import csv
import io

from debate import outcome
from debate.events import VotesTallied, event_from_dict
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.runner import DebateConfig, run_debate
from debate.sharing import exports
from debate.sharing.html import to_html
from debate.store import to_markdown
from debate.teaching.steps import NO_REASON, debate_dynamics, steps
from debate.transcript import render_text
from ui.transcript import build_view

YES_A = '{"vote": "YES", "explanation": "It links a study in Nature."}'
NO_B = '{"vote": "NO", "explanation": "A link is not a study."}'
YES_B = '{"vote": "YES", "explanation": "The link is to the study itself."}'
BARE_NO = '{"vote": "NO"}'  # smol: a vote without a word, its probabilities favouring YES
CHAIR = '{"status": "CONSENSUS REACHED", "summary": "Two of three say YES; the threshold is not reached yet."}'
HEADLINE0 = "1 wrote YES, 2 wrote NO; counted from their probabilities: 2 YES, 1 NO"
HEADLINE1 = "2 wrote YES, 1 wrote NO; counted from their probabilities: 3 YES"


def _probs(text: str, options) -> dict | None:
    if not options.labels or "YES" not in options.labels:
        return None
    if text.strip() == BARE_NO:
        return {"YES": 0.8, "NO": 0.2}
    return {"YES": 0.9, "NO": 0.1} if '"YES"' in text else {"YES": 0.1, "NO": 0.9}


def council_cfg() -> DebateConfig:
    """Members a, b and smol (counted from their probabilities), two discussion rounds."""
    return DebateConfig(
        claim="A new study in Nature shows coffee lowers the risk of heart disease https://nature.com/x",
        protocol="council",
        task="checkthat",
        category=2,
        lineup={
            "name": "s",
            "members": [{"name": n, "model": f"scripted:{n}"} for n in ("a", "b", "smol")],
            "chair": {"name": "chair", "model": "scripted:chair"},
            "judge": {"name": "j", "model": "scripted:a"},
        },
        params={"vote_from": "probs", "rounds": 2},
        max_tokens=64,
    )


def council_events() -> list[dict]:
    """A council whose member smol writes NO twice and is counted YES twice; b moves NO -> YES."""
    backend = ScriptedBackend({"a": YES_A, "b": [NO_B, YES_B], "smol": BARE_NO, "chair": CHAIR}, label_probs=_probs)
    return [e.to_dict() for e in run_debate(council_cfg(), ModelClient({"scripted": backend})) if e.type != "token"]


def test_the_rounds_say_votes_as_written_and_as_counted_and_the_chairs_status_from_the_tally():
    events = council_events()
    rounds = outcome.council_rounds(events)
    assert [(r.round, r.reached) for r in rounds] == [(0, False), (1, True)]
    assert [r.headline() for r in rounds] == [HEADLINE0, HEADLINE1]
    smol = [v for r in rounds for v in r.votes if v.agent == "smol"]
    assert [(v.written, v.counted, v.explained) for v in smol] == [("NO", "YES", False)] * 2
    chairs = list(outcome.chair_tags(events).values())
    assert len(chairs) == 1 and chairs[0].label == "CONSENSUS NOT REACHED" and chairs[0].wrote == "CONSENSUS REACHED"
    assert "67% vs threshold 80%" in chairs[0].why
    v = next(e for e in events if e["type"] == "verdict")
    assert outcome.verdict_headline(v, rounds) == HEADLINE1
    assert outcome.reading(v).reading == "votes" and outcome.reading(v).shown == "YES"


def test_a_headline_without_any_vote_counted_otherwise_is_the_plain_count():
    tally = VotesTallied(round=0, votes={"a": "YES", "b": "YES", "c": None}, counts={"YES": 2, "NO": 0})
    turns = [
        {"agent": "a", "phase": "vote", "round": 0, "label": "YES", "parsed": {"explanation": "x"}},
        {"agent": "b", "phase": "vote", "round": 0, "label": "YES", "parsed": {"explanation": "y"}},
        {"agent": "c", "phase": "vote", "round": 0, "label": None, "valid": False},
    ]
    rv = outcome.round_votes(tally, turns)
    assert not rv.differs and rv.headline() == "2 of 3 members voted YES (2 YES, 1 invalid)"
    assert outcome.chair_tag("CONSENSUS NOT REACHED", tally).wrote is None  # agreeing: nothing to add


def test_the_card_the_tags_learn_and_every_export_say_the_same(tmp_path):
    events = council_events()
    view = build_view([event_from_dict(e) for e in events])
    assert view.headline() == HEADLINE1  # the card's headline
    by_agent = {}
    for t in view.turns.values():
        by_agent.setdefault(t.agent, []).append(t.shown_label())
    assert by_agent["smol"] == ["wrote NO, counted as YES"] * 2  # the bubbles' tags
    assert by_agent["chair"] == ["CONSENSUS NOT REACHED"]

    notes = {s.title: s.note for s in steps(events)}  # Learn's step notes
    assert "smol (member) votes YES (wrote NO)" in notes
    assert "smol (member) wrote NO" in notes["smol (member) votes YES (wrote NO)"]
    assert "Votes, round 1: " + HEADLINE1 in notes
    chair_note = next(n for t, n in notes.items() if t.startswith("The chairperson"))
    assert "CONSENSUS NOT REACHED — the tally it read (round 0): consensus 67% vs threshold 80%" in chair_note
    assert "its own status field said CONSENSUS REACHED, but the tally decides" in chair_note
    verdict_note = next(n for t, n in notes.items() if t.startswith("Verdict"))
    assert HEADLINE1 in verdict_note
    b_changed = next(n for t, n in notes.items() if t == "b (member) votes YES")
    assert "changed from NO" in b_changed

    d = debate_dynamics(events)  # Learn's charts and tables: the counted votes, the written ones named
    assert d["changes"] == [{"agent": "b", "round": 1, "from": "NO", "to": "YES", "category": 2}]
    assert {(c["agent"], c["round"], c["wrote"], c["counted"]) for c in d["counted_otherwise"]} == {
        ("smol", 0, "NO", "YES"),
        ("smol", 1, "NO", "YES"),
    }
    # smol held YES (as counted) but gave no reason: a is the only one who argued for YES
    assert d["persuasion"] == [{"persuader": "a", "persuaded": "b", "credit": 1.0}]

    row = {"id": "d", "protocol": "council", "task": "checkthat", "status": "completed", "created_at": "", "claim": "c"}
    md, page = to_markdown(row, events), to_html(events)
    text = render_text([event_from_dict(e) for e in events])
    for out in (md, page, text):
        assert HEADLINE1 in out and "CONSENSUS NOT REACHED" in out
        assert "wrote NO, counted as YES" in out or HEADLINE0 in out
    assert "**CONSENSUS REACHED**" not in md and "→ CONSENSUS REACHED" not in text


def test_a_switch_nobody_argued_for_is_credited_to_no_reason():
    from debate.teaching.steps import VoteSeries, persuasion

    s = VoteSeries(
        rounds=[0, 1],
        votes=[{"a": "YES", "b": "NO"}, {"a": "YES", "b": "YES"}],
        explained=[{"a": False, "b": True}, {"a": False, "b": True}],
    )
    assert persuasion(s) == {(NO_REASON, "b"): 1.0}
    s.explained = []  # series recorded without it (turns, older callers): every holder counts, as before
    assert persuasion(s) == {("a", "b"): 1.0}


def test_the_csv_says_the_counted_vote_beside_the_written_one(tmp_path):
    from debate.store import DebateStore

    store = DebateStore(tmp_path / "s.sqlite")
    events = council_events()
    did = store.create_debate({"protocol": "council", "task": "checkthat", "claim": "c"}, "council01")
    store.append_events(did, events)
    rows = list(csv.DictReader(io.StringIO(exports.export_csv(store, did))))
    smol = [r for r in rows if r["agent"] == "smol"]
    assert smol and all((r["label"], r["counted"]) == ("NO", "YES") for r in smol)
    chair = next(r for r in rows if r["agent"] == "chair")
    assert (chair["label"], chair["counted"]) == ("CONSENSUS REACHED", "CONSENSUS NOT REACHED")


def test_unanimous_as_counted_is_never_said_of_members_who_wrote_otherwise():
    """a and b write YES, smol writes NO and is counted YES: the first vote is unanimous only as counted, and the
    line comparing the debate with its first vote says so beside a headline that gives both counts."""
    backend = ScriptedBackend({"a": YES_A, "b": YES_B, "smol": BARE_NO, "chair": CHAIR}, label_probs=_probs)
    cfg = council_cfg()
    events = [e.to_dict() for e in run_debate(cfg, ModelClient({"scripted": backend})) if e.type != "token"]
    (cmp,) = [e for e in events if e["type"] == "vote_comparison"]
    assert cmp["outcome"] == "unanimous" and cmp["counted_otherwise"] is True
    text = render_text([event_from_dict(e) for e in events])
    assert "unanimous at the first vote as counted (not as written)" in text
    assert HEADLINE1 in text
    assert any("As counted, everyone agreed at once (not as written" in s.note for s in steps(events))  # Learn
    # members who all wrote the same label: the plain sentence
    same = ScriptedBackend({"a": YES_A, "b": YES_B, "smol": YES_A, "chair": CHAIR}, label_probs=_probs)
    plain = [e for e in run_debate(cfg, ModelClient({"scripted": same})) if e.type == "vote_comparison"]
    assert plain[0].sentence() == "unanimous at the first vote" and not plain[0].counted_otherwise
