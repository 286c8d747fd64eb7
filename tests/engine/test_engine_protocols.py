"""Each protocol on a scripted model: the exact model calls its algorithm prescribes, and the papers' wording."""

import re
import threading

import pytest

from debate.errors import InvalidInput
from tests.support.engine import FakeRetriever, by_type, lineup, run, scripted, turns


def per_member(script: dict[int, list[str]]):
    """Replies by member seed (lineup seeds are 1..n), one per call, in order."""
    lock = threading.Lock()
    queues = {k: list(v) for k, v in script.items()}

    def reply(messages, options):
        with lock:
            return queues[options.seed].pop(0)

    return reply


def vote(label):
    return f'Reasons. VOTE: {label}\n{{"vote": "{label}", "explanation": "because"}}'


def finished(events):
    assert events[0].type == "debate_started" and events[-1].type == "finished"
    assert [e.seq for e in events] == list(range(len(events)))
    return events[-1]


# -- council (Alg. 3) -------------------------------------------------------------------------------------
def test_council_consensus_at_first_vote_needs_no_chair():
    client, backend = scripted()
    ev = run(client, "council")
    assert turns(ev) == [(f"m{i}", "vote", 0) for i in range(1, 6)]
    assert len(backend.calls) == 5 and finished(ev).model_calls == 5
    tally = by_type(ev, "votes_tallied")
    assert len(tally) == 1 and tally[0].reached and tally[0].consensus_share == 1.0
    v = by_type(ev, "verdict")[-1]
    assert v.label == "YES" and v.source == "majority" and "consensus at the first vote" in v.explanation
    assert not by_type(ev, "chair_summary")


def test_council_rounds_until_consensus():
    # round 0: 3 YES / 2 NO (60%); round 1: 4 YES (80% reaches θ)
    client, backend = scripted(
        {
            "vote": per_member(
                {
                    1: [vote("YES"), vote("YES")],
                    2: [vote("YES"), vote("YES")],
                    3: [vote("YES"), vote("YES")],
                    4: [vote("NO"), vote("YES")],
                    5: [vote("NO"), vote("NO")],
                }
            )
        }
    )
    ev = run(client, "council")
    assert turns(ev) == [(f"m{i}", "vote", 0) for i in range(1, 6)] + [("chair", "chair", 1)] + [
        (f"m{i}", "vote", 1) for i in range(1, 6)
    ]
    assert len(backend.calls) == 11
    t0, t1 = by_type(ev, "votes_tallied")
    assert (t0.counts, t0.reached, t1.counts, t1.reached) == ({"YES": 3, "NO": 2}, False, {"YES": 4, "NO": 1}, True)
    assert by_type(ev, "chair_summary")[0].summary == "Look at the URL again."
    # members of round 1 were shown the chair's guidance and the vote status went to the chair
    chair_prompt = [c for c in backend.calls if c["model"] == "chair"][0]["messages"][-1]["content"]
    assert "Vote Status: YES: 3, NO: 2 (Consensus: 60% - Not reached)" in chair_prompt
    assert "Chairperson Summary: Look at the URL again." in backend.calls[-1]["messages"][-1]["content"]
    assert by_type(ev, "verdict")[-1].label == "YES" and finished(ev).rounds == 1


@pytest.mark.parametrize("chair_status", ["free", "tally"])
def test_the_chairs_status_is_decoded_as_the_tallys_state_when_asked(chair_status):
    """chair_status=tally: a backend that decodes under a schema gets the chair's status fixed to the state of
    the tally the chair reads (not reached here: 3 of 5), first, with the summary after it; free (the paper)
    leaves the chair's first answer unconstrained."""
    client, backend = scripted(
        {
            "vote": per_member(
                {
                    1: [vote("YES")] * 2,
                    2: [vote("YES")] * 2,
                    3: [vote("YES")] * 2,
                    4: [vote("NO")] * 2,
                    5: [vote("NO")] * 2,
                }
            ),
            "chair": '{"status": "CONSENSUS NOT REACHED", "summary": "Weigh the source."}',
        }
    )
    backend.supports_json_schema = True
    ev = run(client, "council", params={"chair_status": chair_status, "rounds": 1})
    (call,) = [c for c in backend.calls if c["model"] == "chair"]
    schema = call["options"].json_schema
    if chair_status == "free":
        assert schema is None
        return
    assert list(schema["properties"]) == ["status", "summary"]  # the status first: the summary follows it
    assert schema["properties"]["status"]["enum"] == ["CONSENSUS NOT REACHED"]
    (chair,) = [t for t in by_type(ev, "turn_finished") if t.role == "chair"]
    assert chair.label == "CONSENSUS NOT REACHED" and not by_type(ev, "votes_tallied")[0].reached


