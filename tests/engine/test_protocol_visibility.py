"""Who reads what: for every protocol, exactly which earlier answers each prompt contains (the papers
say who sees whom; a context-window cut must not change it).

Every scripted call answers a distinct, long text that starts with its own marker «n» and names its
model, so a swapped slot, a missing turn or a leaked private discussion shows up as a wrong set of markers
in some prompt. Judges must read the whole debate — here longer than 6,000 characters — word for word,
unless the model's context window cannot hold it; then the oldest turns are condensed and an event says so.
"""

from __future__ import annotations

import re
import threading

import pytest

from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.protocols import prompting
from debate.transcript import render_text
from tests.support.engine import FakeRetriever, by_type, kind, run, scripted

MARK = re.compile(r"«(\d+)»")


def filler(model: str, n: int, sentences: int = 8) -> str:
    return " ".join(
        f"Point {j} of {model} in call {n}: the wording and the link of the tweet decide this case."
        for j in range(1, sentences + 1)
    )


class Recorder(ScriptedBackend):
    """A scripted backend whose every answer is distinct and long, and which remembers each answer's prompt."""

    def __init__(self, votes=None, stop="CONTINUE", **kw) -> None:
        super().__init__(**kw)
        self.n = 0
        self.prompt_of: dict[str, str] = {}  # marker -> the whole prompt (all messages) that produced it
        self.votes = votes or (lambda model, n: "YES" if model.endswith(("m1", "m2", "m3")) else "NO")
        self.stop = stop
        self.count_lock = threading.Lock()

    def _next(self, model, messages, options):
        with self.count_lock:
            self.n += 1
            n = self.n
            self.calls.append({"model": model, "messages": messages, "options": options})
        m = f"«{n}»"
        k = kind(messages)
        body = f"{m} {model} says: {filler(model, n)}"
        text = {
            "vote": f'{body} VOTE: {self.votes(model, n)}\n{{"vote": "{self.votes(model, n)}", "explanation": "{m}"}}',
            "judge": f'{body}\n{{"category": 1, "explanation": "{m} the proponent"}}',
            "chair": f'{{"status": "CONSENSUS NOT REACHED", "summary": "{m} {model} asks to look at the link again."}}',
            "verdict": f"{body}\n[REASON]: {m} omits context.\n[VERDICT]: HALF-TRUE",
            "stop": f"{m} DECISION: {self.stop}",
            "domain": f"{m}\nDOMAIN: Economy",
            "repair": '{"vote": "YES", "explanation": "repaired"}',
        }.get(k, body)
        self.prompt_of[m] = "\n\n".join(x["content"] for x in messages)
        return text


def setup(**kw):
    backend = Recorder(**kw)
    return ModelClient({"scripted": backend}), backend


class Seen:
    """Turns by (agent, phase, round) and, for each, the set of earlier turns its prompt shows."""

    def __init__(self, events, backend: Recorder) -> None:
        self.turns = {}
        for t in by_type(events, "turn_finished"):
            m = MARK.search(t.text)
            assert m, t.text
            self.turns[(t.agent, t.phase, t.round)] = (m.group(0), t)
        self.by_mark = {mk: key for key, (mk, _) in self.turns.items()}
        self.backend = backend

    def prompt(self, key) -> str:
        return self.backend.prompt_of[self.turns[key][0]]

    def __call__(self, key) -> set:
        """The earlier turns whose marker appears in this turn's prompt."""
        marks = {f"«{x}»" for x in MARK.findall(self.prompt(key))}
        return {self.by_mark[m] for m in marks if m in self.by_mark}

    def whole(self, key, of) -> bool:
        """The prompt of `key` holds the complete text of turn `of`."""
        return self.turns[of][1].text.strip() in self.prompt(key)

    def keys(self, agent=None, phase=None, round=None) -> list:
        return [
            k
            for k in self.turns
            if (agent is None or k[0] == agent)
            and (phase is None or k[1] == phase)
            and (round is None or k[2] == round)
        ]


