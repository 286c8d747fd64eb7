"""The notes of Learn's step-through, written for a student who has not read the papers.

Each step's note says three things in plain words: what happened, why the protocol does it at this
moment, and what to look at on the page. How a number is computed (probabilities, thresholds' parameter
names, fitted calibrations, token counts, the paper's line numbers) goes into `detail`, which the page
shows behind a "How is this computed?" expander. Raw event names never appear in either: a writer per
event kind (`WRITERS`, one entry for every kind in debate.events.EVENT_TYPES) turns an event into a
`Note`.

Statements about votes, consensus, the chair's status and the verdict's reading come from
debate.outcome (read once per debate, `Said`), so Learn says what the card, the bubbles and the exports
say.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from debate import outcome
from debate.tasks import override_note, stop_confidence_words, turn_number, verdict_number, verdict_sentences

NON_VOTERS = ("judge", "chair", "chairperson", "stop", "round_judge", "round-judge", "stop-agent", "stop_agent")
ROUND_JUDGES = ("round_judge", "round-judge")
STOP_AGENTS = ("stop", "stop-agent", "stop_agent")


@dataclass
class Note:
    title: str
    note: str  # what happened, why, what to look at
    detail: str = ""  # how it is computed (behind an expander)
    kind: str = ""  # what sort of step it is, in words ("a turn", "the votes counted")


@dataclass
class Said:
    """What debate.outcome states about one debate, read once: votes by turn, chairs by turn, tallies by seq."""

    votes: dict[str, outcome.MemberVote]
    chairs: dict[str, outcome.ChairTag]
    tallies: dict[int, outcome.RoundVotes]
    rounds: list[outcome.RoundVotes]

    @classmethod
    def of(cls, events: list[dict]) -> Said:
        rounds = outcome.council_rounds(events)
        seqs = [int(e.get("seq", i)) for i, e in enumerate(events) if e.get("type") == "votes_tallied"]
        return cls(outcome.counted_votes(events), outcome.chair_tags(events), dict(zip(seqs, rounds)), rounds)


@dataclass
class Context:
    """Everything a note writer may read besides its event: the whole debate, where the event is in it,
    the phase it belongs to and each member's last vote (updated by the vote writer)."""

    events: list[dict]
    i: int
    said: Said
    prev_vote: dict[str, str | None] = field(default_factory=dict)
    phase: dict = field(default_factory=dict)

    @property
    def started(self) -> dict:
        return next((x for x in self.events if x.get("type") == "debate_started"), {})

    @property
    def params(self) -> dict:
        settings = self.started.get("settings")
        p = settings.get("params") if isinstance(settings, dict) else None
        return p if isinstance(p, dict) else {}

    def sample_of(self, e: dict) -> tuple[int, int]:
        """(n, of): which of the same agent's answers in the same phase and round this turn is."""
        same = [
            x
            for x in self.events
            if x.get("type") == "turn_finished"
            and x.get("agent") == e.get("agent")
            and x.get("phase") == e.get("phase")
            and x.get("round") == e.get("round")
        ]
        n = next((k for k, x in enumerate(same, 1) if x.get("turn_id") == e.get("turn_id")), 1)
        return n, len(same)

    def next_kinds(self) -> list[str]:
        skip = ("token", "turn_started", "evidence_progress", "attribution_progress")
        return [str(e.get("type", "")) for e in self.events[self.i + 1 :] if e.get("type") not in skip]


# -- words ---------------------------------------------------------------------------------------------
def pct(x: float) -> str:
    return f"{x * 100:.0f}%"


_ROLE_WORDS = {"member": "member", "chair": "chairperson", "round-judge": "round judge", "round_judge": "round judge"}
_ROLE_WORDS |= {"stop": "stop agent", "stop-agent": "stop agent", "stop_agent": "stop agent"}


def who(e: dict) -> str:
    """ "X (member)", or "The politician" when the agent is named after its role."""
    agent, role = str(e.get("agent") or "someone"), str(e.get("role") or "")
    if not role or role == agent:
        return "The " + _ROLE_WORDS.get(agent, agent.replace("_", " ").replace("-", " "))
    return f"{agent} ({_ROLE_WORDS.get(role, role.replace('_', ' '))})"


_CITED = re.compile(r"^(Alg\. \d+(?: lines? [\d\-–]+)?|RADAR[^:]{0,40}|TurQUaz[^:]{0,40}): ")

