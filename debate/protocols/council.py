"""Council debate (TurQUaz Alg. 3): members vote in JSON, a chairperson moderates until consensus.

Initial votes (line 4) are collected from all members at once. If the leading label's share reaches θ
the majority decides (lines 5-6). Otherwise, for up to R rounds: the chair summarises in JSON (line 9),
then all members respond at once with updated votes (line 10); the loop ends early on consensus or when
votes have stabilised (line 12). The decision is the majority of the last votes (line 16) under the tie
rule in debate.protocols.decisions.majority. Members and the chair read the whole discussion so far (every
member's every answer, and the chair's earlier summaries in their place, as TurQUaz Table 5's log shows
them; shortened only when a model's context window cannot hold it, see prompting.py); members also read
the chair's latest summary in its own slot. Members of one round answer at once, so none of them
reads another's answer of the same round (CollectResponses, line 10).

Small-model options (the packaged models lean to one label; defaults are the paper's): with demos=dialogue the
initial vote is the few-shot baseline's label-first prompt after the most similar CheckThat train tweets
(protocols/fewshot.py), and discussion rounds keep those turns before the paper's member prompt; with
calibration=threshold each member votes by its P(YES) against the threshold fitted on train for its own model;
with explain=after each initial vote is followed by a one-sentence explanation (the vote is decoded first,
from the same prompt, so it and its probability do not change).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from debate import prompts
from debate.aids.calibration import normalised
from debate.content.figures import tally_figures
from debate.errors import InvalidInput
from debate.events import ChairSummary, Event, TurnFinished, VotesTallied
from debate.lineups import Agent, Seating
from debate.models.spec import names_model
from debate.protocols import fewshot
from debate.protocols.base import DebateContext, ProtocolInfo, Slot, Steps, TurnSpec, entries, json_answer, params
from debate.protocols.decisions import (
    consensus_reached,
    consensus_share,
    majority,
    tally,
    vote_status,
    votes_stabilised,
)
from debate.protocols.parsing import ParseResult, parse_chair, parse_label
from debate.protocols.prompting import Said, order_of

CHAIR_STATES = ("CONSENSUS REACHED", "CONSENSUS NOT REACHED")


def chair_fields(reached: bool) -> dict[str, Any]:
    """TurnSpec fields that decode the chair's `{"status": …, "summary": …}` with the status fixed to the
    tally's state, first (so the summary follows what the tally says), from the first token."""
    state = CHAIR_STATES[0] if reached else CHAIR_STATES[1]
    schema = {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": [state]},
            "summary": {"type": "string", "pattern": fewshot.ONE_SENTENCE},
        },
        "required": ["status", "summary"],
    }
    return {
        "schema": schema,
        "schema_format": f'{{"status": "{state}", "summary": "<one short sentence>"}}',
        "constrain": True,
    }


def _chair_parse(text: str) -> ParseResult:
    d = parse_chair(text)
    return ParseResult(d["status"] or "SUMMARY", d, "json") if d else ParseResult(None)


def member_vote(turn: TurnFinished, labels: tuple[str, ...], source: str, threshold: float | None = None) -> str | None:
    """A member's vote: its written label (the paper), or with vote_from=probs the label its own
    probabilities favour (small models sampled at temperature often write the label they
    find less probable; the probabilities are read anyway), or with a `threshold` on P(first label)
    fitted on CheckThat train, that decision. Falls back to the written label when the backend gave
    no probabilities."""
    if source == "probs" or threshold is not None:
        p = normalised(turn.label_probs, labels)
        if p is not None and turn.valid:
            if threshold is not None:
                return labels[0] if p[labels[0]] >= threshold else labels[1]
            return max(p, key=lambda k: p[k])
    return turn.label


def discussion(turns: list[TurnFinished], summaries: Sequence[tuple[TurnFinished, str]] = ()) -> Slot:
    """The council's discussion so far: "m2 (round 1): ..." paragraphs, with the chair's earlier summaries
    ("Chairperson (round 1 summary): ...") in their place, as TurQUaz Table 5's log shows them."""
    said = list(entries(turns, lambda t: f"{t.agent} (round {t.round}): "))
    said += [Said(text, f"Chairperson (round {ch.round} summary): ", order_of(ch.turn_id)) for ch, text in summaries]
    return Slot(tuple(sorted(said, key=lambda e: e.order)))