# -- single debate (Alg. 1) --------------------------------------------------------------------------------
def test_single_debate_who_reads_what_and_the_judge_reads_every_word():
    client, backend = setup()
    ev = run(client, "single", params={"rounds": 3}, max_tokens=256)
    s = Seen(ev, backend)
    P, O = "proponent", "opponent"  # noqa: E741 - the two sides, as in the paper's figures
    assert s((P, "opening", 0)) == set() and s((O, "opening", 0)) == set()  # openings at once
    debate = [(P, "opening", 0), (O, "opening", 0)]
    for r in (1, 2, 3):
        assert s((P, "rebuttal", r)) == set(debate)  # the proponent rebuts the opponent's last argument
        debate.append((P, "rebuttal", r))
        assert s((O, "rebuttal", r)) == set(debate)  # the opponent reads the proponent's rebuttal of round r
        debate.append((O, "rebuttal", r))
    assert s((P, "closing", 3)) == s((O, "closing", 3)) == set(debate)  # closings at once
    judge = ("judge", "judge", 3)
    everything = set(debate) | {(P, "closing", 3), (O, "closing", 3)}
    assert s(judge) == everything and all(s.whole(judge, k) for k in everything)
    transcript = s.prompt(judge).split("Debate Transcript: ", 1)[1]
    assert len(transcript) > 6000  # the old 6,000-character cut would have dropped the openings
    assert not by_type(ev, "transcript_shortened")
    assert all("Current step" not in p for p in backend.prompt_of.values())  # Alg. strings only explain
    client, backend = setup()
    run(client, "single", params={"rounds": 1, "step_instruction": True})
    assert (
        sum("Current step: Rebuttal: rebut the opponent's latest argument." in p for p in backend.prompt_of.values())
        == 1
    )


# -- team debate (Alg. 2) ----------------------------------------------------------------------------------
def test_team_debate_teammates_read_each_other_and_the_judge_never_reads_private_talk():
    client, backend = setup()
    ev = run(client, "team", n=4, params={"rounds": 2})
    s = Seen(ev, backend)
    pro, opp = ["pro-1", "pro-2"], ["opp-1", "opp-2"]
    private = set(s.keys(phase="discussion"))
    public = set(s.keys(phase="opening")) | set(s.keys(phase="rebuttal"))
    # round 0: the second member reads the first (Table 4: "Agree; ..."), never the other team
    assert s(("pro-1", "discussion", 0)) == set() and s(("opp-1", "discussion", 0)) == set()
    assert s(("pro-2", "discussion", 0)) == {("pro-1", "discussion", 0)}
    assert s(("opp-2", "discussion", 0)) == {("opp-1", "discussion", 0)}
    # openings: the team's discussion as its strategy, teammates' openings, not the other team's opening
    assert s(("pro-1", "opening", 0)) == {("pro-1", "discussion", 0), ("pro-2", "discussion", 0)}
    assert s(("pro-2", "opening", 0)) == {
        ("pro-1", "discussion", 0),
        ("pro-2", "discussion", 0),
        ("pro-1", "opening", 0),
    }
    assert s(("opp-2", "opening", 0)) == {
        ("opp-1", "discussion", 0),
        ("opp-2", "discussion", 0),
        ("opp-1", "opening", 0),
    }
    for r in (1, 2):
        for _side, team, _other in (("pro", pro, opp), ("opp", opp, pro)):
            for i, a in enumerate(team):
                seen = s((a, "discussion", r))
                own_private = {k for k in private if k[0] in team and (k[2] < r or (k[2] == r and k[0] in team[:i]))}
                assert {k for k in seen if k in private} == own_private, (a, r)  # never the other team's
                assert {k for k in seen if k in public} == {k for k in public if k[2] < r}  # the debate so far
        for i, a in enumerate(pro):  # the proponent team rebuts first
            strategy = {k for k in private if k[0] in pro and k[2] == r}
            assert s((a, "rebuttal", r)) == strategy | {k for k in public if k[2] < r} | {
                (b, "rebuttal", r) for b in pro[:i]
            }
        for i, a in enumerate(opp):  # then the opponent team answers it, reading it
            strategy = {k for k in private if k[0] in opp and k[2] == r}
            assert s((a, "rebuttal", r)) == strategy | {k for k in public if k[2] < r} | {
                (b, "rebuttal", r) for b in pro
            } | {(b, "rebuttal", r) for b in opp[:i]}
    judge = ("judge", "judge", 2)
    assert s(judge) == public and not s(judge) & private
    assert all(s.whole(judge, k) for k in public)
    assert len(s.prompt(judge).split("Team Debate Transcript: ", 1)[1]) > 6000

    client, backend = setup()  # team_turns=parallel: one pass, teammates do not read each other
    ev = run(client, "team", n=4, params={"rounds": 0, "team_turns": "parallel"})
    s = Seen(ev, backend)
    assert s(("pro-2", "discussion", 0)) == set() and s(("pro-2", "opening", 0)) == set(
        s.keys("pro-1", "discussion")
    ) | set(s.keys("pro-2", "discussion"))