# What each phase is for, by a word of its name: (what happens, why).
PHASES = {
    "vote": (
        "Every member reads the claim and votes on its own, all at the same time.",
        "Independent first votes show what each model thinks before anyone is persuaded.",
    ),
    "discussion": (
        "Members read the discussion so far (and the chairperson's summary) and may change their vote.",
        "Hearing the other side is the point of a debate: watch who moves.",
    ),
    "internal": (
        "Each team talks in private before it speaks in public.",
        "Teammates agree on their best arguments first; the judge never sees this.",
    ),
    "opening": (
        "Each side states its position before hearing the other.",
        "Openings show each side's best case, uninfluenced by the other.",
    ),
    "rebuttal": (
        "Each side answers the other side's latest argument.",
        "Rebuttals test the arguments: a weak point should get exposed here.",
    ),
    "closing": ("Each side sums up its case.", "The closing is what the judge reads last before deciding."),
    "stop-check": (
        "The debate checks whether it can stop early.",
        "If the debate is already settled, more rounds only cost time.",
    ),
    "judge": ("The judge reads the debate and decides.", "A neutral reader turns the arguments into one answer."),
    "answer": ("One model answers the question directly.", "This is the plain answer a debate is compared with."),
    "evidence": ("The app searches for passages about the claim.", "Debaters argue better from facts than memory."),
    "domain": ("A model names the claim's field (health, economy…).", "The fourth debater is an expert in it."),
    "calibrate": (
        "The judge is shown the same prompt with everything blanked out.",
        "Its answer to nothing shows its built-in leaning, which is then divided out.",
    ),
}

PROTOCOL_INTRO = {
    "council": "A council of {n} members votes on the claim. If fewer than {theta} of them agree, a chairperson "
    "sums up the arguments and everyone votes again — at most {rounds} discussion round(s). The council stops as "
    "soon as {theta} agree, or when nobody has changed their vote for {stable} rounds in a row, or when the rounds "
    "run out; then the majority decides.",
    "single": "Two debaters argue: the proponent says yes, the opponent says no. After the openings come {rounds} "
    "rebuttal round(s) and the closings; then a judge reads it all and decides. Nobody votes along the way and "
    "there is no threshold for stopping early: every round is held.",
    "team": "Two teams argue: the proponent team says yes, the opponent team says no. Before each public round a "
    "team discusses in private. After {rounds} round(s) a judge reads the public arguments and decides. Nobody "
    "votes along the way and there is no threshold for stopping early: every round is held.",
    "radar": "Debaters with different roles argue over evidence passages found for the claim: their openings, "
    "{rounds} rebuttal round(s) at most, then their closings. {stop} A judge gives the verdict; nobody votes along "
    "the way.",
    "radar-single": "One agent assesses the claim over the evidence on its own — an opening and a closing "
    "statement, nobody to answer — and a judge decides. It is RADAR without the debate, to compare with. Nobody "
    "votes and nothing can stop it early, so it has no threshold.",
    "baseline": "One model answers the question directly, with no debate: the plain answer debates are compared with.",
}


def phase_words(phase: str, protocol: str = "") -> tuple[str, str]:
    """(what happens, why) of a phase, by the first known word of its name (a team's "discussion" is its
    private talk, a council's its next round of votes)."""
    if protocol == "team" and "discussion" in phase:
        return PHASES["internal"]
    for key, words in PHASES.items():
        if key in phase:
            return words
    return (f"{phase.replace('_', ' ').replace('-', ' ').capitalize()} begins.", "")


def _step_kind(t: str) -> str:
    return KIND_WORDS.get(t, "a step")


KIND_WORDS = {
    "debate_started": "the start",
    "evidence": "evidence",
    "evidence_progress": "evidence",
    "phase_started": "a new phase",
    "turn_started": "a turn",
    "token": "a turn",
    "turn_finished": "a turn",
    "votes_tallied": "the votes counted",
    "chair_summary": "the chairperson",
    "stop_check": "a stop check",
    "rule_applied": "a rule",
    "verdict": "the verdict",
    "vote_comparison": "debate against a plain vote",
    "attribution_progress": "the verdict's evidence",
    "attribution": "the verdict's evidence",
    "moderator": "a moderator's note",
    "error": "an error",
    "finished": "the end",
    "transcript_shortened": "a long debate",
    "human_asked": "a person's turn",
    "human_timeout": "a person's turn",
}


