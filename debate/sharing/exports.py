"""Exports of a stored debate: JSON (row, events, a person's verdict and the poll), one CSV row per turn,
the Library's list as CSV, and the Markdown transcript (debate/sharing/markdown.py, rendered from the one
transcript view). The store (debate/store/) only stores; every file a person downloads is made here.

Model text is hostile: CSV cells go through debate.sanitize.csv_row (no cell a spreadsheet runs as a
formula), Markdown through md_text.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator

from debate import outcome
from debate.retrieval import attribution as at
from debate.retrieval.safety import flag_text
from debate.sanitize import csv_row
from debate.sharing.markdown import to_markdown
from debate.store import people
from debate.store.debates import DebateStore, compact_verdict
from debate.tasks import override_note, reason_note

__all__ = ["export_csv", "export_json", "export_markdown", "library_csv", "list_csv", "to_markdown"]


def export_json(store: DebateStore, debate_id: str) -> str:
    """The debate's row and events, with a person's verdict and the audience poll kept beside them."""
    row = store.require(debate_id)
    return json.dumps(
        {"debate": row, "events": store.event_dicts(debate_id), **people.export(store.path, debate_id)},
        indent=1,
        default=str,
    )


def export_csv(store: DebateStore, debate_id: str) -> str:
    """One line per finished turn (what each agent said, its vote and its cost), then one per verdict
    (phase "verdict"): its label and, when an aid changed the label the model wrote, that written
    label, the aid and the sentence that says so, as every other view of the verdict does."""
    store.require(debate_id)
    cols = [
        "round",
        "phase",
        "agent",
        "role",
        "model",
        "human",
        "category",
        "label",
        "confidence",
        "counted",
        "written_label",
        "calibrated_label",
        "reading",
        "aid",
        "overrule",
        "reason_apart",
        "valid",
        "cached",
        "prompt_tokens",
        "completion_tokens",
        "latency_s",
        "citations",
        "text",
        "begun",
        "flag",
    ]
    return _csv(cols, _turn_rows(store.event_dicts(debate_id)))


def _turn_rows(events: list[dict]) -> Iterator[dict]:
    """The per-turn CSV's rows: passages, finished turns (with the vote the tally counted), verdicts,
    and which passages the verdict rests on."""
    votes, chairs = outcome.counted_votes(events), outcome.chair_tags(events)  # as the card states them
    for e in events:
        if e.get("type") == "evidence":  # one row per passage (phase "evidence"), with its flag if it has one
            for p in [*(e.get("passages") or []), *(e.get("dropped") or [])]:
                if isinstance(p, dict):
                    yield _evidence_row(p, bool(e.get("in_prompts", True)))
        elif e.get("type") == "turn_finished":
            tid = str(e.get("turn_id") or "")
            counted = votes[tid].counted if tid in votes else (chairs[tid].label if tid in chairs else None)
            yield {**e, "citations": " ".join(e.get("citations") or []), "counted": counted}
        elif e.get("type") == "verdict":
            yield _verdict_row(e)
        elif e.get("type") == "attribution":  # which passages the verdict rests on (and a contested verdict)
            yield {
                "phase": "attribution",
                "agent": e.get("source", ""),
                "label": e.get("label"),
                "text": at.rests_sentence(e),
                "flag": at.contested_sentence(e),
            }


def _csv(cols: list[str], rows: Iterable[dict]) -> str:
    """Rows as CSV with the given columns (others ignored), every cell guarded against formulas (csv_row)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow(csv_row(r))
    return buf.getvalue()


def library_csv(store: DebateStore, rows: list[dict]) -> str:
    """The Library's current list (`rows` from `store.list`) as CSV, with the aids' overrules read from the events."""
    return list_csv(rows, store.overrules([r["id"] for r in rows]))


def export_markdown(store: DebateStore, debate_id: str) -> str:
    """The Markdown transcript, then a person's verdict and the audience poll."""
    return "\n".join(
        [to_markdown(store.require(debate_id), store.event_dicts(debate_id)).rstrip("\n"), ""]
        + people.markdown(people.export(store.path, debate_id))
    )


def _evidence_row(p: dict, in_prompts: bool) -> dict:
    """A passage as a row of the per-turn CSV: its id as the agent, its source as the model, its flag."""
    pid = str(p.get("id") or "")
    held = pid.startswith("X")
    return {
        "phase": "evidence",
        "agent": pid,
        "role": "held back" if held else ("passage" if in_prompts else "shown only"),
        "model": str(p.get("source") or ""),
        "confidence": p.get("score"),
        "text": str(p.get("text") or ""),
        "flag": flag_text(p),
    }


def _verdict_row(e: dict) -> dict:
    """A verdict event as a row of the per-turn CSV."""
    label = e.get("label")
    if label is None and e.get("labels"):  # all categories at once: "1: YES · 2: NO · 3: YES"
        label = compact_verdict(json.dumps(e["labels"]))
    return {
        "phase": "verdict",
        "agent": e.get("source", ""),
        "category": e.get("category"),
        "label": label,
        "confidence": e.get("confidence"),
        "written_label": outcome.reading(e).written if override_note(e) else None,
        "calibrated_label": outcome.reading(e).calibrated,
        "reading": outcome.reading(e).reading,
        "aid": e.get("aid", ""),
        "overrule": override_note(e),
        "reason_apart": reason_note(e),
        "text": e.get("explanation", ""),
    }


def list_csv(rows: list[dict], overrules: dict[str, list[dict]]) -> str:
    """The Library's list as CSV; `overrules` (DebateStore.overrules) adds, per debate whose verdict an aid
    changed, the label the model wrote, the aid and the sentence that says so."""
    cols = [
        "id",
        "created_at",
        "status",
        "protocol",
        "task",
        "category",
        "claim",
        "verdict",
        "written_label",
        "calibrated_label",
        "aid",
        "overrule",
        "gold",
        "correct",
        "tokens",
        "model_calls",
        "cache_hits",
        "wall_s",
    ]  # claims and verdicts may start like a formula: _csv guards every cell
    return _csv(cols, ({**r, **_overrule_cells(overrules.get(r["id"], []))} for r in rows))


def _overrule_cells(verdicts: list[dict]) -> dict:
    """One debate's overruled verdicts as three cells; one per category when several were overruled."""
    if not verdicts:
        return {}
    many = len(verdicts) > 1
    tag = (lambda v: f"category {v.get('category')}: ") if many else (lambda v: "")
    return {
        "written_label": " · ".join(f"{tag(v)}{outcome.reading(v).written}" for v in verdicts),
        "calibrated_label": " · ".join(f"{tag(v)}{outcome.reading(v).calibrated or ''}" for v in verdicts),
        "aid": " · ".join(dict.fromkeys(str(v.get("aid") or "") for v in verdicts if v.get("aid"))),
        "overrule": " ".join(f"{tag(v)}{override_note(v)}" for v in verdicts),
    }
