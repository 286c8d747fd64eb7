"""Council debate (TurQUaz Alg. 3): members vote in JSON, a chairperson moderates until consensus.

Initial votes (line 4) are collected from all members at once. If the leading label's share reaches θ
the majority decides (lines 5-6). Otherwise, for up to R rounds: the chair summarises in JSON (line 9),
then all members respond at once with updated votes (line 10); the loop ends early on consensus or when
votes have stabilised (line 12). The decision is the majority of the last votes (line 16) under the tie
rule in debate.decisions.majority. Members and the chair read the whole discussion so far (every
member's every answer; shortened only when a model's context window cannot hold it, see prompting.py);
members also read the chair's latest summary. Members of one round answer at once, so none of them
reads another's answer of the same round (CollectResponses, line 10).
"""

from __future__ import annotations

from typing import Iterator

from debate.decisions import consensus_reached, consensus_share, majority, tally, vote_status, votes_stabilised
from debate.events import ChairSummary, Event, TurnFinished, VotesTallied
from debate.parsing import ParseResult, parse_chair, parse_label
from debate.protocols.base import DebateContext, ProtocolInfo, Slot, TurnSpec, entries, json_answer, params


def _chair_parse(text: str) -> ParseResult:
    d = parse_chair(text)
    return ParseResult(d["status"] or "SUMMARY", d, "json") if d else ParseResult(None)


def discussion(turns: list[TurnFinished]) -> Slot:
    """The council's discussion so far: "m2 (round 1): ..." paragraphs."""
    return Slot(entries(turns, lambda t: f"{t.agent} (round {t.round}): "))


def run(ctx: DebateContext) -> Iterator[Event]:
    t = ctx.task
    v = ctx.task_values()
    theta, max_rounds = float(ctx.p("theta")), int(ctx.p("rounds"))
    members, chair = ctx.with_role("member"), ctx.role("chair")
    said: list[TurnFinished] = []
    history: list[dict] = []
    vals_common = {**v, "threshold_pct": f"{theta * 100:g}"}

    def member_specs(rnd: int, summary: str) -> Iterator[Event]:
        vals = {**vals_common, "chair_summary": summary or "None"}
        specs = []
        for m in members:
            msgs = yield from ctx.prompt(m, None, "turquaz.council.member", vals, {"discussion": discussion(said)},
                                         phase="vote", round=rnd)
            specs.append(TurnSpec(m, "vote", rnd, msgs, "turquaz.council.member",
                                  parse=lambda s: parse_label(s, t.labels, keys=("vote", "category", "label", "answer")),
                                  labels=t.labels, answer_format=f'{{"vote": {t.labels_or}, "explanation": "..."}}',
                                  **json_answer("vote", t.labels)))
        return specs

    def tallied(rnd: int, votes: dict) -> VotesTallied:
        prev = history[-2] if len(history) > 1 else None
        label, _ = majority(votes, t.labels, t.tie_label, prev, str(ctx.p("tie_rule")))
        return VotesTallied(round=rnd, votes=dict(votes), counts=tally(votes, t.labels),
                            consensus_share=round(consensus_share(votes), 6), threshold=theta,
                            reached=consensus_reached(votes, theta), majority=label,
                            stabilised=votes_stabilised(history, int(ctx.p("stable_rounds"))))

    yield ctx.phase("vote", 0, "Initial votes",
                    "Alg. 3 line 4: every council member assesses the tweet and votes, all at once.")
    turns = yield from ctx.turns((yield from member_specs(0, "")))
    said += turns
    votes = {x.agent: x.label for x in turns}
    history.append(votes)
    tally_ev = tallied(0, votes)
    yield tally_ev
    how = "consensus at the first vote"
    if not tally_ev.reached:
        how = f"no consensus after {max_rounds} rounds"
        for r in range(1, max_rounds + 1):
            ctx.rounds = r
            yield ctx.phase("discussion", r, f"Discussion round {r}",
                            "Alg. 3 lines 9-11: the chair summarises and guides, then members update their votes.")
            vals = {**vals_common, "vote_status": vote_status(votes, t.labels, theta)}
            msgs = yield from ctx.prompt(chair, None, "turquaz.council.chair", vals, {"discussion": discussion(said)},
                                         phase="chair", round=r)
            ch = yield from ctx.turn(TurnSpec(
                chair, "chair", r, msgs, "turquaz.council.chair",
                parse=_chair_parse,
                answer_format='{"status": "CONSENSUS REACHED" or "CONSENSUS NOT REACHED", "summary": "..."}',
                **json_answer("status", ("CONSENSUS REACHED", "CONSENSUS NOT REACHED"), "summary")))
            summary = (ch.parsed or {}).get("summary") if ch.valid else None
            summary = summary or ch.text.strip()
            yield ChairSummary(round=r, agent=chair.agent, summary=summary, parsed=ch.parsed if ch.valid else None)
            turns = yield from ctx.turns((yield from member_specs(r, summary)))
            said += turns
            votes = {x.agent: x.label for x in turns}
            history.append(votes)
            tally_ev = tallied(r, votes)
            yield tally_ev
            if tally_ev.reached:
                how = f"consensus in round {r}"
                break
            if tally_ev.stabilised:
                how = f"votes stabilised in round {r}"
                break
    label, rule = majority(votes, t.labels, t.tie_label, history[-2] if len(history) > 1 else None,
                           str(ctx.p("tie_rule")))
    counts = ", ".join(f"{k}: {n}" for k, n in tally(votes, t.labels).items())
    note = {"majority": "majority vote", "tie:previous": "tie broken by the previous round's leader",
            "tie:default": f"tie broken by the default label {t.tie_label}",
            "no valid votes": "no member gave a readable vote"}[rule]
    n_for = sum(1 for x in votes.values() if x == label and label is not None)
    yield ctx.verdict(label, f"{how}; {counts}; {note}.", "majority",
                      round(n_for / len(votes), 6) if votes else None)


INFO = ProtocolInfo(
    name="council", title="Council debate (TurQUaz Alg. 3)",
    one_line="Members vote; a chairperson moderates rounds until consensus (θ) or stable votes; majority decides.",
    roles=("member", "chair"),
    params=params({
        "theta": (0.8, "Consensus threshold θ: share of all members on one label (Sec. 4.1: 80%)."),
        "rounds": (5, "Maximum discussion rounds R (Sec. 4.1: 5)."),
        "stable_rounds": (2, "Votes count as stabilised when unchanged for this many consecutive rounds "
                             "(paper: 'VotesStabilized', unspecified; its Table 5 log continues after one)."),
        "tie_rule": ("previous", "Tie rule: 'previous' = the previous round's leader, else the task's tie "
                                 "label (NO / HALF-TRUE); 'default' = the tie label directly."),
        "members": (0, "Council size N; 0 = every lineup member (the paper: 5)."),
        "examples": (True, "Put the App. A.2 examples into [CATEGORY DESCRIPTION AND GUIDELINES] (few-shot)."),
    }),
    run=run,
    choices={"tie_rule": ("previous", "default")},
)
