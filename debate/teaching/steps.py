"""Teaching views over stored debates: a step-through with notes, and how the votes moved.

Everything here reads event dicts (the stored form) and is pure, so a debate from the store, from an
evaluation checkpoint or from a JSONL file is explained the same way. A step is one thing a person
can point at: a phase opening, a finished turn, a tally, a chair summary, a stop check, a rule, the
verdict. Its note says what the protocol does at that moment; where the next move depends on the
outcome (a new round or the verdict), the note reads it from the events that follow, so it tells
what actually happened rather than what might.

Vote dynamics take the per-round votes of `votes_tallied` events (council), or failing those the
labelled turns of each round; the votes are the ones the tally counted (debate.outcome, which the card
and the bubbles read too). "Who persuaded whom" is a stated heuristic, not a causal claim: when an
agent switches from a to b between two rounds, every other agent that voted b in the earlier round and
gave a reason for it shares one unit of credit (a bare vote argued nothing).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from debate import outcome
from debate.protocols.decisions import consensus_share
from debate.tasks import override_note, stop_confidence_words, turn_number, verdict_number, verdict_sentences

NON_VOTERS = ("judge", "chair", "chairperson", "stop", "round_judge", "round-judge")
PHASE_NOTES = {  # used only when the engine's PhaseStarted carries no note of its own
    "opening": "Opening: each side states its position before hearing the other.",
    "rebuttal": "Rebuttal: each side answers the other's latest argument.",
    "closing": "Closing: each side sums up its case.",
    "vote": "Every council member votes on its own, in parallel, with an explanation.",
    "discussion": "Members read the chairperson's summary, with the discussion so far and its earlier summaries, "
    "and give an updated vote.",
    "judge": "The judge reads the whole transcript and decides.",
    "internal": "Team members discuss among themselves before their team speaks.",
}


@dataclass
class Step:
    index: int
    seq: int
    kind: str
    title: str
    note: str
    round: int = 0
    agent: str = ""
    category: int | None = None


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def _next_kinds(events: list[dict], i: int) -> list[str]:
    return [e.get("type", "") for e in events[i + 1 :] if e.get("type") not in ("token", "turn_started")]


def _note(
    e: dict, events: list[dict], i: int, prev_vote: dict[str, str | None], said: _Said | None = None
) -> tuple[str, str]:
    """(title, note) of one event; `said` (debate.outcome, read once per debate): each vote as written and
    as counted, each chair's status as the tally gives it, each tally with its votes."""
    said = said or _Said.of(events)
    t = e.get("type")
    if t == "debate_started":
        roles = ", ".join(sorted({str(m.get("role", "")) for m in e.get("lineup") or [] if m.get("role")}))
        cat = f", category {e['category']}" if e.get("category") else ""
        return (
            f"{e.get('protocol', '')} debate starts",
            f"Protocol {e.get('protocol')!s} on task {e.get('task')}{cat}; "
            f"{len(e.get('lineup') or [])} agents" + (f" ({roles})" if roles else "") + ".",
        )
    if t == "evidence":
        k = len(e.get("passages") or [])
        if not k and e.get("rejected"):  # as the evidence panel says it: found, but none about the claim
            return (
                "Evidence retrieved",
                f"Retrieval found {len(e['rejected'])} passages, none over the relevance "
                "floor: none is shown"
                + (", and the agents argue without evidence." if e.get("in_prompts", True) else "."),
            )
        if not k:
            return "Evidence retrieved", "Retrieval found no passage for this claim."
        if not e.get("in_prompts", True):  # the viewer's own search: the prompts stay as without evidence
            return (
                "Evidence retrieved (for the viewer only)",
                f"Retrieval finds {k} passages for the claim. They are shown beside the debate for reference: "
                "the agents did not see them, so nothing they say rests on them.",
            )
        return (
            "Evidence retrieved",
            f"Retrieval finds {k} passages for the claim; agents see them numbered "
            f"[E1]…[E{k}] and are asked to cite them.",
        )
    if t == "phase_started":
        phase = str(e.get("phase", ""))
        default = next((v for k, v in PHASE_NOTES.items() if k in phase), f"{phase.title()} begins.")
        return e.get("title") or f"{phase.title()} · round {e.get('round', 0)}", e.get("note") or default
    if t in ("turn_finished", "turn_started"):
        who = f"{e.get('agent')} ({e.get('role')})" if e.get("role") else str(e.get("agent"))
        if t == "turn_started":
            return f"{who} speaks", f"{who} was speaking when the debate ended; the turn never finished."
        if not e.get("valid", True):
            return (
                f"{who}: invalid answer",
                f"{who}'s answer could not be read even after one repair prompt: "
                "it is recorded as an invalid vote, never guessed.",
            )
        label = e.get("label")
        if label is None:
            cites = e.get("citations") or []
            return f"{who} argues", f"{who} speaks ({e.get('completion_tokens', 0)} tokens" + (
                f", citing {', '.join(cites)})." if cites else ")."
            )
        conf = f" ({turn_number(e)}, its own probability of that label)" if turn_number(e) else ""
        chair = said.chairs.get(str(e.get("turn_id") or ""))
        if chair is not None:
            return f"{who}: {chair.label.lower()}", f"{who}: {outcome.chair_words(chair)}."
        if str(e.get("role", "")).lower() in NON_VOTERS:
            return f"{who} decides {label}", f"{who} answers {label}{conf}."
        agent = str(e.get("agent"))
        vote = said.votes.get(str(e.get("turn_id") or ""))
        counted = vote.counted if vote is not None else label
        before = prev_vote.get(agent, "?")
        prev_vote[agent] = counted
        change = "" if before in ("?", counted) else f" — changed from {before}"
        if vote is not None and vote.differs:  # the tally counted another label: say both, as the card does
            return (
                f"{who} votes {counted} (wrote {label})",
                f"{who} wrote {label}{conf}; the tally counts {counted}, read from its own label "
                f"probabilities (the small-model aids count votes so), not from the label it wrote{change}.",
            )
        return f"{who} votes {label}", f"{who} votes {label}{conf}{change}."
    if t == "votes_tallied":
        share, th = float(e.get("consensus_share") or 0.0), float(e.get("threshold") or 0.0)
        counts = ", ".join(f"{k} {v}" for k, v in (e.get("counts") or {}).items())
        head = f"Votes, round {e.get('round')}: {counts}"
        rv = said.tallies.get(int(e.get("seq", i)))
        if rv is not None and rv.differs:
            head = f"Votes, round {e.get('round')}: {rv.headline()}"
        nxt = _next_kinds(events, i)
        goes_on = bool(nxt) and nxt[0] in ("chair_summary", "phase_started")
        if e.get("reached") and goes_on:  # min_rounds: discussion rounds held even after agreement
            return head, (
                f"consensus {_pct(share)} ≥ {_pct(th)}, but the council was asked to hold more "
                "discussion rounds (min_rounds), so the chairperson summarises and a new round starts."
            )
        if e.get("reached"):
            return head, (
                f"consensus {_pct(share)} ≥ {_pct(th)}: the council stops here and the majority "
                f"label {e.get('majority')} is the verdict."
            )
        if e.get("stabilised"):
            return head, (
                f"consensus {_pct(share)} < {_pct(th)}, but no vote changed over the last rounds: "
                f"the council stops and the majority ({e.get('majority')}) decides."
            )
        if nxt and nxt[0] in ("chair_summary", "phase_started"):
            return head, f"consensus {_pct(share)} < {_pct(th)}: the chairperson summarises and a new round starts."
        return head, (
            f"consensus {_pct(share)} < {_pct(th)} and no rounds are left: the majority vote "
            f"({e.get('majority')}) decides, with the stated tie rule if needed."
        )
    if t == "chair_summary":
        return (
            f"Chair summary ({e.get('agent')})",
            "The chairperson sums up the strongest points on each side; every member reads it before voting again.",
        )
    if t == "stop_check":
        m, c = float(e.get("stop_margin") or 0.0), float(e.get("verdict_confidence") or 0.0)
        ts, tc = float(e.get("tau_s") or 0.0), float(e.get("tau_c") or 0.0)
        cmp_m, cmp_c = ("≥" if m + 1e-9 >= ts else "<"), ("≥" if c + 1e-9 >= tc else "<")
        head = f"Stop check, round {e.get('round')}"
        what = (
            f"stop margin {m:.2f} {cmp_m} τs {ts:.2f} and the round judge's {stop_confidence_words(e)} {cmp_c} "
            f"τc {tc:.2f} "
            f"(from {e.get('method')}): "
        )
        if e.get("decision") == "stop":
            return head, what + f"RADAR stops early; the preliminary verdict is {e.get('preliminary_verdict')}."
        return head, what + "at least one signal is below its threshold, so the debate goes on."
    if t == "rule_applied":
        what = (
            f"it changed the labels {e.get('before')} → {e.get('after')}" if e.get("changed") else "it changed nothing"
        )
        return f"Rule: {e.get('rule')}", f"A visible post-step of the task: {what}."
    if t == "verdict":
        label = e.get("label") or e.get("labels")
        conf = f", {verdict_number(e)}" if verdict_number(e) else ""
        gold = ""
        if e.get("gold"):
            gold = f" Gold label: {e['gold']} — " + ("right." if e.get("correct") else "wrong.")
        cat = f" (category {e['category']})" if e.get("category") else ""
        started = next((x for x in events if x.get("type") == "debate_started"), None)
        words = " ".join(f"{x}." for x in verdict_sentences(e, started))
        over = f" {override_note(e)}" if override_note(e) else ""
        head = outcome.verdict_headline(e, said.rounds)
        conf = f", {head}" if head else conf
        return f"Verdict{cat}: {label}", f"{words}{over} Decided by {e.get('source') or 'the protocol'}{conf}.{gold}"
    if t == "vote_comparison":
        otherwise = outcome.first_counted_otherwise(e, said.rounds)
        return "Debate vs. vote", vote_note(e, otherwise, outcome.first_written_label(e, said.rounds))
    if t == "error":
        return "Error", f"{e.get('message', '')} {e.get('hint', '')}".strip()
    if t == "finished":
        tokens = int(e.get("prompt_tokens") or 0) + int(e.get("completion_tokens") or 0)
        return (
            f"Debate {e.get('status')}",
            f"{e.get('rounds', 0)} rounds, {tokens} tokens, "
            f"{e.get('model_calls', 0)} model calls, {float(e.get('wall_s') or 0):.1f} s"
            + (f"; {e['stop_reason']}." if e.get("stop_reason") else "."),
        )
    return t or "event", ""