def _radar_stop_words(params: dict) -> str:
    """RADAR's early stop as this debate ran it: on (the paper), with its two thresholds; or off (the
    live-demo pace), so every round is held. A student read "a stop check asks…" and then saw none."""
    if params.get("early_stop", True) is False:
        return (
            "Early stopping is off in this debate (as at the live-demo pace), so no stop check runs, every round "
            "is held and there is no threshold for stopping."
        )
    ts, tc = params.get("tau_s", 0.5), params.get("tau_c", 0.8)
    ts = f"{float(ts):g}" if isinstance(ts, (int, float)) else "its threshold"  # a stored file's: numbers only
    tc = f"{float(tc):g}" if isinstance(tc, (int, float)) else "its threshold"
    return (
        "After the opening and after each rebuttal round a stop check asks whether the debate is settled: it "
        f"stops early when the stop agent's margin reaches {ts} and the round judge's confidence reaches {tc}."
    )


# -- writers: the start, evidence, phases ----------------------------------------------------------------
def _started(e: dict, cx: Context) -> Note:
    from debate.protocols import PROTOCOLS

    proto = str(e.get("protocol") or "")
    info = PROTOCOLS.get(proto)
    params = cx.params  # a stored file's settings are anyone's: read as numbers only where they are
    members = [m for m in e.get("lineup") or [] if isinstance(m, dict) and m.get("role") == "member"]
    intro = PROTOCOL_INTRO.get(proto, getattr(info, "one_line", "") or "The debate begins.")
    theta = params.get("theta", 0.8)
    theta = float(theta) if isinstance(theta, (int, float)) else 0.8
    rounds = params.get("rounds")
    stable = params.get("stable_rounds", 2)
    intro = intro.format(
        stop=_radar_stop_words(params),
        n=len(members) or "several",
        theta=pct(theta),
        rounds=rounds if isinstance(rounds, int) else "a few",
        stable=stable if isinstance(stable, int) else "a few",
    )
    title = getattr(info, "title", proto) or "A debate"
    title = re.sub(r"\s*\(.*\)$", "", title)
    roles = ", ".join(sorted({str(m.get("role", "")) for m in e.get("lineup") or [] if m.get("role")}))
    detail = (
        f"Protocol {proto} ({getattr(info, 'title', proto)}), task {e.get('task')}"
        + (f", category {e['category']}" if e.get("category") else "")
        + f"; {len(e.get('lineup') or [])} agents"
        + (f" ({roles})" if roles else "")
        + (f"; parameters: {', '.join(_param_words(k, v, len(members)) for k, v in params.items())}" if params else "")
        + "."
    )
    raw = e.get("settings")
    settings: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if settings.get("evidence_on") is False or (settings.get("evidence") is False and "evidence_on" not in settings):
        intro += " This debate searched no evidence: the agents argue from what they know."
    look = " Look at the claim card: that is what everyone is asked about."
    return Note(f"{title} starts", intro + look, detail, _step_kind("debate_started"))


def _param_words(name: str, value: Any, members: int) -> str:
    """One parameter as `name=value`, with what a value means where the number alone misleads: a council's
    `members=0` is the lineup's own number of members, not none."""
    if name == "members" and value == 0 and members:
        return f"members=0 (the lineup's own number: {members})"
    return f"{name}={value}"


def _passage_gist(p: dict) -> str:
    text = " ".join(str(p.get("text") or "").split())
    text = text if len(text) <= 160 else text[:157].rsplit(" ", 1)[0] + "…"
    src = str(p.get("title") or p.get("source") or "").strip()
    return f"“{text}”" + (f" ({src})" if src else "")


def _evidence(e: dict, cx: Context) -> Note:
    k = len(e.get("passages") or [])
    kind = _step_kind("evidence")
    detail = f"Search query: {e.get('query') or 'the claim'}" + (f"; corpus {e['corpus']}" if e.get("corpus") else "")
    if e.get("floor") is not None:
        detail += f"; relevance floor {float(e['floor']):.2f} (cosine similarity a passage must reach)"
    if e.get("note"):
        detail += f"; {e['note']}"
    if e.get("questions"):
        detail += "; questions searched beside the claim: " + " / ".join(map(str, e["questions"]))
    detail += "."
    if not k and e.get("rejected"):  # as the evidence panel says it: found, but none about the claim
        note = (
            f"The search found {len(e['rejected'])} passages, but none was close enough to the claim to count, "
            "so none is shown" + (", and the agents argue without evidence." if e.get("in_prompts", True) else ".")
        )
        return Note("Evidence retrieved", note, detail, kind)
    if not k:
        return Note("Evidence retrieved", "The search found no passage about this claim.", detail, kind)
    top = _passage_gist((e.get("passages") or [{}])[0])
    if not e.get("in_prompts", True):  # the viewer's own search: the prompts stay as without evidence
        return Note(
            "Evidence retrieved (for the viewer only)",
            f"The search finds {k} passages for the claim. They are shown beside the debate for reference: "
            f"the agents did not see them, so nothing they say rests on them. The closest one: {top}",
            detail,
            kind,
        )
    return Note(
        "Evidence retrieved",
        f"The search finds {k} passages about the claim; agents see them numbered [E1]…[E{k}] and are asked to "
        f"cite them. Why: arguments should rest on facts, not on what a small model remembers. The closest one: "
        f"{top} Look at the evidence panel: does it support the claim or contradict it?",
        detail,
        kind,
    )


