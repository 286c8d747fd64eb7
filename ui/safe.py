"""Model output and claims become page text, never markup.

Everything a model or a user typed goes through `text_html`: HTML-escaped first, then the only markup
added is ours (line breaks, and [E#] citations turned into links to the evidence panel). The result is
one line with no blank lines, wrapped in a <div>, so the Markdown renderer treats it as a raw HTML
block and does not interpret Markdown, math or emoji shortcodes inside what the model wrote.
"""

from __future__ import annotations

import re

from debate.content.figures import figures
from debate.content.substance import named_sources

_CITE = re.compile(r"\[(E\d{1,3})\]")
UNSUPPORTED_TITLE = "not in the claim or the evidence"


def anchor(debate_id: str, passage_id: str) -> str:
    """Stable HTML id of a passage in the evidence panel."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "", f"{debate_id}-{passage_id}")
    return f"ev-{safe}"


# One pass over the characters: HTML's own specials plus those the Markdown layer would still read.
_TABLE = {ord(c): f"&#{ord(c)};" for c in "&<>\"'$`*_~:[]\\|#{}"}


def escape(text: str) -> str:
    """HTML-escape and neutralise Markdown/math/emoji syntax, in one pass (entities never re-escaped)."""
    return (text or "").translate(_TABLE)


def _marked(text: str, flagged: set[str]) -> str:
    """Escaped text with each flagged figure or named source (one that no source gave) under a dotted line
    that says so. Both are found by the same scans that flagged them, so a mark sits on exactly those words."""
    if not flagged:
        return escape(text)
    spans = [(f.start, f.end, f.text, "unsupported-figure") for f in figures(text) if f.text in flagged]
    spans += [(n.start, n.end, n.text, "unsupported-source") for n in named_sources(text) if n.text in flagged]
    out, pos = [], 0
    for start, end, said, css in sorted(spans):
        if start < pos:  # a figure inside a name already marked
            continue
        out.append(escape(text[pos:start]))
        out.append(f'<span class="{css}" title="{UNSUPPORTED_TITLE}">{escape(said)}</span>')
        pos = end
    out.append(escape(text[pos:]))
    return "".join(out)


def text_html(
    text: str, *, debate_id: str = "", known: set[str] | None = None, css: str = "txt", flagged: set[str] | None = None
) -> str:
    """Escaped text as one raw-HTML line; citations of known passages link to their anchors; `flagged`
    figures (debate.content.figures) and named sources (debate.content.substance) — stated, and in none of
    the claim, the evidence, the earlier turns — are underlined with a title that says so."""
    parts: list[str] = []
    pos = 0
    flagged = flagged or set()
    for m in _CITE.finditer(text or ""):
        parts.append(_marked(text[pos : m.start()], flagged))
        pid = m.group(1)
        if known is None or pid in known:
            parts.append(f'<a class="cite" href="#{anchor(debate_id, pid)}">&#91;{pid}&#93;</a>')
        else:
            parts.append(f'<span class="cite missing" title="no such passage">&#91;{pid}&#93;</span>')
        pos = m.end()
    parts.append(_marked((text or "")[pos:], flagged))
    # every CommonMark line ending (LF, CRLF, a lone CR) becomes <br>: a blank line would end the block
    body = "".join(parts).replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")
    return f'<div class="{css}">{body}</div>'


def error_md(e: object) -> str:
    """A DebateError for st.error / st.warning (Markdown): the message in bold, the hint below, both as
    text. Messages carry servers' error text, model names they list and values from uploaded files: an
    image there would be fetched by the browser, a link would invite a click."""
    message, hint = str(getattr(e, "message", "") or e), str(getattr(e, "hint", "") or "")
    return f"**{escape(message)}**" + (f"  \n{escape(hint)}" if hint else "")
