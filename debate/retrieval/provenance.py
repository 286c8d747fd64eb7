"""Where a passage came from, as escaped HTML for the viewer and the exported page: a badge for its
source, its title (linked when it has a web address), site, date, DOI, the query that found it, and
the agents that cited it. Everything from outside (page titles, sites, queries, agents' names) is
escaped here, at the sink, because web pages and model answers are hostile text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from debate.sanitize import plain_text

_CITE = re.compile(r"\[(E\d{1,3})\]")

# "more about this" mark: ℹ in text presentation (U+2139 U+FE0E). DejaVu Sans, which Debian's chromium
# set-up installs, has it; the circled i (U+24D8) is in none of those fonts and showed as an empty box.
INFO_GLYPH = "\u2139\ufe0e"


def _e(x) -> str:
    """Escaped, on one line: these snippets sit inside a raw-HTML block of a Markdown page, which a blank
    line would end, and a page title after it would be read as Markdown (an image fetched, a link). Control
    characters (ESC, BEL, C1) are dropped and bidirectional controls shown as `[U+202E]`, as in every
    other sink (sanitize.plain_text): a page title could otherwise reverse the line it sits on."""
    return html.escape(" ".join(plain_text(x).split()), quote=True)


def _link(url: str, label: str) -> str:
    if url.startswith(("http://", "https://")):
        return f'<a href="{_e(url)}" target="_blank" rel="noopener noreferrer">{_e(label or url)}</a>'
    return _e(label or url or "unknown source")


def cited_by(turns: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """{passage id: [agents citing it, in order]} from (agent, text) pairs."""
    out: dict[str, list[str]] = {}
    for agent, text in turns:
        for pid in dict.fromkeys(_CITE.findall(text or "")):
            who = out.setdefault(pid, [])
            if agent not in who:
                who.append(agent)
    return out


def _badge_of(origin: str) -> tuple[str, str]:
    """(word, colour) of a source's badge, from the sources registry; an unknown origin (a source no
    longer installed, an imported file's) wears its own name."""
    from debate.errors import InvalidInput
    from debate.retrieval.sources import get

    try:
        info = get(origin)
    except InvalidInput:
        return origin, "#546e7a"
    return info.badge or info.title, info.color


def badge(origin: str) -> str:
    label, color = _badge_of(origin or "local")
    return (
        f'<span class="src-badge" style="background:{_e(color)};color:#fff;border-radius:4px;padding:0 5px;'
        f'font-size:0.8em">{_e(label)}</span>'
    )


def provenance_html(p: dict, agents: list[str] | None = None) -> str:
    """One line under a passage: badge · title · site · date · DOI · query · cited by."""
    url = str(p.get("url") or p.get("source") or "")
    title = str(p.get("title") or "")
    bits = [badge(str(p.get("origin") or "local")), _link(url, title or url)]
    site = str(p.get("site") or p.get("venue") or "")
    if site and site not in (title, url):
        bits.append(_e(site))
    if p.get("authors"):
        bits.append(_e(p["authors"]))
    if p.get("date"):
        bits.append(_e(str(p["date"])[:10]))
    doi = str(p.get("doi") or "")
    if doi:
        bits.append("DOI " + _link(f"https://doi.org/{doi}", doi))
    if p.get("also_from"):
        bits.append("also in " + ", ".join(_e(x) for x in p["also_from"]))
    if p.get("query"):
        bits.append(f"query “{_e(str(p['query'])[:160])}”")
    if agents:
        bits.append("cited by " + ", ".join(_e(a) for a in agents))
    return " · ".join(bits)


STATE_WORDS = {
    "waiting": "waiting…",
    "timeout": "timed out",
    "failed": "failed",
    "rate-limited": "rate-limited",
    "unavailable": "unavailable",
}


def state_words(s: dict) -> str:
    """A source's state as a reader says it: "waiting…", "12 passages", "timed out", "failed", ..."""
    state = str(s.get("state") or "")
    if state in ("live", "cache"):
        n = int(s.get("passages") or 0)
        return f"{n} passage{'' if n == 1 else 's'}" + (" (cached)" if state == "cache" else "")
    words = STATE_WORDS.get(state, state)
    n = int(s.get("passages") or 0)
    return words + (f", kept {n}" if n and state != "waiting" else "")


def states_html(states: list[dict]) -> str:
    """One line: each source's badge and its state in words, its note (why) on hover."""
    return " · ".join(
        f'<span class="ev-state" data-source="{_e(s.get("name", ""))}" data-state="{_e(s.get("state", ""))}">'
        f"{badge(s.get('name', ''))} {_e(state_words(s))}"
        + (f' <span class="info" title="{_e(s.get("note"))}">{INFO_GLYPH}</span>' if s.get("note") else "")
        + "</span>"
        for s in states
    )


def queries_html(ev: dict) -> str:
    """ "queries: “claim” · “question” ..." when the judge model wrote questions (or was asked to)."""
    asked = [str(ev.get("query") or ""), *[str(q) for q in (ev.get("questions") or [])]]
    if not (ev.get("questions") or ev.get("questions_note")):
        return ""
    out = "queries: " + " · ".join(f"“{_e(q[:200])}”" for q in asked if q)
    if ev.get("questions_model") and ev.get("questions"):
        out += f' <span class="meta">(questions by {_e(ev["questions_model"])})</span>'
    if ev.get("questions_note"):
        out += f'<br><span class="meta">{_e(ev["questions_note"])}</span>'
    return f'<div class="ev-queries">{out}</div>'


def progress_html(progress: dict) -> str:
    """While retrieval runs: what it is doing, and each source's state so far."""
    stage = progress.get("stage") or "searching"
    head = {"questions": "Writing questions for the search…", "ranking": "Ranking the passages found…"}.get(
        stage, "Searching…"
    )
    parts = [f"<b>{head}</b>"]
    if progress.get("note"):
        parts.append(f'<span class="meta">{_e(progress["note"])}</span>')
    if progress.get("sources"):
        parts.append(states_html(progress["sources"]))
    if progress.get("questions"):
        parts.append("queries: " + " · ".join(f"“{_e(str(q)[:200])}”" for q in progress["questions"]))
    return f'<div class="ev-progress">{"<br>".join(parts)}</div>'


def summary_html(ev: dict) -> str:
    """What the retrieval did: each source's state and the floor, the queries, and the "nothing fits" message."""
    parts = []
    states = ev.get("sources") or []
    if states:
        parts.append(states_html(states))
    floor = ev.get("floor")
    if isinstance(floor, (int, float)):
        parts.append(f"relevance floor {float(floor):.2f} (cosine)")
    out = "<br>".join(parts) + queries_html(ev)
    if ev.get("note"):
        out += f'<div class="ev-note"><b>{_e(ev["note"])}</b></div>'
    return out


def unfloored_note(ev: dict) -> str:
    """For passages searched without the relevance floor (the local index asked directly: batch runs
    without --sources, debates stored before every page searched alike), a sentence saying so: their
    count is not a verdict that they are about the claim, and the same claim searched with the floor may
    show none."""
    if not (ev.get("passages") or []) or isinstance(ev.get("floor"), (int, float)) or ev.get("sources"):
        return ""
    return (
        "Ranked by similarity only: no relevance floor was applied to these passages (the local index "
        "was searched directly), so some may not be about the claim."
    )


def nothing_fits(ev: dict) -> bool:
    return not (ev.get("passages") or []) and bool(ev.get("rejected"))