def _progress(e: dict, cx: Context) -> Note:
    what = "Searching for evidence" if e.get("type") == "evidence_progress" else "Checking which passages mattered"
    return Note(
        what, f"{what}: this only shows progress; the result comes in a later step.", "", _step_kind(e.get("type", ""))
    )


def _phase(e: dict, cx: Context) -> Note:
    phase = str(e.get("phase", ""))
    cx.phase = e
    what, why = phase_words(phase, str(cx.started.get("protocol") or ""))
    engine = str(e.get("note") or "")
    if not any(k in phase for k in PHASES) and engine:
        what = _CITED.sub("", engine)  # a phase this module has no words for: the protocol's own line
    title = e.get("title") or f"{phase.replace('_', ' ').capitalize()} · round {e.get('round', 0)}"
    note = what + (f" Why: {why}" if why else "")
    detail = f"The protocol's own note: {engine}" if engine else ""
    return Note(str(title), note, detail, _step_kind("phase_started"))


# -- writers: turns ------------------------------------------------------------------------------------
def _turn_started(e: dict, cx: Context) -> Note:
    w = who(e)
    return Note(f"{w} speaks", f"{w} was speaking when the debate ended; the turn never finished.", "", "a turn")


def _turn_extras(e: dict) -> tuple[str, str]:
    """(plain sentences, details) every turn may carry: a person's words, a fork's copy, a shortened answer."""
    plain, det = [], [f"{int(e.get('completion_tokens') or 0)} tokens written"]
    if e.get("human"):
        plain.append("A person typed this turn.")
    if e.get("replayed"):
        plain.append("It is copied from the debate this one was forked from.")
    if e.get("shortened") or e.get("cut_off_at"):
        plain.append("The answer ran over its length limit and was cut (the transcript marks where).")
    if e.get("repaired"):
        det.append("the first answer could not be read; a repair prompt asked again")
    if e.get("model"):
        det.append(f"model {e['model']}")
    return " ".join(plain), "; ".join(det) + "."


def _turn(e: dict, cx: Context) -> Note:
    w = who(e)
    extra, det = _turn_extras(e)
    if not e.get("valid", True):
        return Note(
            f"{w}: invalid answer",
            f"{w}'s answer could not be read even after it was asked again: it is recorded as an invalid vote, "
            "never guessed.",
            det,
            "a turn",
        )
    if e.get("label") is None:
        return _argument(e, cx, w, extra, det)
    role = str(e.get("role", "")).lower()
    chair = cx.said.chairs.get(str(e.get("turn_id") or ""))
    if chair is not None:
        return Note(
            f"{w}: {chair.label.lower()}",
            f"{w}: {outcome.chair_words(chair)}. The chairperson reads the votes, says whether the council "
            "agrees, and sums up both sides for the next round. Look at its summary in the transcript.",
            det,
            "a turn",
        )
    if role in NON_VOTERS:
        return _decider(e, cx, w, role, det)
    return _vote(e, cx, w, extra, det)


def _argument(e: dict, cx: Context, w: str, extra: str, det: str) -> Note:
    phase = str(e.get("phase") or cx.phase.get("phase") or "")
    _what, why = phase_words(phase, str(cx.started.get("protocol") or ""))
    cites = e.get("citations") or []
    stage = {"opening": "opening statement", "rebuttal": "rebuttal", "closing": "closing statement"}
    said = next((v for k, v in stage.items() if k in phase), "")
    private = "internal" in phase or ("discussion" in phase and cx.started.get("protocol") == "team")
    title = f"{w}: {said}" if said else (f"{w} (team, in private)" if private else f"{w} argues")
    note = f"{w} " + (f"gives its {said}." if said else ("speaks to its team." if private else "speaks."))
    note += f" {why}" if why else ""
    them = "them" if len(cites) > 1 else "it"
    note += f" It cites {', '.join(cites)}: find {them} in the evidence panel." if cites else ""
    note += f" {extra}" if extra else ""
    note += " Read it in the transcript: which side does it take, and with what reasons?"
    return Note(title, note, det, "a turn")