@pytest.mark.parametrize("protocol", ["single", "team"])
@pytest.mark.parametrize("judge_answer", ["paper", "constrained"])
def test_the_single_and_team_judge_writes_its_reason_before_its_label_when_asked(protocol, judge_answer):
    """judge_answer=constrained (the small-model aids): the judge's JSON is decoded under its schema from the
    first token, the explanation first and the category after it, so the label follows the reason; paper
    leaves the first answer free (the category first, as the paper's format shows it)."""
    client, backend = scripted({"judge": '{"explanation": "The study is named and linked.", "category": 1}'})
    backend.supports_json_schema = True
    ev = run(client, protocol, category=1, params={"rounds": 0, "judge_answer": judge_answer})
    (call,) = [c for c in backend.calls if c["model"] == "judge"]
    schema = call["options"].json_schema
    if judge_answer == "paper":
        assert schema is None
    else:
        assert list(schema["properties"]) == ["explanation", "category"]
        assert schema["properties"]["category"]["enum"] == [1, 0]
    (verdict,) = by_type(ev, "verdict")
    assert verdict.label == "YES" and "The study is named and linked." in verdict.explanation


@pytest.mark.parametrize("protocol", ["single", "team"])
def test_the_single_and_team_judge_asked_for_words_answers_yes_or_no(protocol):
    """judge_labels=words: the judge's prompt shows the category as "YES" or "NO" where the paper shows 0 or 1,
    its schema's category is the word, and the word it writes is the verdict; digits (the paper) keep 1/0."""
    for labels, answer, enum in (("words", '"YES"', ["YES", "NO"]), ("digits", "1", [1, 0])):
        client, backend = scripted({"judge": '{"explanation": "The study is named.", "category": ' + answer + "}"})
        backend.supports_json_schema = True
        params = {"rounds": 0, "judge_answer": "constrained", "judge_labels": labels}
        ev = run(client, protocol, category=1, params=params)
        (call,) = [c for c in backend.calls if c["model"] == "judge"]
        assert call["options"].json_schema["properties"]["category"]["enum"] == enum
        prompt = call["messages"][-1]["content"]
        assert ('"category": "YES" or "NO"' in prompt) is (labels == "words"), prompt[-300:]
        assert ('"category": 0 or 1' in prompt) is (labels == "digits")
        (verdict,) = by_type(ev, "verdict")
        assert verdict.label == "YES"


def test_council_stops_when_votes_stabilise():
    same = {i: [vote("YES" if i <= 3 else "NO")] * 10 for i in range(1, 6)}
    client, backend = scripted({"vote": per_member(same)})
    ev = run(client, "council")  # stable_rounds=2: stop after round 2, not 5
    tallies = by_type(ev, "votes_tallied")
    assert [t.stabilised for t in tallies] == [False, False, True]
    assert len(backend.calls) == 5 + 2 * 6 and finished(ev).rounds == 2
    assert "votes stabilised in round 2" in by_type(ev, "verdict")[-1].explanation
    client, backend = scripted({"vote": per_member(same)})
    ev = run(client, "council", params={"stable_rounds": 1})
    assert len(backend.calls) == 5 + 6