def vote_note(e: dict, counted_otherwise: bool | None = None, wrote: str | None = None) -> str:
    """One plain note on what the discussion added over simply counting the first answers;
    `counted_otherwise` and `wrote` (the label every first voter wrote, if one) as debate.outcome reads them."""
    first = (
        "the sides the debaters were told to argue (an even split, so the tie rule decides)"
        if e.get("basis") == "assigned sides"
        else "the members' first votes, before anyone read anyone"
    )
    what = {
        "unanimous": "Everyone agreed at once, so the discussion could not change anything.",
        "stood": "The discussion ended where the plain vote would have: it changed nothing.",
        "changed": f"The discussion changed the outcome: {e.get('vote_label')} → {e.get('debate_label')}.",
    }
    otherwise = e.get("counted_otherwise") if counted_otherwise is None else counted_otherwise
    if e.get("outcome") == "unanimous" and otherwise:
        what["unanimous"] = (
            "As counted, everyone agreed at once (not as written: a member's vote was read from its "
            "probabilities), so the discussion could not change anything."
        )
    if e.get("outcome") == "unanimous" and otherwise and wrote and wrote != e.get("vote_label"):
        what["unanimous"] = (
            f"Everyone agreed at once, as written and as counted: every member wrote {wrote} and every vote "
            f"was counted as {e.get('vote_label')} (read from its probabilities), so the discussion could not "
            "change anything."
        )
    note = f"Without any discussion, a plain majority of {first} would have said {e.get('vote_label')}. " + what.get(
        str(e.get("outcome")), ""
    )
    if e.get("outcome") == "changed" and e.get("effect"):
        note += f" Against the gold label {e.get('gold')}, that was {e['effect']}."
    return note + (
        " Much of what debate gains in published studies is this plain vote; comparing the two "
        "shows whether the arguing itself mattered."
    )


