"""The event stream every protocol yields: typed, JSON-serialisable, replayable.

Two families (after AutoGen): events *said in the debate* (TurnFinished, Verdict) that later prompts
and the transcript use, and events only *observed* (TokenDelta, StopCheck, ...) for display and logs.
Every event has a literal `type` equal to its snake-case tag, a sequence number `seq` (assigned by the
runner, 0-based, gap-free per debate) and `t`, seconds since the debate started (ignored by replay
equality). `event_from_dict` rebuilds any event from its dict by that tag.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from functools import cache
from typing import Any, ClassVar


@dataclass
class Event:
    type: ClassVar[str] = "event"
    seq: int = field(default=-1, kw_only=True)
    t: float = field(default=0.0, kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["type"] = self.type
        return d


_REGISTRY: dict[str, type[Event]] = {}


def _register(cls: type[Event]) -> type[Event]:
    _REGISTRY[cls.type] = cls
    return cls


_SIMPLE: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "None": (type(None),),
    "dict": (dict,),
    "list": (list,),
    "Any": (object,),
}


def _top_level(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside brackets: "dict[str, str | None] | None" -> the dict part, "None"."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return parts + [cur.strip()]


@cache
def _types(annotation: str) -> tuple[tuple[type, ...], tuple[type, ...] | None]:
    """("int | None") -> ((int, NoneType), None); ("list[dict]") -> ((list,), (dict,));
    ("dict[str, str | None]") -> ((dict,), (str, NoneType)): the allowed types of a field and, for a list
    or dict, of its items (a dict's values)."""
    allowed: tuple[type, ...] = ()
    inner: tuple[type, ...] | None = None
    for part in _top_level(annotation, "|"):
        base, _, rest = part.partition("[")
        allowed += _SIMPLE.get(base.strip(), (object,))
        if rest and base.strip() in ("list", "dict"):
            item = _top_level(rest[:-1], ",")[-1]
            inner = (inner or ()) + tuple(
                t for x in _top_level(item, "|") for t in _SIMPLE.get(x.partition("[")[0].strip(), (object,))
            )
    return allowed, inner


def _kind(v: Any) -> str:
    """What a JSON value is, in JSON's words (for messages about a file)."""
    return {
        type(None): "null",
        bool: "true/false",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(v), type(v).__name__)


def checked_event(d: Any) -> Event:
    """An event rebuilt from data read from a file (which may be anyone's): it must be a JSON object with a
    known `type`, and every field must have its declared type (a number where a number is shown, a list of
    objects for a lineup ...), so what renders it later never meets a value it cannot handle.
    Raises ValueError saying which field is wrong."""
    if not isinstance(d, dict):
        raise ValueError(f"{_kind(d)} where an event (a JSON object) belongs")
    cls = _REGISTRY.get(d.get("type", "")) if isinstance(d.get("type"), str) else None
    if cls is None:
        raise ValueError(f"unknown event type {str(d.get('type'))[:40]!r}")
    for f in fields(cls):
        if f.name not in d:
            continue
        v = d[f.name]
        allowed, inner = _types(str(f.type))
        if not isinstance(v, allowed) or (isinstance(v, bool) and bool not in allowed and object not in allowed):
            raise ValueError(f"{cls.type}: field {f.name!r} is {_kind(v)}, not {f.type}")
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        if inner is not None and not all(isinstance(x, inner) for x in items):
            raise ValueError(f"{cls.type}: field {f.name!r} holds values that are not {f.type}")
    return event_from_dict(d)


def event_from_dict(d: dict[str, Any]) -> Event:
    cls = _REGISTRY.get(d.get("type", ""))
    if cls is None:
        raise ValueError(f"Unknown event type {d.get('type')!r}")
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in d.items() if k in names})


@_register
@dataclass
class DebateStarted(Event):
    """Everything needed to re-run the debate: config, claim, task, lineup, seed."""

    type: ClassVar[str] = "debate_started"
    debate_id: str = ""
    protocol: str = ""
    task: str = ""
    category: int | None = None
    claim: str = ""
    lineup: list[dict] = field(default_factory=list)  # [{agent, role, model, temperature, seed}]
    settings: dict = field(default_factory=dict)
    seed: int | None = 0
    gold: str | None = None  # gold label when the claim came from a dataset (display only)
    created_at: str = ""
    forked_from: dict | None = None  # {"debate_id", "round"} when this debate continues another (a fork)


