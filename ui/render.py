"""Draw a DebateView: the one renderer shared by the live page and the Library.

Everything drawn comes from the folded events (ui.transcript). Model output and claims go through
ui.safe.text_html, so they appear as text; the only HTML on the page is the fixed markup built here.
"""

from __future__ import annotations

import html
from typing import Any

import streamlit as st

from debate import outcome
from debate.aids.calibration import disagreement
from debate.live.pace import settings_line
from debate.retrieval import attribution as at
from debate.retrieval.safety import flag_counts, flag_text
from debate.sanitize import unmarked
from debate.tasks import stop_confidence_words, verdict_number
from debate.transcript import shortened_note
from ui import charts, people_view, verdicts
from ui.safe import anchor, escape, text_html
from ui.transcript import DebateView, TurnView

LABEL_COLORS = verdicts.LABEL_COLORS
STATUS_BADGE = {
    "running": ("Running", "blue", ":material/progress_activity:"),
    "completed": ("Completed", "green", ":material/check_circle:"),
    "stopped": ("Stopped", "orange", ":material/stop_circle:"),
    "error": ("Failed", "red", ":material/error:"),
    "interrupted": ("Interrupted", "gray", ":material/pause_circle:"),
    "waiting": ("Starting", "blue", ":material/hourglass_top:"),
}


def avatar_svg(agent: str, color: str) -> str:
    initials = "".join(w[0] for w in agent.replace("_", " ").replace("-", " ").split()[:2]).upper() or "?"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" viewBox="0 0 40 40">'
        f'<circle cx="20" cy="20" r="20" fill="{color}"/><text x="20" y="26" font-size="16" '
        f'font-family="sans-serif" font-weight="700" text-anchor="middle" fill="#fff">'
        f"{html.escape(initials[:2])}</text></svg>"
    )


def label_chip(label: str | None, confidence: float | None = None, valid: bool = True) -> str:
    return verdicts.chip(label, confidence, valid)


def _header_html(turn: TurnView, color: str, labels: tuple[str, ...] = ()) -> str:
    bits = [f'<span class="agent" style="color:{color}">{escape(turn.agent)}</span>']
    if turn.role and turn.role != turn.agent:
        bits.append(f'<span class="role">{escape(turn.role)}</span>')
    if turn.model:
        bits.append(f'<span class="model">{escape(turn.model)}</span>')
    tail = []
    if turn.done:
        if turn.timed_out:
            tail.append(
                '<span class="chip invalid" title="the countdown ended before the person answered">no answer</span>'
            )
        elif turn.chair is not None and turn.valid:
            tail.append(verdicts.chair_chip(turn.chair))
        elif turn.counted:
            tail.append(verdicts.counted_chip(turn.label, turn.counted, turn.confidence))
        else:
            tail.append(verdicts.chip(turn.label, turn.confidence, turn.valid, labels, turn.label_at))
        if turn.shortened:
            tail.append(
                '<span class="chip orange" title="the engine ended this turn at a whole sentence; the full '
                'text is under it">shortened</span>'
            )
        elif turn.cut_off_at:
            tail.append('<span class="chip orange" title="the answer budget ended this answer">cut off</span>')
        if turn.begun:
            tail.append(f'<span class="chip gray" title="{escape(turn.begun_note())}">side set</span>')
        if turn.repaired:
            tail.append('<span class="chip gray" title="answered after a repair prompt">repaired</span>')
        if turn.cached:
            tail.append('<span class="chip gray" title="answered from the response cache">cached</span>')
        if turn.replayed:
            tail.append('<span class="chip gray" title="said in the parent debate, before the fork">replayed</span>')
        if turn.human:
            tail.append('<span class="chip person" title="a person played this seat and wrote this turn">person</span>')
        tail.append(f'<span class="meta">{turn.tokens} tok · {turn.latency_s:.1f} s</span>')
    else:
        word = "speaking" if turn.text else ("waiting for the person" if turn.human else "waiting for the model")
        tail.append(f'<span class="typing">{word}<span>.</span><span>.</span><span>.</span></span>')
    return f'<div class="turn-head">{" ".join(bits)}<span class="grow"></span>{" ".join(t for t in tail if t)}</div>'


