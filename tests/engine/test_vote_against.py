"""The debate against a plain majority of its first answers, and the teaching switches that make members argue.

Pure functions on hand-built votes; the protocols on a scripted model (the flip logic needs answers on
cue); the Library filter on a real SQLite file; `eval` through the real engine on a scripted model.
The real embedded-model run is in tests/real_model/test_vote_against_real.py, the verdict card in test_ui_vote.py.
"""

from __future__ import annotations

import json

import pytest

from debate import prompts
from debate.errors import InvalidInput
from debate.events import VoteComparison, event_from_dict
from debate.protocols import PROTOCOLS
from debate.protocols.decisions import against_vote
from debate.sharing import exports
from debate.store import DebateStore
from debate.teaching import steps as teaching
from tests.support.engine import by_type, run, scripted

LABELS = ("YES", "NO")


def discussing(messages) -> bool:
    """A member's prompt in a discussion round: the chair has summarised (at the first vote it reads "None")."""
    return "Chairperson Summary: None" not in messages[-1]["content"]


def member_vote(first: dict[int, str], later: str | None = None):
    """Council member replies by seed: `first[seed]` at the first vote, then `later` (or the same) after."""

    def reply(messages, options):
        label = first[options.seed]
        if later is not None and discussing(messages):
            label = later
        return json.dumps({"vote": label, "explanation": "because"})

    return reply


# -- the pure function ----------------------------------------------------------------------------------
def test_unanimous_first_vote_that_the_debate_keeps():
    d = against_vote({"a": "NO", "b": "NO", "c": "NO"}, LABELS, "NO", "NO", gold="yes")
    assert (d["vote_label"], d["outcome"], d["unanimous"], d["changed"]) == ("NO", "unanimous", True, False)
    assert (d["gold"], d["vote_correct"], d["debate_correct"], d["effect"]) == ("YES", False, False, None)


def test_split_first_vote_whose_majority_stood():
    d = against_vote({"a": "YES", "b": "YES", "c": "NO"}, LABELS, "NO", "YES")
    assert (d["vote_label"], d["outcome"], d["unanimous"], d["effect"]) == ("YES", "stood", False, None)


def test_discussion_changed_the_outcome_for_the_better_and_for_the_worse():
    better = against_vote({"a": "NO", "b": "NO", "c": "YES"}, LABELS, "NO", "YES", gold="YES")
    assert (better["vote_label"], better["outcome"], better["effect"]) == ("NO", "changed", "for the better")
    worse = against_vote({"a": "NO", "b": "NO", "c": "YES"}, LABELS, "NO", "YES", gold="NO")
    assert (worse["vote_correct"], worse["debate_correct"], worse["effect"]) == (True, False, "for the worse")
    neither = against_vote(
        {"a": "TRUE", "b": "TRUE"}, ("TRUE", "HALF-TRUE", "FALSE"), "HALF-TRUE", "FALSE", gold="HALF-TRUE"
    )
    assert neither["effect"] == "neither"


def test_tie_and_unreadable_votes():
    tie = against_vote({"p": "YES", "o": "NO"}, LABELS, "NO", "YES")
    assert (tie["vote_label"], tie["outcome"]) == ("NO", "changed")  # the tie label decides an even split
    # an unreadable vote is no agreement: the readable ones lead, but the vote was not unanimous
    d = against_vote({"a": "YES", "b": None}, LABELS, "NO", "YES")
    assert (d["vote_label"], d["unanimous"], d["outcome"]) == ("YES", False, "stood")
    none = against_vote({"a": None}, LABELS, "NO", None)
    assert (none["vote_label"], none["outcome"]) == (None, "stood")


def test_the_verdict_card_sentences():
    def said(first, debate_label, gold=None):
        return VoteComparison(**against_vote(first, LABELS, "NO", debate_label, gold)).sentence()

    assert said({"a": "NO", "b": "NO"}, "NO") == "unanimous at the first vote"
    assert said({"a": "YES", "b": "YES", "c": "NO"}, "YES") == "the first vote's majority stood"
    assert said({"a": "NO", "b": "NO", "c": "YES"}, "YES") == "the discussion changed the outcome: NO → YES"
    assert (
        said({"a": "NO", "b": "NO", "c": "YES"}, "YES", "YES")
        == "the discussion changed the outcome: NO → YES (for the better)"
    )


def test_learn_explains_it_in_one_plain_note():
    d = against_vote({"a": "NO", "b": "NO", "c": "YES"}, LABELS, "NO", "YES", gold="YES")
    ev = VoteComparison(seq=0, category=1, **d).to_dict()
    (step,) = teaching.steps([ev])
    assert step.title == "Debate vs. vote"
    assert "plain majority" in step.note and "NO → YES" in step.note and "for the better" in step.note