@_register
@dataclass
class EvidenceRetrieved(Event):
    """passages: [{id: "E1", text, score, source, title, date, doc_id, flags?}] numbered as cited in prompts."""

    type: ClassVar[str] = "evidence"
    query: str = ""
    passages: list[dict] = field(default_factory=list)
    corpus: str = ""
    in_prompts: bool = True  # False: retrieved for the viewer only; the agents did not see it
    floor: float | None = None  # relevance floor (cosine) a passage had to reach; None = no floor
    rejected: list[dict] = field(default_factory=list)  # best passages under the floor, with their scores
    sources: list[dict] = field(default_factory=list)  # per source: {name, label, state, passages, ms, note, query}
    note: str = ""  # e.g. "no passage is about this claim", "no network: local only"
    questions: list[str] = field(default_factory=list)  # written by the judge model, searched beside the claim
    questions_note: str = ""  # why fewer (or none) than asked, e.g. an answer with no usable question
    questions_model: str = ""
    # passages that read like an order carry `flags` (the reasons, debate.retrieval.safety) in `passages`,
    # those that state a checker's rating of a claim `ratings`, and `masked`: how many of their sentences the
    # prompts leave out; with flagged_evidence "drop" passages with `flags` are held back here instead (ids
    # X1.., with their flags), never in a prompt, as is a passage with nothing left once masked
    dropped: list[dict] = field(default_factory=list)


@_register
@dataclass
class EvidenceProgress(Event):
    """While evidence is gathered for the agents: what is being done (`stage`: questions | searching |
    ranking) and each asked source's state so far ({name, label, state, passages, ...}; state "waiting"
    until it answers). The evidence event that follows has the final states."""

    type: ClassVar[str] = "evidence_progress"
    stage: str = "searching"
    sources: list[dict] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    note: str = ""


@_register
@dataclass
class PhaseStarted(Event):
    """A round or phase (opening, rebuttal, closing, vote, discussion, judge, category...)."""

    type: ClassVar[str] = "phase_started"
    phase: str = ""
    round: int = 0
    title: str = ""
    category: int | None = None
    note: str = ""  # one line on what the protocol does at this step (teaching view)


@dataclass
class TurnEvent(Event):
    """The fields every event about one agent's turn shares: which turn, whose (agent and role), and where in
    the debate (phase and round). Not an event of its own: the turn's events below extend it."""

    turn_id: str = ""
    agent: str = ""
    role: str = ""
    phase: str = ""
    round: int = 0


@_register
@dataclass
class TurnStarted(TurnEvent):
    type: ClassVar[str] = "turn_started"
    model: str = ""
    prompt_id: str = ""
    human: bool = False  # a person plays this seat (model human:person)


@_register
@dataclass
class TokenDelta(Event):
    type: ClassVar[str] = "token"
    turn_id: str = ""
    agent: str = ""
    text: str = ""


@_register
@dataclass
class TurnFinished(TurnEvent):
    """A finished utterance. `parsed` holds what was read from it ({"label": ..., ...}) or None."""

    type: ClassVar[str] = "turn_finished"
    model: str = ""
    text: str = ""
    reasoning: str = ""  # <think>...</think> content, shown apart and never parsed as the answer
    parsed: dict | None = None
    label: str | None = None
    confidence: float | None = None
    valid: bool = True  # False: the answer could not be parsed even after the repair retry
    repaired: bool = False
    citations: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    prompt_reused_tokens: int = 0  # of prompt_tokens, already in the model's state (prefix reuse)
    completion_tokens: int = 0
    latency_s: float = 0.0
    ttft_s: float | None = None
    cached: bool = False
    prompt_id: str = ""
    label_probs: dict | None = None
    replayed: bool = False  # a fork's copy of its parent's turn: said before the fork, not generated now
    human: bool = False  # a person's words (read by the same parser and the same prompt assembly)
    cut_off_at: int | None = None  # the answer budget ended the answer after this many tokens (finish "length")
    # `text` was shortened from `full_text`: "sentence" = the budget ran out mid-sentence, so the turn ends at
    # its last full sentence; "loop" = it repeated a sentence or a long run of words, so it ends before that.
    # A JSON answer keeps `text` as written: its words (parsed "explanation" or "summary") are shortened there
    shortened: str = ""
    full_text: str = ""  # the answer's words as generated, when `shortened` (one click away on the page)
    unsupported_figures: list[str] = field(default_factory=list)  # figures no claim, evidence or earlier turn gave
    # named sources (an institution, a journal, a titled person: debate.content.substance) no claim, evidence
    # or earlier turn names: marked and named to the judge like the figures
    unsourced_names: list[str] = field(default_factory=list)
    # the answer format's placeholder the turn copied instead of answering ("Brief explanation of your decision…")
    echoed_format: str = ""
    # the words at the start of `text` that the engine wrote, not the model (param open_side: a debater's side,
    # "I oppose the claim."); the model went on from them. "" = every word is the model's
    begun: str = ""
    # where label_probs were read (debate.models.base.LABEL_AT: "written" = at the written label, greedy,
    # so the label is their argmax); None: not recorded (older debates, backends that do not say)
    label_at: str | None = None