def render_turn(view: DebateView, turn: TurnView, debate_id: str) -> None:
    color = view.color(turn.agent)
    known = {p.get("id") for p in view.evidence}
    reasoning, answer, thinking = turn.display()
    with st.chat_message(turn.agent, avatar=avatar_svg(turn.agent, color)):
        parts = [_header_html(turn, color, verdicts.task_labels(view.started))]
        if reasoning or thinking:
            live_note = f" (thinking… {len(reasoning):,} characters)" if thinking else ""
            parts.append(
                f'<details class="think"><summary>Reasoning{live_note}</summary>'
                f"{text_html(reasoning, debate_id=debate_id, known=known)}</details>"
            )
        if turn.done:  # finished: the answer as a person reads it, the raw JSON on demand, the budget's cut
            parts.append(verdicts.turn_reads_html(turn, view.started, turn.category))
            parts.append(verdicts.answer_body_html(turn, turn.explanation, debate_id=debate_id, known=known))
        elif answer:
            parts.append(text_html(unmarked(answer), debate_id=debate_id, known=known))
        st.markdown(f'<div class="turn" style="border-color:{color}">{"".join(parts)}</div>', unsafe_allow_html=True)


def render_tally_line(ev: Any, rv: Any = None) -> None:
    """A tally; `rv` (debate.outcome.RoundVotes): when the aids counted a vote otherwise than it was
    written, the line says both before the counted chips."""
    counts = " ".join(f"{label_chip(k)} ×{v}" for k, v in (ev.counts or {}).items() if v)
    invalid = sum(1 for v in (ev.votes or {}).values() if v is None)
    inv = f' <span class="chip invalid">invalid ×{invalid}</span>' if invalid else ""
    state = "reached" if ev.reached else ("votes stabilised" if ev.stabilised else "not reached")
    both = f"<b>{escape(rv.headline())}</b> — " if rv is not None and rv.differs else ""
    kept = f" · {escape(rv.kept_note())}" if rv is not None and rv.kept else ""
    st.markdown(
        f'<div class="tally">Votes, round {ev.round}: {both}{counts}{inv} — consensus '
        f"<b>{ev.consensus_share:.0%}</b> vs threshold {ev.threshold:.0%} · {state}{kept}</div>",
        unsafe_allow_html=True,
    )


def render_stop_line(ev: Any) -> None:
    ok_s = ev.stop_margin >= ev.tau_s
    ok_c = ev.verdict_confidence >= ev.tau_c
    prelim = f" · preliminary verdict {label_chip(ev.preliminary_verdict)}" if ev.preliminary_verdict else ""
    st.markdown(
        f'<div class="tally">Stop check, round {ev.round} ({escape(ev.method)}): margin '
        f'<b class="{"ok" if ok_s else "no"}">{ev.stop_margin:.2f}</b> vs τs {ev.tau_s:.2f} · round judge\'s '
        f'<b class="{"ok" if ok_c else "no"}">{escape(stop_confidence_words(ev))}</b> vs τc {ev.tau_c:.2f} → '
        f"<b>{escape(ev.decision.upper())}</b>{prelim}</div>",
        unsafe_allow_html=True,
    )


