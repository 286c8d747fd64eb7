"""Team debate (TurQUaz Alg. 2): two teams of S members discuss internally, then argue, each round.

Internal discussion (lines 5-6, 11-12): the members of a team speak in turn and each reads what its
teammates have said so far (TurQUaz Table 4: "Agree; typically, ..."), in this round and earlier ones;
from round 1 on it also reads the public debate, whose arguments it plans to rebut. The two teams'
discussions are private to each team and independent, so member k of both teams speaks at once.
Team arguments (lines 7-8, 13-14): members again speak in turn, each reading its teammates' arguments
("avoiding repetition with teammates", App. A.4) and, as "Team Strategy", the team's discussion of this
round. Openings of the two teams do not see each other; in rebuttal rounds the opponent team answers the
proponent team's rebuttal of the same round (`rebuttal_order`). The judge reads every team argument and
never a private discussion (lines 9, 15, 17). Configurations (Sec. 4.1): "different" (Team A vs Team B)
and "same" (all lineup members on both sides).

Not implemented: the "80% consensus for team debates" of Sec. 4.1. The paper gives no procedure or
prompt for it (the A.4 prompts ask for no vote and Alg. 2 has no consensus check), so there is nothing
to count agreement on without inventing a vote; the README's deviation table says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from debate.events import Event, TurnFinished
from debate.lineups import Agent, Seating
from debate.models.base import Message
from debate.protocols.base import DebateContext, ProtocolInfo, Slot, Steps, TurnSpec, entries, params
from debate.protocols.single import JUDGE_ANSWER, JUDGE_CHOICES, judge_spec

SIDE = {"proponent": ("PROPONENT", "Proponent team"), "opponent": ("OPPONENT", "Opponent team")}
OTHER = {"proponent": "opponent", "opponent": "proponent"}


def _public_prefix(t: TurnFinished) -> str:
    when = "opening" if t.round == 0 else f"rebuttal {t.round}"
    return f"{SIDE[t.role][1]} ({when}), {t.agent}: "


def _private_prefix(t: TurnFinished) -> str:
    return f"{t.agent} (team discussion{'' if t.round == 0 else f', round {t.round}'}): "


def public_slot(turns: list[TurnFinished]) -> Slot:
    """Team arguments as the judge and the debaters read them: one paragraph per member's argument."""
    return Slot(entries(turns, _public_prefix))