# -- council (Alg. 3) --------------------------------------------------------------------------------------
@pytest.mark.parametrize("summaries", [True, False])
def test_council_members_and_chair_read_the_whole_discussion(summaries):
    """TurQUaz Table 5's log holds the chair's summaries among the members' answers: by default
    (summaries_in_discussion) members and chair read the earlier summaries in the discussion, in order;
    off, the discussion holds member answers only and a member sees just this round's summary."""
    client, backend = setup()  # 3 YES / 2 NO every round: no consensus, stable after 2 rounds
    ev = run(client, "council", params={"rounds": 3, "summaries_in_discussion": summaries})
    s = Seen(ev, backend)
    members = [f"m{i}" for i in range(1, 6)]
    votes = lambda r: {(m, "vote", r) for m in members}
    chairs = lambda r: {("chair", "chair", x) for x in range(1, r)} if summaries else set()
    assert all(s((m, "vote", 0)) == set() for m in members)  # initial votes at once
    for r in (1, 2):
        chair = ("chair", "chair", r)
        earlier = set().union(*(votes(x) for x in range(r)))
        assert s(chair) == earlier | chairs(r) and all(s.whole(chair, k) for k in earlier)
        for m in members:  # everything said before, and this round's chair guidance; not a peer's same-round vote
            assert s((m, "vote", r)) == earlier | chairs(r) | {chair}
    assert finished_rounds(ev) == 2
    member_r2 = s.prompt(("m1", "vote", 2))
    discussion = member_r2.split("Council Discussion: ", 1)[1].split("Chairperson Summary: ", 1)[0]
    first_summary = next(e.summary for e in by_type(ev, "chair_summary") if e.round == 1)
    # in its place: after round 0's answers, before round 1's
    assert (f"Chairperson (round 1 summary): {first_summary}" in discussion) is summaries
    if summaries:
        at = discussion.index
        assert at("m5 (round 0)") < at("Chairperson (round 1") < at("m1 (round 1)")


def finished_rounds(ev):
    return by_type(ev, "finished")[0].rounds


# -- RADAR -------------------------------------------------------------------------------------------------
def radar_backend(**kw):
    backend = Recorder(
        label_probs=lambda text, o: (
            {lab: (0.9 if lab in text.upper() else 0.1 / max(1, len(o.labels) - 1)) for lab in o.labels}
            if o.labels
            else None
        ),
        **kw,
    )
    backend.supports_logprobs = True
    return ModelClient({"scripted": backend}), backend