def _decider(e: dict, cx: Context, w: str, role: str, det: str) -> Note:
    label = str(e.get("label"))
    num = turn_number(e)
    det = (f"{num}: the model's own probability of the label it wrote. " if num else "") + det
    in_check = str(e.get("phase") or "") in ("stop-check", "round-judge", "stop_check", "round_judge")
    nth, of = cx.sample_of(e) if in_check else (1, 1)
    if in_check:
        det += " In a stop check each signal may be asked several times (samples); the check counts the answers."
    w_ = f"{w} (answer {nth} of {of})" if of > 1 else w
    if role in STOP_AGENTS:
        sense = "the debate is settled" if label.upper() == "STOP" else "the debate should go on"
        return Note(
            f"{w_} says {label}",
            f"{w_} says {label}: it thinks {sense}. The stop check that follows weighs this with the round judge.",
            det,
            "a turn",
        )
    if role in ROUND_JUDGES or in_check:
        rj = "The round judge" + (f" (answer {nth} of {of})" if of > 1 else "")
        return Note(
            f"{rj}: preliminary verdict {label}",
            f"{rj} says what it would decide if the debate stopped now: {label}. If the stop check stops the "
            "debate, this becomes the verdict; its confidence is the second signal of the stop check.",
            det,
            "a turn",
        )
    return Note(
        f"{w} decides {label}",
        f"{w} has read the debate and answers {label}. Read its reason in the transcript: which arguments "
        "convinced it?",
        det,
        "a turn",
    )


def _vote(e: dict, cx: Context, w: str, extra: str, det: str) -> Note:
    label = e.get("label")
    num = turn_number(e)
    det = (f"{num}: its own probability of the label it wrote. " if num else "") + det
    agent = str(e.get("agent"))
    vote = cx.said.votes.get(str(e.get("turn_id") or ""))
    counted = vote.counted if vote is not None else label
    before = cx.prev_vote.get(agent, "?")
    cx.prev_vote[agent] = counted
    changed = before not in ("?", counted)
    change = f" — changed from {before}: in the round before, it voted {before}" if changed else ""
    stay = " — the same as in the round before" if before == counted else ""
    rnd = int(e.get("round") or 0)
    when = " in the first vote (round 0)" if rnd == 0 and before == "?" else f" in round {rnd}"
    look = " Read its reason in the transcript."
    if vote is not None and vote.differs:  # the tally counted another label: say both, as the card does
        return Note(
            f"{w} votes {counted} (wrote {label})",
            f"{w} wrote {label}{when}, but the tally counts {counted}: in this debate a vote is read from the "
            f"member's own probabilities for each label, not from the word it wrote{change}.{look}",
            det,
            "a vote",
        )
    return Note(
        f"{w} votes {label}",
        f"{w} votes {label}{when}{change or stay}.{look}" + (f" {extra}" if extra else ""),
        det,
        "a vote",
    )


# -- writers: decisions ---------------------------------------------------------------------------------
def _tally(e: dict, cx: Context) -> Note:
    share, th = float(e.get("consensus_share") or 0.0), float(e.get("threshold") or 0.0)
    rv = cx.said.tallies.get(int(e.get("seq", cx.i)))
    head = rv.headline() if rv is not None else ", ".join(f"{k_} {v}" for k_, v in (e.get("counts") or {}).items())
    title = f"Votes, round {e.get('round')}: {head}"
    # the counts are in the title; the note says what they mean (a second copy of them would read, to a
    # reader of the text, as a second tally)
    agree = f"{pct(share)} of the members agree on one label (the consensus), and the council needs {pct(th)} to stop."
    maj = e.get("majority")
    nxt = cx.next_kinds()
    goes_on = bool(nxt) and nxt[0] in ("chair_summary", "phase_started")
    if e.get("reached") and goes_on:  # min_rounds: discussion rounds held even after agreement
        then = (
            "That is enough, but this debate was set to hold more discussion rounds anyway, so the chairperson "
            "summarises and a new round starts."
        )
    elif e.get("reached"):
        then = f"That is enough: the council stops here and the majority label, {maj}, is the verdict."
    elif e.get("stabilised"):
        then = (
            "That is not enough, but no vote changed over the last rounds, so more talk is unlikely to help: "
            f"the council stops and the majority ({maj}) decides."
        )
    elif goes_on:
        then = "That is not enough yet: the chairperson summarises and a new round starts."
    else:
        then = (
            f"That is not enough, and no rounds are left: the majority vote ({maj}) decides "
            "(a tie goes by the stated tie rule)."
        )
    detail = (
        f"{rv.consensus_words() if rv is not None else ''}. Agreement is the share of all members on the most "
        f"common label; the threshold is the council's parameter theta ({th:.2f}). Votes count as stabilised when "
        f"unchanged for {cx.params.get('stable_rounds', 2)} rounds in a row."
    )
    kept = (
        f" This round, {rv.kept_note()}: the debate is set to ask that model only once (the small-model aids do "
        "so for SmolLM2, whose votes in a discussion did not depend on the tweet)."
        if rv is not None and rv.kept
        else ""
    )
    return Note(
        title, f"{agree} {then}{kept} Look at who changed their vote since the last round.", detail, "the votes"
    )