def test_council_members_of_a_named_model_are_asked_once_and_every_sink_says_so():
    """keep_first_vote (the aids name SmolLM2, whose discussion votes did not depend on the tweet): its
    members vote once; in every discussion round their first vote is counted without a call, and the tally
    says so on every sink."""
    from debate.sharing.html import to_html
    from debate.sharing.markdown import to_markdown
    from debate.transcript import render_text
    from debate.view import build_view

    script = {1: [vote("YES")] * 6, 2: [vote("NO")], 3: [vote("NO")] * 6}
    client, backend = scripted({"vote": per_member(script)})
    lu = lineup(3)
    lu["members"][1]["model"] = "scripted:blind"
    ev = run(client, "council", lineup=lu, params={"keep_first_vote": "scripted:blind"})
    blind_calls = [c for c in backend.calls if c["model"] == "blind"]
    assert len(blind_calls) == 1  # its first vote only
    tallies = by_type(ev, "votes_tallied")
    assert len(tallies) == 3 and [t.kept for t in tallies] == [[], ["m2"], ["m2"]]
    assert all(t.votes == {"m1": "YES", "m2": "NO", "m3": "NO"} for t in tallies)  # its first vote, counted
    assert [(a, r) for a, _, r in turns(ev) if r > 0 and a.startswith("m")] == [
        ("m1", 1),
        ("m3", 1),
        ("m1", 2),
        ("m3", 2),
    ]
    note = "m2 not asked again: its first vote, counted as NO, stands"
    view = build_view(ev)
    row = {"id": "d1", "claim": "A claim.", "protocol": "council", "task": "checkthat", "status": "completed"}
    assert note in to_markdown(row, ev) and note in to_html(ev) and note in render_text(ev)
    assert view.rounds[1].kept_note() == note and view.rounds[0].kept_note() == ""
    # the paper's council asks every member in every round
    client, backend = scripted({"vote": per_member({**script, 2: [vote("NO")] * 6})})
    run(client, "council", lineup=lu)
    assert len([c for c in backend.calls if c["model"] == "blind"]) == 3


def test_council_max_rounds_and_tie_rule():
    flip = {
        1: [vote("YES"), vote("NO"), vote("YES")],
        2: [vote("NO"), vote("YES"), vote("NO")],
        3: [vote("YES"), vote("NO"), vote("YES")],
        4: [vote("NO"), vote("YES"), vote("NO")],
    }
    client, backend = scripted({"vote": per_member(flip)})
    ev = run(client, "council", n=4, params={"rounds": 2})
    assert len(backend.calls) == 4 + 2 * 5  # never consensus, never stable: all R rounds
    v = by_type(ev, "verdict")[-1]
    assert v.label == "NO" and "tie broken by the previous round's leader" not in v.explanation
    assert "tie broken by the default label NO" in v.explanation  # previous round tied too


def test_council_invalid_vote_is_repaired_once_then_marked_invalid():
    client, backend = scripted(
        {
            "vote": per_member(
                {1: ["I am not sure."], 2: ["Hmm."], 3: [vote("YES")], 4: [vote("YES")], 5: [vote("YES")]}
            ),
            "repair": lambda m, o: vote("YES") if o.seed == 1 else "Still thinking.",
        }
    )
    ev = run(client, "council", params={"rounds": 0})
    done = {t.agent: t for t in by_type(ev, "turn_finished")}
    assert done["m1"].valid and done["m1"].repaired and done["m1"].label == "YES"
    assert not done["m2"].valid and done["m2"].label is None and done["m2"].parsed["label"] is None
    assert len(backend.calls) == 7 and finished(ev).model_calls == 7  # 5 votes + 2 repairs
    tally = by_type(ev, "votes_tallied")[0]
    assert tally.votes["m2"] is None and tally.consensus_share == pytest.approx(0.8)
    repair = [c for c in backend.calls if "could not be read" in c["messages"][-1]["content"]][0]
    assert (
        repair["messages"][-2]["role"] == "assistant" and '{"vote": "YES" or "NO"' in repair["messages"][-1]["content"]
    )
    assert repair["options"].json_schema is None  # this backend cannot constrain output