def render_item(view: DebateView, kind: str, item: Any, debate_id: str) -> None:
    if kind == "turn":
        render_turn(view, view.turns[item], debate_id)
    elif kind == "votes_tallied":
        render_tally_line(item, next((r for r, t in zip(view.rounds, view.tallies) if t is item), None))
    elif kind == "stop_check":
        render_stop_line(item)
    elif kind == "chair_summary":
        color = view.color(item.agent)
        st.markdown(
            f'<div class="tally chair-note" style="border-left:3px solid {color}"><b>Chair\'s guidance</b> '
            f"({escape(item.agent)}): {text_html(item.summary, css='txt inline')}</div>",
            unsafe_allow_html=True,
        )
    elif kind == "moderator":
        seen = "" if item.seen else " · arrived after the last turn: no agent read it"
        st.markdown(
            f'<div class="tally moderator-note"><b>Moderator</b> <span class="meta">({escape(item.source)}'
            f"{seen})</span> {text_html(item.text, css='txt inline')}</div>",
            unsafe_allow_html=True,
        )
    elif kind == "rule_applied":
        what = "changed the labels" if item.changed else "changed nothing"
        st.markdown(
            f'<div class="tally">Rule <b>{escape(item.rule)}</b>: {what} '
            f"({escape(str(item.before))} → {escape(str(item.after))})</div>",
            unsafe_allow_html=True,
        )
    elif kind == "transcript_shortened":
        st.markdown(f'<div class="tally shortened">{escape(shortened_note(item))}</div>', unsafe_allow_html=True)
    elif kind == "human_timeout":
        st.markdown(f'<div class="tally human-timeout">⏱ {escape(item.message)}</div>', unsafe_allow_html=True)
    elif kind == "error":
        msg = f"{item.agent + ': ' if item.agent and item.agent not in item.message else ''}{item.message}"
        # a server's error text, or an imported events file: Markdown there would fetch images, show links
        (st.error if item.fatal else st.warning)(
            f"{escape(msg)}  \n{escape(item.hint)}".strip(), icon=":material/error:"
        )


def render_section(view: DebateView, sec: Any, debate_id: str) -> None:
    st.markdown(f'<div class="round-title">{escape(sec.title)}</div>', unsafe_allow_html=True)
    if sec.note and not (sec.phase == "evidence" and not sec.items):  # (that one: the evidence panel says it)
        st.caption(escape(sec.note))  # from the events, which may come from a file
    for kind, item in sec.items:
        render_item(view, kind, item, debate_id)


def render_sections(view: DebateView, debate_id: str, live: bool = False, replay: str | None = None) -> None:
    """The rounds; `live` when the debate is running now (a step-through or a blind copy of a stored one,
    which also lacks its end, is not waiting for anything); `replay`: said instead of "waiting" before the
    first round of a stored debate stepped through."""
    if not view.sections:
        st.caption(escape(replay) if replay is not None else "Waiting for the first round…")
    for sec in view.sections:
        render_section(view, sec, debate_id)
    last = view.sections[-1] if view.sections else None
    if live and last is not None and not last.items and view.finished is None and last.phase != "evidence":
        # the prompts are being put together (with the aids: the similar train tweets looked up), which on a
        # busy machine takes long enough that a round title over nothing reads as a stalled page
        st.caption(
            ":material/hourglass_top: Preparing this round's prompts; the first words appear here "
            "as soon as a model starts answering."
        )


def evidence_status(view: DebateView, running: bool | None = None) -> str:
    """What the evidence panel says while it has no passages. Until the debate has ended, retrieval may
    still be running (the viewer's own search runs beside the debate and can arrive late), so it says
    so; only an ended debate, or a note that retrieval gave up, says that there are none."""
    gave_up = next((sec.note for sec in view.sections if sec.phase == "evidence" and sec.note), "")
    if gave_up:
        return gave_up
    if running is None:
        running = view.finished is None
    settings = (view.started.settings or {}) if view.started else {}
    for_viewer = bool(view.started) and not settings.get("evidence_on", True)
    if running:
        return (
            "Searching for passages to show beside the debate… (the agents do not see them)"
            if for_viewer
            else "Searching for evidence…"
        )
    return "No evidence was retrieved for this debate." if for_viewer else "No passages were retrieved."


def evidence_title(view: DebateView) -> str:
    """A collapsed evidence panel's title: the same verdict the open panel gives (a count of passages
    shown, or that none passed the relevance floor), never a count the panel would contradict."""
    from debate.retrieval import provenance as prov

    if view.evidence:
        return f"Evidence ({len(view.evidence)} passages)"
    if prov.nothing_fits(view.evidence_event or {}):
        return "Evidence (no passage passed the relevance floor)"
    return "Evidence"