# -- council: the flip on a scripted model --------------------------------------------------------------
def test_council_records_the_vote_the_discussion_overturned():
    client, _ = scripted({"vote": member_vote({1: "NO", 2: "NO", 3: "YES"}, later="YES")})
    ev = run(client, "council", n=3, gold="YES", params={"rounds": 2})
    kinds = [e.type for e in ev]
    (cmp,) = by_type(ev, "vote_comparison")
    verdict = by_type(ev, "verdict")[-1]
    assert kinds.index("vote_comparison") == kinds.index("verdict") + 1  # right after the verdict it compares
    assert cmp.first_votes == {"m1": "NO", "m2": "NO", "m3": "YES"} and cmp.basis == "first votes"
    assert (cmp.vote_label, cmp.debate_label, verdict.label) == ("NO", "YES", "YES")
    assert (cmp.outcome, cmp.changed, cmp.effect, cmp.category) == ("changed", True, "for the better", 2)
    # JSON-serialisable and replayed like every other event
    back = event_from_dict(json.loads(json.dumps(cmp.to_dict())))
    assert isinstance(back, VoteComparison) and back.to_dict() == cmp.to_dict()


def test_council_unanimous_and_stood():
    client, backend = scripted({"vote": member_vote({1: "YES", 2: "YES", 3: "YES"})})
    ev = run(client, "council", n=3)
    (cmp,) = by_type(ev, "vote_comparison")
    assert (cmp.outcome, cmp.vote_label, cmp.debate_label) == ("unanimous", "YES", "YES")
    assert len(backend.calls) == 3  # the paper: consensus at the first vote, nobody argues
    client, _ = scripted({"vote": member_vote({1: "YES", 2: "YES", 3: "NO"})})
    (cmp,) = by_type(run(client, "council", n=3, params={"rounds": 1}), "vote_comparison")
    assert (cmp.outcome, cmp.vote_label, cmp.debate_label) == ("stood", "YES", "YES")


def test_every_category_of_an_all_category_run_is_compared():
    client, _ = scripted({"vote": member_vote({1: "NO", 2: "NO", 3: "NO"})})
    ev = run(client, "council", n=3, category=None)
    assert [c.category for c in by_type(ev, "vote_comparison")] == [1, 2, 3]


def test_single_and_team_debates_are_compared_with_their_assigned_sides():
    client, _ = scripted()  # the judge answers category 1 = YES
    for protocol, params in (("single", {"rounds": 0}), ("team", {"rounds": 0, "team_size": 1})):
        ev = run(client, protocol, n=2, params=params, gold="NO")
        (cmp,) = by_type(ev, "vote_comparison")
        assert cmp.basis == "assigned sides" and set(cmp.first_votes.values()) == {"YES", "NO"}
        assert (cmp.vote_label, cmp.debate_label, cmp.outcome, cmp.effect) == ("NO", "YES", "changed", "for the worse")


def test_baseline_records_no_comparison():
    client, _ = scripted()
    assert by_type(run(client, "baseline", n=1), "vote_comparison") == []


# -- make them argue ------------------------------------------------------------------------------------
def test_the_teaching_switches_are_off_by_default():
    d = PROTOCOLS["council"].defaults()
    assert d["always_discuss"] is False and d["devils_advocate"] == 0


def test_always_discuss_holds_a_round_even_on_a_unanimous_first_vote():
    client, backend = scripted({"vote": member_vote({1: "YES", 2: "YES", 3: "YES"})})
    ev = run(client, "council", n=3, params={"always_discuss": True, "rounds": 3})
    tallies = by_type(ev, "votes_tallied")
    assert [t.round for t in tallies] == [0, 1] and tallies[0].reached  # one round, then consensus ends it
    assert len(by_type(ev, "chair_summary")) == 1 and len(backend.calls) == 3 + 1 + 3
    assert "consensus in round 1" in by_type(ev, "verdict")[-1].explanation
    client, backend = scripted({"vote": member_vote({1: "YES", 2: "YES", 3: "YES"})})
    ev = run(client, "council", n=3, params={"always_discuss": True, "rounds": 0})  # no rounds allowed: none held
    assert len(backend.calls) == 3 and "consensus at the first vote" in by_type(ev, "verdict")[-1].explanation


def test_devils_advocate_argues_the_minority_side_in_discussion_rounds():
    client, backend = scripted({"vote": member_vote({1: "YES", 2: "YES", 3: "NO"})})
    run(client, "council", n=3, params={"devils_advocate": 2, "rounds": 1})
    text = prompts.render("engine.devils_advocate", side="NO", first_vote="YES: 2, NO: 1")
    member_prompts = {
        (c["model"], discussing(c["messages"])): c["messages"][-1]["content"]
        for c in backend.calls
        if c["model"].startswith("m")
    }
    assert text in member_prompts[("m2", True)]  # the advocate, in the discussion round
    assert "devil's advocate" not in member_prompts[("m2", False)]  # not at the first vote
    assert all("devil's advocate" not in member_prompts[(m, True)] for m in ("m1", "m3"))
    assert "deviation from TurQUaz" in prompts.get("engine.devils_advocate").source