def test_repair_is_constrained_to_json_where_the_backend_can():
    client, backend = scripted({"judge": "Mark the category as 1.", "repair": '{"category": 1, "explanation": "e"}'})
    backend.supports_json_schema = True
    ev = run(client, "baseline")
    rep = backend.calls[-1]["options"].json_schema
    assert rep["properties"]["category"]["enum"] == [1, 0] and rep["required"] == ["explanation", "category"]
    first, repair = backend.calls[0]["options"].max_tokens, backend.calls[-1]["options"].max_tokens
    assert repair == max(64, first)  # room for the reason and the label even under a small answer budget
    shown = backend.calls[-1]["messages"][-1]["content"]  # the reason first; the options not as an answer
    assert '{"explanation": "<your reason in one short sentence>", "category": <1 for yes, 0 for no>}' in shown
    t = by_type(ev, "turn_finished")[0]
    assert t.repaired and t.label == "YES" and t.text == "Mark the category as 1."


def test_council_prompts_carry_the_papers_wording():
    client, backend = scripted({"vote": per_member({i: [vote("YES" if i < 4 else "NO")] * 3 for i in range(1, 6)})})
    run(client, "council", params={"rounds": 1})
    member = backend.calls[0]["messages"][-1]["content"]
    for s in (
        "Task: You are a member of a scientific council discussing whether a tweet reference to scientific "
        "studies/publications. Collaborate with other council members to reach consensus.",
        "Category Description: Direct references to scientific papers, research studies, academic publications, "
        "or scholarly articles.",
        "Guidelines: Examine both URL and tweet content carefully.",
        "- Focus on science rather than technology, religion, or politics",
        'conclude with your vote: VOTE: [YES/NO]. Use following JSON format: {"vote": "YES" or "NO", '
        '"explanation": "Brief explanation of your decision, including which arguments you found most compelling"}',
        "Council Discussion: None",
        "Chairperson Summary: None",
        "Examples: Important parts are highlighted",
    ):
        assert s in member, s
    chair = [c for c in backend.calls if c["model"] == "chair"][0]["messages"][-1]["content"]
    assert "The discussion should end when: a clear consensus emerges (at least 80% agreement)" in chair


# -- single debate (Alg. 1) ----------------------------------------------------------------------------------
def test_single_debate_call_sequence_and_prompts():
    client, backend = scripted()
    ev = run(client, "single", category=1)
    expected = [("proponent", "opening", 0), ("opponent", "opening", 0)]
    for r in (1, 2, 3):
        expected += [("proponent", "rebuttal", r), ("opponent", "rebuttal", r)]
    expected += [("proponent", "closing", 3), ("opponent", "closing", 3), ("judge", "judge", 3)]
    assert turns(ev) == expected and len(backend.calls) == 11
    v = by_type(ev, "verdict")[-1]
    assert (v.label, v.source, v.explanation) == ("YES", "judge", "The proponent was convincing.")
    sys_p, user_p = next(c["messages"] for c in backend.calls if c["model"] == "m1")  # the proponent's first
    assert sys_p["content"].startswith(
        "You are a scientific content detector participating in a formal debate. "
        "Your job is to argue why the given tweets contain scientific claims."
    )
    assert "Your Role: Argue why the tweet contain scientific claims." in user_p["content"]
    assert "Previous Discussion: None" in user_p["content"]
    opp = [c for c in backend.calls if c["model"] == "m2"]
    assert "Your Role: Argue why the tweet does NOT contain scientific claims." in opp[0]["messages"][-1]["content"]
    # the opponent's rebuttal sees the proponent's rebuttal of the same round
    assert "Proponent (rebuttal 1)" in opp[1]["messages"][-1]["content"]
    judge = backend.calls[-1]["messages"]
    assert '{"category": 0 or 1, "explanation": [EXPLANATION]}' in judge[0]["content"]
    assert "Debate Transcript: Proponent (opening)" in judge[1]["content"]
    client, backend = scripted()
    run(client, "single", params={"rounds": 1})
    assert len(backend.calls) == 7


