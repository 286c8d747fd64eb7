"""The one transcript view: events folded into what every screen and export shows (no Streamlit here).

The page, the Library, Present, the terminal (debate.transcript), the Markdown and HTML exports
(debate.sharing) all read a `DebateView` built by applying events in order, so they state the same facts:
the same turns with the same words, the same votes as counted, the same verdict with the same reason.
Applying the same events again gives the same view; applying only new events (after `last_seq`) updates
it, which is how the live page and the terminal follow a running debate.

What a view shows of model text is decided here, once (`TurnView.words`, `VerdictView.reason`): a JSON
answer as its words, never the JSON; Markdown marks taken out (debate.sanitize.unmarked), never shown raw;
an answer or a reason the token budget cut ends in "…" and carries the cut's mark. Escaping is each sink's
own (HTML, Markdown, terminal): this module only chooses the words. `DebateView.to_dict` is the view as
JSON, for programs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from debate import outcome
from debate.content import substance
from debate.content.sentences import PROSE_KEYS, is_json_text
from debate.events import (
    Attribution,
    ChairSummary,
    DebateFinished,
    DebateStarted,
    ErrorEvent,
    Event,
    EvidenceRetrieved,
    PhaseStarted,
    StopCheck,
    TokenDelta,
    TurnFinished,
    TurnStarted,
    Verdict,
    VoteComparison,
    VotesTallied,
    event_from_dict,
)
from debate.sanitize import unmarked
from debate.tasks import cut_off_mark, override_note, reason_note, verdict_number, verdict_sentences

PALETTE = (
    "#4C78A8",
    "#E45756",
    "#54A24B",
    "#B279A2",
    "#F58518",
    "#72B7B2",
    "#9D755D",
    "#EECA3B",
    "#FF9DA6",
    "#BAB0AC",
    "#3D9970",
    "#85144B",
)
_THINK_OPEN = re.compile(r"<think>", re.I)
_THINK_CLOSE = re.compile(r"</think>", re.I)
# a JSON answer cut before its closing brace still has its words: `{"vote": "NO", "explanation": "No stu`
_PARTIAL_PROSE = re.compile(r'"(?:' + "|".join(PROSE_KEYS) + r')"\s*:\s*"((?:[^"\\]|\\.)*)')
# the items a section holds besides turns, in the order they came: notes, tallies, verdicts
NOTE_TYPES = (
    "votes_tallied",
    "stop_check",
    "chair_summary",
    "rule_applied",
    "error",
    "transcript_shortened",
    "moderator",
    "human_asked",
    "human_timeout",
    "vote_comparison",
    "attribution",
)


def split_reasoning(text: str) -> tuple[str, str, bool]:
    """(reasoning, answer, still_thinking) for a streaming text that may open with <think>."""
    m = _THINK_OPEN.search(text)
    if not m or text[: m.start()].strip():
        return "", text, False
    rest = text[m.end() :]
    c = _THINK_CLOSE.search(rest)
    if not c:
        return rest.strip(), "", True
    return rest[: c.start()].strip(), rest[c.end() :].lstrip(), False


def prose(value: Any) -> str:
    """A model's reason as words: a list of sentences (`["It names Harvard."]`, or that list written as JSON
    text) joined, Markdown marks taken out; never the list's brackets and quotes."""
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError:  # a list cut short (stored before the parser joined lists): its words, no brackets
            value = re.sub(r'^\s*\[\s*["\']|["\']\s*\]?\s*$', "", value)
    if isinstance(value, (list, tuple)):
        value = " ".join(str(x).strip() for x in value if str(x).strip())
    return unmarked("" if value is None else value).strip()


def answer_prose(parsed: dict | None) -> str:
    """A parsed JSON answer's words: its first PROSE_KEYS value with words in it, a string or a list of
    sentences (content.sentences.json_prose reads strings only; a small model may write a list)."""
    for key in PROSE_KEYS:
        value = (parsed or {}).get(key)
        if isinstance(value, (str, list)) and prose(value):
            return prose(value)
    return ""


