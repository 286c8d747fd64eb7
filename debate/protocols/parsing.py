r"""Reading labels out of model answers: pure functions, strict formats first, lenient fallbacks after.

Order of trust: a JSON object (fenced, embedded in prose, or repaired with json_repair) > an explicit
`KEY: LABEL` line (`VOTE: YES`, `[VERDICT]: HALF-TRUE`, `DECISION: STOP`) > an answer that is nothing but
a label. A label merely mentioned somewhere in prose is never taken: an unreadable answer is reported as
such (ParseResult.ok False) and the caller retries once with a repair prompt. Text inside
`<think>...</think>` is split off first and never parsed.

Model text is hostile input: every pattern here runs in linear time (no two adjacent quantifiers that can
trade characters, possessive quantifiers where whitespace could be split several ways, no unanchored
leading `\s*`), `<think>` tags are paired by one scan rather than by a lazy regex per tag, and JSON that
cannot be read for any reason (deep nesting included) is one unreadable answer, never an engine error.
tests/security/test_parsing_hostile.py holds each input that used to take seconds.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

try:
    from json_repair import repair_json
except ImportError:  # the repair step is an improvement, not a requirement
    repair_json = None  # type: ignore[assignment]  # its absence is checked before each use

_THINK_TAG = re.compile(r"<(/?)think>", re.I)
_FENCE = re.compile(r"```(?:json|JSON)?(.*?)```", re.S)  # no \s* before the lazy group: it was quadratic
# json_repair is a pure-Python parser that slows down badly on text that is not nearly JSON (a `{` and
# 800 characters of prose: 0.4 s; 4000 `{`: 2.5 s; `{"a": {{{` + 2 kB of prose: 0.6 s). The common
# case, an object cut off by max_tokens, is closed here in one linear pass (_close_cut_off); json_repair
# gets only short candidates that start like an object, with few nested openers.
REPAIR_MAX_CHARS = 400
REPAIR_MAX_OPENERS = 2
_REPAIRABLE = re.compile(r"\{\s*+[\"']")
MAX_JSON_CANDIDATES = 16
MAX_BRACES = 4_000  # an answer with more braces is searched for JSON in its tail only
_BRACE = re.compile(r"[{}]")
_CITE = re.compile(r"\[((?:E\d+)(?:\s*[,;]\s*E?\d+)*)\]", re.I)

LABEL_KEYS = ("vote", "category", "label", "verdict", "decision", "answer", "classification", "prediction")
_SYNONYMS = {
    "HALF TRUE": "HALF-TRUE",
    "HALF_TRUE": "HALF-TRUE",
    "HALFTRUE": "HALF-TRUE",
    "HALF-TRUE": "HALF-TRUE",
    "NOT ENOUGH EVIDENCE": "NEI",
    "NOT ENOUGH INFO": "NEI",
    "NOT ENOUGH INFORMATION": "NEI",
    "NEI": "NEI",
    "CONTINUE": "CONTINUE",
    "STOP": "STOP",
}


@dataclass
class ParseResult:
    label: str | None
    data: dict[str, Any] = field(default_factory=dict)  # what was read: {"label", "explanation", ...}
    method: str = ""  # "json" | "line" | "bare" | "" (not parsed)

    @property
    def ok(self) -> bool:
        return self.label is not None


def split_think(text: str) -> tuple[str, str]:
    """(answer, reasoning). Handles a missing opening tag (Qwen3 templates) and an unclosed one.

    One pass over the tags: an opening tag starts reasoning that the next closing tag ends (tags inside
    reasoning are part of it, a closing tag outside is answer text), as the lazy `<think>(.*?)</think>`
    did, but in linear time for any number of unclosed tags."""
    text = text or ""
    tags = list(_THINK_TAG.finditer(text))
    if not any(not m.group(1) for m in tags):
        closes = [m for m in tags if m.group(1)]
        if not closes:
            return text.strip(), ""
        last = closes[-1]
        head = text[: last.start()]
        return text[last.end() :].strip(), _THINK_TAG.sub("", head).strip()
    reasoning: list[str] = []
    answer: list[str] = []
    pos = 0  # start of the current answer (outside) or reasoning (inside) stretch
    inside = False
    for m in tags:
        if not inside and not m.group(1):
            answer.append(text[pos : m.start()])
            pos, inside = m.end(), True
        elif inside and m.group(1):
            reasoning.append(text[pos : m.start()])
            pos, inside = m.end(), False
    # still thinking when generation stopped: the rest is reasoning, not an answer
    (reasoning if inside else answer).append(text[pos:])
    return "".join(answer).strip(), "\n".join(r.strip() for r in reasoning if r.strip())


def normalise_label(value: Any, labels: tuple[str, ...]) -> str | None:
    """Map a raw value onto one of `labels` (case, spacing, 0/1 for YES/NO, synonyms) or None."""
    if value is None:
        return None
    if isinstance(value, bool):
        value = "YES" if value else "NO"
    if isinstance(value, (int, float)) and labels == ("YES", "NO"):
        return {1: "YES", 0: "NO"}.get(int(value)) if float(value) in (0.0, 1.0) else None
    s = re.sub(r"[\s_]+", " ", str(value)).strip().strip("[]()*\"'`.,:;!").strip().upper()
    if labels == ("YES", "NO") and s in ("1", "0", "TRUE", "FALSE"):
        return "YES" if s in ("1", "TRUE") else "NO"
    s = _SYNONYMS.get(s, s)
    s = s.replace("HALF TRUE", "HALF-TRUE")
    return s if s in labels else None


def _brace_tail(text: str) -> str:
    """The text, or, when it holds more than MAX_BRACES braces, its shortest tail (doubling from 4 kB)
    that holds more: the brace walk below is a Python loop, so its length must not be the attacker's."""
    if text.count("{") + text.count("}") <= MAX_BRACES:
        return text
    k = 4096
    while k < len(text) and text.count("{", len(text) - k) + text.count("}", len(text) - k) <= MAX_BRACES:
        k *= 2
    return text[-k:]


