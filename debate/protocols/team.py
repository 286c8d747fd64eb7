"""Team debate (TurQUaz Alg. 2): two teams of S members discuss internally, then argue, each round.

Per round both teams' internal discussions run at once (every member of both teams concurrently: within a
round teammates see the team's earlier discussion, not each other's simultaneous turn); then the team
arguments. Openings of both teams run at once (lines 7-8); in rebuttal rounds the proponent team speaks and
then the opponent team answers it (lines 13-14), as in Alg. 1. Only team arguments enter the debate
transcript the judge reads (lines 9, 15). Configurations (Sec. 4.1): "different" (Team A vs Team B) and
"same" (all lineup members on both sides).
"""

from __future__ import annotations

from typing import Iterator

from debate import prompts
from debate.events import Event, TurnFinished
from debate.protocols.base import DebateContext, ProtocolInfo, TurnSpec, params
from debate.protocols.single import judge_spec

SIDE = {"proponent": ("PROPONENT", "Proponent team"), "opponent": ("OPPONENT", "Opponent team")}


def _block(turns: list[TurnFinished]) -> str:
    return "\n".join(f"- {t.agent}: {t.text.strip() or '(no answer)'}" for t in turns)


def run(ctx: DebateContext) -> Iterator[Event]:
    v = ctx.task_values()
    phrase = ctx.task.phrase
    teams = {"proponent": ctx.with_role("proponent"), "opponent": ctx.with_role("opponent")}
    internal: dict[str, list[TurnFinished]] = {"proponent": [], "opponent": []}
    external: list[tuple[str, int, list[TurnFinished]]] = []  # (side, round, member turns)

    def debate_text() -> str:
        parts = []
        for side, rnd, turns in external:
            when = "opening" if rnd == 0 else f"rebuttal {rnd}"
            parts.append(f"{SIDE[side][1]} ({when}):\n{_block(turns)}")
        return "\n\n".join(parts)

    def discuss(side: str, rnd: int) -> list[TurnSpec]:
        if rnd == 0:
            step = (f"Internal discussion: develop your team's strategy to argue that the tweet "
                    f"{'' if side == 'proponent' else 'does NOT '}{phrase}.")
        else:
            other = "opponent" if side == "proponent" else "proponent"
            step = f"Internal discussion: plan rebuttals to the {other} team's arguments."
        history = ctx.clip(_block(internal[side])) if internal[side] else "None"
        if rnd and external:
            history = ctx.clip(f"{history}\n\nDebate so far:\n{debate_text()}")
        vals = {**v, "side": SIDE[side][0], "team_discussion": history}
        return [TurnSpec(a, "discussion", rnd, prompts.messages(
            f"turquaz.system.{side}", "turquaz.team.internal", vals,
            addendum=prompts.render("engine.step", step=step)), "turquaz.team.internal") for a in teams[side]]

    def argue(side: str, rnd: int, strategy: list[TurnFinished]) -> list[TurnSpec]:
        step = (f"Opening: argue that the tweet {'' if side == 'proponent' else 'does NOT '}{phrase}."
                if rnd == 0 else "Rebuttal: present coordinated rebuttals to the opposing team.")
        vals = {**v, "side": SIDE[side][0], "team_strategy": ctx.clip(_block(strategy)) or "None",
                "context": ctx.clip(debate_text()) if external else "None"}
        return [TurnSpec(a, "opening" if rnd == 0 else "rebuttal", rnd, prompts.messages(
            f"turquaz.system.{side}", "turquaz.team.external", vals,
            addendum=prompts.render("engine.step", step=step)), "turquaz.team.external") for a in teams[side]]

    def discussion_round(rnd: int) -> Iterator[Event]:
        yield ctx.phase("discussion", rnd, "Internal team discussions" if rnd == 0 else f"Round {rnd}: team discussions",
                        "Alg. 2: each team plans in private (both teams at once); the other team does not see it.")
        pro, opp = discuss("proponent", rnd), discuss("opponent", rnd)
        done = yield from ctx.turns(pro + opp)
        new = {"proponent": done[:len(pro)], "opponent": done[len(pro):]}
        for side in new:
            internal[side] += new[side]
        return new

    new = yield from discussion_round(0)
    yield ctx.phase("opening", 0, "Opening arguments",
                    "Alg. 2 lines 7-8: every member presents the team's arguments (both teams at once).")
    pro, opp = argue("proponent", 0, new["proponent"]), argue("opponent", 0, new["opponent"])
    done = yield from ctx.turns(pro + opp)
    external += [("proponent", 0, done[:len(pro)]), ("opponent", 0, done[len(pro):])]
    for r in range(1, int(ctx.p("rounds")) + 1):
        ctx.rounds = r
        new = yield from discussion_round(r)
        yield ctx.phase("rebuttal", r, f"Round {r}: rebuttals",
                        "Alg. 2 lines 13-14: the proponent team rebuts, then the opponent team answers.")
        external.append(("proponent", r, (yield from ctx.turns(argue("proponent", r, new["proponent"])))))
        external.append(("opponent", r, (yield from ctx.turns(argue("opponent", r, new["opponent"])))))
    yield ctx.phase("judge", ctx.rounds, "Judge's decision",
                    "Alg. 2 line 17: the judge reads the team arguments (not the private discussions).")
    j = yield from ctx.turn(judge_spec(ctx, "turquaz.team.judge", ctx.clip(debate_text())))
    yield ctx.verdict(j.label, (j.parsed or {}).get("explanation", "") if j.valid else
                      "The judge's answer could not be read.", "judge", j.confidence)


INFO = ProtocolInfo(
    name="team", title="Team debate (TurQUaz Alg. 2)",
    one_line="Two teams discuss privately, then argue, each round; a judge decides from the team arguments.",
    roles=("proponent", "opponent", "judge"),
    params=params({
        "rounds": (5, "Rebuttal rounds R (Sec. 4.1: at most 5 rounds for the collaborative methods)."),
        "config": ("different", "different: Team A vs Team B (lineup 'teams', else the members split in two); "
                                "same: all members on both sides."),
        "team_size": (0, "Members per team S; 0 = from the lineup (half the members, or all for 'same')."),
        "examples": (True, "Put the App. A.2 examples into [CATEGORY DESCRIPTION AND GUIDELINES] (few-shot)."),
    }),
    run=run,
    choices={"config": ("different", "same")},
)