class _Team:
    """One team debate's state and its phases (Alg. 2): `discussion_round`, `openings`, `rebuttals`,
    `judge`. Prompts are built by `discuss_messages` and `argue_messages`; `speak` runs the turns."""

    def __init__(self, ctx: DebateContext) -> None:
        self.ctx = ctx
        self.v = ctx.task_values()
        self.phrase = ctx.task.phrase
        self.teams = {"proponent": ctx.with_role("proponent"), "opponent": ctx.with_role("opponent")}
        self.private: dict[str, list[TurnFinished]] = {"proponent": [], "opponent": []}  # each team's own, all rounds
        self.public: list[TurnFinished] = []  # team arguments, in the order they were given
        self.in_turn = str(ctx.p("team_turns")) == "sequential"
        self.answer_same_round = str(ctx.p("rebuttal_order")) == "sequential"

    # -- prompts --------------------------------------------------------------------------------------
    def visible(self, side: str, rnd: int) -> list[TurnFinished]:
        """Public arguments a member of `side` has heard before speaking in round `rnd`."""
        return [
            t
            for t in self.public
            if t.round < rnd or (t.round == rnd and (t.role == side or (rnd > 0 and self.answer_same_round)))
        ]

    def discuss_messages(self, side: str, i: int, rnd: int) -> Steps[list[Message]]:
        if rnd == 0:
            step = (
                f"Internal discussion: develop your team's strategy to argue that the tweet "
                f"{'' if side == 'proponent' else 'does NOT '}{self.phrase}."
            )
        else:
            step = f"Internal discussion: plan rebuttals to the {OTHER[side]} team's arguments."
        heard = self.private[side] + (self.visible(side, rnd) if rnd and self.ctx.p("discussion_sees_debate") else [])
        heard.sort(key=lambda t: int(t.turn_id[1:]) if t.turn_id[1:].isdigit() else 0)
        slot = Slot(entries(heard, lambda t: _private_prefix(t) if t.phase == "discussion" else _public_prefix(t)))
        vals = {**self.v, "side": SIDE[side][0]}
        return (
            yield from self.ctx.prompt(
                self.teams[side][i],
                f"turquaz.system.{side}",
                "turquaz.team.internal",
                vals,
                {"team_discussion": slot},
                phase="discussion",
                round=rnd,
                addendum=self.ctx.step(step),
            )
        )

    def argue_messages(self, side: str, i: int, rnd: int) -> Steps[list[Message]]:
        step = (
            f"Opening: argue that the tweet {'' if side == 'proponent' else 'does NOT '}{self.phrase}."
            if rnd == 0
            else "Rebuttal: present coordinated rebuttals to the opposing team."
        )
        strategy = Slot(entries([t for t in self.private[side] if t.round == rnd], lambda t: f"{t.agent}: "))
        vals = {**self.v, "side": SIDE[side][0]}
        return (
            yield from self.ctx.prompt(
                self.teams[side][i],
                f"turquaz.system.{side}",
                "turquaz.team.external",
                vals,
                {"team_strategy": strategy, "context": public_slot(self.visible(side, rnd))},
                phase="opening" if rnd == 0 else "rebuttal",
                round=rnd,
                addendum=self.ctx.step(step),
            )
        )

    # -- turns ----------------------------------------------------------------------------------------
    def speak(self, sides: list[str], rnd: int, phase: str) -> Iterator[Event]:
        """Members of `sides` speak: in turn within a team (`team_turns`), the listed teams side by side."""
        teams = self.teams
        build = self.discuss_messages if phase == "discussion" else self.argue_messages
        size = max(len(teams[s]) for s in sides)
        waves = (
            [[(s, k) for s in sides if k < len(teams[s])] for k in range(size)]
            if self.in_turn
            else [[(s, i) for s in sides for i in range(len(teams[s]))]]
        )
        for wave in waves:
            specs = []
            for s, i in wave:
                msgs = yield from build(s, i, rnd)
                specs.append(
                    TurnSpec(
                        teams[s][i],
                        phase,
                        rnd,
                        msgs,
                        "turquaz.team.internal" if phase == "discussion" else "turquaz.team.external",
                    )
                )
            done = yield from self.ctx.turns(specs)
            for (s, _), t in zip(wave, done):
                (self.private[s] if phase == "discussion" else self.public).append(t)

    # -- phases ---------------------------------------------------------------------------------------
    def discussion_round(self, rnd: int) -> Iterator[Event]:
        yield self.ctx.phase(
            "discussion",
            rnd,
            "Internal team discussions" if rnd == 0 else f"Round {rnd}: team discussions",
            "Alg. 2: each team plans in private, its members in turn; the other team and the judge never see it.",
        )
        yield from self.speak(["proponent", "opponent"], rnd, "discussion")

    def openings(self) -> Iterator[Event]:
        yield self.ctx.phase(
            "opening",
            0,
            "Opening arguments",
            "Alg. 2 lines 7-8: every member presents the team's arguments; the two teams' openings do not see "
            "each other.",
        )
        yield from self.speak(["proponent", "opponent"], 0, "opening")

    def rebuttals(self, rnd: int) -> Iterator[Event]:
        yield self.ctx.phase(
            "rebuttal",
            rnd,
            f"Round {rnd}: rebuttals",
            "Alg. 2 lines 13-14: the proponent team rebuts, then the opponent team answers."
            if self.answer_same_round
            else "Alg. 2 lines 13-15: both teams rebut the previous round.",
        )
        if self.answer_same_round:
            yield from self.speak(["proponent"], rnd, "rebuttal")
            yield from self.speak(["opponent"], rnd, "rebuttal")
        else:
            yield from self.speak(["proponent", "opponent"], rnd, "rebuttal")

    def judge(self) -> Iterator[Event]:
        ctx = self.ctx
        yield ctx.phase(
            "judge",
            ctx.rounds,
            "Judge's decision",
            "Alg. 2 line 17: the judge reads every team argument (never the private discussions).",
        )
        j = yield from ctx.turn((yield from judge_spec(ctx, "turquaz.team.judge", public_slot(self.public))))
        yield ctx.verdict(
            j.label,
            (j.parsed or {}).get("explanation", "") if j.valid else "The judge's answer could not be read.",
            "judge",
            j.confidence,
        )