def _json_candidates(text: str) -> list[str]:
    cands = [m.group(1) for m in _FENCE.finditer(text)][-MAX_JSON_CANDIDATES:]
    text = _brace_tail(text)
    # every balanced {...} span, outermost first (visiting only the braces: prose costs nothing here)
    depth, start = 0, None
    for m in _BRACE.finditer(text):
        i = m.start()
        if m.group() == "{":
            if depth == 0:
                start = i
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0 and start is not None:
                cands.append(text[start : i + 1])
    if depth and start is not None:  # cut off mid-object: let json_repair try
        cands.append(text[start:])
    return cands


def _repairable(candidate: str) -> bool:
    return (
        repair_json is not None
        and len(candidate) <= REPAIR_MAX_CHARS
        and candidate.count("{") + candidate.count("[") <= REPAIR_MAX_OPENERS
        and _REPAIRABLE.match(candidate) is not None
    )


def _close_cut_off(candidate: str) -> str | None:
    """A JSON text cut off mid-way, closed: the open string ended, a dangling `,` or `:` dropped, the
    open arrays and objects closed in order. None when the text is not a prefix of JSON in this sense."""
    stack: list[str] = []
    in_str = esc = False
    for ch in candidate:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":  # noqa: SIM102 - one branch of a chain: a closing bracket is done here either way
            if not stack or stack.pop() != ch:
                return None
    if not stack:
        return None
    out = (candidate[:-1] if esc else candidate) + ('"' if in_str else "")  # a dangling `\` is dropped
    out = out.rstrip()
    if out.endswith((",", ":")):
        out = out[:-1] + (": null" if out.endswith(":") else "")
    return out + "".join(reversed(stack))


