"""Reading labels out of model answers: pure functions, strict formats first, lenient fallbacks after.

Order of trust: a JSON object (fenced, embedded in prose, or repaired with json_repair) > an explicit
`KEY: LABEL` line (`VOTE: YES`, `[VERDICT]: HALF-TRUE`, `DECISION: STOP`) > an answer that is nothing but
a label. A label merely mentioned somewhere in prose is never taken: an unreadable answer is reported as
such (ParseResult.ok False) and the caller retries once with a repair prompt. Text inside
`<think>...</think>` is split off first and never parsed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_THINK_OPEN = re.compile(r"<think>", re.I)
_THINK_CLOSE = re.compile(r"</think>", re.I)
_THINK_BLOCK = re.compile(r"<think>(.*?)</think>", re.I | re.S)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_CITE = re.compile(r"\[((?:E\d+)(?:\s*[,;]\s*E?\d+)*)\]", re.I)

LABEL_KEYS = ("vote", "category", "label", "verdict", "decision", "answer", "classification", "prediction")
_SYNONYMS = {
    "HALF TRUE": "HALF-TRUE", "HALF_TRUE": "HALF-TRUE", "HALFTRUE": "HALF-TRUE", "HALF-TRUE": "HALF-TRUE",
    "NOT ENOUGH EVIDENCE": "NEI", "NOT ENOUGH INFO": "NEI", "NOT ENOUGH INFORMATION": "NEI", "NEI": "NEI",
    "CONTINUE": "CONTINUE", "STOP": "STOP",
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
    """(answer, reasoning). Handles a missing opening tag (Qwen3 templates) and an unclosed one."""
    text = text or ""
    if not _THINK_OPEN.search(text):
        close = list(_THINK_CLOSE.finditer(text))
        if not close:
            return text.strip(), ""
        last = close[-1]
        return text[last.end():].strip(), _THINK_CLOSE.sub("", text[: last.start()]).strip()
    reasoning: list[str] = []
    answer: list[str] = []
    pos = 0
    for m in _THINK_BLOCK.finditer(text):
        answer.append(text[pos: m.start()])
        reasoning.append(m.group(1))
        pos = m.end()
    rest = text[pos:]
    m = _THINK_OPEN.search(rest)
    if m:  # still thinking when generation stopped: the rest is reasoning, not an answer
        answer.append(rest[: m.start()])
        reasoning.append(rest[m.end():])
    else:
        answer.append(rest)
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


def _json_candidates(text: str) -> list[str]:
    cands = [m.group(1) for m in _FENCE.finditer(text)]
    # every balanced {...} span, outermost first
    depth, start = 0, None
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0 and start is not None:
                cands.append(text[start: i + 1])
    if depth and start is not None:  # cut off mid-object: let json_repair try
        cands.append(text[start:])
    return cands


def _load(candidate: str) -> dict | None:
    try:
        obj = json.loads(candidate)
    except ValueError:
        try:
            from json_repair import repair_json
        except ImportError:  # the repair step is an improvement, not a requirement
            return None
        try:
            obj = repair_json(candidate, return_objects=True)
        except Exception:  # json_repair raises assorted errors on garbage
            return None
    return obj if isinstance(obj, dict) and obj else None


def parse_json_object(text: str) -> dict | None:
    """The last JSON object in the answer that parses (models often restate, the last is the answer)."""
    answer, _ = split_think(text)
    found = None
    for cand in _json_candidates(answer):
        obj = _load(cand.strip())
        if obj is not None:
            found = obj
    return found


def _line_label(answer: str, keys: tuple[str, ...], labels: tuple[str, ...]) -> str | None:
    words = set(labels) | {k for k, v in _SYNONYMS.items() if v in labels}
    alts = "|".join(sorted((re.escape(w).replace("\\-", "[-_ ]?").replace("\\ ", "[-_ ]?") for w in words),
                           key=len, reverse=True))
    keyalt = "|".join(keys)
    pat = re.compile(rf"\[?\**\s*(?:{keyalt})\s*\**\]?\s*\**\s*[:=\-]\s*\**\s*\[?\s*\**\s*({alts})(?![A-Za-z])(?!\s*/)", re.I)
    hits = pat.findall(answer)
    return normalise_label(hits[-1], labels) if hits else None


def parse_label(text: str, labels: tuple[str, ...], keys: tuple[str, ...] = LABEL_KEYS) -> ParseResult:
    """Read one of `labels` from an answer: JSON first, then `KEY: LABEL`, then a bare label."""
    answer, _ = split_think(text)
    obj = parse_json_object(answer)
    if obj is not None:
        lowered = {str(k).lower(): v for k, v in obj.items()}
        for k in keys:
            if k in lowered:
                lab = normalise_label(lowered[k], labels)
                if lab is not None:
                    data = {"label": lab, "key": k, "json": obj}
                    expl = lowered.get("explanation") or lowered.get("reason") or lowered.get("summary")
                    if expl is not None:
                        data["explanation"] = str(expl)
                    return ParseResult(lab, data, "json")
    lab = _line_label(answer, tuple(k.upper() for k in keys) + ("FINAL VERDICT", "FINAL ANSWER"), labels)
    if lab is not None:
        data: dict[str, Any] = {"label": lab}
        reason = parse_reason(answer)
        if reason:
            data["explanation"] = reason
        return ParseResult(lab, data, "line")
    bare = normalise_label(answer, labels) if len(answer.split()) <= 3 else None
    if bare is not None:
        return ParseResult(bare, {"label": bare}, "bare")
    return ParseResult(None, {}, "")


def parse_reason(text: str) -> str:
    """RADAR's `[REASON]: ...` up to `[VERDICT]`, or ''."""
    answer, _ = split_think(text)
    m = re.search(r"\[?\s*REASON\s*\]?\s*:\s*(.*?)(?=\[?\s*VERDICT\s*\]?\s*:|$)", answer, re.S | re.I)
    return m.group(1).strip() if m else ""


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
    m = re.search(r"DOMAIN\s*:\s*\**\s*([A-Za-z][A-Za-z &/\-]{0,40})", answer, re.I)
    if m:
        dom = m.group(1).strip().strip("*").strip()
        dom = re.split(r"\s{2,}|\n", dom)[0].strip()
        return dom or None
    words = answer.strip().strip(".*").split()
    return words[0] if len(words) == 1 else None


def parse_chair(text: str) -> dict | None:
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