def _chair(e: dict, cx: Context) -> Note:
    return Note(
        f"Chair summary ({e.get('agent')})",
        "The chairperson sums up the strongest points on each side; every member reads it before voting again. "
        "Look at which side's points it puts first.",
        "",
        _step_kind("chair_summary"),
    )


def _stop_check(e: dict, cx: Context) -> Note:
    m, c = float(e.get("stop_margin") or 0.0), float(e.get("verdict_confidence") or 0.0)
    ts, tc = float(e.get("tau_s") or 0.0), float(e.get("tau_c") or 0.0)
    ok_m, ok_c = m + 1e-9 >= ts, c + 1e-9 >= tc
    title = f"Stop check after {_after(e)}"
    lab = e.get("preliminary_verdict") or "its verdict"
    signals = (
        "Two signals must both pass. The stop agent's push to stop (from −1, all for going on, to +1, all for "
        f"stopping) scores {m:.2f}; it needs {ts:.2f}: "
        f"{'passes' if ok_m else 'too low'}. The round judge's confidence in {lab} is {c:.2f}; it needs {tc:.2f}: "
        f"{'passes' if ok_c else 'too low'}."
    )
    if e.get("decision") == "stop":
        then = f" So the debate stops early; the preliminary verdict, {lab}, is the answer."
    else:
        then = " At least one signal is below its threshold, so the debate goes on."
    detail = (
        f"stop margin {m:.2f} {'≥' if ok_m else '<'} τs {ts:.2f} and the round judge's "
        f"{stop_confidence_words(e)} {'≥' if ok_c else '<'} τc {tc:.2f} (from {e.get('method')}). The stop "
        "margin is P(STOP) − P(CONTINUE) of the stop agent; τs and τc are RADAR's parameters tau_s and tau_c."
    )
    return Note(title, signals + then, detail, _step_kind("stop_check"))


def _rule(e: dict, cx: Context) -> Note:
    rule = re.sub(r"\s*\((?:TurQUaz|RADAR|Alg\.)[^)]*\)", "", str(e.get("rule") or ""))
    before, after = dict(e.get("before") or {}), dict(e.get("after") or {})
    moved = [f"category {k} from {before.get(k) or 'no answer'} to {v}" for k, v in after.items() if before.get(k) != v]
    what = f"it changed {' and '.join(moved)}" if e.get("changed") and moved else "it changed nothing"
    return Note(
        "A fixed rule of the task",
        f"After the debate the task applies a fixed rule: {rule}. Here {what}.",
        f"The rule as recorded: {e.get('rule')}.",
        _step_kind("rule_applied"),
    )


_DECIDED_BY = {
    "judge": "the judge, after reading the whole debate",
    "round-judge": "the round judge's preliminary verdict, because the debate stopped early",
    "majority": "the members' majority vote",
    "baseline": "one model's direct answer",
    "single-agent": "one model's direct answer",
    "categories": "one decision per category",
}


def _reading_words(e: dict) -> str:
    """The verdict's reading in plain words (debate.outcome.reading); the exact sentence is in the detail."""
    r = outcome.reading(e)
    if r.reading == "votes" and r.written and r.shown and r.written != r.shown:
        return (
            f" The members wrote a majority of {r.written}, but their votes were counted from their own "
            f"probabilities, and counted so the majority is {r.shown}."
        )
    if r.disagree and r.reading == "written":
        return (
            f" A correction for the model's known leanings would have said {r.calibrated}; that is shown only as a "
            f"second opinion: the verdict is the label {r.who} wrote."
        )
    if r.disagree and r.reading == "calibrated":
        return (
            f" {r.who.capitalize()} wrote {r.written}, but a correction for the model's known leanings gives "
            f"{r.calibrated}, and this debate uses the corrected answer."
        )
    return ""


