"""A debate as one self-contained HTML file: opens from disk, offline, anywhere.

Why hand-written HTML and SVG: the file must load nothing (no scripts, styles, fonts or images from
anywhere; a Content-Security-Policy in the file enforces it), so the vote chart is drawn as inline SVG
instead of plotly's 3 MB of JavaScript. Everything a model, a person or a dataset wrote is escaped with
html.escape before it is placed in the page; the only markup is ours. What the page says is read from the
one transcript view (debate/view.py), as the app, the terminal and the Markdown export read it. Each text
is cut at MAX_TEXT characters so a runaway answer cannot make the file unusable. Sections carry ids `round-N` so a link
to `file.html#round-2` opens at that round.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from typing import Any

from debate.events import Event
from debate.live.pace import settings_line
from debate.retrieval import attribution as at
from debate.retrieval import provenance as prov
from debate.retrieval.safety import flag_text
from debate.sanitize import plain_text, unmarked
from debate.tasks import echoed_mark, stop_confidence_words, turn_number
from debate.view import DebateView, build_view

MAX_TEXT = 20_000
_CITE = re.compile(r"\[(E\d{1,3})\]")
LABEL_COLORS = {
    "YES": "#2E9D57",
    "TRUE": "#2E9D57",
    "NO": "#D64545",
    "FALSE": "#D64545",
    "HALF-TRUE": "#E8A33D",
    "NEI": "#8C8C8C",
}
_EXTRA = ("#4C78A8", "#B279A2", "#72B7B2", "#9D755D")
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

CSS = """
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1b1d21}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:1.4em;margin:0 0 8px} h2{font-size:1.15em;margin:28px 0 8px;border-bottom:1px solid #ddd}
.meta{color:#666;font-size:.85em} .card{background:#fff;border:1px solid #e1e4e8;border-radius:8px;padding:12px 16px;margin:8px 0}
.claim{font-size:1.1em;white-space:pre-wrap} .turn{border-left:4px solid #4C78A8}
.who{font-weight:700} .txt{white-space:pre-wrap;margin-top:4px}
.chip{display:inline-block;padding:0 8px;border-radius:10px;color:#fff;font-size:.8em;font-weight:700;background:#8C8C8C}
.tally,.stop{background:#eef2f7;border-radius:6px;padding:6px 10px;margin:6px 0;font-size:.92em}
.mod{background:#fff7e0;border:1px solid #e8c35a;border-radius:8px;padding:8px 12px;margin:8px 0}
.verdict{border:2px solid #1b1d21} .verdict .big{font-size:1.6em;font-weight:800} .verdict .sentence{font-weight:700}
.err{background:#fde8e8;border:1px solid #d64545;border-radius:6px;padding:6px 10px}
.passage{font-size:.92em} .flag{color:#8A1C1C;font-weight:700} .src{color:#555;font-size:.85em;word-break:break-all}
table{border-collapse:collapse;font-size:.9em} td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}
.replayed{opacity:.75} a.cite{text-decoration:none;font-weight:700}
@media print{body{background:#fff}}
"""


def _e(text: object) -> str:
    """Escaped for HTML, with control characters removed and bidi controls shown (sanitize.plain_text)."""
    return html.escape(plain_text(text), quote=True)


def _text(text: str, known: set[str]) -> str:
    """Escaped text; [E#] citations of known passages become links to the evidence list."""
    s = str(text or "")
    cut = ""
    if len(s) > MAX_TEXT:
        s, cut = s[:MAX_TEXT], f" … [{len(str(text)) - MAX_TEXT:,} more characters cut in this export]"
    out, pos = [], 0
    for m in _CITE.finditer(s):
        out.append(_e(s[pos : m.start()]))
        pid = m.group(1)
        out.append(f'<a class="cite" href="#ev-{pid}">[{pid}]</a>' if pid in known else _e(m.group(0)))
        pos = m.end()
    out.append(_e(s[pos:]) + _e(cut))
    return "".join(out)


def _chip(label: object) -> str:
    if label is None or label == "":
        return ""
    color = LABEL_COLORS.get(str(label).upper(), "#8C8C8C")
    return f'<span class="chip" style="background:{color}">{_e(label)}</span>'


def vote_chart_svg(tallies: list[dict], width: int = 520, height: int = 220) -> str:
    """Stacked vote counts per round and the consensus share against the threshold, as inline SVG."""
    if not tallies:
        return ""
    labels: list[str] = []
    for t in tallies:
        for k in t.get("counts") or {}:
            if k not in labels:
                labels.append(k)
    invalid = [sum(1 for v in (t.get("votes") or {}).values() if v is None) for t in tallies]
    colors = {k: LABEL_COLORS.get(k.upper(), _EXTRA[i % len(_EXTRA)]) for i, k in enumerate(labels)}
    totals = [sum((t.get("counts") or {}).values()) + inv for t, inv in zip(tallies, invalid)]
    top = max(totals + [1])
    left, right, upper, lower = 36, 44, 26, 28
    plot_w, plot_h = width - left - right, height - upper - lower
    step = plot_w / len(tallies)
    bar = min(48.0, step * 0.6)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="votes per round">',
        f'<rect width="{width}" height="{height}" fill="#fff"/>',
    ]
    for i, t in enumerate(tallies):
        x = left + step * i + (step - bar) / 2
        y = upper + plot_h
        segs = [(k, (t.get("counts") or {}).get(k, 0), colors[k]) for k in labels] + [
            ("invalid", invalid[i], "#C9C9C9")
        ]
        for k, n, color in segs:
            if not n:
                continue
            h = plot_h * n / top
            y -= h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" fill="{color}">'
                f"<title>round {_e(t.get('round'))}: {_e(k)} {n}</title></rect>"
            )
        parts.append(
            f'<text x="{x + bar / 2:.1f}" y="{height - 10}" font-size="12" text-anchor="middle">'
            f"R{_e(t.get('round'))}</text>"
        )
    pts = []
    for i, t in enumerate(tallies):
        x = left + step * i + step / 2
        pts.append(f"{x:.1f},{upper + plot_h * (1 - float(t.get('consensus_share') or 0)):.1f}")
    thr = float(tallies[-1].get("threshold") or 0)
    ty = upper + plot_h * (1 - thr)
    parts.append(
        f'<line x1="{left}" x2="{left + plot_w}" y1="{ty:.1f}" y2="{ty:.1f}" stroke="#999" '
        f'stroke-dasharray="5 4"/><text x="{left + plot_w + 4}" y="{ty + 4:.1f}" font-size="11">θ {thr:.0%}</text>'
    )
    parts.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="#333" stroke-width="2"/>')
    for p in pts:
        cx, cy = p.split(",")
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="3" fill="#333"/>')
    parts.append(f'<text x="4" y="{upper - 8}" font-size="11">votes (bars, max {top}) · consensus (line)</text>')
    legend = " ".join(
        f'<tspan fill="{colors.get(k, "#C9C9C9")}">■</tspan> {_e(k)}'
        for k in labels + (["invalid"] if any(invalid) else [])
    )
    parts.append(f'<text x="{width - 4}" y="{upper - 8}" font-size="11" text-anchor="end">{legend}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _people_html(people: dict) -> list[str]:
    """A person's own verdict beside the judge's, and the audience poll's tallies and swing."""
    out = []
    o = (people.get("overrules") or [None])[0]
    if o:
        out.append(
            f'<h2 id="person-verdict">A person\'s verdict</h2><div class="card verdict"><div class="big">'
            f'{_chip(o.get("label"))}</div><div class="meta">the judge: {_e(o.get("judge_label"))}'
            f"{' · they disagree' if o.get('disagrees') else ''} · {_e(o.get('created_at'))}</div>"
            f'<div class="txt">{_text(o.get("reason", ""), set())}</div></div>'
        )
    p = people.get("poll")
    if p:
        rows = "".join(
            f"<tr><td>{_e(lab)}</td><td>{_e((p.get('before') or {}).get(lab, 0))}</td>"
            f"<td>{_e((p.get('after') or {}).get(lab, 0))}</td><td>"
            f"{_e(format(float((p.get('swing') or {}).get(lab, 0.0)), '+.0%')) if p.get('swing') else ''}</td></tr>"
            for lab in p.get("labels") or []
        )
        out.append(
            f'<h2 id="poll">Audience poll</h2><table><tr><th>option</th><th>before</th><th>after</th>'
            f"<th>swing</th></tr>{rows}</table>"
        )
    return out


def _attribution_html(ev: dict | None) -> str:
    """The verdict card's lines on which passages the verdict rests on, and a contested verdict's both verdicts."""
    if not ev:
        return ""
    out = f'<div class="sentence">{_e(at.rests_sentence(ev))}</div>'
    if ev.get("contested"):
        out += f'<div class="err">&#9888; {_e(at.contested_sentence(ev))}</div>'
    return out


def _head_html(view: DebateView) -> list[str]:
    """The title, what ran, the claim, a fork's parent and a debate that did not complete."""
    s, f = view.started, view.finished
    settings = (getattr(s, "settings", None) or {}) if s is not None else {}
    meta = " · ".join(
        _e(x)
        for x in (
            getattr(s, "protocol", ""),
            getattr(s, "task", ""),
            f"category {s.category}" if s is not None and s.category else "",
            f"lineup {settings.get('lineup_name', '')}",
            getattr(s, "created_at", ""),
        )
        if x
    )
    ran = f'<div class="meta">{_e(settings_line(s))}</div>' if s is not None else ""
    out = [
        f'<h1>Debate {_e(getattr(s, "debate_id", ""))}</h1><div class="meta">{meta}</div>{ran}',
        f'<div class="card claim">{_text(getattr(s, "claim", ""), set())}</div>',
    ]
    fork = getattr(s, "forked_from", None)
    if fork:
        out.append(
            f'<p class="meta">Fork of debate {_e(fork.get("debate_id"))} after round {_e(fork.get("round"))}; '
            "the turns up to there are the parent's (marked “replayed”).</p>"
        )
    if f is not None and f.status != "completed":
        out.append(f'<div class="err">This debate {_e(f.status)}: {_e(f.stop_reason)}</div>')
    return out


def _verdict_html(view: DebateView, known: set[str]) -> list[str]:
    v = view.verdict_view
    if v is None:
        return []
    conf = f" · {_e(v.number)}" if v.number else ""
    gold = ""
    if v.gold:
        right = "right" if v.correct else "wrong" if v.correct is False else ""
        gold = f"<div>Gold label: {_chip(v.gold)} {right}</div>"
    said = "".join(f'<div class="sentence">{_e(x)}</div>' for x in v.sentences)
    over = f'<div class="{"meta" if v.second_opinion else "err"}">{_e(v.override)}</div>' if v.override else ""
    over += f'<div class="err">{_e(v.reason_apart)}</div>' if v.reason_apart else ""
    cut = f'<div class="meta">{_e(v.cut)}</div>' if v.cut else ""
    return [
        f'<h2 id="verdict">Verdict</h2><div class="card verdict"><div class="big">{_chip(v.label) or "no verdict"}'
        f'</div>{said}{over}<div class="meta">by {_e(v.source)}{conf}</div>{gold}'
        f"{_attribution_html(view.attribution or None)}"
        f'<div class="txt">{_text(v.reason, known)}</div>{cut}</div>'
    ]


def _turn_html(view: DebateView, tid: str, known: set[str]) -> str:
    t = view.turns[tid]
    if not t.done:
        return ""
    conf = f" · {_e(turn_number(t))}" if turn_number(t) else ""
    label_html = _chip(t.label)
    if t.chair is not None and t.valid:  # the tally's state, not the chair's own status field
        label_html, conf = _chip(t.chair.label), f" · {_e(t.label_words())}"
    elif t.label_words():
        label_html = f"{_chip(t.counted)} <b>{_e(t.label_words())}</b>"
    flags = [] if t.valid else ["invalid answer"]
    flags += ["repaired"] * t.repaired + ["replayed from the parent"] * t.replayed + ["written by a person"] * t.human
    flags += [t.cut_note()] * bool(t.cut_note()) + [echoed_mark(t.echoed_format)] * bool(t.echoed_format)
    flags += [t.begun_note()] * bool(t.begun)
    return (
        f'<div class="card turn{" replayed" if t.replayed else ""}"><span class="who">'
        f'{_e(t.agent)}</span> <span class="meta">{_e(t.role)} · {_e(t.model)} · '
        f"{_e(t.phase)} {_e(t.round)}</span> {label_html}"
        f'<span class="meta">{conf} {_e(", ".join(flags))}</span>'
        f'<div class="txt">{_text(t.words(), known)}</div></div>'
    )


def _tally_html(view: DebateView, e: Any) -> str:
    counts = ", ".join(f"{_e(k)} {_e(n)}" for k, n in (e.counts or {}).items())
    rv = view.round_of(e)
    counts = f"<b>{_e(rv.headline())}</b>" if rv is not None and rv.differs else counts
    kept = f" · {_e(rv.kept_note())}" if rv is not None and rv.kept else ""
    return (
        f'<div class="tally">Votes, round {_e(e.round)}: {counts} · consensus {e.consensus_share:.0%} vs θ '
        f"{e.threshold:.0%} · {'reached' if e.reached else 'not reached'} · majority {_e(e.majority)}{kept}</div>"
    )


def _stop_html(view: DebateView, e: Any) -> str:
    return (
        f'<div class="stop">Stop check after round {_e(e.round)} ({_e(e.method)}): margin {e.stop_margin:+.2f} vs '
        f"τs {e.tau_s:.2f}, {_e(stop_confidence_words(e))} vs τc {e.tau_c:.2f} → {_e(str(e.decision).upper())} "
        f"(preliminary {_e(e.preliminary_verdict)})</div>"
    )


def _moderator_html(view: DebateView, e: Any) -> str:
    seen = "" if e.seen else " (arrived after the last turn: no agent read it)"
    return (
        f'<div class="mod"><b>Moderator</b> <span class="meta">({_e(e.source)}, from {_e(e.phase)} round '
        f'{_e(e.round)}{seen})</span><div class="txt">{_text(unmarked(e.text), set())}</div></div>'
    )


_ITEMS: dict[str, Callable[[DebateView, Any], str]] = {
    "votes_tallied": _tally_html,
    "stop_check": _stop_html,
    "moderator": _moderator_html,
    "chair_summary": lambda v, e: (
        f'<div class="tally"><b>Chair ({_e(e.agent)})</b>: '
        f"{_text(unmarked(e.summary), {str(p.get('id')) for p in v.evidence})}</div>"
    ),
    "human_timeout": lambda v, e: f'<div class="tally">{_e(e.message)}</div>',
    "rule_applied": lambda v, e: f'<div class="tally">Rule {_e(e.rule)}: {_e(e.before)} → {_e(e.after)}</div>',
    "error": lambda v, e: f'<div class="err">{_e(e.error)}: {_e(e.message)} {_e(e.hint)}</div>',
}


def _sections_html(view: DebateView, known: set[str]) -> list[str]:
    out = ['<h2 id="transcript">Transcript</h2>']
    for sec in view.sections:
        if sec.phase != "start":
            out.append(
                f'<h2 id="round-{_e(sec.round)}-{_e(sec.phase)}">{_e(sec.title)}</h2>'
                + (f'<div class="meta">{_e(sec.note)}</div>' if sec.note else "")
            )
            if sec.phase not in NOT_ROUND_ANCHORS:
                out.append(f'<a id="round-{_e(sec.round)}"></a>')
        for kind, item in sec.items:
            if kind == "turn":
                out.append(_turn_html(view, item, known))
            elif kind in _ITEMS:
                out.append(_ITEMS[kind](view, item))
    return out


def _passage_html(p: dict, attribution: dict | None, by_agent: dict[str, list[str]]) -> str:
    link = prov.provenance_html(p, by_agent.get(str(p.get("id"))))
    score = f" · score {float(p['score']):.3f}" if isinstance(p.get("score"), (int, float)) else ""
    flag = f'<div class="flag">&#9888; {_e(flag_text(p))}</div>' if flag_text(p) else ""
    if at.passage_note(attribution, str(p.get("id"))):
        flag += f'<div class="flag">&#9873; {_e(at.passage_note(attribution, str(p.get("id"))))}</div>'
    if p.get("lang"):
        score += f" · {_e(at.language_name(str(p.get('lang'))))}"
    return (
        f'<div class="card passage" id="ev-{_e(p.get("id"))}"><b>[{_e(p.get("id"))}]</b>'
        f'<span class="meta">{score}</span>{flag}<div class="txt">{_text(p.get("text", ""), set())}</div>'
        f'<div class="src">Source: {link}</div></div>'
    )


def _evidence_html(view: DebateView) -> list[str]:
    ev, passages = view.evidence_event, view.evidence
    summary = f'<div class="meta">{prov.summary_html(ev)}</div>' if ev.get("sources") or ev.get("note") else ""
    if not passages:
        return [f'<h2 id="evidence">Evidence</h2>{summary}'] if summary else []
    seen = "" if view.evidence_in_prompts else ", shown for reference; the agents did not see them"
    out = [f'<h2 id="evidence">Evidence ({len(passages)} passages{seen})</h2>', summary]
    by_agent = prov.cited_by((t.agent, t.text) for t in view.done_turns())
    out += [_passage_html(p, view.attribution or None, by_agent) for p in passages]
    out += [
        f'<div class="card passage"><b>{_e(p.get("id"))}</b> <span class="meta">held back from '
        f'the prompts</span><div class="flag">&#9888; {_e(flag_text(p))}</div>'
        f'<div class="txt">{_text(p.get("text", ""), set())}</div></div>'
        for p in ev.get("dropped") or []
        if isinstance(p, dict)
    ]
    return out


def _tail_html(view: DebateView) -> list[str]:
    """The lineup and what the debate cost."""
    out, f = [], view.finished
    lineup = getattr(view.started, "lineup", None) or []
    if lineup:
        rows = "".join(
            f"<tr><td>{_e(a.get('agent'))}</td><td>{_e(a.get('role'))}</td><td>{_e(a.get('model'))}</td>"
            f"<td>{_e(a.get('temperature'))}</td><td>{_e(a.get('seed'))}</td></tr>"
            for a in lineup
        )
        out.append(
            f'<h2 id="lineup">Lineup</h2><table><tr><th>agent</th><th>role</th><th>model</th>'
            f"<th>temperature</th><th>seed</th></tr>{rows}</table>"
        )
    if f is not None:
        out.append(
            f'<p class="meta">{_e(f.status)} · {_e(f.model_calls)} model calls · '
            f"{int(f.prompt_tokens or 0) + int(f.completion_tokens or 0):,} tokens · "
            f"{float(f.wall_s or 0):.1f} s · exported by the debate viewer</p>"
        )
    return out


def render_html(view: DebateView, title: str = "", people: dict | None = None) -> str:
    """The view as one HTML document (no external resources); `people`: a person's verdict and the audience
    poll (debate.store.people.export), shown after the verdict."""
    known = {str(p.get("id")) for p in view.evidence}
    body = _head_html(view) + _verdict_html(view, known) + _people_html(people or {})
    if view.tallies:
        chart = vote_chart_svg([t.to_dict() for t in view.tallies])
        body.append(f'<h2 id="votes">Votes per round</h2><div class="card">{chart}</div>')
    body += _sections_html(view, known) + _evidence_html(view) + _tail_html(view)
    did = getattr(view.started, "debate_id", "") or ""
    head = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title or 'Debate ' + did)}</title><style>{CSS}</style></head><body><main>"
    )
    return head + "".join(body) + "</main></body></html>\n"


def to_html(events: Iterable[Event | dict], title: str = "", people: dict | None = None) -> str:
    """The whole debate (its events, or their dicts as stored) as one HTML document, through the one view."""
    return render_html(build_view(list(events)), title, people)


NOT_ROUND_ANCHORS = ("fork", "evidence", "category", "closing", "judge", "stop-check", "round-judge")