@dataclass
class _Said:
    """What debate.outcome states about one debate, read once: votes by turn, chairs by turn, tallies by seq."""

    votes: dict[str, outcome.MemberVote]
    chairs: dict[str, outcome.ChairTag]
    tallies: dict[int, outcome.RoundVotes]
    rounds: list[outcome.RoundVotes]

    @classmethod
    def of(cls, events: list[dict]) -> _Said:
        rounds = outcome.council_rounds(events)
        seqs = [int(e.get("seq", i)) for i, e in enumerate(events) if e.get("type") == "votes_tallied"]
        return cls(outcome.counted_votes(events), outcome.chair_tags(events), dict(zip(seqs, rounds)), rounds)


def steps(events: list[dict]) -> list[Step]:
    """The debate as steps, in order. Token deltas and turn starts are folded into their turns."""
    finished = {e.get("turn_id") for e in events if e.get("type") == "turn_finished"}
    said = _Said.of(events)
    out: list[Step] = []
    prev_vote: dict[str, str | None] = {}
    category = None
    for i, e in enumerate(events):
        t = e.get("type")
        if t == "token" or (t == "turn_started" and e.get("turn_id") in finished):
            continue
        if t == "phase_started" and e.get("category") is not None:
            if e["category"] != category:
                prev_vote = {}
            category = e["category"]
        title, note = _note(e, events, i, prev_vote, said)
        out.append(
            Step(
                len(out),
                int(e.get("seq", i)),
                t or "",
                title,
                note,
                int(e.get("round") or 0),
                str(e.get("agent") or ""),
                category,
            )
        )
    return out