def _verdict(e: dict, cx: Context) -> Note:
    label = e.get("label")
    cat = f" (category {e['category']})" if e.get("category") else ""
    if e.get("source") == "categories":  # the run's answer after the task's rule: named apart from a category's debate
        return _final_answer(e, cx)
    words = " ".join(f"{x}." for x in verdict_sentences(e, cx.started or None))
    source = str(e.get("source") or "")
    head = outcome.verdict_headline(e, cx.said.rounds)
    by = _DECIDED_BY.get(source, "the protocol")
    number = head or verdict_number(e)
    plain_number = head or (number if str(e.get("basis") or "") in ("votes", "samples") else "")
    note = f"{words} Decided by {by}" + (f": {plain_number}" if plain_number else "") + "."
    note += _reading_words(e)
    if e.get("gold"):
        right = "right" if e.get("correct") else "wrong"
        note += f" The dataset's answer (the gold label) is {e['gold']}, so the debate got it {right}."
    note += " Look at the verdict card: its reason is the deciding model's own."
    parts = (number, override_note(e), str(e.get("aid") or ""))
    detail = "; ".join(x.strip().rstrip(".") for x in parts if x and x.strip())
    return Note(f"Verdict{cat}: {label}", note, detail + ("." if detail else ""), _step_kind("verdict"))


def _final_answer(e: dict, cx: Context) -> Note:
    """A run of several categories: its answer per category after the task's rule ("Final verdict, category 3:
    YES"), so a reader does not take it for a second verdict of the last category's debate."""
    labels = {str(k): v for k, v in (e.get("labels") or {}).items()}
    words = " ".join(f"{x}." for x in verdict_sentences(e, cx.started or None))
    if e.get("label") is not None and e.get("category"):
        title = f"Final verdict, category {e['category']}: {e['label']}"
    else:
        title = "Final verdict: " + ", ".join(f"category {k}: {v or 'no answer'}" for k, v in labels.items())
    note = f"{words} Each category was decided by its own debate, then the task's rule applied (the step before)."
    if e.get("gold"):
        right = "right" if e.get("correct") else "wrong"
        note += f" The dataset's answer (the gold label) is {e['gold']}, so the run got it {right}."
    return Note(title, note, str(e.get("explanation") or ""), _step_kind("verdict"))


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


def _comparison(e: dict, cx: Context) -> Note:
    rounds = cx.said.rounds
    otherwise = outcome.first_counted_otherwise(e, rounds)
    return Note(
        "Debate vs. vote",
        vote_note(e, otherwise, outcome.first_written_label(e, rounds)),
        "",
        _step_kind("vote_comparison"),
    )


def _attribution(e: dict, cx: Context) -> Note:
    rests = [str(x) for x in e.get("rests_on") or []]
    if e.get("status") not in ("done", "", None):
        return Note("What the verdict rests on", f"Not worked out: {e.get('note') or e.get('status')}.", "", "evidence")
    note = (
        f"The judge's decision was read again with each passage left out in turn. Without {', '.join(rests)} it "
        "changes or weakens: the verdict rests on " + ("that passage." if len(rests) == 1 else "those passages.")
        if rests
        else "The judge's decision was read again with each passage left out in turn; no single passage changed it."
    )
    if e.get("contested"):
        note += " It is marked contested: one doubtful passage alone decides it."
    detail = f"A passage counts when leaving it out changes the label or lowers its probability by more than {float(e.get('threshold') or 0):.2f}."
    return Note("What the verdict rests on", note + " Look at the marked passages.", detail, _step_kind("attribution"))


def _moderator(e: dict, cx: Context) -> Note:
    return Note(
        "A moderator's note",
        f"A person running the debate added a note, which the agents read from round {e.get('round', 0)} on: "
        f"“{e.get('text', '')}”. Look at whether the next turns take it up.",
        "",
        _step_kind("moderator"),
    )


def _error(e: dict, cx: Context) -> Note:
    note = f"{e.get('message', '')} {e.get('hint', '')}".strip() or "Something went wrong."
    return Note("Error", note, str(e.get("error") or ""), _step_kind("error"))


_STOP_WORDS = {"completed": "finished normally", "stopped": "was stopped before the end", "error": "ended on an error"}


def _finished(e: dict, cx: Context) -> Note:
    tokens = int(e.get("prompt_tokens") or 0) + int(e.get("completion_tokens") or 0)
    status = str(e.get("status") or "completed")
    rounds = int(e.get("rounds") or 0)
    note = (
        f"The debate {_STOP_WORDS.get(status, status)} {_after_rounds(str(cx.started.get('protocol') or ''), rounds)}."
    )
    why = e.get("stop_reason") or _why_it_ended(cx)
    if why:
        note += f" Why it ended then: {why}."
    detail = (
        f"{tokens} tokens, {e.get('model_calls', 0)} model calls, {float(e.get('wall_s') or 0):.1f} s"
        + (f", {e['cache_hits']} answers from the cache" if e.get("cache_hits") else "")
        + "."
    )
    return Note(f"Debate {status}", note, detail, _step_kind("finished"))