def partial_prose(text: str) -> str:
    """The words of a JSON answer that did not close (the budget cut it): its explanation so far, or ""."""
    m = _PARTIAL_PROSE.search(text or "")
    if not m:
        return ""
    try:
        return json.loads(f'"{m.group(1).rstrip(chr(92))}"')
    except ValueError:
        return m.group(1)


def shortened_note(ev: Any) -> str:
    """One line for a TranscriptShortened event: who read a shortened debate, and how much of it."""
    parts = (
        f"{ev.condensed} earlier turn{'s' * (ev.condensed != 1)} cut to their opening sentences"
        if ev.condensed
        else "",
        f"{ev.omitted} left out" if ev.omitted else "",
    )
    what = ", ".join(x for x in parts if x) or "nothing could be cut"
    return (
        f"{ev.agent} read a shortened debate ({ev.phase}, round {ev.round}): the whole prompt would have been "
        f"{ev.original_chars:,} characters, its model's context allows about {ev.budget_chars:,}; {what} "
        f"→ {ev.final_chars:,} characters."
    )


@dataclass
class TurnView:
    turn_id: str
    agent: str
    role: str = ""
    model: str = ""
    phase: str = ""
    round: int = 0
    text: str = ""
    done: bool = False
    reasoning: str = ""
    label: str | None = None
    confidence: float | None = None
    label_at: str | None = None  # where its label probabilities were read (debate.models.base.LABEL_AT)
    valid: bool = True
    repaired: bool = False
    citations: list[str] = field(default_factory=list)
    tokens: int = 0  # streamed deltas while running; completion tokens once done
    prompt_tokens: int = 0
    latency_s: float = 0.0
    ttft_s: float | None = None
    cached: bool = False
    replayed: bool = False  # a fork's copy of its parent's turn
    human: bool = False  # a person's words (a seat a person plays)
    timed_out: bool = False  # a person's turn that passed unanswered
    t_start: float = 0.0
    t_first: float | None = None  # when its first token arrived (debate clock)
    counted: str | None = None  # the vote the tally counted for it, when that is not its written label
    explanation: str = ""  # what the answer says in words, read from its JSON (shown instead of the JSON)
    cut_off_at: int | None = None  # the token budget ended the answer here
    shortened: str = ""  # "sentence" | "loop": the text was shortened from full_text (TurnFinished.shortened)
    full_text: str = ""
    unsupported_figures: list[str] = field(default_factory=list)  # figures no source gave: marked in the text
    unsourced_names: list[str] = field(default_factory=list)  # named sources no source gave: marked likewise
    echoed_format: str = ""  # the answer format's placeholder it copied instead of a reason
    category: int | None = None  # the CheckThat category being decided when it spoke (all-categories runs)
    chair: outcome.ChairTag | None = None  # a chair's status as the tally it read gives it (debate.outcome)
    # a member's vote whose sentence repeats, with the same label, an earlier vote's: (whose, which round)
    same_reason: tuple[str, int] | None = None
    begun: str = ""  # the words at the start of its text that the engine wrote (TurnFinished.begun)

    def shown_label(self) -> str | None:
        """The label as every screen names it (debate.outcome): a chair's status read from the tally, a
        vote counted otherwise than written as "wrote NO, counted as YES", else the label written."""
        if self.chair is not None:
            return self.chair.label
        if self.counted and self.label and self.counted != self.label:
            return f"wrote {self.label}, counted as {self.counted}"
        return self.label

    def label_words(self) -> str:
        """The label with what it rests on, for a line of text: a chair's status and the tally behind it, a
        vote counted otherwise than written, else "" (the written label needs no words)."""
        if self.chair is not None and self.valid:
            return outcome.chair_words(self.chair)
        if self.counted and self.label and self.counted != self.label:
            return f"wrote {self.label}, counted as {self.counted} (from its own label probabilities)"
        return ""

    def is_json(self) -> bool:
        return is_json_text(self.text)

    def words(self) -> str:
        """The answer as every view shows it: a JSON answer's words (or what it answered, when it gave
        none of its own), any other answer as written; Markdown marks out; "…" where the budget cut it."""
        if self.is_json() and self.valid:
            words = self.explanation
            if self.same_reason is not None and self.label:
                words = reason_again(self.agent, self.label, *self.same_reason)
            elif self.echoed_format:  # the format's placeholder is not the model's reason
                words = (f"Answered {self.label}" if self.label else "Answered") + ", without a reason of its own."
            elif not words.strip():
                words = f"Answered {self.label}, without an explanation." if self.label else "(no explanation given)"
        elif self.is_json():
            words = partial_prose(self.text) or self.text
        else:
            words = self.text if self.text.strip() else "(empty answer)"
        words = unmarked(words)
        return words.rstrip() + "…" if self.cut_off_at and not self.shortened else words

    def begun_note(self) -> str:
        """Says which of the turn's words the engine wrote (open_side), so no one reads them as the model's."""
        if not self.begun:
            return ""
        return f'The engine began this turn with "{self.begun}" (its side); the model wrote the rest.'

    def cut_note(self) -> str:
        """The mark of an answer the budget ended or the engine shortened (debate.tasks.cut_off_mark)."""
        return cut_off_mark(self.cut_off_at, self.shortened) if self.cut_off_at or self.shortened else ""

    def display(self) -> tuple[str, str, bool]:
        """(reasoning, answer, thinking) to show now."""
        if self.done:
            return self.reasoning, self.text, False
        return split_reasoning(self.text)