def _step_number(all_steps: list[Step], e: dict) -> int:
    """The 1-based step at which event `e` is shown."""
    seq = int(e.get("seq", -1))
    return next((x.index for x in all_steps if x.seq >= seq), len(all_steps) - 1) + 1


def rounds_note(events: list[dict], step: Step, all_steps: list[Step]) -> str:
    """What the transcript says at a step of a replay before anything was said: where the first turn
    comes (a stored debate is not waiting for anything, so "waiting for the first round" would mislead)."""
    first = next((e for e in events if e.get("type") == "turn_finished"), None)
    if first is None:
        return "Nobody spoke in this debate: no turn was stored with it."
    if int(first.get("seq", -1)) > step.seq:
        return f"Nothing said yet at this step of the replay: the first turn comes at step {_step_number(all_steps, first)}."
    return ""


def evidence_note(events: list[dict], step: Step, all_steps: list[Step]) -> str:
    """What the evidence panel says at a step of a replay while it shows no passages. Nothing runs in a
    replay, so it never says "searching": it says at which step the passages arrive, what the debate
    recorded instead (no retriever, retrieval failed), that none passed the relevance floor, or that the
    debate had no retrieval at all."""

    def step_of(e: dict) -> int:
        return _step_number(all_steps, e)

    ev = next((e for e in events if e.get("type") == "evidence"), None)
    said = next(
        (e for e in events if e.get("type") == "phase_started" and e.get("phase") == "evidence" and e.get("note")), None
    )
    if ev is not None:
        k = len(ev.get("passages") or [])
        if int(ev.get("seq", -1)) > step.seq:
            what = f"{k} passages arrive" if k > 1 else ("1 passage arrives" if k else "the evidence verdict arrives")
            return f"Not reached yet in this replay: {what} at step {step_of(ev)} of {len(all_steps)}."
        if ev.get("rejected"):
            return "No passage passed the relevance floor: none is shown."
        return "Retrieval found no passage for this claim."
    if said is not None:
        if int(said.get("seq", -1)) > step.seq:
            return f"Not reached yet in this replay: at step {step_of(said)} the debate records: {said['note']}"
        return str(said["note"])
    return "This debate had no evidence retrieval: no passages were stored with it."


