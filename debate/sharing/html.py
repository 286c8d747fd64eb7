"""A debate as one self-contained HTML file: opens from disk, offline, anywhere.

Why hand-written HTML and SVG: the file must load nothing (no scripts, styles, fonts or images from
anywhere; a Content-Security-Policy in the file enforces it), so the vote chart is drawn as inline SVG
instead of plotly's 3 MB of JavaScript. Everything a model, a person or a dataset wrote is escaped with
html.escape before it is placed in the page; the only markup is ours. Each text is cut at MAX_TEXT
characters so a runaway answer cannot make the file unusable. Sections carry ids `round-N` so a link
to `file.html#round-2` opens at that round.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from debate import outcome
from debate.events import Event
from debate.live.pace import settings_line
from debate.retrieval import attribution as at
from debate.retrieval import provenance as prov
from debate.retrieval.safety import flag_text
from debate.sanitize import plain_text
from debate.tasks import (
    cut_off_mark,
    echoed_mark,
    override_note,
    stop_confidence_words,
    turn_number,
    verdict_number,
    verdict_sentences,
)

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


def to_html(events: Iterable[Event | dict], title: str = "", people: dict | None = None) -> str:
    """The whole debate as one HTML document (no external resources); `people`: a person's verdict and the
    audience poll (debate.store.people.export), shown after the verdict."""
    ds = [e.to_dict() if isinstance(e, Event) else dict(e) for e in events]
    started = next((e for e in ds if e.get("type") == "debate_started"), {})
    evidence = next((e for e in ds if e.get("type") == "evidence"), None)
    passages = list((evidence or {}).get("passages") or [])
    known = {str(p.get("id")) for p in passages}
    tallies = [e for e in ds if e.get("type") == "votes_tallied"]
    verdicts = [e for e in ds if e.get("type") == "verdict"]
    rounds = outcome.council_rounds(ds)  # votes, the chair's status and the verdict as the card states them
    votes, chairs, tallied = outcome.counted_votes(ds), outcome.chair_tags(ds), iter(rounds)
    finished = next((e for e in reversed(ds) if e.get("type") == "finished"), None)
    attribution = next((e for e in reversed(ds) if e.get("type") == "attribution"), None)
    did = started.get("debate_id", "")
    meta = " · ".join(
        _e(x)
        for x in (
            started.get("protocol"),
            started.get("task"),
            f"category {started['category']}" if started.get("category") else "",
            f"lineup {(started.get('settings') or {}).get('lineup_name', '')}",
            started.get("created_at"),
        )
        if x
    )
    ran = f'<div class="meta">{_e(settings_line(started))}</div>' if started else ""
    body = [
        f'<h1>Debate {_e(did)}</h1><div class="meta">{meta}</div>{ran}',
        f'<div class="card claim">{_text(started.get("claim", ""), set())}</div>',
    ]
    fork = started.get("forked_from")
    if fork:
        body.append(
            f'<p class="meta">Fork of debate {_e(fork.get("debate_id"))} after round {_e(fork.get("round"))}; '
            "the turns up to there are the parent's (marked “replayed”).</p>"
        )
    if finished and finished.get("status") != "completed":
        body.append(
            f'<div class="err">This debate {_e(finished.get("status"))}: {_e(finished.get("stop_reason"))}</div>'
        )
    for v in verdicts[-1:]:
        label = (
            v.get("label")
            if v.get("labels") is None
            else ", ".join(f"category {k}: {x}" for k, x in v["labels"].items())
        )
        number = outcome.verdict_headline(v, rounds) or verdict_number(v)
        conf = f" · {_e(number)}" if number else ""
        gold = ""
        if v.get("gold"):
            gold = f"<div>Gold label: {_chip(v['gold'])} {'right' if v.get('correct') else 'wrong' if v.get('correct') is False else ''}</div>"
        said = "".join(f'<div class="sentence">{_e(x)}</div>' for x in verdict_sentences(v, started))
        second = outcome.reading(v).second_opinion()  # a second opinion, named as such; not a warning
        over = f'<div class="{"meta" if second else "err"}">{_e(override_note(v))}</div>' if override_note(v) else ""
        body.append(
            f'<h2 id="verdict">Verdict</h2><div class="card verdict"><div class="big">{_chip(label) or "no verdict"}'
            f'</div>{said}{over}<div class="meta">by {_e(v.get("source"))}{conf}</div>{gold}'
            f"{_attribution_html(attribution)}"
            f'<div class="txt">{_text(v.get("explanation", ""), known)}</div></div>'
        )
    body += _people_html(people or {})
    if tallies:
        body.append(f'<h2 id="votes">Votes per round</h2><div class="card">{vote_chart_svg(tallies)}</div>')
    body.append('<h2 id="transcript">Transcript</h2>')
    for e in ds:
        kind = e.get("type")
        if kind == "phase_started":
            body.append(
                f'<h2 id="round-{_e(e.get("round"))}-{_e(e.get("phase"))}">{_e(e.get("title") or e.get("phase"))}</h2>'
                + (f'<div class="meta">{_e(e.get("note"))}</div>' if e.get("note") else "")
            )
            if e.get("phase") not in NOT_ROUND_ANCHORS:
                body.append(f'<a id="round-{_e(e.get("round"))}"></a>')
        elif kind == "turn_finished":
            conf = f" · {_e(turn_number(e))}" if turn_number(e) else ""
            tid = str(e.get("turn_id") or "")
            label_html = _chip(e.get("label"))
            if tid in chairs and e.get("valid", True):  # the tally's state, not the chair's own status field
                label_html, conf = _chip(chairs[tid].label), f" · {_e(outcome.chair_words(chairs[tid]))}"
            elif tid in votes and votes[tid].differs:
                label_html = f"{_chip(votes[tid].counted)} <b>{_e(outcome.vote_words(votes[tid]))}</b>"
            flags = [] if e.get("valid", True) else ["invalid answer"]
            flags += ["repaired"] * bool(e.get("repaired")) + ["replayed from the parent"] * bool(e.get("replayed"))
            flags += ["written by a person"] * bool(e.get("human"))
            flags += [cut_off_mark(e.get("cut_off_at"), e.get("shortened") or "")] * bool(
                e.get("cut_off_at") or e.get("shortened")
            )
            flags += [echoed_mark(str(e.get("echoed_format")))] * bool(e.get("echoed_format"))
            body.append(
                f'<div class="card turn{" replayed" if e.get("replayed") else ""}"><span class="who">'
                f'{_e(e.get("agent"))}</span> <span class="meta">{_e(e.get("role"))} · {_e(e.get("model"))} · '
                f"{_e(e.get('phase'))} {_e(e.get('round'))}</span> {label_html}"
                f'<span class="meta">{conf} {_e(", ".join(flags))}</span>'
                f'<div class="txt">{_text(e.get("text", ""), known)}</div></div>'
            )
        elif kind == "moderator":
            seen = "" if e.get("seen", True) else " (arrived after the last turn: no agent read it)"
            body.append(
                f'<div class="mod"><b>Moderator</b> <span class="meta">({_e(e.get("source"))}, from '
                f'{_e(e.get("phase"))} round {_e(e.get("round"))}{seen})</span><div class="txt">'
                f"{_text(e.get('text', ''), set())}</div></div>"
            )
        elif kind == "votes_tallied":
            counts = ", ".join(f"{_e(k)} {_e(n)}" for k, n in (e.get("counts") or {}).items())
            rv = next(tallied, None)
            counts = f"<b>{_e(rv.headline())}</b>" if rv is not None and rv.differs else counts
            body.append(
                f'<div class="tally">Votes, round {_e(e.get("round"))}: {counts} · consensus '
                f"{float(e.get('consensus_share') or 0):.0%} vs θ {float(e.get('threshold') or 0):.0%} · "
                f"{'reached' if e.get('reached') else 'not reached'} · majority {_e(e.get('majority'))}</div>"
            )
        elif kind == "chair_summary":
            body.append(
                f'<div class="tally"><b>Chair ({_e(e.get("agent"))})</b>: {_text(e.get("summary", ""), known)}</div>'
            )
        elif kind == "stop_check":
            body.append(
                f'<div class="stop">Stop check after round {_e(e.get("round"))} ({_e(e.get("method"))}): margin '
                f"{float(e.get('stop_margin') or 0):+.2f} vs τs {float(e.get('tau_s') or 0):.2f}, "
                f"{_e(stop_confidence_words(e))} vs τc {float(e.get('tau_c') or 0):.2f} → "
                f"{_e(str(e.get('decision', '')).upper())} (preliminary {_e(e.get('preliminary_verdict'))})</div>"
            )
        elif kind == "human_timeout":
            body.append(f'<div class="tally">{_e(e.get("message"))}</div>')
        elif kind == "rule_applied":
            body.append(
                f'<div class="tally">Rule {_e(e.get("rule"))}: {_e(e.get("before"))} → {_e(e.get("after"))}</div>'
            )
        elif kind == "error":
            body.append(f'<div class="err">{_e(e.get("error"))}: {_e(e.get("message"))} {_e(e.get("hint"))}</div>')
    if evidence and (evidence.get("sources") or evidence.get("note")) and not passages:
        body.append(f'<h2 id="evidence">Evidence</h2><div class="meta">{prov.summary_html(evidence)}</div>')
    if passages:
        body.append(
            f'<h2 id="evidence">Evidence ({len(passages)} passages'
            f"{'' if (evidence or {}).get('in_prompts', True) else ', shown for reference; the agents did not see them'})</h2>"
        )
        if evidence and (evidence.get("sources") or evidence.get("note")):  # (passages come with it)
            body.append(f'<div class="meta">{prov.summary_html(evidence)}</div>')
        by_agent = prov.cited_by(
            (str(e.get("agent") or ""), str(e.get("text") or "")) for e in ds if e.get("type") == "turn_finished"
        )
        for p in passages:
            link = prov.provenance_html(p, by_agent.get(str(p.get("id"))))
            score = f" · score {float(p['score']):.3f}" if isinstance(p.get("score"), (int, float)) else ""
            flag = f'<div class="flag">&#9888; {_e(flag_text(p))}</div>' if flag_text(p) else ""
            if at.passage_note(attribution, str(p.get("id"))):
                flag += f'<div class="flag">&#9873; {_e(at.passage_note(attribution, str(p.get("id"))))}</div>'
            if p.get("lang"):
                score += f" · {_e(at.language_name(str(p.get('lang'))))}"
            body.append(
                f'<div class="card passage" id="ev-{_e(p.get("id"))}"><b>[{_e(p.get("id"))}]</b>'
                f'<span class="meta">{score}</span>{flag}<div class="txt">{_text(p.get("text", ""), set())}</div>'
                f'<div class="src">Source: {link}</div></div>'
            )
        for p in (evidence or {}).get("dropped") or []:
            if isinstance(p, dict):
                body.append(
                    f'<div class="card passage"><b>{_e(p.get("id"))}</b> <span class="meta">held back from '
                    f'the prompts</span><div class="flag">&#9888; {_e(flag_text(p))}</div>'
                    f'<div class="txt">{_text(p.get("text", ""), set())}</div></div>'
                )
    if started.get("lineup"):
        rows = "".join(
            f"<tr><td>{_e(a.get('agent'))}</td><td>{_e(a.get('role'))}</td><td>{_e(a.get('model'))}</td>"
            f"<td>{_e(a.get('temperature'))}</td><td>{_e(a.get('seed'))}</td></tr>"
            for a in started["lineup"]
        )
        body.append(
            f'<h2 id="lineup">Lineup</h2><table><tr><th>agent</th><th>role</th><th>model</th>'
            f"<th>temperature</th><th>seed</th></tr>{rows}</table>"
        )
    if finished:
        body.append(
            f'<p class="meta">{_e(finished.get("status"))} · {_e(finished.get("model_calls"))} model calls · '
            f"{int(finished.get('prompt_tokens') or 0) + int(finished.get('completion_tokens') or 0):,} tokens · "
            f"{float(finished.get('wall_s') or 0):.1f} s · exported by the debate viewer</p>"
        )
    head = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title or 'Debate ' + did)}</title><style>{CSS}</style></head><body><main>"
    )
    return head + "".join(body) + "</main></body></html>\n"


NOT_ROUND_ANCHORS = ("fork", "evidence", "category", "closing", "judge", "stop-check", "round-judge")