# -- team debate (Alg. 2) ----------------------------------------------------------------------------------
@pytest.mark.parametrize("config,size,n", [("different", 2, 4), ("same", 3, 3)])
def test_team_debate_call_sequence(config, size, n):
    client, backend = scripted()
    ev = run(client, "team", n=n, params={"rounds": 2, "config": config})
    pro = [f"pro-{i}" for i in range(1, size + 1)]
    opp = [f"opp-{i}" for i in range(1, size + 1)]
    waves = [a for pair in zip(pro, opp) for a in pair]  # member k of both teams at once, teammates in turn
    exp = [(a, "discussion", 0) for a in waves] + [(a, "opening", 0) for a in waves]
    for r in (1, 2):
        exp += (
            [(a, "discussion", r) for a in waves]
            + [(a, "rebuttal", r) for a in pro]
            + [(a, "rebuttal", r) for a in opp]
        )
    exp.append(("judge", "judge", 2))
    assert turns(ev) == exp
    assert len(backend.calls) == (2 + 1) * 4 * size + 1
    models = {e.agent: e.model for e in by_type(ev, "turn_started")}
    if config == "same":
        assert [models[a] for a in pro] == [models[a] for a in opp]
    else:
        assert {models[a] for a in pro}.isdisjoint(models[a] for a in opp)
    # member k of both teams speak at once: either team's first private call may be recorded first
    internals = [
        c["messages"][-1]["content"] for c in backend.calls if "Team Discussion:" in c["messages"][-1]["content"]
    ]
    assert any("a member of a OPPONENT team" in c for c in internals)
    internal = {"messages": [{"content": next(c for c in internals if "a member of a PROPONENT team" in c)}]}
    assert (
        "Task: You are a member of a PROPONENT team discussing whether a tweet reference to scientific "
        "studies/publications. Collaborate with teammates to develop strategy." in internal["messages"][-1]["content"]
    )
    judge = backend.calls[-1]["messages"][-1]["content"]
    assert judge.startswith("Task: Evaluate a team debate about whether a tweet reference to scientific studies")
    assert "Team Debate Transcript: Proponent team (opening)" in judge and "My argument" in judge


def test_team_lineup_teams_are_used():
    lu = {
        "members": [{"model": f"scripted:m{i}"} for i in range(6)],
        "judge": {"model": "scripted:j"},
        "teams": {
            "proponent": [{"model": "scripted:a"}, {"model": "scripted:b"}],
            "opponent": [{"model": "scripted:c"}, {"model": "scripted:d"}],
        },
    }
    client, backend = scripted()
    ev = run(client, "team", lineup=lu, params={"rounds": 0, "team_size": 2})
    assert [e.model for e in by_type(ev, "turn_started")][:4] == [
        "scripted:a",
        "scripted:c",
        "scripted:b",
        "scripted:d",
    ]


# -- baseline ---------------------------------------------------------------------------------------------
def test_baseline_is_one_few_shot_call():
    client, backend = scripted({"judge": '```json\n{"category": 0, "explanation": "news link"}\n```'})
    ev = run(client, "baseline", category=2)
    assert turns(ev) == [("m1", "answer", 0)] and len(backend.calls) == 1
    prompt = backend.calls[0]["messages"][-1]["content"]
    assert 'Example 3 (Negative): "How can this be unfolding? **https://www.bbc.co.uk/news**/health-53990068"' in prompt
    v = by_type(ev, "verdict")[-1]
    assert (v.label, v.source, v.explanation) == ("NO", "baseline", "news link")
    client, backend = scripted()
    ev = run(client, "baseline", params={"member": 3})
    assert by_type(ev, "turn_started")[0].model == "scripted:m3"


# -- CheckThat: all categories and the cat2 => cat3 rule -----------------------------------------------------
def _cat_votes(messages, options):
    u = messages[-1]["content"]
    return vote("YES") if "reference to scientific studies" in u else vote("NO")


