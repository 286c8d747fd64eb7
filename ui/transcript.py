"""The debate as the viewer shows it, folded from the event stream (no Streamlit here).

The live page, the Library replay and tests all build a `DebateView` by applying events in order, so
what is displayed is always derived from the stored events and never kept on the side. Applying the
same events again gives the same view; applying only new events (after `last_seq`) updates it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from debate import outcome
from debate.content.sentences import json_prose
from debate.events import Event

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

    def shown_label(self) -> str | None:
        """The label as every screen names it (debate.outcome): a chair's status read from the tally, a
        vote counted otherwise than written as "wrote NO, counted as YES", else the label written."""
        if self.chair is not None:
            return self.chair.label
        if self.counted and self.label and self.counted != self.label:
            return f"wrote {self.label}, counted as {self.counted}"
        return self.label

    def display(self) -> tuple[str, str, bool]:
        """(reasoning, answer, thinking) to show now."""
        if self.done:
            return self.reasoning, self.text, False
        return split_reasoning(self.text)


@dataclass
class Section:
    phase: str
    round: int
    title: str
    note: str = ""
    category: int | None = None
    items: list[tuple[str, Any]] = field(default_factory=list)  # ("turn", turn_id) | (event type, event)


@dataclass
class DebateView:
    started: Any = None
    evidence: list[dict] = field(default_factory=list)
    evidence_in_prompts: bool = True
    evidence_event: dict = field(default_factory=dict)  # floor, turned-away passages, each source's state
    evidence_progress: dict = field(default_factory=dict)  # the latest evidence_progress while retrieval runs
    sections: list[Section] = field(default_factory=list)
    turns: dict[str, TurnView] = field(default_factory=dict)
    tallies: list[Any] = field(default_factory=list)
    stop_checks: list[Any] = field(default_factory=list)
    verdicts: list[Any] = field(default_factory=list)
    vote_comparisons: list[Any] = field(default_factory=list)  # the debate against its first vote, per category
    rounds: list[outcome.RoundVotes] = field(default_factory=list)  # each tally with the votes behind it
    attribution: dict = field(default_factory=dict)  # which passages the verdict rests on (after the verdict)
    attribution_progress: dict = field(default_factory=dict)  # the latest re-read while that runs
    errors: list[Any] = field(default_factory=list)
    finished: Any = None
    colors: dict[str, str] = field(default_factory=dict)
    last_seq: int = -1
    last_t: float = 0.0
    n_events: int = 0

    # -- folding ----------------------------------------------------------------------------
    def extend(self, events: list[Event]) -> DebateView:
        for ev in events:
            self.apply(ev)
        return self

    def color(self, agent: str) -> str:
        if agent not in self.colors:
            self.colors[agent] = PALETTE[len(self.colors) % len(PALETTE)]
        return self.colors[agent]

    def _section(self) -> Section:
        if not self.sections:
            self.sections.append(Section(phase="start", round=0, title="Debate"))
        return self.sections[-1]

    def apply(self, ev: Event) -> None:
        if ev.seq is not None and 0 <= ev.seq <= self.last_seq:
            return  # already applied: folding is idempotent
        self.last_seq = max(self.last_seq, ev.seq if ev.seq is not None else self.last_seq)
        self.last_t = max(self.last_t, ev.t or 0.0)
        self.n_events += 1
        t = ev.type
        if t == "debate_started":
            self.started = ev
            for member in ev.lineup or []:
                if member.get("agent"):
                    self.color(member["agent"])
        elif t == "evidence":
            self.evidence = list(ev.passages or [])
            self.evidence_in_prompts = bool(getattr(ev, "in_prompts", True))
            self.evidence_event = ev.to_dict() if hasattr(ev, "to_dict") else {}
        elif t == "evidence_progress":
            self.evidence_progress = ev.to_dict() if hasattr(ev, "to_dict") else {}
        elif t == "phase_started":
            title = ev.title or f"{ev.phase.replace('_', ' ').title()} · round {ev.round}"
            self.sections.append(Section(ev.phase, ev.round, title, ev.note, ev.category))
        elif t == "turn_started":
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
        elif t == "token":
            turn = self.turns.get(ev.turn_id) or self._orphan(ev.turn_id, ev.agent, ev.t)
            if turn.t_first is None:
                turn.t_first = ev.t
            turn.text += ev.text
            turn.tokens += 1
        elif t == "turn_finished":
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
            turn.explanation = json_prose(ev.parsed) if ev.valid else ""
            turn.cut_off_at = getattr(ev, "cut_off_at", None)
            turn.shortened, turn.full_text = str(ev.shortened or ""), str(ev.full_text or "")
            turn.unsupported_figures = [str(f) for f in ev.unsupported_figures or []]
            turn.unsourced_names = [str(n) for n in getattr(ev, "unsourced_names", None) or []]
            turn.echoed_format = str(getattr(ev, "echoed_format", "") or "")
            turn.human = bool(getattr(ev, "human", False)) or turn.human
            turn.timed_out = bool((ev.parsed or {}).get("timed_out")) if turn.human else False
            if str(turn.role).lower() in outcome.CHAIR_ROLES:
                turn.chair = outcome.chair_tag(
                    ev.label if ev.valid else None, self.tallies[-1] if self.tallies else None
                )
        elif t in (
            "votes_tallied",
            "stop_check",
            "chair_summary",
            "rule_applied",
            "error",
            "transcript_shortened",
            "moderator",
            "human_timeout",
        ):
            if t == "votes_tallied":  # votes read from probabilities may differ from the written label
                cat = self._category()
                mine = [x for x in self.turns.values() if x.done and x.category == cat]
                rv = outcome.round_votes(ev, mine, cat)
                self.rounds.append(rv)
                for v in rv.votes:
                    turn = self.turns.get(v.turn_id)
                    if turn is not None and v.differs:
                        turn.counted = v.counted
            self._section().items.append((t, ev))
            {"votes_tallied": self.tallies, "stop_check": self.stop_checks, "error": self.errors}.get(t, []).append(ev)
            if t == "chair_summary":
                self.color(ev.agent)
        elif t == "verdict":
            self.verdicts.append(ev)
            r = outcome.reading(ev)
            written = r.written
            if r.reading == "calibrated" and r.disagree:  # the chosen calibrated reading outvoted the written label
                judge = next(
                    (
                        x
                        for x in reversed(self.turns.values())
                        if x.done and x.label == written and x.role in ("judge", "baseline")
                    ),
                    None,
                )
                if judge is not None:
                    judge.counted = ev.label
        elif t == "vote_comparison":
            self.vote_comparisons.append(ev)
        elif t == "attribution_progress":
            self.attribution_progress = ev.to_dict() if hasattr(ev, "to_dict") else {}
        elif t == "attribution":
            self.attribution = ev.to_dict() if hasattr(ev, "to_dict") else {}
        elif t == "finished":
            self.finished = ev

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

    # -- what the page asks -----------------------------------------------------------------
    @property
    def status(self) -> str:
        return self.finished.status if self.finished else ("running" if self.started else "waiting")

    @property
    def verdict(self) -> Any:
        return self.verdicts[-1] if self.verdicts else None

    def headline(self) -> str:
        """A council verdict's votes in words, from the tally (debate.outcome.verdict_headline): written and
        counted both, when the aids counted a vote otherwise than it was written."""
        return outcome.verdict_headline(self.verdict, self.rounds) if self.verdict is not None else ""

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
        done = [x for x in self.turns.values() if x.done]
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


def build_view(events: list[Event]) -> DebateView:
    return DebateView().extend(events)