def _load(candidate: str, repair: bool = True) -> dict[str, Any] | None:
    """The object in one candidate, or None. Deep nesting raises RecursionError in both parsers: that,
    like any other failure, makes the candidate unreadable rather than ending the debate. A raw line break
    inside a string is read as one (strict=False): a 0.5B judge decoded under its schema wrote its reason as
    a list over lines, and the strict reader lost the category it wrote after it."""
    try:
        obj = json.loads(candidate, strict=False)
    except (ValueError, RecursionError):
        closed = _close_cut_off(candidate) if len(candidate) <= 20_000 else None
        try:
            obj = json.loads(closed, strict=False) if closed else None
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict) and obj:
            return obj
        if not (repair and _repairable(candidate)):
            return None
        try:
            obj = repair_json(candidate, return_objects=True)
        except Exception:  # noqa: BLE001 - json_repair raises assorted errors (RecursionError too) on garbage
            return None
    return obj if isinstance(obj, dict) and obj else None


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The last JSON object in the answer that parses (models often restate, the last is the answer).

    Candidates are tried from the last, at most MAX_JSON_CANDIDATES of them: an answer made of
    thousands of `{}` or fences is unreadable, not a reason to parse each one."""
    return _json_object(split_think(text)[0])


def _json_object(answer: str) -> dict[str, Any] | None:
    repairs = 2  # json_repair calls per answer (each up to ~25 ms on hostile text)
    for cand in reversed(_json_candidates(answer)[-MAX_JSON_CANDIDATES:]):
        cand = cand.strip()
        obj = _load(cand, repair=repairs > 0)
        if obj is not None:
            return obj
        repairs -= _repairable(cand)
    return None


def _line_label(answer: str, keys: tuple[str, ...], labels: tuple[str, ...]) -> str | None:
    words = set(labels) | {k for k, v in _SYNONYMS.items() if v in labels}
    alts = "|".join(
        sorted((re.escape(w).replace("\\-", "[-_ ]?").replace("\\ ", "[-_ ]?") for w in words), key=len, reverse=True)
    )
    keyalt = "|".join(keys)
    # `**[VOTE]:** [YES]`: the key, then `*`/space runs (possessive: one way to match them), an optional
    # `]`, the separator, an optional `[`, the label. Nothing before the key: a leading `\s*` in a search
    # is retried at every start position (quadratic on long runs of spaces).
    first = "".join(sorted({k[0].upper() for k in keys} | {k[0].lower() for k in keys}))
    # the lookahead on the keys' first letters lets the engine skip other positions in one test (3x faster)
    pat = re.compile(
        rf"(?=[{re.escape(first)}])(?:{keyalt})[\s*]*+(?:\][\s*]*+)?[:=\-][\s*]*+(?:\[[\s*]*+)?({alts})(?![A-Za-z])(?!\s*/)",
        re.I,
    )
    hits = pat.findall(answer)
    return normalise_label(hits[-1], labels) if hits else None


def prose(value: Any) -> str:
    """A JSON field's words as a reader sees them: a model that writes its explanation as a list of sentences
    (`"explanation": ["…", "…"]`) or an object gets its sentences joined, never `["…"]` on the card."""
    if isinstance(value, (list, tuple)):
        return " ".join(p for p in (prose(v) for v in value) if p)
    if isinstance(value, dict):
        return " ".join(p for p in (prose(v) for v in value.values()) if p)
    return str(value).strip()


def parse_label(text: str, labels: tuple[str, ...], keys: tuple[str, ...] = LABEL_KEYS) -> ParseResult:
    """Read one of `labels` from an answer: JSON first, then `KEY: LABEL`, then a bare label."""
    answer, _ = split_think(text)
    obj = _json_object(answer)
    if obj is not None:
        lowered = {str(k).lower(): v for k, v in obj.items()}
        for k in keys:
            if k in lowered:
                lab = normalise_label(lowered[k], labels)
                if lab is not None:
                    data: dict[str, Any] = {"label": lab, "key": k, "json": obj}
                    expl = lowered.get("explanation") or lowered.get("reason") or lowered.get("summary")
                    if expl is not None:
                        data["explanation"] = prose(expl)
                    return ParseResult(lab, data, "json")
    lab = _line_label(answer, tuple(k.upper() for k in keys) + ("FINAL VERDICT", "FINAL ANSWER"), labels)
    if lab is not None:
        data = {"label": lab}
        reason = parse_reason(answer)
        if reason:
            data["explanation"] = reason
        return ParseResult(lab, data, "line")
    bare = normalise_label(answer, labels) if len(answer) <= 80 and len(answer.split()) <= 3 else None
    if bare is not None:
        return ParseResult(bare, {"label": bare}, "bare")
    return ParseResult(None, {}, "")


def parse_reason(text: str) -> str:
    """RADAR's `[REASON]: ...` up to `[VERDICT]`, or ''."""
    answer, _ = split_think(text)
    m = _REASON.search(answer)
    if not m:
        return ""
    end = _VERDICT_MARK.search(answer, m.end())
    reason = answer[m.end() : end.start() if end else len(answer)].rstrip()
    return reason.removesuffix("[").strip()