@pytest.mark.parametrize("rule", [True, False])
def test_all_categories_and_cat2_rule(rule):
    client, backend = scripted({"vote": _cat_votes})
    ev = run(client, "council", category=None, apply_cat2_rule=rule)
    cats = [e.category for e in by_type(ev, "phase_started") if e.phase == "category"]
    assert cats == [1, 2, 3] and len(backend.calls) == 15
    per_cat = [v for v in by_type(ev, "verdict") if v.category]
    assert [(v.category, v.label) for v in per_cat] == [(1, "NO"), (2, "YES"), (3, "NO")]
    final = by_type(ev, "verdict")[-1]
    rules = by_type(ev, "rule_applied")
    if rule:
        assert len(rules) == 1 and rules[0].changed and rules[0].before["3"] == "NO" and rules[0].after["3"] == "YES"
        assert final.labels == {"1": "NO", "2": "YES", "3": "YES"}
    else:
        assert not rules and final.labels == {"1": "NO", "2": "YES", "3": "NO"}


# -- tasks ---------------------------------------------------------------------------------------------------
def test_custom_and_halftruth_tasks_with_turquaz_protocols():
    client, backend = scripted()
    ev = run(
        client,
        "council",
        task="custom",
        category=None,
        custom_title="Is about climate change",
        custom_description="Mentions climate, warming or emissions.",
    )
    prompt = backend.calls[0]["messages"][-1]["content"]
    assert "discussing whether a tweet is about climate change." in prompt
    assert "Focus on science rather than technology" not in prompt
    assert by_type(ev, "verdict")[-1].label == "YES"
    client, backend = scripted({"vote": '{"vote": "HALF-TRUE", "explanation": "omits"}'})
    ev = run(client, "council", task="halftruth", category=None)
    assert "VOTE: [TRUE/FALSE/HALF-TRUE]" in backend.calls[0]["messages"][-1]["content"]
    assert by_type(ev, "verdict")[-1].label == "HALF-TRUE"
    with pytest.raises(InvalidInput, match="custom question needs a title"):
        run(client, "council", task="custom", category=None)


# -- RADAR -------------------------------------------------------------------------------------------------
def probs_from_text(text, options):
    """A backend with label probabilities: 0.9 on the label the text gives, the rest spread."""
    if not options.labels:
        return None
    hit = next((lab for lab in sorted(options.labels, key=len, reverse=True) if lab in text.upper()), None)
    rest = (1 - 0.9) / max(1, len(options.labels) - 1)
    return {lab: (0.9 if lab == hit else rest) for lab in options.labels} if hit else None


def logprob_client(overrides=None):
    client, backend = scripted(overrides, label_probs=probs_from_text)
    backend.supports_logprobs = True
    return client, backend


def test_radar_stops_after_opening_with_logprobs():
    client, backend = logprob_client({"stop": "DECISION: STOP"})
    retr = FakeRetriever(3)
    ev = run(client, "radar", task="halftruth", category=None, retriever=retr, top_k=5)
    assert retr.queries == [(ev[0].claim, 5)]
    assert ev[1].type == "evidence" and [p["id"] for p in ev[1].passages] == ["E1", "E2", "E3"]
    assert turns(ev) == [
        ("politician", "opening", 0),
        ("scientist", "opening", 0),
        ("stop-agent", "stop-check", 0),
        ("judge", "round-judge", 0),
    ]
    sc = by_type(ev, "stop_check")[0]
    assert (sc.method, sc.decision, sc.preliminary_verdict) == ("logprobs", "stop", "HALF-TRUE")
    assert sc.stop_margin == pytest.approx(0.8) and sc.verdict_confidence == pytest.approx(0.9)
    v = by_type(ev, "verdict")[-1]
    assert (v.label, v.source) == ("HALF-TRUE", "round-judge") and v.confidence == pytest.approx(0.9)
    # the two openings run at once: the politician's (member 1's model) may be recorded second
    opening = next(c["messages"] for c in backend.calls if c["model"] == "m1")
    assert opening[0]["content"].startswith("You are a politician in a political debate, skilled at persuasive")
    assert "Based on your stance as a politician, either support or oppose the claim." in opening[1]["content"]
    assert re.search(r"\[E1\] \(Doc 1 — src\) <data \w{6}> Passage 1 about the claim\.", opening[1]["content"])
    stop = [c for c in backend.calls if "interim adjudicator" in c["messages"][-1]["content"]][0]["messages"][-1]
    assert "You are about to listen to the first rebuttal round." in stop["content"]
    assert by_type(ev, "turn_finished")[0].citations == ["E1"]