def flag_chip(p: dict) -> str:
    """A passage's "reads like an order" / "states a rating" chip; its reasons (retrieved text's judgement, so escaped) as the tooltip."""
    reason = flag_text(p)
    if not reason:
        return ""
    return f' <span class="chip-flag" title="{escape(reason)}">&#9888; {escape(reason)}</span>'


def passage_extra_html(view: DebateView, p: dict) -> str:
    """Under a passage: the language it is written in, and whether the verdict rests on it."""
    out = ""
    if p.get("lang"):
        out += f' <span class="meta">· {escape(at.language_name(str(p.get("lang"))))}</span>'
    note = at.passage_note(view.attribution, str(p.get("id", "")))
    if note:
        out += f'<div class="flag rests">&#9873; {escape(note)}</div>'
    return out


def render_evidence(view: DebateView, debate_id: str, running: bool | None = None, replay: str | None = None) -> None:
    """`replay`: what to say instead of a progress line while no passages are shown, for a stored debate
    stepped through (nothing is searching then)."""
    from debate.retrieval import provenance as prov

    st.markdown("#### Evidence")
    meta = view.evidence_event or {}
    if not meta and replay is not None:
        st.caption(escape(replay))  # (from the stored events: a file's text)
        return
    if not meta and view.evidence_progress:  # retrieval for the agents is running: each source's state so far
        st.markdown(prov.progress_html(view.evidence_progress), unsafe_allow_html=True)
        return
    if meta.get("sources") or meta.get("note") or meta.get("questions_note"):
        st.markdown(f'<div class="ev-sources">{prov.summary_html(meta)}</div>', unsafe_allow_html=True)
    if not view.evidence and prov.nothing_fits(meta):
        st.info(
            "No passage is about this claim: every passage found scored under the relevance floor, so "
            "none is shown" + (" and the agents argue without evidence." if view.evidence_in_prompts else "."),
            icon=":material/search_off:",
        )
        return
    if not view.evidence:
        st.caption(escape(replay) if replay is not None else evidence_status(view, running))
        return
    if prov.unfloored_note(meta):
        st.caption(escape(prov.unfloored_note(meta)))
    cited = view.cited()
    by_agent = prov.cited_by((t.agent, t.text) for t in view.turns.values())
    rows = []
    for p in view.evidence:
        pid = str(p.get("id", ""))
        src_html = prov.provenance_html(p, by_agent.get(pid)) + passage_extra_html(view, p)
        score = p.get("score")
        rows.append(
            f'<div class="passage{" cited" if pid in cited else ""}{" flagged" if flag_text(p) else ""}" '
            f'id="{anchor(debate_id, pid)}">'
            f'<div class="p-head"><b>&#91;{escape(pid)}&#93;</b> <span class="meta">score '
            f"{score:.3f}</span>{' <span class=chip-cited>cited</span>' if pid in cited else ''}"
            f"{flag_chip(p)}</div>"
            f'{text_html(str(p.get("text", "")))}<div class="src">{src_html}</div></div>'
            if isinstance(score, (int, float))
            else f'<div class="passage{" flagged" if flag_text(p) else ""}" id="{anchor(debate_id, pid)}">'
            f"<b>&#91;{escape(pid)}&#93;</b>{flag_chip(p)}"
            f'{text_html(str(p.get("text", "")))}<div class="src">{src_html}</div></div>'
        )
    held = [p for p in meta.get("dropped") or [] if isinstance(p, dict)]
    for p in held:  # held back by the setting: shown, never in a prompt
        rows.append(
            f'<div class="passage flagged held"><b>{escape(str(p.get("id", "")))}</b> '
            f'<span class="meta">held back from the prompts</span>{flag_chip(p)}'
            f"{text_html(str(p.get('text', '')))}</div>"
        )
    n_flagged, n_rated = flag_counts(view.evidence)
    flagged_note = f" · {n_flagged} read like an order (flagged; fenced as quoted data)" if n_flagged else ""
    flagged_note += f" · {n_rated} state a checker's rating (flagged)" if n_rated else ""
    flagged_note += f" · {len(held)} held back" if held else ""
    if view.evidence_in_prompts:
        st.caption(f"{len(view.evidence)} passages · {len(cited)} cited{flagged_note}")
    else:
        st.caption(
            f"{len(view.evidence)} passages, shown for reference: the agents did not see them "
            "(switch on “Give evidence to the agents” to ground the debate in them)."
        )
    st.markdown(f'<div class="evidence">{"".join(rows)}</div>', unsafe_allow_html=True)


