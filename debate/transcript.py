"""Transcripts from events: a structured view for programs, and readable text for terminals.

Both are pure functions of the event sequence, which is what makes a replay identical to the live run:
`TextRenderer.feed(event)` returns the text to print for that event and the CLI prints it as it goes; the
replay command feeds the stored events to a fresh renderer. Concurrent turns interleave their tokens in
the stream; the renderer shows one turn at a time (the earliest started that is still open), holding the
others' tokens until their turn is shown, so parallel speech stays readable in a terminal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from debate import outcome
from debate.errors import InvalidInput
from debate.events import Event, checked_event
from debate.retrieval import attribution as at
from debate.tasks import (
    cut_off_mark,
    echoed_mark,
    override_note,
    stop_confidence_words,
    turn_number,
    verdict_number,
    verdict_sentences,
)

# -- JSONL ----------------------------------------------------------------------------------------


def write_event(fh: IO[str], ev: Event) -> None:
    fh.write(json.dumps(ev.to_dict(), ensure_ascii=False) + "\n")
    fh.flush()


_EVENTS_HINT = "Pass the JSONL file `python -m debate run --events FILE` wrote (one JSON event per line)."


def events_path(path: str | Path) -> Path:
    """The events file at `path`, or InvalidInput saying why it cannot be one (missing, a folder)."""
    p = Path(path).expanduser()
    if p.is_dir():
        raise InvalidInput(f"{p} is a folder, not an events file.", _EVENTS_HINT)
    if not p.is_file():
        raise InvalidInput(f"No events file at {p}.", "Write one with: python -m debate run --events FILE ...")
    return p


def parse_event_line(raw: bytes | str, where: str) -> Event | None:
    """One line of an events file as an event (None for a blank line). The file may be anyone's: bad
    UTF-8, deep nesting, a non-object or a field of the wrong type is an InvalidInput naming the line."""
    try:
        line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{where} is not UTF-8 text (byte {e.start} of the line).", _EVENTS_HINT) from None
    if not line.strip():
        return None
    try:
        return checked_event(json.loads(line))
    except RecursionError:
        raise InvalidInput(f"{where} is nested too deeply to be an event.", _EVENTS_HINT) from None
    except ValueError as e:
        raise InvalidInput(f"{where} is not an event ({str(e)[:200]}).", _EVENTS_HINT) from None


def read_events(path: str | Path) -> list[Event]:
    p = events_path(path)
    out: list[Event] = []
    try:
        with p.open("rb") as fh:
            for n, raw in enumerate(fh, 1):
                ev = parse_event_line(raw, f"{p}, line {n},")
                if ev is not None:
                    out.append(ev)
    except OSError as e:
        raise InvalidInput(f"Cannot read {p}: {e.strerror or e}.", "Check the path and its permissions.") from None
    if not out:
        raise InvalidInput(f"{p} holds no events.", _EVENTS_HINT)
    return out


# -- structured view ------------------------------------------------------------------------------


@dataclass
class Section:
    phase: str
    round: int
    title: str
    category: int | None = None
    note: str = ""
    items: list[Event] = field(default_factory=list)  # TurnFinished, VotesTallied, ChairSummary, StopCheck ...


@dataclass
class Transcript:
    started: Event | None = None
    evidence: list[dict] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    verdicts: list[Event] = field(default_factory=list)
    errors: list[Event] = field(default_factory=list)
    finished: Event | None = None

    @property
    def final(self) -> Event | None:
        return self.verdicts[-1] if self.verdicts else None


def build_transcript(events: Iterable[Event]) -> Transcript:
    """What was said, grouped by phase; tokens are skipped (TurnFinished carries the full text)."""
    tr = Transcript()
    for ev in events:
        kind = ev.type
        if kind == "debate_started":
            tr.started = ev
        elif kind == "evidence":
            tr.evidence = list(ev.passages)
        elif kind == "phase_started":
            tr.sections.append(Section(ev.phase, ev.round, ev.title, ev.category, ev.note))
        elif kind in (
            "turn_finished",
            "votes_tallied",
            "chair_summary",
            "stop_check",
            "rule_applied",
            "transcript_shortened",
            "moderator",
        ):
            if not tr.sections:
                tr.sections.append(Section("debate", 0, "Debate"))
            tr.sections[-1].items.append(ev)
        elif kind == "verdict":
            tr.verdicts.append(ev)
        elif kind == "error":
            tr.errors.append(ev)
        elif kind == "finished":
            tr.finished = ev
    return tr


def shortened_note(ev) -> str:
    """One line for a TranscriptShortened event: who read a shortened debate, and how much of it."""
    what = (
        ", ".join(
            x
            for x in (
                f"{ev.condensed} earlier turn{'s' * (ev.condensed != 1)} cut to their opening sentences"
                if ev.condensed
                else "",
                f"{ev.omitted} left out" if ev.omitted else "",
            )
            if x
        )
        or "nothing could be cut"
    )
    return (
        f"{ev.agent} read a shortened debate ({ev.phase}, round {ev.round}): the whole prompt would have been "
        f"{ev.original_chars:,} characters, its model's context allows about {ev.budget_chars:,}; {what} "
        f"→ {ev.final_chars:,} characters."
    )


# -- text -----------------------------------------------------------------------------------------

_PALETTE = ("36", "33", "35", "32", "34", "31", "96", "93", "95", "92", "94", "91")


class TextRenderer:
    """Incremental, deterministic text for an event stream (ANSI colour optional)."""

    def __init__(self, color: bool = False, width: int = 100) -> None:
        self.color = color
        self.width = width
        self.colours: dict[str, str] = {}
        self.open: list[str] = []  # turn ids started and not yet shown to the end, in start order
        self.started: dict[str, Event] = {}
        self.buffer: dict[str, list[str]] = {}
        self.finished: dict[str, Event] = {}
        self.current: str | None = None
        self.had_tokens: dict[str, bool] = {}
        self.debate_started: Event | None = None  # the task it says words the verdict (tasks.verdict_sentences)
        self.last_tally: Event | None = None  # what a chair's status is read against (debate.outcome.chair_tag)
        self.chairs: dict[str, outcome.ChairTag] = {}
        self.since_tally: list[Event] = []  # finished turns since the last tally: the votes behind the next one
        self.rounds: list[outcome.RoundVotes] = []

    # -- styling --------------------------------------------------------------------------------
    def _c(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def _agent(self, name: str) -> str:
        if name not in self.colours:
            self.colours[name] = _PALETTE[len(self.colours) % len(_PALETTE)]
        return self._c("1;" + self.colours[name], name)

    def _rule(self, title: str, char: str = "─") -> str:
        line = f"{char * 2} {title} "
        return self._c("1", line + char * max(0, self.width - len(line))) + "\n"

    # -- turns ----------------------------------------------------------------------------------
    def _header(self, ev: Event) -> str:
        where = f"{ev.phase}" + (f" {ev.round}" if ev.round else "")
        return f"\n▶ {self._agent(ev.agent)} · {ev.role} · {self._c('2', ev.model)} · {where}\n  "

    def _footer(self, ev: Event) -> str:
        bits = []
        if ev.parsed is not None or not ev.valid:
            if not ev.valid and (ev.parsed or {}).get("timed_out"):
                bits.append(self._c("1;31", "NO ANSWER (the person's countdown ended)"))
            elif not ev.valid:
                bits.append(self._c("1;31", "INVALID answer (unreadable even after one repair)"))
            elif ev.turn_id in self.chairs:  # the tally's state, not the chair's own status field
                bits.append(self._c("1", f"→ {outcome.chair_words(self.chairs[ev.turn_id])}"))
            elif ev.label is not None:
                conf = f" ({turn_number(ev)})" if turn_number(ev) else ""
                bits.append(self._c("1", f"→ {ev.label}{conf}"))
        if getattr(ev, "cut_off_at", None) or getattr(ev, "shortened", ""):
            bits.append(self._c("1;33", cut_off_mark(ev.cut_off_at, getattr(ev, "shortened", ""))))
        if getattr(ev, "echoed_format", ""):
            bits.append(self._c("1;33", echoed_mark(ev.echoed_format)))
        if ev.repaired:
            bits.append("repaired")
        if ev.citations:
            bits.append("cites " + " ".join(f"[{c}]" for c in ev.citations))
        if ev.reasoning:
            bits.append(f"reasoning {len(ev.reasoning)} chars (not parsed)")
        meta = f"{ev.prompt_tokens}+{ev.completion_tokens} tok · {ev.latency_s:.2f} s" + (
            " · cached" if ev.cached else ""
        )
        if getattr(ev, "replayed", False):
            meta += " · replayed from the parent debate"
        if getattr(ev, "human", False):
            meta += " · written by a person"
        shown = (" · ".join(bits) + " · ") if bits else ""
        return "\n  " + shown + self._c("2", meta) + "\n"

    def _show(self, tid: str) -> str:
        """Make `tid` the turn on screen: header, its held tokens, and its end if it has finished."""
        self.current = tid
        out = self._header(self.started[tid]) + "".join(self.buffer.pop(tid, []))
        if tid in self.finished:
            out += self._close(tid)
        return out

    def _close(self, tid: str) -> str:
        ev = self.finished.pop(tid)
        out = "" if self.had_tokens.get(tid) else ev.text.replace("\n", "\n  ")
        out += self._footer(ev)
        self.open.remove(tid)
        self.current = None
        if self.open:
            out += self._show(self.open[0])
        return out

    # -- dispatch -------------------------------------------------------------------------------
    def feed(self, ev: Event) -> str:
        kind = ev.type
        if kind == "turn_started":
            self.started[ev.turn_id] = ev
            self.open.append(ev.turn_id)
            return self._show(ev.turn_id) if self.current is None else ""
        if kind == "token":
            text = ev.text.replace("\n", "\n  ")
            self.had_tokens[ev.turn_id] = True
            if ev.turn_id == self.current:
                return text
            self.buffer.setdefault(ev.turn_id, []).append(text)
            return ""
        if kind == "turn_finished":
            self.since_tally.append(ev)
            if str(ev.role).lower() in outcome.CHAIR_ROLES and ev.valid:
                tag = outcome.chair_tag(ev.label, self.last_tally)
                if tag is not None:
                    self.chairs[ev.turn_id] = tag
            if ev.turn_id not in self.started:  # a stream cut before TurnStarted: show it plainly
                self.started[ev.turn_id] = ev
                self.open.append(ev.turn_id)
            self.finished[ev.turn_id] = ev
            if self.current is None:
                return self._show(self.open[0])
            return self._close(ev.turn_id) if ev.turn_id == self.current else ""
        return self._other(ev)

    def _other(self, ev: Event) -> str:
        kind = ev.type
        if kind == "debate_started":
            self.debate_started = ev
            where = ev.task + (
                f" category {ev.category}"
                if ev.task == "checkthat" and ev.category
                else " (all categories)"
                if ev.task == "checkthat"
                else ""
            )
            head = self._rule(f"{ev.protocol} · {where} · lineup {ev.settings.get('lineup_name', '')}", "═")
            gold = f"\nGold: {ev.gold}" if ev.gold else ""
            return head + f"Claim: {ev.claim}{gold}\n"
        if kind == "evidence":
            lines = [self._rule(f"Evidence: {len(ev.passages)} passages" + (f" from {ev.corpus}" if ev.corpus else ""))]
            if getattr(ev, "questions", None) or getattr(ev, "questions_note", ""):
                lines.append("  queries: " + " · ".join([ev.query, *ev.questions]) + "\n")
                if ev.questions_note:
                    lines.append(self._c("2", f"  {ev.questions_note}") + "\n")
            local = next((s for s in getattr(ev, "sources", None) or [] if s.get("name") == "local"), None)
            if local and local.get("state") in ("unavailable", "failed", "timeout") and local.get("note"):
                lines.append(self._c("2", f"  {local.get('label') or 'Local index'}: {local['note']}") + "\n")
            if getattr(ev, "note", ""):
                lines.append(self._c("2", f"  {ev.note}") + "\n")
            for p in ev.passages:
                score = p.get("score")
                sc = f"({score:.2f}) " if isinstance(score, (int, float)) else ""
                text = " ".join(str(p.get("text", "")).split())
                lines.append(f"  [{p.get('id')}] {sc}{text[:160]}{'…' if len(text) > 160 else ''}\n")
            return "".join(lines)
        if kind == "phase_started":
            out = "\n" + self._rule(ev.title or ev.phase, "═" if ev.phase == "category" else "─")
            return out + (self._c("2", f"  {ev.note}") + "\n" if ev.note else "")
        if kind == "votes_tallied":
            self.last_tally = ev
            rv = outcome.round_votes(ev, self.since_tally)
            self.rounds.append(rv)
            self.since_tally = []
            counts = ", ".join(f"{k} {n}" for k, n in ev.counts.items())
            if rv.differs:  # written and counted both, as the verdict card's headline says them
                counts = rv.headline()
            invalid = sum(v is None for v in ev.votes.values())
            state = "reached" if ev.reached else "not reached"
            extra = " · votes stabilised" if ev.stabilised else ""
            return (
                self._c(
                    "1",
                    f"\n  Votes (round {ev.round}): {counts}"
                    + (f", invalid {invalid}" if invalid else "")
                    + f" · consensus {ev.consensus_share:.0%} vs θ {ev.threshold:.0%}: {state}"
                    + f" · majority {ev.majority}{extra}",
                )
                + "\n"
            )
        if kind == "moderator":
            seen = "" if ev.seen else " (arrived after the last turn: no agent read it)"
            return self._c("1;33", f"\n  Moderator ({ev.source}){seen}: ") + ev.text + "\n"
        if kind == "chair_summary":
            return f"\n  Chair {self._agent(ev.agent)} (round {ev.round}): {ev.summary}\n"
        if kind == "stop_check":
            return (
                self._c(
                    "1",
                    f"\n  Stop check (after round {ev.round}, {ev.method}): margin {ev.stop_margin:+.2f} "
                    f"vs τs {ev.tau_s:.2f}, {stop_confidence_words(ev)} vs τc {ev.tau_c:.2f}"
                    f" → {ev.decision.upper()} (preliminary {ev.preliminary_verdict})",
                )
                + "\n"
            )
        if kind == "transcript_shortened":
            return self._c("33", f"\n  {shortened_note(ev)}") + "\n"
        if kind == "human_asked":
            return (
                self._c(
                    "1;35",
                    f"\n  A person plays {ev.agent} ({ev.role}): waiting up to {ev.timeout_s:g} s for their answer.",
                )
                + "\n"
            )
        if kind == "human_timeout":
            return self._c("1;35", f"\n  {ev.message}") + "\n"
        if kind == "rule_applied":
            change = (
                ", ".join(
                    f"category {k}: {ev.before.get(k)} → {v}" for k, v in ev.after.items() if ev.before.get(k) != v
                )
                or "no label changed"
            )
            return f"\n  Rule: {ev.rule}: {change}\n"
        if kind == "verdict":
            label = ev.label if ev.labels is None else ", ".join(f"{k}: {v}" for k, v in ev.labels.items())
            label = label if label is not None else "NO VALID ANSWER"
            number = outcome.verdict_headline(ev, self.rounds) or verdict_number(ev)
            conf = f" ({number})" if number else ""
            gold = ""
            if ev.gold is not None and ev.correct is not None:
                gold = f" · gold {ev.gold}: {'right' if ev.correct else 'wrong'}"
            cat = f" · category {ev.category}" if ev.category else ""
            said = "".join(f"\n  {x}." for x in verdict_sentences(ev, self.debate_started))
            over = f"\n  {self._c('1;33', override_note(ev))}" if override_note(ev) else ""
            return (
                "\n"
                + self._c("1;7", f" VERDICT{cat}: {label} ")
                + self._c("1", f"{conf} [{ev.source}]{gold}")
                + said
                + over
                + (f"\n  {ev.explanation}" if ev.explanation else "")
                + "\n"
            )
        if kind == "attribution":
            contested = f"\n  {self._c('1;33', at.contested_sentence(ev.to_dict()))}" if ev.contested else ""
            return f"  {at.rests_sentence(ev.to_dict())}{contested}\n"
        if kind == "vote_comparison":
            cat = f" (category {ev.category})" if ev.category else ""
            return f"  Debate vs. vote{cat}: {ev.sentence()} [plain majority of the {ev.basis}: {ev.vote_label}]\n"
        if kind == "error":
            return (
                "\n"
                + self._c("1;31", f"ERROR ({ev.error}): {ev.message}")
                + (f"\n  hint: {ev.hint}" if ev.hint else "")
                + "\n"
            )
        if kind == "finished":
            status = "failed" if ev.status == "error" else ev.status
            return "\n" + self._rule(
                f"{status}{': ' + ev.stop_reason if ev.stop_reason else ''} · "
                f"{ev.model_calls} model calls · {ev.prompt_tokens}+{ev.completion_tokens} tokens · "
                f"{ev.cache_hits} cache hits · {ev.wall_s:.1f} s",
                "═",
            )
        return ""


def render_text(events: Iterable[Event], color: bool = False) -> str:
    r = TextRenderer(color=color)
    return "".join(r.feed(ev) for ev in events)