def test_radar_full_length_when_never_stopping():
    client, backend = logprob_client()  # CONTINUE every time
    # the paper's calls only: the re-reads after the verdict are tests/evidence/test_evidence_attribution.py's
    ev = run(client, "radar", task="halftruth", category=None, retriever=FakeRetriever(), params={"attribution": False})
    checks = by_type(ev, "stop_check")
    assert [c.round for c in checks] == [0, 1, 2, 3] and all(c.decision == "continue" for c in checks)
    assert len(backend.calls) == 2 + 3 * 2 + 4 * 2 + 2 + 1
    assert turns(ev)[-3:] == [("politician", "closing", 3), ("scientist", "closing", 3), ("judge", "judge", 3)]
    judge = backend.calls[-1]["messages"]
    assert judge[0]["content"].startswith("You are a neutral judge in a political debate.")
    assert "decide whether the claim is TRUE, FALSE, or HALF-TRUE." in judge[1]["content"]
    assert "[REASON]: your justification\n[VERDICT]: TRUE / FALSE / HALF-TRUE" in judge[1]["content"]
    assert "Round 3: My argument" in judge[1]["content"]
    # the paper's templates are self-contained: by default a closing prompt is [system, template]
    closing = [c for c in backend.calls if "Summarize your final position" in c["messages"][-1]["content"]][0]
    assert len(closing["messages"]) == 2
    client, backend = logprob_client()  # debater_memory: each debater keeps its own conversation
    run(client, "radar", task="halftruth", category=None, retriever=FakeRetriever(), params={"debater_memory": True})
    closing = [c for c in backend.calls if "Summarize your final position" in c["messages"][-1]["content"]][0]
    assert len(closing["messages"]) == 1 + 2 * 4 + 1
    v = by_type(ev, "verdict")[-1]
    assert (v.label, v.source, v.explanation) == ("HALF-TRUE", "judge", "The evidence [E1] omits context.")
    assert finished(ev).rounds == 3


def test_radar_thresholds_and_no_early_stop():
    # stop margin 0.8 but verdict confidence 0.9 < τc 0.95: continue
    client, backend = logprob_client({"stop": "DECISION: STOP"})
    ev = run(client, "radar", task="halftruth", category=None, params={"tau_c": 0.95, "rounds": 1})
    assert [c.decision for c in by_type(ev, "stop_check")] == ["continue", "continue"]
    client, backend = logprob_client({"stop": "DECISION: STOP"})
    ev = run(client, "radar", task="halftruth", category=None, params={"early_stop": False})
    assert not by_type(ev, "stop_check") and len(backend.calls) == 2 + 3 * 2 + 2 + 1
    client, backend = logprob_client({"stop": "DECISION: STOP"})
    ev = run(client, "radar", task="halftruth", category=None, params={"on_stop": "closing"})
    assert len(backend.calls) == 2 + 2 + 2 + 1 and by_type(ev, "verdict")[-1].source == "judge"


def test_radar_samples_when_no_logprobs():
    answers = iter(["DECISION: STOP", "DECISION: STOP", "DECISION: CONTINUE"])
    lock = threading.Lock()

    def stop(m, o):
        with lock:
            return next(answers)

    client, backend = scripted({"stop": stop})
    ev = run(client, "radar", task="halftruth", category=None, params={"stop_samples": 3, "tau_s": 0.3})
    sc = by_type(ev, "stop_check")[0]
    assert sc.method == "samples" and sc.detail["samples"] == 3
    assert sc.stop_margin == pytest.approx(1 / 3) and sc.verdict_confidence == pytest.approx(1.0)
    assert sc.decision == "stop" and len(backend.calls) == 2 + 6
    seeds = sorted(c["options"].seed for c in backend.calls[2:])
    temps = {c["options"].temperature for c in backend.calls[2:]}
    assert len(set(seeds)) == 6 and temps == {0.7}
    assert any(e.type == "phase_started" and "No retriever" in e.note for e in ev)