def test_a_devils_advocate_seat_outside_the_council_is_refused():
    client, _ = scripted()
    ev = run(client, "council", n=3, params={"devils_advocate": 4})
    (err,) = by_type(ev, "error")
    assert "devils_advocate=4" in err.message and "1 to 3" in err.hint


# -- Library filter on a real SQLite file ----------------------------------------------------------------
def _stored(store: DebateStore, debate_id: str, events) -> None:
    store.create_debate({"claim": debate_id, "protocol": "council", "task": "checkthat"}, debate_id)
    for e in events:
        store.append_event(debate_id, e)


def test_library_filters_on_the_discussion_changing_the_outcome(tmp_path):
    store = DebateStore(tmp_path / "s.sqlite")
    client, _ = scripted({"vote": member_vote({1: "NO", 2: "NO", 3: "YES"}, later="YES")})
    _stored(store, "flipped", run(client, "council", n=3))
    client, _ = scripted({"vote": member_vote({1: "NO", 2: "NO", 3: "NO"})})
    _stored(store, "agreed", run(client, "council", n=3))
    assert [r["id"] for r in store.list(vote_outcome="changed")] == ["flipped"]
    assert [r["id"] for r in store.list(vote_outcome="unanimous")] == ["agreed"]
    assert {r["id"] for r in store.list()} == {"flipped", "agreed"}
    assert any(e.type == "vote_comparison" and e.changed for e in store.events("flipped"))
    with pytest.raises(InvalidInput):
        store.list(vote_outcome="maybe")


# -- eval: per run, the flips and McNemar, the vote-only macro-F1 -----------------------------------------
def test_eval_reports_the_flips_mcnemar_and_the_vote_only_macro_f1(tmp_path, capsys):
    from debate.cli.eval import _print_summary
    from debate.evaluation.checkpoint import read_rows
    from debate.evaluation.metrics import score
    from debate.evaluation.runner import EvalOptions, run_eval
    from debate.runner import run_debate
    from tests.support.engine import lineup

    # every member votes NO at first except m3; after the chair, all vote YES: the discussion flips every item
    client, _ = scripted({"vote": member_vote({1: "NO", 2: "NO", 3: "YES"}, later="YES")})
    out = tmp_path / "run"
    opts = EvalOptions(
        dataset="checkthat-dev",
        out=str(out),
        protocol="council",
        lineup=lineup(3),
        category=1,
        limit=10,
        concurrency=2,
        params={"rounds": 1},
        progress=False,
    )
    s = run_eval(opts, client=client, debate_fn=lambda cfg, c, r, cancel: run_debate(cfg, c, r, cancel))
    rows = [r for r in read_rows(out) if r["status"] == "done"]
    gold = [r["gold"]["1"] for r in rows if r["gold"]["1"] in ("YES", "NO")]
    assert gold.count("YES") and gold.count("NO")  # both kinds of flip occur
    v = s.metrics["vote"]
    assert v["items"] == len(gold) and v["changed"] == len(gold)
    assert v["flipped_wrong_to_right"] == gold.count("YES") and v["flipped_right_to_wrong"] == gold.count("NO")
    assert v["macro_f1_vote"] == pytest.approx(score(gold, ["NO"] * len(gold), ["YES", "NO"])["macro_f1"])
    assert v["macro_f1_debate"] == pytest.approx(s.metrics["macro_f1"])
    assert 0.0 < v["mcnemar_p"] <= 1.0
    assert "Debate vs. vote" in (out / "report.html").read_text(encoding="utf-8")
    _print_summary(s.to_dict())
    said = capsys.readouterr().out
    assert f"flipped wrong -> right {gold.count('YES')}, right -> wrong {gold.count('NO')}" in said
    assert "vote only" in said


def test_text_and_markdown_transcripts_carry_the_comparison(tmp_path):
    from debate.transcript import render_text

    client, _ = scripted({"vote": member_vote({1: "NO", 2: "NO", 3: "YES"}, later="YES")})
    ev = run(client, "council", n=3, gold="YES")
    assert "Debate vs. vote (category 2): the discussion changed the outcome: NO → YES (for the better)" in render_text(
        ev
    )
    store = DebateStore(tmp_path / "s.sqlite")
    _stored(store, "md", ev)
    assert "**Debate vs. vote:** the discussion changed the outcome" in exports.export_markdown(store, "md")