@_register
@dataclass
class VotesTallied(Event):
    type: ClassVar[str] = "votes_tallied"
    round: int = 0
    votes: dict[str, str | None] = field(default_factory=dict)  # agent -> label (None = invalid)
    counts: dict[str, int] = field(default_factory=dict)
    consensus_share: float = 0.0
    threshold: float = 0.8
    reached: bool = False
    majority: str | None = None
    stabilised: bool = False
    kept: list[str] = field(default_factory=list)  # members not asked this round: their first vote is counted


@_register
@dataclass
class ChairSummary(Event):
    type: ClassVar[str] = "chair_summary"
    round: int = 0
    agent: str = ""
    summary: str = ""
    parsed: dict | None = None


@_register
@dataclass
class StopCheck(Event):
    """RADAR adaptive early stopping after a round."""

    type: ClassVar[str] = "stop_check"
    round: int = 0
    stop_margin: float = 0.0
    verdict_confidence: float = 0.0
    tau_s: float = 0.0
    tau_c: float = 0.0
    decision: str = "continue"  # "stop" | "continue"
    preliminary_verdict: str | None = None
    method: str = "logprobs"  # "logprobs" | "samples" | "parsed"
    detail: dict = field(default_factory=dict)


@_register
@dataclass
class RuleApplied(Event):
    """A visible post-step such as CheckThat's "cat2 positive => cat3 positive"."""

    type: ClassVar[str] = "rule_applied"
    rule: str = ""
    before: dict = field(default_factory=dict)
    after: dict = field(default_factory=dict)
    changed: bool = False


@_register
@dataclass
class Verdict(Event):
    type: ClassVar[str] = "verdict"
    label: str | None = None
    explanation: str = ""
    source: str = ""  # "judge" | "majority" | "baseline" | "single-agent" ...
    confidence: float | None = None
    category: int | None = None
    labels: dict | None = None  # all categories at once, e.g. {"1": "YES", "2": "NO", "3": "YES"}
    gold: str | None = None
    correct: bool | None = None
    probs: dict | None = None  # the label distribution behind `confidence`, if read (flags a contradicted label)
    # When an aid (fitted class weights, a fitted threshold, calibration) gave another label than the one
    # the deciding model wrote: that written label, and the aid in words. Every sink reads these two
    # fields (debate.tasks.override_note), so no screen shows the aid's label without saying it overruled.
    written_label: str | None = None
    aid: str = ""
    # Which label `label` is (debate.outcome.reading): "written" = the label the deciding model wrote, the
    # default, with an aid's label kept beside it as a second opinion in `calibrated_label`; "calibrated" =
    # the person chose the calibrated reading (`calibrated_reading`), `written_label` then holding what the
    # model wrote. "" = recorded before the choice existed (a `written_label` then means calibrated).
    reading: str = ""
    calibrated_label: str | None = None
    calibrated_confidence: float | None = None
    # What `confidence` is (debate.tasks.verdict_number says it in words): "votes" = votes_for of voters
    # members gave the label (a share, not a probability); "samples" = the share of sampled answers;
    # "probability" = the deciding model's own probability of the label; "calibrated" = that probability
    # after the aid `basis_note` names. "" = a debate recorded before this field: read by its source.
    basis: str = ""
    basis_note: str = ""
    votes_for: int | None = None
    voters: int | None = None


@_register
@dataclass
class VoteComparison(Event):
    """The debate against a plain majority of its first answers (no discussion), per decided category.

    Observed, not said: emitted right after the Verdict it compares. `basis` says what the first
    answers were: "first votes" (council members' initial votes) or "assigned sides" (single and team
    debates, whose debaters argue the side they were given, so their first answers split evenly and
    the task's tie label decides). Fields as decisions.against_vote returns them."""

    type: ClassVar[str] = "vote_comparison"
    category: int | None = None
    basis: str = "first votes"
    first_votes: dict[str, str | None] = field(default_factory=dict)
    vote_label: str | None = None
    debate_label: str | None = None
    unanimous: bool = False
    changed: bool = False
    outcome: str = "stood"  # "unanimous" | "stood" | "changed"
    gold: str | None = None
    vote_correct: bool | None = None
    debate_correct: bool | None = None
    effect: str | None = None  # "for the better" | "for the worse" | "neither" | None
    counted_otherwise: bool = False  # the first votes as counted (the aids) differ from what the members wrote

    def sentence(self) -> str:
        """The verdict card's line on the debate against its first vote (also the text and Markdown transcripts).
        Where the aids counted the first votes otherwise than the members wrote, "unanimous" says it is the
        count, so the line never contradicts a headline that gives both."""
        if self.outcome == "unanimous":
            if self.counted_otherwise:
                return "unanimous at the first vote as counted (not as written)"
            return "unanimous at the first vote"
        if self.outcome == "stood":
            return "the first vote's majority stood"
        s = f"the discussion changed the outcome: {self.vote_label or 'no vote'} → {self.debate_label or 'no verdict'}"
        return f"{s} ({self.effect})" if self.effect else s