def render_verdict(view: DebateView, gold: Any = None) -> None:
    v = view.verdict
    if v is None:
        return
    label = v.label
    labels = v.labels or {}
    gold = v.gold or gold
    headline = view.headline()  # a council: its votes as written and as counted, from the tally
    conf = escape(headline or verdict_number(v))
    chips = label_chip(label) if label else " ".join(f"cat {k}: {label_chip(x)}" for k, x in labels.items())
    if label is None and not labels:
        chips = '<span class="chip invalid">no verdict</span>'
    right = ""
    if gold:
        correct = v.correct
        if correct is None and label is not None and isinstance(gold, str):
            correct = str(label).upper() == gold.upper()
        mark = (
            ""
            if correct is None
            else ('<span class="chip green">right</span>' if correct else '<span class="chip red">wrong</span>')
        )
        right = f'<div class="gold">Gold label: {label_chip(str(gold) if isinstance(gold, str) else None) or escape(str(gold))} {mark}</div>'
    src = f'<span class="meta">by {escape(v.source)}</span>' if v.source else ""
    # a contradicted label is always flagged; a vote share is not a probability, so it contradicts nothing
    shares = getattr(v, "basis", "") in ("votes", "samples") or (not getattr(v, "basis", "") and v.source == "majority")
    odd = None if shares else disagreement(label, v.confidence, getattr(v, "probs", None))
    right += f'<div class="gold">⚠ {escape(odd)}</div>' if odd else ""
    right += vote_comparison_html(view)
    right += attribution_html(view)
    right += people_view.verdict_line(getattr(view.started, "debate_id", "") or "")  # a person's own verdict
    words = verdicts.verdict_words_html(v, view.started)
    vv = view.verdict_view  # the reason as every view states it: words, never a JSON list; a budget cut marked
    cut = f'<div class="cut-off">{escape(vv.cut)}</div>' if vv is not None and vv.cut else ""
    st.markdown(
        f'<div class="verdict-card"><div class="v-head"><span class="v-title">Verdict</span> {chips} '
        f'<span class="{"v-headline" if headline else "meta"}">{conf}</span> {src}</div>{words}{right}'
        f"{text_html((vv.reason if vv is not None else '') or '(no explanation given)')}{cut}</div>",
        unsafe_allow_html=True,
    )


def attribution_html(view: DebateView) -> str:
    """The verdict card's lines on which passages the verdict rests on (debate.retrieval.attribution): the
    re-reads' progress while they run after the verdict, then the passages named, with the verdict without
    them, and, when one suspicious passage alone decides it, both verdicts and why ("contested")."""
    ev = view.attribution
    if not ev:
        prog = view.attribution_progress
        if prog and view.finished is None:
            return (
                f'<div class="gold attribution">Which passages the verdict rests on: re-reading '
                f"{int(prog.get('done') or 0)} of {int(prog.get('total') or 0)}…</div>"
            )
        return ""
    out = f'<div class="gold attribution">{escape(at.rests_sentence(ev))}</div>'
    if ev.get("contested"):
        out += f'<div class="gold attribution contested">&#9888; {escape(at.contested_sentence(ev))}</div>'
    return out


def vote_comparison_html(view: DebateView) -> str:
    """The verdict card's line(s) on the debate against a plain majority of its first answers."""
    comps = view.vote_comparisons
    out = []
    for c in comps:
        line = outcome.comparison_sentence(c, view.rounds)
        where = f"category {c.category}: " if len(comps) > 1 and c.category is not None else ""
        basis = (
            f" (without the debate there were only the sides the debaters were given, one for and one against: "
            f"an even split, which the tie rule gives to {c.vote_label})"
            if c.basis == "assigned sides"
            else ""
        )
        if c.outcome != "unanimous" and outcome.first_counted_otherwise(c, view.rounds):  # (unanimous says it)
            basis = " (the first votes as counted from the members' probabilities)"
        out.append(f'<div class="gold vote-vs">Debate vs. vote: {escape(where + line + basis)}</div>')
    return "".join(out)