def test_radar_debaters_read_the_opponents_latest_and_judges_read_every_argument():
    client, backend = radar_backend()
    retr = FakeRetriever(3)
    ev = run(client, "radar", task="halftruth", category=None, retriever=retr, params={"rounds": 2}, max_tokens=256)
    s = Seen(ev, backend)
    P, S = "politician", "scientist"
    assert s((P, "opening", 0)) == set() and s((S, "opening", 0)) == set()
    args = {(P, "opening", 0), (S, "opening", 0)}
    for r in (1, 2):
        assert s((P, "rebuttal", r)) == {(S, "opening" if r == 1 else "rebuttal", r - 1)}  # only the opponent's latest
        assert s((S, "rebuttal", r)) == {(P, "opening" if r == 1 else "rebuttal", r - 1)}
        args |= {(P, "rebuttal", r), (S, "rebuttal", r)}
    for r in (0, 1, 2):  # stop agent and round judge: every argument up to that round, no check's answers
        upto = {k for k in args if k[2] <= r}
        assert s(("stop-agent", "stop-check", r)) == upto
        assert s(("judge", "round-judge", r)) == upto and all(s.whole(("judge", "round-judge", r), k) for k in upto)
    assert s((P, "closing", 2)) == set() and s((S, "closing", 2)) == set()  # A.1 closing templates: claim + evidence
    judge = ("judge", "judge", 2)
    closings = {(P, "closing", 2), (S, "closing", 2)}
    assert s(judge) == args | closings and all(s.whole(judge, k) for k in args | closings)
    for key in s.keys(P) + s.keys(S):  # every template has {evidence}: the whole pool, every time
        p = s.prompt(key)
        assert (
            re.search(r"\[E3\] \(Doc 3 — src\) <data \w{6}> Passage 3 about the claim\. </data \w{6}>", p)
            and "same evidence" not in p
        )
    debaters = [c for c in backend.calls if c["model"].endswith(("m1", "m2"))]
    assert len(debaters) == 8 and all(len(c["messages"]) == 2 for c in debaters)  # [system, template], no memory


def test_radar_journalist_speaks_first_and_the_expert_reads_it_once():
    client, backend = radar_backend()
    ev = run(client, "radar", task="halftruth", category=None, params={"debaters": 4, "rounds": 1, "early_stop": False})
    s = Seen(ev, backend)
    J, P, S, E = "journalist", "politician", "scientist", "expert"
    assert [k[0] for k in s.keys(phase="opening")][:1] == [J]
    assert s((J, "opening", 0)) == set()
    assert s((P, "opening", 0)) == s((S, "opening", 0)) == {(J, "opening", 0)}  # A.1(b): made available to both
    assert s((E, "opening", 0)) == set()  # not to the expert: its templates say what it reads
    assert s((J, "rebuttal", 1)) == {(P, "opening", 0), (S, "opening", 0)}
    assert s((P, "rebuttal", 1)) == {(S, "opening", 0), (J, "rebuttal", 1)}
    assert s((E, "rebuttal", 1)) == {(P, "opening", 0), (S, "opening", 0), (J, "rebuttal", 1)}
    jour = s.turns[(J, "rebuttal", 1)][0]
    assert s.prompt((E, "rebuttal", 1)).count(jour) == 1  # once, in its own template slot
    assert s((J, "closing", 1)) == {(P, "rebuttal", 1), (S, "rebuttal", 1)}
    assert s((P, "closing", 1)) == {(J, "closing", 1)}  # the journalist closes first as well
    judge = s(("judge", "judge", 1))
    assert judge == {k for k in s.turns if k[0] in (J, P, S, E)}
    assert "Agent C (Journalist): " in s.prompt(("judge", "judge", 1))


@pytest.mark.parametrize(
    "mode,speakers", [("one-debater", ["agent"]), ("independent", ["politician", "scientist"]), ("judge", [])]
)
def test_radar_single_modes(mode, speakers):
    client, backend = radar_backend()
    ev = run(
        client,
        "radar-single",
        task="halftruth",
        category=None,
        retriever=FakeRetriever(2),
        params={"single_mode": mode, "attribution": False},  # the re-reads after the verdict: elsewhere
    )
    s = Seen(ev, backend)
    assert sorted({k[0] for k in s.turns} - {"judge"}) == sorted(speakers)
    for k in s.turns:
        if k[0] != "judge":
            assert s(k) == set()  # no agent reads another
    assert s(("judge", "judge", 0)) == {k for k in s.turns if k[0] != "judge"}
    if mode == "judge":
        assert len(backend.calls) == 1 and "(no debate: single-agent setting" in s.prompt(("judge", "judge", 0))


