"""Transcripts from events: events files (JSONL) read and written, and readable text for terminals.

The text is read from the one transcript view (debate/view.py) that the page and the exports read. It is
a pure function of the event sequence, which is what makes a replay identical to the live run:
`TextRenderer.feed(event)` returns the text to print for that event and the CLI prints it as it goes; the
replay command feeds the stored events to a fresh renderer. Concurrent turns interleave their tokens in
the stream; the renderer shows one turn at a time (the earliest started that is still open), holding the
others' tokens until their turn is shown, so parallel speech stays readable in a terminal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from debate import outcome
from debate.errors import InvalidInput
from debate.events import (
    Attribution,
    ChairSummary,
    DebateFinished,
    DebateStarted,
    ErrorEvent,
    Event,
    EvidenceRetrieved,
    HumanAsked,
    HumanTimedOut,
    Moderator,
    PhaseStarted,
    RuleApplied,
    StopCheck,
    TokenDelta,
    TranscriptShortened,
    TurnFinished,
    TurnStarted,
    VoteComparison,
    VotesTallied,
    checked_event,
)
from debate.retrieval import attribution as at
from debate.sanitize import unmarked
from debate.tasks import echoed_mark, stop_confidence_words, turn_number
from debate.view import NOTE_TYPES, DebateView, TurnView, VerdictView, build_view, shortened_note

__all__ = ["TextRenderer", "build_view", "read_events", "render_text", "shortened_note", "write_event"]

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


# -- text -----------------------------------------------------------------------------------------

_PALETTE = ("36", "33", "35", "32", "34", "31", "96", "93", "95", "92", "94", "91")


class TextRenderer:
    """Incremental, deterministic text for an event stream (ANSI colour optional), read from the one
    transcript view (debate/view.py): each event is folded into the view first, then what changed is
    printed from it, so the terminal states the facts the page and the exports state."""

    def __init__(self, color: bool = False, width: int = 100) -> None:
        self.color = color
        self.width = width
        self.view = DebateView()
        self.colours: dict[str, str] = {}
        self.open: list[str] = []  # turn ids started and not yet shown to the end, in start order
        self.shown_done: set[str] = set()  # finished turns whose end is waiting to be shown
        self.buffer: dict[str, list[str]] = {}
        self.current: str | None = None
        self.streamed: dict[str, str] = {}  # the tokens printed for a turn, as they came
        # a whole stored stream (render_text): each vote as its tally counted it, so a member's footer says
        # "wrote NO, counted as YES" as the card's tag does; streaming live, the tally line says both
        self.votes: dict[str, outcome.MemberVote] = {}

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
    def _header(self, t: TurnView) -> str:
        where = f"{t.phase}" + (f" {t.round}" if t.round else "")
        return f"\n▶ {self._agent(t.agent)} · {t.role} · {self._c('2', t.model)} · {where}\n  "

    def _footer(self, t: TurnView) -> str:
        bits = []
        if not t.valid and t.timed_out:
            bits.append(self._c("1;31", "NO ANSWER (the person's countdown ended)"))
        elif not t.valid:
            bits.append(self._c("1;31", "INVALID answer (unreadable even after one repair)"))
        elif t.chair is not None:  # the tally's state, not the chair's own status field
            bits.append(self._c("1", f"→ {t.label_words()}"))
        elif t.turn_id in self.votes and self.votes[t.turn_id].differs:
            bits.append(self._c("1", f"→ {outcome.vote_words(self.votes[t.turn_id])}"))
        elif t.label is not None:
            conf = f" ({turn_number(t)})" if turn_number(t) else ""
            bits.append(self._c("1", f"→ {t.label}{conf}"))
        if t.cut_note():
            bits.append(self._c("1;33", t.cut_note()))
        if t.begun:
            bits.append(t.begun_note())
        if t.echoed_format:
            bits.append(self._c("1;33", echoed_mark(t.echoed_format)))
        bits += ["repaired"] * t.repaired + (
            ["cites " + " ".join(f"[{c}]" for c in t.citations)] if t.citations else []
        )
        if t.reasoning:
            bits.append(f"reasoning {len(t.reasoning)} chars (not parsed)")
        meta = f"{t.prompt_tokens}+{t.tokens} tok · {t.latency_s:.2f} s" + (" · cached" if t.cached else "")
        meta += " · replayed from the parent debate" * t.replayed + " · written by a person" * t.human
        shown = (" · ".join(bits) + " · ") if bits else ""
        return "\n  " + shown + self._c("2", meta) + "\n"

    def _show(self, tid: str) -> str:
        """Make `tid` the turn on screen: header, its held tokens, and its end if it has finished."""
        self.current = tid
        out = self._header(self.view.turns[tid]) + "".join(self.buffer.pop(tid, []))
        if tid in self.shown_done:
            out += self._close(tid)
        return out

    def _close(self, tid: str) -> str:
        """A finished turn's end: its words when none were streamed (or when they read otherwise than the
        tokens did: a JSON answer's words, Markdown marks out), then its footer."""
        self.shown_done.discard(tid)
        t = self.view.turns[tid]
        words = t.words()
        streamed = self.streamed.get(tid, "")
        if not streamed.strip() or streamed.lstrip().startswith("{"):
            out = words.replace("\n", "\n  ")
        else:  # printed as it came: again in words only where those read otherwise (an emphasis mark, a cut)
            same = words.rstrip("…").rstrip() == streamed.replace("**", "").rstrip()
            out = "" if same else "\n  = " + words.replace("\n", "\n    ")
        out += self._footer(t)
        self.open.remove(tid)
        self.current = None
        if self.open:
            out += self._show(self.open[0])
        return out

    # -- dispatch -------------------------------------------------------------------------------
    def feed(self, ev: Event) -> str:
        self.view.apply(ev)
        if isinstance(ev, TurnStarted):
            self.open.append(ev.turn_id)
            return self._show(ev.turn_id) if self.current is None else ""
        if isinstance(ev, TokenDelta):
            sofar = self.streamed[ev.turn_id] = self.streamed.get(ev.turn_id, "") + ev.text
            if sofar.lstrip().startswith("{"):
                return ""  # a JSON answer: its words are printed when it ends, never the JSON
            text = ev.text.replace("**", "").replace("\n", "\n  ")  # bold marks out, as every view shows it
            if ev.turn_id == self.current:
                return text
            self.buffer.setdefault(ev.turn_id, []).append(text)
            return ""
        if isinstance(ev, TurnFinished):
            if ev.turn_id not in self.open:  # a stream cut before TurnStarted: show it plainly
                self.open.append(ev.turn_id)
            self.shown_done.add(ev.turn_id)
            if self.current is None:
                return self._show(self.open[0])
            return self._close(ev.turn_id) if ev.turn_id == self.current else ""
        return self._other(ev)

    def _other(self, ev: Event) -> str:
        """Anything but a turn, printed from the view: the head, the evidence, a section's title, a note,
        the verdict, the end."""
        view, kind = self.view, ev.type
        if isinstance(ev, DebateStarted):
            return self._started(ev)
        if isinstance(ev, EvidenceRetrieved):
            return self._evidence()
        if isinstance(ev, PhaseStarted):
            sec = view.sections[-1]
            out = "\n" + self._rule(sec.title, "═" if sec.phase == "category" else "─")
            return out + (self._c("2", f"  {sec.note}") + "\n" if sec.note else "")
        if isinstance(ev, DebateFinished):
            return self._finished(ev)
        items = view.sections[-1].items if view.sections else []
        if not items or kind not in (*NOTE_TYPES, "verdict") or items[-1][0] != kind:
            return ""  # nothing a view shows (a progress event), or an event already folded in
        item_kind, item = items[-1]
        render = getattr(self, f"_{item_kind}", None)
        return render(item) if render is not None else ""

    def _started(self, ev: DebateStarted) -> str:
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

    def _evidence(self) -> str:
        ev = self.view.evidence_event
        passages, questions, note = self.view.evidence, ev.get("questions") or [], ev.get("questions_note") or ""
        lines = [
            self._rule(f"Evidence: {len(passages)} passages" + (f" from {ev['corpus']}" if ev.get("corpus") else ""))
        ]
        if questions or note:
            lines.append("  queries: " + " · ".join([str(ev.get("query") or ""), *map(str, questions)]) + "\n")
            lines += [self._c("2", f"  {note}") + "\n"] if note else []
        local = next((s for s in ev.get("sources") or [] if s.get("name") == "local"), None)
        if local and local.get("state") in ("unavailable", "failed", "timeout") and local.get("note"):
            lines.append(self._c("2", f"  {local.get('label') or 'Local index'}: {local['note']}") + "\n")
        if ev.get("note"):
            lines.append(self._c("2", f"  {ev['note']}") + "\n")
        for p in passages:
            score = p.get("score")
            sc = f"({score:.2f}) " if isinstance(score, (int, float)) else ""
            text = " ".join(str(p.get("text", "")).split())
            lines.append(f"  [{p.get('id')}] {sc}{text[:160]}{'…' if len(text) > 160 else ''}\n")
        return "".join(lines)

    def _votes_tallied(self, ev: VotesTallied) -> str:
        rv = self.view.round_of(ev)
        counts = ", ".join(f"{k} {n}" for k, n in ev.counts.items())
        if rv is not None and rv.differs:  # written and counted both, as the verdict card's headline says them
            counts = rv.headline()
        invalid = len([v for v in ev.votes.values() if v is None])
        state = "reached" if ev.reached else "not reached"
        extra = " · votes stabilised" if ev.stabilised else ""
        line = (
            f"\n  Votes (round {ev.round}): {counts}"
            + (f", invalid {invalid}" if invalid else "")
            + f" · consensus {ev.consensus_share:.0%} vs θ {ev.threshold:.0%}: {state} · majority {ev.majority}{extra}"
            + (f" · {rv.kept_note()}" if rv is not None and rv.kept else "")
        )
        return self._c("1", line) + "\n"

    def _moderator(self, ev: Moderator) -> str:
        seen = "" if ev.seen else " (arrived after the last turn: no agent read it)"
        return self._c("1;33", f"\n  Moderator ({ev.source}){seen}: ") + unmarked(ev.text) + "\n"

    def _chair_summary(self, ev: ChairSummary) -> str:
        return f"\n  Chair {self._agent(ev.agent)} (round {ev.round}): {unmarked(ev.summary)}\n"

    def _stop_check(self, ev: StopCheck) -> str:
        line = (
            f"\n  Stop check (after round {ev.round}, {ev.method}): margin {ev.stop_margin:+.2f} "
            f"vs τs {ev.tau_s:.2f}, {stop_confidence_words(ev)} vs τc {ev.tau_c:.2f}"
            f" → {ev.decision.upper()} (preliminary {ev.preliminary_verdict})"
        )
        return self._c("1", line) + "\n"

    def _transcript_shortened(self, ev: TranscriptShortened) -> str:
        return self._c("33", f"\n  {shortened_note(ev)}") + "\n"

    def _human_asked(self, ev: HumanAsked) -> str:
        said = f"\n  A person plays {ev.agent} ({ev.role}): waiting up to {ev.timeout_s:g} s for their answer."
        return self._c("1;35", said) + "\n"

    def _human_timeout(self, ev: HumanTimedOut) -> str:
        return self._c("1;35", f"\n  {ev.message}") + "\n"

    def _rule_applied(self, ev: RuleApplied) -> str:
        changed = [f"category {k}: {ev.before.get(k)} → {v}" for k, v in ev.after.items() if ev.before.get(k) != v]
        return f"\n  Rule: {ev.rule}: {', '.join(changed) or 'no label changed'}\n"

    def _verdict(self, v: VerdictView) -> str:
        conf = f" ({v.number})" if v.number else ""
        gold = (
            f" · gold {v.gold}: {'right' if v.correct else 'wrong'}"
            if v.gold is not None and v.correct is not None
            else ""
        )
        cat = f" · category {v.category}" if v.category else ""
        said = "".join(f"\n  {x}." for x in v.sentences)
        over = f"\n  {self._c('1;33', v.override)}" if v.override else ""
        over += f"\n  {self._c('1;33', v.reason_apart)}" if v.reason_apart else ""
        cut = f"\n  {self._c('1;33', v.cut)}" if v.cut else ""
        head = self._c("1;7", f" VERDICT{cat}: {v.label or 'NO VALID ANSWER'} ") + self._c(
            "1", f"{conf} [{v.source}]{gold}"
        )
        return "\n" + head + said + over + (f"\n  {v.reason}" if v.reason else "") + cut + "\n"

    def _attribution(self, ev: Attribution) -> str:
        contested = f"\n  {self._c('1;33', at.contested_sentence(ev.to_dict()))}" if ev.contested else ""
        return f"  {at.rests_sentence(ev.to_dict())}{contested}\n"

    def _vote_comparison(self, ev: VoteComparison) -> str:
        cat = f" (category {ev.category})" if ev.category else ""
        line = outcome.comparison_sentence(ev, self.view.rounds)
        return f"  Debate vs. vote{cat}: {line} [plain majority of the {ev.basis}: {ev.vote_label}]\n"

    def _error(self, ev: ErrorEvent) -> str:
        hint = f"\n  hint: {ev.hint}" if ev.hint else ""
        return "\n" + self._c("1;31", f"ERROR ({ev.error}): {ev.message}") + hint + "\n"

    def _finished(self, ev: DebateFinished) -> str:
        status = "failed" if ev.status == "error" else ev.status
        return "\n" + self._rule(
            f"{status}{': ' + ev.stop_reason if ev.stop_reason else ''} · "
            f"{ev.model_calls} model calls · {ev.prompt_tokens}+{ev.completion_tokens} tokens · "
            f"{ev.cache_hits} cache hits · {ev.wall_s:.1f} s",
            "═",
        )


def render_text(events: Iterable[Event], color: bool = False) -> str:
    events = list(events)
    r = TextRenderer(color=color)
    r.votes = outcome.counted_votes(events)
    return "".join(r.feed(ev) for ev in events)