def events_until(events: list[dict], step: Step) -> list[dict]:
    """What the transcript shows at a step: every event up to it, without tokens or unfinished turns."""
    upto = [e for e in events if int(e.get("seq", -1)) <= step.seq]
    done = {e.get("turn_id") for e in upto if e.get("type") == "turn_finished"}
    keep = []
    for e in upto:
        t = e.get("type")
        if t == "token":
            continue
        if t == "turn_started" and e.get("turn_id") not in done and int(e.get("seq", -1)) != step.seq:
            continue
        keep.append(e)
    return keep


# -- vote dynamics --------------------------------------------------------------------------------
@dataclass
class VoteSeries:
    """Per-round votes of one decision: rounds[i] -> votes[i] = {agent: label or None}."""

    category: int | None = None
    rounds: list[int] = field(default_factory=list)
    votes: list[dict[str, str | None]] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)
    threshold: float | None = None
    source: str = "tallies"
    decided: str | None = None  # the verdict this decision ended in (None while undecided)
    explained: list[dict[str, bool]] = field(default_factory=list)  # per round: who gave a reason with its vote
    written: list[dict[str, str | None]] = field(default_factory=list)  # per round: the labels as written

    def to_dict(self) -> dict:
        return asdict(self)


def vote_series(events: list[dict]) -> list[VoteSeries]:
    """One series per decision (CheckThat category); from tallies, else from labelled debater turns."""
    series: dict[Any, VoteSeries] = {}
    turns: dict[Any, dict[int, dict[str, str | None]]] = defaultdict(lambda: defaultdict(dict))
    verdicts: dict[Any, str] = {}
    category = None
    said = iter(outcome.council_rounds(events))  # the same tallies, with each vote as written (debate.outcome)
    for e in events:
        t = e.get("type")
        if t in ("debate_started", "phase_started") and e.get("category") is not None:
            category = e["category"]
        elif t == "votes_tallied":
            s = series.setdefault(category, VoteSeries(category=category))
            rv = next(said, None)
            s.rounds.append(int(e.get("round") or 0))
            s.votes.append(dict(e.get("votes") or {}))
            s.explained.append({v.agent: v.explained for v in rv.votes} if rv else {})
            s.written.append({v.agent: v.written for v in rv.votes} if rv else {})
            s.shares.append(float(e.get("consensus_share") or 0.0))
            s.threshold = e.get("threshold", s.threshold)
        elif t == "turn_finished" and str(e.get("role", "")).lower() not in NON_VOTERS:
            if e.get("label") is not None or not e.get("valid", True):
                turns[category][int(e.get("round") or 0)][str(e.get("agent"))] = e.get("label")
        elif t == "verdict":
            labels = e.get("labels") or {}
            for cat in set(series) | set(turns) | ({category} if e.get("label") else set()):
                decided = labels.get(str(cat), labels.get(cat)) if labels else e.get("label")
                if decided is not None:
                    verdicts[cat] = str(decided)
    for cat, by_round in turns.items():
        if cat in series:
            continue
        s = VoteSeries(category=cat, source="turns")
        for r in sorted(by_round):
            s.rounds.append(r)
            s.votes.append(by_round[r])
            s.shares.append(consensus_share(by_round[r]))
        series[cat] = s
    for cat, s in series.items():
        s.decided = verdicts.get(cat)
    return [series[k] for k in series]


def vote_changes(s: VoteSeries) -> list[dict]:
    """Who changed their vote, in which round, from what to what."""
    out = []
    for (_r0, v0), (r1, v1) in zip(zip(s.rounds, s.votes), zip(s.rounds[1:], s.votes[1:])):
        for agent, label in v1.items():
            if agent in v0 and v0[agent] != label:
                out.append({"agent": agent, "round": r1, "from": v0[agent], "to": label})
    return out