class _Council:
    """One council debate's state and its phases, in the order Alg. 3 runs them: `prepare` (thresholds,
    the devil's advocate), `initial_vote`, `discussion_rounds` (each: `chair_turn`, then the members'
    votes), `decide`. Prompts are built by `member_specs` and `chair_messages`; the phases run turns."""

    def __init__(self, ctx: DebateContext) -> None:
        self.ctx = ctx
        self.t = ctx.task
        self.theta, self.max_rounds = float(ctx.p("theta")), int(ctx.p("rounds"))
        self.members, self.chair = ctx.with_role("member"), ctx.role("chair")
        self.said: list[TurnFinished] = []
        self.summaries: list[tuple[TurnFinished, str]] = []  # the chair's turns and what they summarised, in order
        self.history: list[dict[str, Any]] = []
        self.small = ctx.p("demos") == "dialogue"
        self.thresholds: dict[str, float | None] = {}
        self.advocate: str | None = None
        self.vals_common: dict[str, Any] = {}
        self.votes: dict[str, Any] = {}
        self.turns: list[TurnFinished] = []
        self.kept: list[str] = []  # members asked only once (keep_first_vote): their first vote stands

    # -- set-up ---------------------------------------------------------------------------------------
    def prepare(self) -> None:
        ctx = self.ctx
        self.vals_common = {**ctx.task_values(), "threshold_pct": f"{self.theta * 100:g}"}
        ctx.given.append(tally_figures({}, self.theta))  # the consensus threshold every member and the chair read
        if self.small:
            self.vals_common = fewshot.dialogue_values(ctx, self.vals_common)
        if ctx.p("calibration") == "threshold":
            self._fit_thresholds()
        advocate_no = int(ctx.p("devils_advocate"))
        if advocate_no < 0 or advocate_no > len(self.members):
            raise InvalidInput(
                f"council devils_advocate={advocate_no}: the council has {len(self.members)} members.",
                f"Use 0 (off) or a member number from 1 to {len(self.members)}.",
            )
        self.advocate = self.members[advocate_no - 1].agent if advocate_no else None
        kept = kept_members(self.members, str(ctx.p("keep_first_vote") or ""))
        self.kept = [a for a in kept if a != self.advocate]  # the devil's advocate argues in every round

    def _fit_thresholds(self) -> None:
        ctx = self.ctx
        if not self.t.binary or not self.small:
            raise InvalidInput(
                "council calibration=threshold needs a YES/NO task and demos=dialogue (the "
                "threshold is fitted for that prompt).",
                "Use demos=dialogue on CheckThat.",
            )
        for m in self.members:
            if ctx.is_person(m):  # a person's vote is the label they wrote
                continue
            self.thresholds[m.agent], where = fewshot.fitted_threshold(ctx, m)
            if self.thresholds[m.agent] is None:
                raise InvalidInput(
                    f"council calibration=threshold: {where}.",
                    "Fit it first (scripts/reproduce_eval.sh, part small) or use calibration=none.",
                )

    # -- prompts --------------------------------------------------------------------------------------
    def council_discussion(self, latest_apart: bool) -> Slot:
        """ "Council Discussion" as members and chair read it: with summaries_in_discussion (the paper) the
        chair's summaries too, but for members not the latest, which has its own slot ("Chairperson Summary")."""
        if not self.ctx.p("summaries_in_discussion"):
            return discussion(self.said)
        return discussion(self.said, self.summaries[:-1] if latest_apart else self.summaries)

    def advocacy(self, agent: str, first: dict[str, Any] | None) -> str:
        """The devil's advocate's instruction: argue the label the first vote gave the fewest votes to."""
        if agent != self.advocate or not first:  # the first vote itself is every member's own
            return ""
        counts = tally(first, self.t.labels)
        side = min(self.t.labels, key=lambda lab: counts[lab])  # ties: the earlier label in the task's order
        return prompts.render(
            "engine.devils_advocate", side=side, first_vote=", ".join(f"{k}: {n}" for k, n in counts.items())
        )

    def member_specs(self, rnd: int, summary: str) -> Steps[list[TurnSpec]]:
        ctx, t, small = self.ctx, self.t, self.small
        vals = {**self.vals_common, "chair_summary": summary or "None"}
        specs = []
        fields = fewshot.vote_first_fields("vote", t.labels) if small else json_answer("vote", t.labels)
        vote_only = json_answer("vote", t.labels, text_key=None)  # a member whose lineup entry says explain: false
        discussion_now = self.council_discussion(latest_apart=True)
        for m in self.members:
            if rnd and m.agent in self.kept:
                continue  # not asked again: its first vote stands (keep_first_vote)
            says = not small or m.explain
            if small and rnd == 0:  # the baseline's own prompt: its threshold fitted on train applies
                specs.append(
                    (
                        yield from fewshot.label_first_spec(
                            ctx,
                            m,
                            "vote",
                            0,
                            vals,
                            explain=ctx.p("explain") == "after" and says,
                            threshold=self.thresholds.get(m.agent),
                        )
                    )
                )
                continue
            history = fewshot.dialogue_history(ctx, vals, fewshot.json_answer_format(t.labels), m) if small else None
            msgs = yield from ctx.prompt(
                m,
                None,
                "turquaz.council.member",
                vals,
                {"discussion": discussion_now},
                phase="vote",
                round=rnd,
                history=history,
                addendum=self.advocacy(m.agent, ctx.first_votes) if rnd else "",
            )
            specs.append(
                TurnSpec(
                    m,
                    "vote",
                    rnd,
                    msgs,
                    "turquaz.council.member",
                    parse=lambda s: parse_label(s, t.labels, keys=("vote", "category", "label", "answer")),
                    labels=t.labels,
                    answer_format=f'{{"vote": {t.labels_or}, "explanation": "..."}}',
                    constrain=small,
                    threshold=self.thresholds.get(m.agent),
                    **(fields if says else vote_only),
                )
            )
        return specs

    def chair_spec(self, rnd: int) -> Steps[TurnSpec]:
        vals = {**self.vals_common, "vote_status": vote_status(self.votes, self.t.labels, self.theta)}
        msgs = yield from self.ctx.prompt(
            self.chair,
            None,
            "turquaz.council.chair",
            vals,
            {"discussion": self.council_discussion(latest_apart=False)},
            phase="chair",
            round=rnd,
        )
        return TurnSpec(
            self.chair,
            "chair",
            rnd,
            msgs,
            "turquaz.council.chair",
            parse=_chair_parse,
            answer_format='{"status": "CONSENSUS REACHED" or "CONSENSUS NOT REACHED", "summary": "..."}',
            **self.chair_fields(),
        )

    def chair_fields(self) -> dict[str, Any]:
        """The chair's answer schema. The paper's chair writes its status freely; Alg. 3 stops on the tally,
        never on that word. With chair_status=tally the status is the tally's own state, decoded first as a
        fixed prefix, and the summary is written after it: measured on 30 held-out councils at the app's
        defaults, the 0.5B chair wrote "CONSENSUS REACHED ... The discussion has reached a consensus" in 28 of
        28 turns whose tally had not reached it, the room reading the chair against the tally."""
        if self.ctx.p("chair_status") != "tally":
            return json_answer("status", CHAIR_STATES, "summary")
        return chair_fields(consensus_reached(self.votes, self.theta))

    # -- counting -------------------------------------------------------------------------------------
    def votes_of(self, turns: list[TurnFinished]) -> dict[str, Any]:
        source = str(self.ctx.p("vote_from"))
        return {x.agent: member_vote(x, self.t.labels, source, self.thresholds.get(x.agent)) for x in turns}

    def tallied(self, rnd: int, votes: dict[str, Any]) -> VotesTallied:
        t, history = self.t, self.history
        prev = history[-2] if len(history) > 1 else None
        label, _ = majority(votes, t.labels, t.tie_label, prev, str(self.ctx.p("tie_rule")))
        self.ctx.given.append(tally_figures(tally(votes, t.labels)))  # the shares the chair and the members are shown
        return VotesTallied(
            round=rnd,
            votes=dict(votes),
            counts=tally(votes, t.labels),
            consensus_share=round(consensus_share(votes), 6),
            threshold=self.theta,
            reached=consensus_reached(votes, self.theta),
            majority=label,
            stabilised=votes_stabilised(history, int(self.ctx.p("stable_rounds"))),
        )

    # -- phases ---------------------------------------------------------------------------------------
    def members_vote(self, rnd: int, summary: str) -> Steps[VotesTallied]:
        """Every member answers at once (Alg. 3 lines 4 and 10); their votes are counted and tallied."""
        self.turns = yield from self.ctx.turns((yield from self.member_specs(rnd, summary)))
        self.said += self.turns
        asked = self.votes_of(self.turns)
        kept = [a for a in self.kept if rnd and a in self.history[0]]
        self.votes = {
            m.agent: self.history[0][m.agent] if m.agent in kept else asked.get(m.agent) for m in self.members
        }
        self.history.append(self.votes)
        tally_ev = self.tallied(rnd, self.votes)
        tally_ev.kept = kept
        return tally_ev

    def initial_vote(self) -> Steps[VotesTallied]:
        ctx = self.ctx
        yield ctx.phase(
            "vote", 0, "Initial votes", "Alg. 3 line 4: every council member assesses the tweet and votes, all at once."
        )
        tally_ev = yield from self.members_vote(0, "")
        ctx.first_votes = dict(self.votes)  # the plain vote the debate is shown against
        ctx.first_written = {x.agent: x.label for x in self.turns}  # what they wrote, when the aids count otherwise
        yield tally_ev
        return tally_ev

    def chair_turn(self, rnd: int) -> Steps[str]:
        """The chair summarises and guides (Alg. 3 line 9): its summary, as the members will read it."""
        ch = yield from self.ctx.turn((yield from self.chair_spec(rnd)))
        summary = (ch.parsed or {}).get("summary") if ch.valid else None
        summary = summary or ch.text.strip()
        yield ChairSummary(round=rnd, agent=self.chair.agent, summary=summary, parsed=ch.parsed if ch.valid else None)
        self.summaries.append((ch, summary))
        return summary

    def discussion_rounds(self, first: VotesTallied) -> Steps[str]:
        """Up to R rounds of chair summary and member votes, ending early on consensus or stable votes
        (Alg. 3 lines 8-13); how the council stopped."""
        ctx = self.ctx
        # min_rounds > 0 holds discussion rounds even when the members already agree: a fork of a debate
        # that agreed at once has nothing else to continue with (the paper's council stops at consensus);
        # always_discuss (teaching) asks for at least one, so a unanimous council still argues
        min_rounds = min(max(0, int(ctx.p("min_rounds")), 1 if ctx.p("always_discuss") else 0), self.max_rounds)
        if first.reached and min_rounds <= 0:
            return "consensus at the first vote"
        for r in range(1, self.max_rounds + 1):
            ctx.rounds = r
            yield ctx.phase(
                "discussion",
                r,
                f"Discussion round {r}",
                "Alg. 3 lines 9-11: the chair summarises and guides, then members update their votes.",
            )
            summary = yield from self.chair_turn(r)
            tally_ev = yield from self.members_vote(r, summary)
            yield tally_ev
            if r < min_rounds:
                continue
            if tally_ev.reached:
                return f"consensus in round {r}"
            if tally_ev.stabilised:
                return f"votes stabilised in round {r}"
        return f"no consensus after {self.max_rounds} rounds"

    def decide(self, how: str) -> Event:
        """The majority of the last votes under the tie rule (Alg. 3 line 16), as the verdict."""
        ctx, t, votes, history = self.ctx, self.t, self.votes, self.history
        label, rule = majority(
            votes, t.labels, t.tie_label, history[-2] if len(history) > 1 else None, str(ctx.p("tie_rule"))
        )
        counts = ", ".join(f"{k}: {n}" for k, n in tally(votes, t.labels).items())
        note = {
            "majority": "majority vote",
            "tie:previous": "tie broken by the previous round's leader",
            "tie:default": f"tie broken by the default label {t.tie_label}",
            "no valid votes": "no member gave a readable vote",
        }[rule]
        n_for = sum(1 for x in votes.values() if x == label and label is not None)
        # votes read from probabilities (vote_from=probs, a fitted threshold) may outvote what the members wrote
        written, wrule = majority({x.agent: x.label for x in self.turns}, t.labels, t.tie_label, None, "default")
        by_probs = (str(ctx.p("vote_from")) == "probs" or bool(self.thresholds)) and wrule == "majority"
        aid = (
            "each member's P(" + t.labels[0] + ") against the threshold fitted on train for its model"
            if self.thresholds
            else "each member's vote read from its label probabilities"
        )
        return ctx.verdict(
            label,
            f"{how}; {counts}; {note}.",
            "majority",
            round(n_for / len(votes), 6) if votes else None,
            written=written if by_probs else None,
            aid=aid,
            basis="votes",
            votes_for=n_for if votes else None,
            voters=len(votes) if votes else None,
        )


