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
from debate.teaching.notes import NON_VOTERS, Context, Said, note_of, vote_note

__all__ = ["NON_VOTERS", "vote_note"]  # read by tests and pages as steps' own
PROGRESS = ("token", "evidence_progress", "attribution_progress")  # shown by the step whose result they lead to


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
    detail: str = ""  # how it is computed: shown behind an expander
    kind_words: str = ""  # what sort of step it is, in words


def steps(events: list[dict]) -> list[Step]:
    """The debate as steps, in order. Token deltas, turn starts and progress events are folded into the
    step they lead to (notes.py writes each step's words)."""
    finished = {e.get("turn_id") for e in events if e.get("type") == "turn_finished"}
    cx = Context(events, 0, Said.of(events))
    out: list[Step] = []
    category = None
    for i, e in enumerate(events):
        t = e.get("type")
        if t in PROGRESS or (t == "turn_started" and e.get("turn_id") in finished):
            continue
        if t == "phase_started" and e.get("category") is not None:
            if e["category"] != category:
                cx.prev_vote = {}
            category = e["category"]
        cx.i = i
        n = note_of(e, cx)
        out.append(
            Step(
                len(out),
                int(e.get("seq", i)),
                t or "",
                n.title,
                n.note,
                int(e.get("round") or 0),
                str(e.get("agent") or ""),
                category,
                n.detail,
                n.kind,
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