def _after_rounds(protocol: str, rounds: int) -> str:
    """When it ended, in the protocol's own terms: "after 0 rounds" read, to a student who had just watched an
    opening and a closing, as if nothing had happened."""
    if rounds:
        return f"after {rounds} round{'s' if rounds != 1 else ''}"
    return {
        "council": "at its first vote, with no discussion round",
        "baseline": "after its one answer",
        "radar-single": "after the opening and the closing (this protocol has no rounds)",
    }.get(protocol, "after the openings, with no rebuttal round")


def _why_it_ended(cx: Context) -> str:
    """Why the debate ended when it did, read from its last decision (a tally or a stop check)."""
    last = next((x for x in reversed(cx.events[: cx.i]) if x.get("type") in ("votes_tallied", "stop_check")), None)
    proto = str(cx.started.get("protocol") or "")
    if last is None:
        return "every round the protocol prescribes was held" if proto != "baseline" else ""
    if last.get("type") == "stop_check":
        if last.get("decision") == "stop":
            return f"the stop check after {_after(last)} found the debate settled, so it stopped early"
        return "no stop check found the debate settled, so every round was held and the judge decided"
    th = pct(float(last.get("threshold") or 0))
    if last.get("reached"):
        return f"{pct(float(last.get('consensus_share') or 0))} of the members agreed, at least the {th} needed"
    if last.get("stabilised"):
        return "the votes had stopped changing, although fewer than the needed " + th + " agreed"
    return f"the discussion rounds ran out before {th} agreed, so the majority decided"


def _after(e: dict) -> str:
    rnd = int(e.get("round") or 0)
    return "the opening" if rnd == 0 else f"round {rnd}"


def _shortened(e: dict, cx: Context) -> Note:
    w = who(e) if e.get("agent") else "A speaker"
    return Note(
        "Earlier turns shortened",
        f"The debate grew too long for {w.lower() if w.startswith('The ') else w}'s model to read in full, so in "
        f"its prompt {int(e.get('condensed') or 0)} earlier turns were cut to their first sentences and "
        f"{int(e.get('omitted') or 0)} left out.",
        f"{e.get('original_chars', 0)} characters shortened to {e.get('final_chars', 0)} "
        f"(the most is {e.get('budget_chars', 0)}). {e.get('reason', '')}".strip(),
        _step_kind("transcript_shortened"),
    )


def _human_asked(e: dict, cx: Context) -> Note:
    w = who(e)
    return Note(f"{w}: a person's turn", f"A person plays {w}'s seat and is asked for this turn.", "", "a turn")


def _human_timeout(e: dict, cx: Context) -> Note:
    w = who(e)
    return Note(
        f"{w}: no answer in time",
        f"The person in {w}'s seat did not answer in time. {e.get('message', '')}".strip(),
        f"Waited {float(e.get('timeout_s') or 0):.0f} s.",
        "a turn",
    )


def _token(e: dict, cx: Context) -> Note:
    return Note(
        "A turn being written", "Part of a turn as it was written: the whole turn is the next step.", "", "a turn"
    )


WRITERS: dict[str, Callable[[dict, Context], Note]] = {
    "debate_started": _started,
    "evidence": _evidence,
    "evidence_progress": _progress,
    "attribution_progress": _progress,
    "phase_started": _phase,
    "turn_started": _turn_started,
    "token": _token,
    "turn_finished": _turn,
    "votes_tallied": _tally,
    "chair_summary": _chair,
    "stop_check": _stop_check,
    "rule_applied": _rule,
    "verdict": _verdict,
    "vote_comparison": _comparison,
    "attribution": _attribution,
    "moderator": _moderator,
    "error": _error,
    "finished": _finished,
    "transcript_shortened": _shortened,
    "human_asked": _human_asked,
    "human_timeout": _human_timeout,
}


def note_of(e: dict, cx: Context) -> Note:
    """The note of one event; an event of a kind this module does not know (a protocol of someone else's
    may add one) gets a plain placeholder, never its raw name."""
    writer = WRITERS.get(str(e.get("type") or ""))
    if writer is None:
        return Note("Another step", "A step this page has no words for.", f"Event kind: {e.get('type')}.", "a step")
    return writer(e, cx)