# the markers around RADAR's reason, matched in linear time (two searches instead of a lazy group whose
# every step re-ran a lookahead with its own `\s*`)
_REASON = re.compile(r"REASON\s*+(?:\]\s*+)?:", re.I)
_VERDICT_MARK = re.compile(r"VERDICT\s*+(?:\]\s*+)?:", re.I)


def parse_verdict(text: str, labels: tuple[str, ...]) -> ParseResult:
    """RADAR judge: `[REASON]: ... [VERDICT]: HALF-TRUE` (JSON and bare labels accepted too)."""
    res = parse_label(text, labels, keys=("verdict", "label", "category", "vote", "answer", "decision"))
    if res.ok and "explanation" not in res.data:
        reason = parse_reason(text)
        if reason:
            res.data["explanation"] = reason
    return res


def parse_stop(text: str) -> ParseResult:
    """RADAR stop agent: `DECISION: CONTINUE or STOP`."""
    return parse_label(text, ("STOP", "CONTINUE"), keys=("decision", "answer"))


def parse_domain(text: str) -> str | None:
    """RADAR domain inference: `DOMAIN: Economy` -> "Economy"."""
    answer, _ = split_think(text)
    m = re.search(r"DOMAIN\s*+:[\s*]*+([A-Za-z][A-Za-z &/\-]{0,40})", answer, re.I)
    if m:
        dom = m.group(1).strip().strip("*").strip()
        dom = re.split(r"\s{2,}|\n", dom)[0].strip()
        return dom or None
    words = answer.strip().strip(".*").split()
    return words[0] if len(words) == 1 else None


def parse_chair(text: str) -> dict[str, Any] | None:
    """Council chair JSON `{"status": "CONSENSUS REACHED"|..., "summary": ...}`; None when unreadable."""
    obj = parse_json_object(text)
    if obj is None:
        return None
    lowered = {str(k).lower(): v for k, v in obj.items()}
    if "summary" not in lowered and "status" not in lowered:
        return None
    status = str(lowered.get("status", "")).upper().strip()
    return {"status": status, "summary": str(lowered.get("summary", "")).strip()}


def parse_citations(text: str) -> list[str]:
    """Evidence ids cited as [E3] or [E1, E4], in first-cited order, outside <think>."""
    answer, _ = split_think(text)
    out: list[str] = []
    for m in _CITE.finditer(answer):
        for part in re.split(r"\s*[,;]\s*", m.group(1)):
            num = re.sub(r"\D", "", part)
            if num:
                cid = f"E{int(num)}"
                if cid not in out:
                    out.append(cid)
    return out