def agreement_over_rounds(s: VoteSeries) -> list[dict]:
    out = []
    for r, votes, share in zip(s.rounds, s.votes, s.shares):
        top = Counter(v for v in votes.values() if v is not None).most_common(1)
        out.append({"round": r, "share": share, "majority": top[0][0] if top else None, "threshold": s.threshold})
    return out


NO_REASON = "nobody (no one who held that vote gave a reason)"


def persuasion(s: VoteSeries) -> dict[tuple[str, str], float]:
    """{(persuader, persuaded): credit}: a switch to b is credited, in equal parts, to those who held b
    in the round before *and gave a reason for it*: a member that voted without a word argued nothing, so
    it persuaded nobody. A switch no such member can explain is credited to NO_REASON (the chair's summary,
    the member's own second thoughts, sampling: the events cannot tell which)."""
    credit: dict[tuple[str, str], float] = defaultdict(float)
    explained = s.explained + [{}] * (len(s.votes) - len(s.explained))
    for v0, v1, why0 in zip(s.votes, s.votes[1:], explained):
        for agent, label in v1.items():
            if agent not in v0 or v0[agent] == label or label is None:
                continue
            holders = [a for a, lab in v0.items() if lab == label and a != agent and why0.get(a, True)]
            for h in holders:
                credit[(h, agent)] += 1.0 / len(holders)
            if not holders:
                credit[(NO_REASON, agent)] += 1.0
    return dict(credit)


def _lab(x: str | None) -> str:
    return "invalid" if x is None else str(x)


def _node_order(n: str) -> tuple[int, str]:
    head = n.split(" ")[0]
    return (int(head[1:]) if head[1:].isdigit() else 10**6, n)  # rounds in order, the verdict last


def sankey_data(all_series: Iterable[VoteSeries]) -> dict:
    """Nodes "R<r> · <label>" and "Verdict · <label>"; links count the agents that went from one round's
    vote to the next, and from their last vote into the verdict, summed over series. The last step is
    what makes the chart of a debate decided in one round of votes more than an empty box."""
    flows: Counter = Counter()
    for s in all_series:
        for (r0, v0), (r1, v1) in zip(zip(s.rounds, s.votes), zip(s.rounds[1:], s.votes[1:])):
            for agent, label in v1.items():
                if agent in v0:
                    flows[(f"R{r0} · {_lab(v0[agent])}", f"R{r1} · {_lab(label)}")] += 1
        if s.decided is not None and s.rounds:
            for label in s.votes[-1].values():
                flows[(f"R{s.rounds[-1]} · {_lab(label)}", f"Verdict · {s.decided}")] += 1
    nodes = sorted({n for pair in flows for n in pair}, key=_node_order)
    idx = {n: i for i, n in enumerate(nodes)}
    links = sorted(flows.items(), key=lambda kv: (idx[kv[0][0]], idx[kv[0][1]]))
    return {
        "nodes": nodes,
        "source": [idx[a] for (a, _), _ in links],
        "target": [idx[b] for (_, b), _ in links],
        "value": [n for _, n in links],
    }


def debate_dynamics(events: list[dict]) -> dict:
    """Everything the vote-dynamics view shows for one debate."""
    series = vote_series(events)
    changes = [dict(c, category=s.category) for s in series for c in vote_changes(s)]
    pers: Counter = Counter()
    for s in series:
        pers.update(persuasion(s))
    counted_otherwise = [
        {"agent": a, "round": r, "wrote": w, "counted": v[a], "category": s.category}
        for s in series
        for r, v, wr in zip(s.rounds, s.votes, s.written)
        for a, w in wr.items()
        if w is not None and v.get(a) is not None and v[a] != w
    ]
    return {
        "series": [s.to_dict() for s in series],
        "changes": changes,
        "counted_otherwise": counted_otherwise,
        "agreement": [dict(a, category=s.category) for s in series for a in agreement_over_rounds(s)],
        "persuasion": [{"persuader": a, "persuaded": b, "credit": round(c, 4)} for (a, b), c in pers.most_common()],
        "sankey": sankey_data(series),
    }