def reason_again(agent: str, label: str, whose: str, rnd: int) -> str:
    """What a vote says when its sentence is an earlier vote's again: the room reads the reason once, where
    it was first given. The 0.5B members wrote one sentence in every round, and each other's (about a quarter
    of their votes); banning the copy at decode time gave one-word swaps of it (docs/content-benchmark.md)."""
    when = "first vote" if rnd == 0 else f"round {rnd} vote"
    return f"{label}, for the same reason as {'its own' if whose == agent else whose + chr(39) + 's'} {when}."


def repeated_reason(
    agent: str, rnd: int, text: str, label: str | None, earlier: list[tuple[str, int, str | None, str]]
) -> tuple[str, int] | None:
    """(whose, round) of the first vote of an earlier round, the member's own first, with the same label whose
    sentence `text` repeats (a copy by debate.content.substance: a run of 12 words, half its 5-grams, or, with
    words swapped, over half its words in 4-word runs of it); None when the sentence is its own. Votes of the
    same round were written at once, without reading each other: alike, they are not a copy."""
    read = [e for e in earlier if e[1] < rnd and e[2] == label]
    for whose, r, _lab, said in sorted(read, key=lambda e: e[0] != agent):
        if substance.copied(text, [said]).copied or substance.copied_loosely(text, [said]):
            return whose, r
    return None


@dataclass
class VerdictView:
    """A verdict as every view states it: its label in words, its number, its sentences, its reason."""

    label: str  # the label, or each category's ("category 1: YES, category 2: NO"); "" when none was read
    number: str  # the votes behind it (a council's tally headline) or its confidence, in words
    source: str
    category: int | None
    sentences: list[str]  # "TRUE — the claim is true" (debate.tasks.verdict_sentences)
    override: str  # the aid's note when it changed the label the model wrote (debate.tasks.override_note)
    second_opinion: bool  # that note is a second opinion, not a change
    gold: str | None
    correct: bool | None
    reason: str  # the explanation as words, never a JSON list
    cut: str = ""  # the mark when the judge's answer that gave the reason was cut by the budget
    reason_apart: str = ""  # the judge's reason argues the opposite label (debate.tasks.reason_note)


@dataclass
class Section:
    phase: str
    round: int
    title: str
    note: str = ""
    category: int | None = None
    # ("turn", turn_id) | ("verdict", VerdictView) | (event type, event) for the NOTE_TYPES, in stream order
    items: list[tuple[str, Any]] = field(default_factory=list)


def _jsonable(x: Any) -> Any:
    if isinstance(x, Event):
        return x.to_dict()
    if is_dataclass(x) and not isinstance(x, type):
        return {f.name: _jsonable(getattr(x, f.name)) for f in fields(x)}
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