def kept_members(members: list[Agent], models: str) -> list[str]:
    """The members whose model `models` names (comma-separated specs, e.g. "local:smollm2-135m", or names
    without their backend; "none" names none): asked for their first vote only."""
    return [m.agent for m in members if names_model(models, m.model)]


def run(ctx: DebateContext) -> Iterator[Event]:
    council = _Council(ctx)
    council.prepare()
    first = yield from council.initial_vote()
    how = yield from council.discussion_rounds(first)
    yield council.decide(how)


def seating(lineup: dict[str, Any], params: dict[str, Any]) -> list[Agent]:
    """N members (the parameter `members`; 0 = every lineup member; past the lineup's end its members
    again, with other seeds), then the chair."""
    s = Seating(lineup)
    n = int(params.get("members") or len(s.members))
    out = [
        s.seat(s.member(i), "member", s.member_name(s.member(i)), seed_offset=(i // len(s.members)) * 1000)
        for i in range(n)
    ]
    return out + [s.seat(s.role("chair", s.chair), "chair", "chair")]


INFO = ProtocolInfo(
    name="council",
    title="Council debate (TurQUaz Alg. 3)",
    one_line="Members vote; a chairperson moderates rounds until consensus (θ) or stable votes; majority decides.",
    roles=("member", "chair"),
    params=params(
        {
            "theta": (0.8, "Consensus threshold θ: share of all members on one label (Sec. 4.1: 80%)."),
            "rounds": (5, "Maximum discussion rounds R (Sec. 4.1: 5)."),
            "min_rounds": (
                0,
                "Discussion rounds held even when the members agree earlier (0 = the paper: stop at "
                "consensus); a fork uses it to make a council that agreed at once argue.",
            ),
            "stable_rounds": (
                2,
                "Votes count as stabilised when unchanged for this many consecutive rounds "
                "(paper: 'VotesStabilized', unspecified; its Table 5 log continues after one).",
            ),
            "tie_rule": (
                "previous",
                "Tie rule: 'previous' = the previous round's leader, else the task's tie "
                "label (NO / HALF-TRUE); 'default' = the tie label directly.",
            ),
            "members": (0, "Council size N; 0 = every lineup member (the paper: 5)."),
            "summaries_in_discussion": (
                True,
                "The chair's earlier summaries are part of the 'Council Discussion' "
                "that members and the chair read, in order (TurQUaz Table 5's log); "
                "the latest also fills the members' 'Chairperson Summary'. Off: the "
                "discussion holds member answers only.",
            ),
            "examples": (True, "Put the App. A.2 examples into [CATEGORY DESCRIPTION AND GUIDELINES] (few-shot)."),
            "vote_from": (
                "written",
                "A member's vote: written = the label it wrote (paper); probs = the label its "
                "own label probabilities favour (for small models sampled at temperature); the "
                "counted vote can differ from the written one, and the bubble and verdict say so.",
            ),
            "demos": (
                "paper",
                "paper = the App. A.2 examples in the description; dialogue = the k_demos most "
                "similar CheckThat train tweets as earlier turns, each answered with its label; the "
                "initial vote is then the few-shot baseline's label-first prompt (small models).",
            ),
            "k_demos": (8, "How many similar train tweets to show with demos=dialogue."),
            "explain": (
                "none",
                "With demos=dialogue: none = initial votes are labels only (the baseline's "
                "answer); after = a one-sentence explanation decoded after the label, with the same "
                "prompt, so votes and fitted thresholds are unchanged and the audience sees why.",
            ),
            "always_discuss": (
                False,
                "Teaching, not the paper: hold at least one discussion round (min_rounds >= 1) "
                "even when the first votes reach consensus (the paper decides at once), so the "
                "members argue.",
            ),
            "devils_advocate": (
                0,
                "Teaching, not the paper: member k (1..N) argues, in every discussion round, the "
                "label the first vote left in the minority (prompt engine.devils_advocate); its "
                "vote still counts. 0 = off. Pair it with always_discuss to hear it on "
                "unanimous tweets.",
            ),
            "chair_status": (
                "free",
                "free = the chair writes its status as the paper asks (the tally decides either way, and "
                "the chair's tag shows the tally's state); tally = the status is the tally's own state, "
                "decoded first, and the chair's summary follows it (small models wrote CONSENSUS REACHED "
                "whatever the tally said).",
            ),
            "keep_first_vote": (
                "none",
                "Models (comma-separated specs) whose members are asked for their first vote only: in "
                "discussion rounds that vote stands, and the tally says so. none = the paper (every member "
                "votes in every round). The aids name SmolLM2-135M: its P(YES) in a discussion round was "
                "0.71-0.87 in all 34 of its discussion votes, 0.81 on tweets whose gold label is NO and 0.84 "
                "on YES ones (first votes: 0.19 and 0.58), so its discussion votes say nothing about the tweet.",
            ),
            "calibration": (
                "none",
                "none = votes as vote_from says; threshold = each member votes YES iff its "
                "P(YES) reaches the threshold fitted on CheckThat train for its model with "
                "the baseline's label-first dialogue prompt (needs demos=dialogue); it can overrule "
                "the label a member wrote, and the verdict says so.",
            ),
        }
    ),
    run=run,
    seating=seating,
    choices={
        "tie_rule": ("previous", "default"),
        "vote_from": ("written", "probs"),
        "demos": ("paper", "dialogue"),
        "calibration": ("none", "threshold"),
        "explain": ("none", "after"),
        "chair_status": ("free", "tally"),
    },
)