# -- a debate longer than the model's context window -------------------------------------------------------
def test_a_transcript_too_long_for_the_context_is_condensed_oldest_first_with_an_event():
    client, backend = setup()
    backend.n_ctx = 1900  # tokens: what a small local model's window would leave
    ev = run(client, "single", params={"rounds": 3}, max_tokens=64)
    budget = prompting.budget_chars(1900, 64)
    s = Seen(ev, backend)
    judge = ("judge", "judge", 3)
    shortened = [e for e in by_type(ev, "transcript_shortened") if e.agent == "judge"]
    assert len(shortened) == 1
    e = shortened[0]
    # the budget leaves room for the engine's line to the judge (the figures no source gave: the scripted
    # answers number their calls), so the event's budget is the window's less that line
    assert e.original_chars > budget >= e.budget_chars >= e.final_chars and e.budget_chars > budget - 400
    assert e.condensed >= 1 and e.prompt_id == "turquaz.single.judge"
    assert s(judge) == {k for k in s.turns if k[0] != "judge"}  # every turn is still there, by its opening words
    newest = [(("proponent", "closing", 3)), ("opponent", "closing", 3)]
    assert all(s.whole(judge, k) for k in newest)  # the newest turns stay whole
    assert not s.whole(judge, ("proponent", "opening", 0))  # the oldest are condensed first
    assert prompting.CONDENSED_MARK in s.prompt(judge)
    text = render_text(ev)
    assert "judge read a shortened debate (judge, round 3)" in text  # the viewer says so
    assert sum(len(m["content"]) for m in backend.calls[-1]["messages"]) <= budget


def test_fit_is_pure_and_keeps_the_newest_turns():
    long = ("First sentence here. " + "More words follow in this turn. " * 30).strip()
    slot = prompting.Slot(tuple(prompting.Said(long, f"T{i}: ", i) for i in range(6)))
    build = lambda sl: [{"role": "user", "content": "Head " + sl["t"].render()}]
    msgs, rep = prompting.fit(build, {"t": slot}, 10_000)
    assert rep is None and len(msgs[0]["content"]) > 5000
    msgs, rep = prompting.fit(build, {"t": slot}, 3000)
    text = msgs[0]["content"]
    assert len(text) <= 3000 and rep.condensed == 4 and rep.omitted == 0
    assert text.count(prompting.CONDENSED_MARK) == 4 and text.count(long) == 2 and text.count("First sentence") == 6
    assert text.index(long) > text.rindex(prompting.CONDENSED_MARK)  # the two kept whole are the newest
    msgs, rep = prompting.fit(build, {"t": slot}, 2200)
    assert len(msgs[0]["content"]) <= 2200 and rep.omitted >= 1 and prompting.OMITTED_TEXT in msgs[0]["content"]


# -- CheckThat category 3 and the cat2 => cat3 rule ---------------------------------------------------------
def test_category_3_alone_applies_the_cat2_rule_visibly():
    def by_cat(messages, options):
        u = messages[-1]["content"]
        lab = "YES" if "reference to scientific studies" in u else "NO"
        return f'{{"vote": "{lab}", "explanation": "e"}}'

    client, backend = scripted({"vote": by_cat})
    ev = run(client, "council", category=3, gold="NO")
    cats = [e.category for e in by_type(ev, "phase_started") if e.phase == "category"]
    assert cats == [2, 3]
    note = [e.note for e in by_type(ev, "phase_started") if e.phase == "category"][0]
    assert "category 2 positive => category 3 positive" in note
    rule = by_type(ev, "rule_applied")[0]
    assert rule.changed and rule.before["3"] == "NO" and rule.after["3"] == "YES"
    final = by_type(ev, "verdict")[-1]
    assert (final.category, final.label, final.correct) == (3, "YES", False)
    cat2 = [v for v in by_type(ev, "verdict") if v.category == 2][0]
    assert cat2.gold is None  # the gold belongs to category 3
    from debate.evaluation.extract import extract_prediction

    assert extract_prediction([x.to_dict() for x in ev], ("1", "2", "3"), 3) == {"3": "YES"}
    client, backend = scripted({"vote": by_cat})
    ev = run(client, "council", category=3, apply_cat2_rule=False)
    assert not by_type(ev, "rule_applied") and by_type(ev, "verdict")[-1].label == "NO"
    assert len(backend.calls) == 5