@_register
@dataclass
class AttributionProgress(Event):
    """While the judge re-reads the evidence with one passage left out at a time, after the verdict is
    shown: how many of the `total` re-reads are done and which passage was just left out. Observed, not said."""

    type: ClassVar[str] = "attribution_progress"
    done: int = 0
    total: int = 0
    passage: str = ""
    note: str = ""


@_register
@dataclass
class Attribution(Event):
    """Which passages the verdict rests on: the judge's label probabilities read again with each passage left
    out (debate.retrieval.attribution). Observed, not said: it follows the verdict, never delays it, and no
    prompt reads it.

    `status`: "done", "unavailable" (the backend gives no label probabilities; `note` says why) or
    "failed". `probs`: the re-read with every passage; `without`: one row per passage left out
    ({id, label, probs, p, drop, changes, rests}); `rests_on`: the ids whose removal changes the verdict or
    lowers its probability by more than `threshold`. `contested`: one of them decides the verdict alone and
    is suspicious (flagged, in another language than the claim, or far less relevant than the others);
    `contested_reasons`: [{id, label_without, reasons}]; `policy`: the contested policy in force."""

    type: ClassVar[str] = "attribution"
    status: str = "done"
    label: str | None = None  # the verdict attributed
    source: str = ""  # the verdict's source ("judge", "round-judge")
    probs: dict | None = None
    without: list[dict] = field(default_factory=list)
    rests_on: list[str] = field(default_factory=list)
    threshold: float = 0.2
    contested: bool = False
    contested_reasons: list[dict] = field(default_factory=list)
    policy: str = "suspicious"
    claim_lang: str = ""
    method: str = ""
    note: str = ""
    seconds: float = 0.0


@_register
@dataclass
class Moderator(Event):
    """A person's note to the debaters (typed between rounds, or given with a fork).

    Every prompt sent after it carries the note, marked as the moderator's (protocols/base.py
    `with_moderator`). `seen` is False when it arrived after the last model call, so no agent read it."""

    type: ClassVar[str] = "moderator"
    text: str = ""
    round: int = 0  # the round (phase) the note applies from
    phase: str = ""
    source: str = "live"  # "live" | "fork"
    seen: bool = True


@_register
@dataclass
class ErrorEvent(Event):
    type: ClassVar[str] = "error"
    error: str = ""
    message: str = ""
    hint: str = ""
    agent: str = ""  # the member whose model call failed, when one did
    fatal: bool = True
    model: str = ""  # that member's model spec (backend:model[@url])
    backend: str = ""


@_register
@dataclass
class DebateFinished(Event):
    type: ClassVar[str] = "finished"
    status: str = "completed"  # "completed" | "stopped" | "error"
    stop_reason: str = ""
    label: str | None = None
    rounds: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_calls: int = 0
    cache_hits: int = 0
    wall_s: float = 0.0


@_register
@dataclass
class TranscriptShortened(Event):
    """An agent's prompt could not hold the whole debate: the oldest turns were condensed to fit its context window.

    Observed, not said: the viewer shows it where it happened so a reader knows that this agent read
    a shortened transcript, and how much of it."""

    type: ClassVar[str] = "transcript_shortened"
    agent: str = ""
    phase: str = ""
    round: int = 0
    prompt_id: str = ""
    budget_chars: int = 0  # the most characters the whole prompt may have
    original_chars: int = 0  # the whole prompt with the full transcript
    final_chars: int = 0
    condensed: int = 0  # earlier turns cut to their opening sentences
    omitted: int = 0  # earlier turns left out entirely
    reason: str = ""


@_register
@dataclass
class HumanAsked(TurnEvent):
    """The protocol reached a turn a person plays: what the role's prompt shows and the answer it needs.

    Observed, not said: the Debate page and Present show a text box with it and a countdown; the turn
    itself follows as TurnStarted/TurnFinished with `human: true` (or a HumanTimedOut)."""

    type: ClassVar[str] = "human_asked"
    prompt: str = ""  # the role's prompt as the model would read it (claim, transcript, evidence, format)
    answer_format: str = ""
    timeout_s: float = 0.0


@_register
@dataclass
class HumanTimedOut(TurnEvent):
    """A person's turn passed unanswered (countdown over, or nobody at the page): the debate goes on."""

    type: ClassVar[str] = "human_timeout"
    timeout_s: float = 0.0
    refused: int = 0  # answers refused before the time ran out
    message: str = ""


EVENT_TYPES: dict[str, type[Event]] = _REGISTRY