@dataclass
class DebateView:
    started: DebateStarted | None = None
    evidence: list[dict] = field(default_factory=list)
    evidence_in_prompts: bool = True
    evidence_event: dict = field(default_factory=dict)  # floor, turned-away passages, each source's state
    evidence_progress: dict = field(default_factory=dict)  # the latest evidence_progress while retrieval runs
    sections: list[Section] = field(default_factory=list)
    turns: dict[str, TurnView] = field(default_factory=dict)
    tallies: list[VotesTallied] = field(default_factory=list)
    stop_checks: list[StopCheck] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    verdict_views: list[VerdictView] = field(default_factory=list)  # each verdict as the views state it
    vote_comparisons: list[VoteComparison] = field(
        default_factory=list
    )  # the debate against its first vote, per category
    rounds: list[outcome.RoundVotes] = field(default_factory=list)  # each tally with the votes behind it
    attribution: dict = field(default_factory=dict)  # which passages the verdict rests on (after the verdict)
    attribution_progress: dict = field(default_factory=dict)  # the latest re-read while that runs
    errors: list[ErrorEvent] = field(default_factory=list)
    finished: DebateFinished | None = None
    colors: dict[str, str] = field(default_factory=dict)
    last_seq: int = -1
    last_t: float = 0.0
    n_events: int = 0
    _reasons: list[tuple[str, int, str | None, str]] = field(default_factory=list)  # members' votes' sentences

    # -- folding ----------------------------------------------------------------------------
    def extend(self, events: list[Event], by_seq: bool = True) -> DebateView:
        for ev in events:
            self.apply(ev, by_seq)
        return self

    def color(self, agent: str) -> str:
        if agent not in self.colors:
            self.colors[agent] = PALETTE[len(self.colors) % len(PALETTE)]
        return self.colors[agent]

    def _section(self) -> Section:
        if not self.sections:
            self.sections.append(Section(phase="start", round=0, title="Debate"))
        return self.sections[-1]

    def apply(self, ev: Event, by_seq: bool = True) -> None:
        """Fold one event in. `by_seq` (a live view fed the store's new events again and again): an event
        already applied, by its seq, is skipped, so folding is idempotent; a whole stream read at once
        (build_view) folds every event in its order."""
        if by_seq and ev.seq is not None and 0 <= ev.seq <= self.last_seq:
            return
        self.last_seq = max(self.last_seq, ev.seq if ev.seq is not None else self.last_seq)
        self.last_t = max(self.last_t, ev.t or 0.0)
        self.n_events += 1
        t = ev.type
        handler = _HANDLERS.get(type(ev))
        if handler is not None:
            handler(self, ev)
        elif t in NOTE_TYPES:
            self._note(ev)
        elif t in ("evidence_progress", "attribution_progress"):
            setattr(self, t, ev.to_dict())
        elif isinstance(ev, DebateFinished):
            self.finished = ev

    def _on_started(self, ev: DebateStarted) -> None:
        self.started = ev
        for member in ev.lineup or []:
            if member.get("agent"):
                self.color(member["agent"])

    def _on_evidence(self, ev: EvidenceRetrieved) -> None:
        self.evidence = list(ev.passages or [])
        self.evidence_in_prompts = bool(getattr(ev, "in_prompts", True))
        self.evidence_event = ev.to_dict()

    def _on_phase(self, ev: PhaseStarted) -> None:
        title = ev.title or f"{ev.phase.replace('_', ' ').title()} · round {ev.round}"
        self.sections.append(Section(ev.phase, ev.round, title, ev.note, ev.category))

    def _on_turn_started(self, ev: TurnStarted) -> None:
        self.color(ev.agent)
        self.turns[ev.turn_id] = TurnView(
            ev.turn_id,
            ev.agent,
            ev.role,
            ev.model,
            ev.phase,
            ev.round,
            t_start=ev.t,
            category=self._category(),
            human=bool(getattr(ev, "human", False)),
        )
        self._section().items.append(("turn", ev.turn_id))

    def _on_token(self, ev: TokenDelta) -> None:
        turn = self.turns.get(ev.turn_id) or self._orphan(ev.turn_id, ev.agent, ev.t)
        if turn.t_first is None:
            turn.t_first = ev.t
        turn.text += ev.text
        turn.tokens += 1

    def _on_turn_finished(self, ev: TurnFinished) -> None:
        turn = self.turns.get(ev.turn_id) or self._orphan(ev.turn_id, ev.agent, ev.t)
        turn.role, turn.model = ev.role or turn.role, ev.model or turn.model
        turn.phase, turn.round = ev.phase or turn.phase, ev.round
        turn.text, turn.reasoning, turn.done = ev.text, ev.reasoning, True
        if not turn.reasoning and not ev.reasoning:
            r, a, _ = split_reasoning(ev.text)
            if r:
                turn.reasoning, turn.text = r, a
        turn.label, turn.confidence, turn.valid = ev.label, ev.confidence, ev.valid
        turn.label_at = getattr(ev, "label_at", None)
        turn.repaired, turn.citations, turn.cached = ev.repaired, list(ev.citations or []), ev.cached
        turn.tokens, turn.prompt_tokens = ev.completion_tokens, ev.prompt_tokens
        turn.latency_s, turn.ttft_s = ev.latency_s, ev.ttft_s
        turn.replayed = bool(getattr(ev, "replayed", False))
        turn.explanation = answer_prose(ev.parsed) if ev.valid else ""
        turn.cut_off_at = getattr(ev, "cut_off_at", None)
        turn.shortened, turn.full_text = str(ev.shortened or ""), str(ev.full_text or "")
        turn.unsupported_figures = [str(f) for f in ev.unsupported_figures or []]
        turn.unsourced_names = [str(n) for n in getattr(ev, "unsourced_names", None) or []]
        turn.echoed_format = str(getattr(ev, "echoed_format", "") or "")
        turn.begun = str(getattr(ev, "begun", "") or "")
        turn.human = bool(getattr(ev, "human", False)) or turn.human
        turn.timed_out = bool((ev.parsed or {}).get("timed_out")) if turn.human else False
        if str(turn.role).lower() == "member" and turn.valid and turn.explanation.strip() and not turn.echoed_format:
            turn.same_reason = repeated_reason(turn.agent, turn.round, turn.explanation, turn.label, self._reasons)
            self._reasons.append((turn.agent, turn.round, turn.label, turn.explanation))
        if str(turn.role).lower() in outcome.CHAIR_ROLES:
            turn.chair = outcome.chair_tag(ev.label if ev.valid else None, self.tallies[-1] if self.tallies else None)

    def _note(self, ev: Event) -> None:
        t = ev.type
        if isinstance(ev, VotesTallied):  # votes read from probabilities may differ from the written label
            cat = self._category()
            mine = [x for x in self.turns.values() if x.done and x.category == cat]
            rv = outcome.round_votes(ev, mine, cat)
            self.rounds.append(rv)
            for v in rv.votes:
                turn = self.turns.get(v.turn_id)
                if turn is not None and v.differs:
                    turn.counted = v.counted
        elif isinstance(ev, Attribution):
            self.attribution = ev.to_dict()
        self._section().items.append((t, ev))
        if isinstance(ev, VotesTallied):
            self.tallies.append(ev)
        elif isinstance(ev, StopCheck):
            self.stop_checks.append(ev)
        elif isinstance(ev, ErrorEvent):
            self.errors.append(ev)
        elif isinstance(ev, VoteComparison):
            self.vote_comparisons.append(ev)
        elif isinstance(ev, ChairSummary):
            self.color(ev.agent)

    def _on_verdict(self, ev: Verdict) -> None:
        self.verdicts.append(ev)
        r = outcome.reading(ev)
        done = [x for x in reversed(self.turns.values()) if x.done and x.role in ("judge", "baseline")]
        if r.reading == "calibrated" and r.disagree:  # the chosen calibrated reading outvoted the written label
            wrote = next((x for x in done if x.label == r.written), None)
            if wrote is not None:
                wrote.counted = ev.label
        judge = done[0] if done else None
        reason = prose(ev.explanation)
        gave = bool(judge and judge.cut_off_at and reason and reason.rstrip("…") in judge.words())
        vv = VerdictView(
            label=(ev.label or "")
            if ev.labels is None
            else ", ".join(f"category {k}: {v}" for k, v in ev.labels.items()),
            number=outcome.verdict_headline(ev, self.rounds) or verdict_number(ev),
            source=str(ev.source or ""),
            category=ev.category,
            sentences=verdict_sentences(ev, self.started),
            override=override_note(ev),
            second_opinion=bool(r.second_opinion()),
            gold=ev.gold,
            correct=ev.correct,
            reason=(reason.rstrip("…") + "…") if gave else reason,
            cut=cut_off_mark(judge.cut_off_at) if gave and judge else "",
            reason_apart=reason_note(ev, self.started),
        )
        self.verdict_views.append(vv)
        self._section().items.append(("verdict", vv))

    def _category(self) -> int | None:
        """The category whose section is open (only the "category" phase of an all-categories run has one)."""
        return next((sec.category for sec in reversed(self.sections) if sec.category is not None), None)

    def _orphan(self, turn_id: str, agent: str, t: float) -> TurnView:
        """A token or finish without its TurnStarted (older streams): give it a bubble anyway."""
        self.color(agent)
        turn = TurnView(turn_id, agent, t_start=t)
        self.turns[turn_id] = turn
        self._section().items.append(("turn", turn_id))
        return turn

    # -- what the views ask ----------------------------------------------------------------------
    @property
    def status(self) -> str:
        return self.finished.status if self.finished else ("running" if self.started else "waiting")

    @property
    def verdict(self) -> Any:
        return self.verdicts[-1] if self.verdicts else None

    @property
    def verdict_view(self) -> VerdictView | None:
        return self.verdict_views[-1] if self.verdict_views else None

    def round_of(self, tally: Any) -> outcome.RoundVotes | None:
        """The votes behind a tally of this view (its RoundVotes)."""
        return next((r for r, t in zip(self.rounds, self.tallies) if t is tally), None)

    def headline(self) -> str:
        """A council verdict's votes in words, from the tally (debate.outcome.verdict_headline): written and
        counted both, when the aids counted a vote otherwise than it was written."""
        return outcome.verdict_headline(self.verdict, self.rounds) if self.verdict is not None else ""

    def done_turns(self) -> list[TurnView]:
        return [x for x in self.turns.values() if x.done]

    def cited(self) -> set[str]:
        out: set[str] = set()
        for turn in self.turns.values():
            out.update(turn.citations)
            if not turn.done:
                out.update(re.findall(r"\[(E\d+)\]", turn.text))
        return out

    def counters(self) -> dict[str, float]:
        """Tokens, model calls, cache hits, elapsed: from the closing event when there is one."""
        if self.finished is not None:
            f = self.finished
            return {
                "tokens": f.prompt_tokens + f.completion_tokens,
                "model_calls": f.model_calls,
                "cache_hits": f.cache_hits,
                "elapsed": f.wall_s or self.last_t,
            }
        done = self.done_turns()
        tokens = sum(x.tokens + x.prompt_tokens for x in done) + sum(
            x.tokens for x in self.turns.values() if not x.done
        )
        return {
            "tokens": tokens,
            "model_calls": len([x for x in done if not x.cached]),
            "cache_hits": len([x for x in done if x.cached]),
            "elapsed": self.last_t,
        }

    def first_token_t(self) -> float | None:
        ts = [x.t_first for x in self.turns.values() if x.t_first is not None]
        return min(ts) if ts else None

    def to_dict(self) -> dict:
        """The whole view as JSON-ready values (events as their dicts), for programs and tests."""
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self) if not f.name.startswith("_")}


# one handler per event class the view folds into its own fields (the notes go to _note)
_HANDLERS: dict[type[Event], Callable[[DebateView, Any], None]] = {
    DebateStarted: DebateView._on_started,
    EvidenceRetrieved: DebateView._on_evidence,
    PhaseStarted: DebateView._on_phase,
    TurnStarted: DebateView._on_turn_started,
    TokenDelta: DebateView._on_token,
    TurnFinished: DebateView._on_turn_finished,
    Verdict: DebateView._on_verdict,
}


def build_view(events: list[Event] | Any) -> DebateView:
    """The view of a whole stream (events, or their dicts as stored)."""
    return DebateView().extend([e if isinstance(e, Event) else event_from_dict(e) for e in events], by_seq=False)