def aggregate_dynamics(event_lists: Iterable[list[dict]]) -> dict:
    """The same over many debates (an evaluation run): flows summed, mean agreement per round."""
    all_series: list[VoteSeries] = []
    changes_per_round: Counter = Counter()
    pers: Counter = Counter()
    shares: dict[int, list[float]] = defaultdict(list)
    n = 0
    for events in event_lists:
        n += 1
        for s in vote_series(events):
            all_series.append(s)
            for c in vote_changes(s):
                changes_per_round[c["round"]] += 1
            pers.update(persuasion(s))
            for r, share in zip(s.rounds, s.shares):
                shares[r].append(share)
    return {
        "debates": n,
        "decisions": len(all_series),
        "sankey": sankey_data(all_series),
        "changes_per_round": dict(sorted(changes_per_round.items())),
        "agreement": [{"round": r, "mean_share": sum(v) / len(v), "n": len(v)} for r, v in sorted(shares.items())],
        "persuasion": [{"persuader": a, "persuaded": b, "credit": round(c, 4)} for (a, b), c in pers.most_common()],
    }


def run_dynamics(run_dir: str) -> dict:
    """Aggregated vote dynamics of an evaluation run's finished debates."""
    from debate.evaluation.checkpoint import read_rows

    rows = read_rows(run_dir, with_events=True)
    return aggregate_dynamics(r.get("events") or [] for r in rows if r.get("status") == "done")


# -- figures (plotly only; the pages draw them) ----------------------------------------------------
LABEL_COLORS = {
    "YES": "#2E9D57",
    "TRUE": "#2E9D57",
    "NO": "#D64545",
    "FALSE": "#D64545",
    "HALF-TRUE": "#E8A33D",
    "NEI": "#8C8C8C",
    "invalid": "#C9C9C9",
}


def sankey_figure(data: dict, title: str = "") -> Any:
    """Votes flowing from round to round; node colour = label."""
    import plotly.graph_objects as go

    colors = [
        LABEL_COLORS.get(n.split(" · ", 1)[-1].upper() if "invalid" not in n else "invalid", "#4C78A8")
        for n in data["nodes"]
    ]
    fig = go.Figure()
    if data["nodes"]:  # plotly draws an empty Sankey as a blank box and drops annotations over it
        fig.add_trace(
            go.Sankey(
                arrangement="snap",
                textfont=dict(size=14, color="#1b1d21"),
                node=dict(label=data["nodes"], color=colors, pad=18, thickness=16),
                link=dict(
                    source=data["source"], target=data["target"], value=data["value"], color="rgba(120,120,120,0.35)"
                ),
            )
        )
    fig.update_layout(height=320, margin=dict(l=8, r=8, t=30 if title else 8, b=8), title=title or None)
    if not data["nodes"]:
        fig.update_layout(xaxis=dict(visible=False), yaxis=dict(visible=False))
        fig.add_annotation(
            text="no votes to draw: nobody voted in this debate",
            showarrow=False,
            x=0.5,
            y=0.5,
            xref="paper",
            yref="paper",
            font=dict(color="#888"),
        )
    return fig


def agreement_figure(points: list[dict], key: str = "share") -> Any:
    """Consensus share per round (one line per category), with the threshold when known."""
    import plotly.graph_objects as go

    fig = go.Figure()
    by_cat: dict[Any, list[dict]] = defaultdict(list)
    for p in points:
        by_cat[p.get("category")].append(p)
    for cat, pts in by_cat.items():
        fig.add_scatter(
            x=[f"R{p['round']}" for p in pts],
            y=[p[key] for p in pts],
            mode="lines+markers",
            name="agreement" if cat is None else f"category {cat}",
        )
    th = next((p.get("threshold") for p in points if p.get("threshold")), None)
    if th:
        fig.add_hline(y=th, line_dash="dash", line_color="#999", annotation_text=f"threshold {th:.0%}")
    fig.update_layout(
        height=260,
        margin=dict(l=8, r=8, t=8, b=8),
        yaxis=dict(range=[0, 1.05], tickformat=".0%"),
        xaxis=dict(type="category"),
        legend=dict(orientation="h", y=1.1),
    )
    return fig
