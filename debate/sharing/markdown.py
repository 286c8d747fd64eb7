"""A debate as a Markdown document, rendered from the one transcript view (debate/view.py).

Every value that came from a model, a dataset or a person is escaped (debate.sanitize.md_text): a Markdown
viewer renders raw HTML, so an answer containing `<img src=x onerror=...>` must arrive as text, and a link
to anything but an http(s) address must not be a link. The only Markdown in the file is ours: model text
arrives with its own marks already taken out (TurnView.words), quoted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from debate import outcome
from debate.events import Event
from debate.live.pace import settings_line
from debate.retrieval import attribution as at
from debate.retrieval.safety import flag_text
from debate.sanitize import md_text, unmarked
from debate.tasks import stop_confidence_words, turn_number
from debate.view import DebateView, TurnView, VerdictView, build_view, shortened_note


def quote(text: str) -> str:
    """Model text as a Markdown quote, escaped."""
    return "\n".join("> " + line for line in md_text(text).strip().splitlines()) or "> (nothing)"


def _turn(view: DebateView, tid: str) -> list[str]:
    t: TurnView = view.turns[tid]
    if not t.done:
        return []
    vote = ""
    if not t.valid:
        vote = " — no answer (countdown ended)" if t.timed_out else " — INVALID answer"
    elif t.label_words():
        vote = f" — **{md_text(t.label_words())}**"
    elif t.label:
        vote = f" — **{md_text(t.label)}**" + (f" ({md_text(turn_number(t))})" if turn_number(t) else "")
    who = " — written by a person" if t.human else ""
    out = [f"### {md_text(t.agent)} ({md_text(t.role)}, {md_text(t.model)}){vote}{who}", "", quote(t.words()), ""]
    out += [f"*{md_text(t.begun_note())}*", ""] if t.begun else []
    return out + ([f"*{md_text(t.cut_note())}*", ""] if t.cut_note() else [])


def _verdict(view: DebateView, v: VerdictView) -> list[str]:
    out = [
        "## Verdict",
        "",
        f"**{md_text(v.label or 'no valid answer')}**" + (f" ({md_text(v.number)})" if v.number else ""),
    ]
    out += [""] + [f"{md_text(x)}." for x in v.sentences]
    out += ["", f"**{md_text(v.override)}**"] if v.override else []
    out += ["", f"**{md_text(v.reason_apart)}**"] if v.reason_apart else []
    out += [f"\nGold: {md_text(v.gold)} — {'right' if v.correct else 'wrong'}"] if v.gold else []
    out += ["", quote(v.reason), ""]
    return out + ([f"*{md_text(v.cut)}*", ""] if v.cut else [])


def _tally(view: DebateView, e: Any) -> list[str]:
    rv = view.round_of(e)
    counts = ", ".join(f"{md_text(k)}: {n}" for k, n in (e.counts or {}).items())
    counts = md_text(rv.headline()) if rv is not None and rv.differs else counts
    state = "reached" if e.reached else "not reached"
    kept = f" · {md_text(rv.kept_note())}" if rv is not None and rv.kept else ""
    return [
        f"**Votes, round {e.round}:** {counts} — consensus {e.consensus_share:.0%} vs threshold {e.threshold:.0%} "
        f"({state}){kept}",
        "",
    ]


def _stop(view: DebateView, e: Any) -> list[str]:
    return [
        f"**Stop check, round {e.round}:** margin {e.stop_margin:.2f} (τs {e.tau_s:.2f}), "
        f"{md_text(stop_confidence_words(e))} (τc {e.tau_c:.2f}) → {md_text(e.decision)}",
        "",
    ]


def _attribution(view: DebateView, e: Any) -> list[str]:
    d = e.to_dict()
    out = [f"⚑ {md_text(at.rests_sentence(d))}", ""]
    return out + ([f"**⚠ {md_text(at.contested_sentence(d))}**", ""] if d.get("contested") else [])


_ITEMS: dict[str, Callable[[DebateView, Any], list[str]]] = {
    "turn": _turn,
    "verdict": _verdict,
    "votes_tallied": _tally,
    "stop_check": _stop,
    "attribution": _attribution,
    "human_timeout": lambda v, e: [f"*{md_text(e.message)}*", ""],
    "moderator": lambda v, e: [f"**Moderator ({md_text(e.source)}):**", "", quote(unmarked(e.text)), ""],
    "chair_summary": lambda v, e: [f"**Chair summary ({md_text(e.agent)}):**", "", quote(unmarked(e.summary)), ""],
    "transcript_shortened": lambda v, e: [f"*{md_text(shortened_note(e))}*", ""],
    "rule_applied": lambda v, e: [f"**Rule:** {md_text(e.rule)} ({'changed' if e.changed else 'no change'})", ""],
    "vote_comparison": lambda v, e: [f"**Debate vs. vote:** {md_text(outcome.comparison_sentence(e, v.rounds))}", ""],
    "error": lambda v, e: [f"**Error:** {md_text(e.message)} {md_text(e.hint or '')}".rstrip(), ""],
}


def _evidence(view: DebateView) -> list[str]:
    """The Evidence section: the passages (saying whether the agents saw them), or why there are none."""
    notes = [md_text(s.note) for s in view.sections if s.phase == "evidence" and s.note]
    if not view.evidence:
        return ["## Evidence", "", *notes[:1], ""] if notes else []
    seen = (
        "The agents saw these passages, numbered as cited."
        if view.evidence_in_prompts
        else "Shown for reference only: the agents did not see these passages."
    )
    lines = []
    for p in view.evidence:
        note = at.passage_note(view.attribution or None, str(p.get("id")))
        score = p.get("score")
        lines.append(
            f"- **[{md_text(p.get('id'))}]** ({score if isinstance(score, (int, float)) else 0:.3f}, "
            f"{md_text(p.get('source') or 'unknown source')}) "
            + (f"**⚠ {md_text(flag_text(p))}** " if flag_text(p) else "")
            + (f"**⚑ {md_text(note)}** " if note else "")
            + (f"({md_text(at.language_name(str(p['lang'])))}) " if p.get("lang") else "")
            + md_text(p.get("text") or "").strip()
        )
    dropped = [p for p in view.evidence_event.get("dropped") or [] if isinstance(p, dict)]
    lines += [
        f"- **{md_text(p.get('id'))}** (held back from the prompts; ⚠ {md_text(flag_text(p))}) "
        f"{md_text(p.get('text') or '').strip()}"
        for p in dropped
    ]
    return ["## Evidence", "", seen, "", *lines, ""]


def _head(row: dict, view: DebateView) -> list[str]:
    cat = f"  **Category:** {md_text(row['category'])}" if row.get("category") else ""
    return [
        f"# Debate {md_text(row.get('id', ''))}",
        "",
        f"- **Protocol:** {md_text(row.get('protocol'))}  **Task:** {md_text(row.get('task'))}{cat}",
        f"- **Status:** {md_text(row.get('status'))}  **Started:** {md_text(row.get('created_at'))}",
        *([f"- {md_text(settings_line(view.started))}"] if view.started else []),
        "",
        "## Claim",
        "",
        quote(str(row.get("claim") or (view.started.claim if view.started else ""))),
        "",
    ]


def _foot(f: Any) -> list[str]:
    return [
        "---",
        f"Finished: {md_text(f.status)} ({md_text(f.stop_reason or 'done')}); "
        f"{f.prompt_tokens + f.completion_tokens} tokens, {f.model_calls} model calls, {f.cache_hits} cache hits, "
        f"{f.wall_s or 0:.1f} s",
        "",
    ]


def render_markdown(row: dict, view: DebateView) -> str:
    """The view as Markdown: the claim, the evidence, each section's turns and notes, the verdict."""
    out = _head(row, view) + _evidence(view)
    for sec in view.sections:
        if sec.phase != "evidence":  # the evidence has its own section above
            out += [f"## {md_text(sec.title)}", ""]
        for kind, item in sec.items:
            out += _ITEMS.get(kind, lambda v, e: [])(view, item)
    out += _foot(view.finished) if view.finished is not None else []
    return "\n".join(_drop_empty_headings(out))


def to_markdown(row: dict, events: Iterable[Event | dict]) -> str:
    """A readable transcript of a stored debate (its row and its events), through the one view."""
    return render_markdown(row, build_view(list(events)))


def _drop_empty_headings(lines: list[str]) -> list[str]:
    """Remove a '## ' heading with nothing under it before the next '## ' heading (a phase without turns)."""
    keep: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith("## "):
            nxt = next((x for x in lines[i + 1 :] if x.strip()), None)
            if nxt is None or nxt.startswith("## ") or nxt == "---":
                continue
        keep.append(line)
    return keep