def run(ctx: DebateContext) -> Iterator[Event]:
    team = _Team(ctx)
    ctx.sides_as_votes()  # shown against the verdict: what the sides alone (no debate) would decide
    yield from team.discussion_round(0)
    yield from team.openings()
    for r in range(1, int(ctx.p("rounds")) + 1):
        ctx.rounds = r
        yield from team.discussion_round(r)
        yield from team.rebuttals(r)
    yield from team.judge()


def seating(lineup: dict[str, Any], params: dict[str, Any]) -> list[Agent]:
    """Team A (pro-1..S), Team B (opp-1..S), the judge: the lineup's `teams`, else its members split in
    two; `config=same` puts the same members on both sides (the opponents with other seeds)."""
    s = Seating(lineup)
    config = str(params.get("config", "different"))
    teams = lineup.get("teams") or {}
    if config == "same":
        size = int(params.get("team_size") or len(s.members))
        pro = opp = [s.member(i) for i in range(size)]
    else:
        size = int(params.get("team_size") or max(1, (len(s.members) + 1) // 2))
        pro = (teams.get("proponent") or [s.member(i) for i in range(size)])[:size]
        opp = (teams.get("opponent") or [s.member(size + i) for i in range(size)])[:size]
    out = [s.seat(e, "proponent", f"pro-{i + 1}") for i, e in enumerate(pro)]
    out += [
        s.seat(e, "opponent", f"opp-{i + 1}", seed_offset=(1000 if config == "same" else 0)) for i, e in enumerate(opp)
    ]
    return out + [s.seat(s.role("judge", s.judge), "judge", "judge")]


INFO = ProtocolInfo(
    name="team",
    title="Team debate (TurQUaz Alg. 2)",
    one_line="Two teams discuss privately, then argue, each round; a judge decides from the team arguments.",
    roles=("proponent", "opponent", "judge"),
    sides=(("proponent", "opponent"),),
    params=params(
        {
            "rounds": (5, "Rebuttal rounds R (Sec. 4.1: at most 5 rounds for the collaborative methods)."),
            "config": (
                "different",
                "different: Team A vs Team B (lineup 'teams', else the members split in two); "
                "same: all members on both sides.",
            ),
            "team_size": (0, "Members per team S; 0 = from the lineup (half the members, or all for 'same')."),
            "examples": (True, "Put the App. A.2 examples into [CATEGORY DESCRIPTION AND GUIDELINES] (few-shot)."),
            "team_turns": (
                "sequential",
                "sequential: teammates speak in turn and read each other (Table 4); "
                "parallel: all at once, each reading only earlier rounds (faster).",
            ),
            "rebuttal_order": (
                "sequential",
                "sequential: the opponent team answers the proponent team's rebuttal of "
                "the same round (as Alg. 1); simultaneous: both rebut the previous round.",
            ),
            "discussion_sees_debate": (
                True,
                "From round 1 the internal discussion also reads the public debate "
                "(Alg. 2 line 11-12: 'plan rebuttals to OT arguments').",
            ),
            "step_instruction": (
                False,
                "Append Alg. 2's brief step string ('Current step: ...') to each prompt. The "
                "paper: those strings only explain the prompt (Sec. 3.2), so off.",
            ),
            **JUDGE_ANSWER,
        }
    ),
    run=run,
    seating=seating,
    choices={
        **JUDGE_CHOICES,
        "config": ("different", "same"),
        "team_turns": ("sequential", "parallel"),
        "rebuttal_order": ("sequential", "simultaneous"),
    },
)