def test_radar_three_and_four_debaters_and_position_roles():
    client, backend = logprob_client()
    ev = run(client, "radar", task="averitec", category=None, params={"debaters": 3, "rounds": 1, "early_stop": False})
    assert turns(ev)[:3] == [("journalist", "opening", 0), ("politician", "opening", 0), ("scientist", "opening", 0)]
    assert turns(ev)[3] == ("journalist", "rebuttal", 1)
    poli = [c for c in backend.calls if c["messages"][0]["content"].startswith("You are a politician")][0]
    assert "Journalist’s argument: My argument" in poli["messages"][-1]["content"]
    assert "[VERDICT]: TRUE / FALSE / HALF-TRUE / NEI" in backend.calls[-1]["messages"][-1]["content"]
    assert "Agent C (Journalist):" in backend.calls[-1]["messages"][-1]["content"]

    client, backend = logprob_client()
    ev = run(client, "radar", task="halftruth", category=None, params={"debaters": 4, "rounds": 0, "early_stop": False})
    assert turns(ev)[0] == ("domain-inference", "domain", 0)
    expert = [c for c in backend.calls if c["messages"][0]["content"].startswith("You are a specialist in")][0]
    assert expert["messages"][0]["content"].startswith("You are a specialist in Economy in a political debate.")

    client, backend = logprob_client()
    ev = run(
        client, "radar", task="halftruth", category=None, params={"roles": "position", "rounds": 1, "early_stop": False}
    )
    assert [a for a, _, _ in turns(ev)][:2] == ["advocate", "critic"]
    # the two openings run at once, recorded in either order: each found by its seat's model
    adv, cri = (next(c["messages"] for c in backend.calls if c["model"] == m) for m in ("m1", "m2"))
    assert adv[0]["content"] == "You are a critical thinker participating in a factual debate."
    assert adv[1]["content"].startswith("You support the following claim.")
    assert cri[1]["content"].startswith("You oppose the following claim.")
    assert backend.calls[-1]["messages"][0]["content"] == "You are a neutral judge who evaluates factual debates."


def test_radar_single_and_radar_on_checkthat():
    client, backend = scripted()
    ev = run(client, "radar-single", task="halftruth", category=None, retriever=FakeRetriever())
    assert turns(ev) == [("agent", "opening", 0), ("agent", "closing", 0), ("judge", "judge", 0)]
    assert "Agent B: (no second debater: single-agent setting)" in backend.calls[-1]["messages"][-1]["content"]
    assert by_type(ev, "verdict")[-1].label == "HALF-TRUE"
    client, backend = scripted({"verdict": "[REASON]: cites a paper\n[VERDICT]: YES"})
    ev = run(client, "radar", category=2, params={"early_stop": False, "rounds": 0})
    assert (
        "decide whether the tweet reference to scientific studies/publications (YES or NO)."
        in backend.calls[-1]["messages"][-1]["content"]
    )
    assert by_type(ev, "verdict")[-1].label == "YES"


def test_evidence_for_turquaz_protocols_on_request():
    client, backend = scripted()
    ev = run(client, "council", retriever=FakeRetriever(2), evidence=True, params={"rounds": 0})
    assert by_type(ev, "evidence") and "[E2] (Doc 2 — src)" in backend.calls[0]["messages"][-1]["content"]
    client, backend = scripted()
    ev = run(client, "council", retriever=FakeRetriever(2), params={"rounds": 0})
    # off: still retrieved and shown beside the debate, but never put into a prompt
    (shown,) = by_type(ev, "evidence")
    assert not shown.in_prompts and len(shown.passages) == 2
    assert all("[E1]" not in c["messages"][-1]["content"] for c in backend.calls)
    client, backend = scripted()
    ev = run(client, "council", params={"rounds": 0})  # no retriever at all: no evidence event
    assert not by_type(ev, "evidence")