def render_counters(view: DebateView, elapsed: float | None = None) -> None:
    c = view.counters()
    cols = st.columns(4)
    cols[0].metric("Tokens", f"{int(c['tokens']):,}")
    cols[1].metric("Model calls", int(c["model_calls"]))
    cols[2].metric("Cache hits", int(c["cache_hits"]))
    cols[3].metric("Elapsed", f"{(elapsed if elapsed is not None else c['elapsed']):.1f} s")


def render_ran(started: Any) -> None:
    """Under a debate: the settings it ran, from its own start event (not from the widgets as they are now)."""
    if started is not None:
        st.caption(":material/tune: " + settings_line(started))


def render_claim(view: DebateView, row: dict | None = None) -> None:
    s = view.started
    claim = (s.claim if s else "") or (row or {}).get("claim", "")
    status = (row or {}).get("status") if view.finished is None and row else view.status
    text, color, icon = STATUS_BADGE.get(status or "waiting", STATUS_BADGE["waiting"])
    meta = []
    if s:
        meta = [s.protocol, s.task] + ([f"category {s.category}"] if s.category else [])
    st.markdown(
        f'<div class="claim-card"><div class="meta">{escape(" · ".join(m for m in meta if m))}</div>'
        f"{text_html(claim, css='claim-text')}</div>",
        unsafe_allow_html=True,
    )
    st.badge(text, color=color, icon=icon)
    render_ran(s)
    if view.finished is not None and view.finished.stop_reason:
        st.caption(f"Stop reason: {escape(view.finished.stop_reason)}")


def render_debate(
    view: DebateView,
    debate_id: str,
    *,
    row: dict | None = None,
    gold: Any = None,
    elapsed: float | None = None,
    chart_key: str = "",
) -> None:
    """The whole debate: claim, counters, verdict, rounds on the left; charts and evidence beside."""
    render_claim(view, row)
    render_counters(view, elapsed)
    render_verdict(view, gold)
    left, right = st.columns([3, 2], gap="large")
    with right:
        render_side(view, debate_id, chart_key, running=None if row is None else row.get("status") == "running")
    with left:
        render_sections(view, debate_id, live=view.finished is None if row is None else row.get("status") == "running")


def render_stop_checks(view: DebateView, key: str) -> None:
    """RADAR's stop checks as a chart, or, when this debate ran without early stopping, a line saying so:
    an empty chart promising "the first stop check comes after the opening round" would contradict the
    settings the debate ran with."""
    params = (view.started.settings.get("params") or {}) if view.started else {}
    if not view.stop_checks and params.get("early_stop") is False:
        st.caption(
            "Early stopping is off for this debate (early_stop = false, as the live-demo pace sets it "
            "so that RADAR argues its one rebuttal round out): no stop checks. With the live-demo pace "
            "off, RADAR runs the papers' stop agent and round judge after every round."
        )
        return
    st.plotly_chart(charts.stop_figure(view.stop_checks), key=key, config={"displayModeBar": False})


def render_side(view: DebateView, debate_id: str, chart_key: str = "", running: bool | None = None) -> None:
    """The column beside the rounds: vote and stop-check charts, then the evidence."""
    protocol = view.started.protocol if view.started else ""
    if view.tallies or protocol == "council":
        st.markdown("#### Votes")
        st.plotly_chart(
            charts.tally_figure(view.tallies), key=f"tally-{chart_key or debate_id}", config={"displayModeBar": False}
        )
    if view.stop_checks or protocol.startswith("radar"):
        st.markdown("#### Early-stop checks")
        render_stop_checks(view, f"stop-{chart_key or debate_id}")
    render_evidence(view, debate_id, running)
