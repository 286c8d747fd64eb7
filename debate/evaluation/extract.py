"""What an evaluation reads out of one debate's event stream: the prediction and the debate statistics.

Pure functions over event dicts (the stored form), so metrics and calibration can be recomputed from
a checkpoint at any time without a model call.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from debate.outcome import prediction_of

_LABEL_ALIASES = {
    "HALF TRUE": "HALF-TRUE",
    "HALFTRUE": "HALF-TRUE",
    "HALF_TRUE": "HALF-TRUE",
    "NOT ENOUGH EVIDENCE": "NEI",
    "NOT ENOUGH INFO": "NEI",
}


def norm_label(label: Any) -> str | None:
    if label is None:
        return None
    s = str(label).strip().upper()
    if not s:
        return None
    return _LABEL_ALIASES.get(s, s)


def extract_prediction(
    events: list[dict], categories: tuple[str, ...] = (), category: int | None = None, which: str = "shown"
) -> str | dict[str, str | None] | None:
    """The final label, or for CheckThat a {category: label} dict over the categories that were run.

    The last Verdict wins (a protocol may emit a preliminary one); for all-category runs a Verdict's
    `labels` dict wins over per-category verdicts, so the visible cat2=>cat3 post-step is respected.
    `which` (debate.outcome.prediction_of): "shown" = the debate's answer as recorded (the label written
    unless the calibrated reading was chosen; debates recorded before that choice gave the calibrated
    label), "written" = the label the deciding model wrote, "calibrated" = the calibration's label
    (None where no calibration gave one).
    """
    verdicts = [dict(e, label=prediction_of(e, which)) if e.get("type") == "verdict" else e for e in events]
    verdicts = [e for e in verdicts if e.get("type") == "verdict"]
    if which == "calibrated" and not any(v.get("label") is not None for v in verdicts):
        return None
    if not categories:
        for v in reversed(verdicts):
            if v.get("label") is not None:
                return norm_label(v["label"])
        fin = [e for e in events if e.get("type") == "finished"]
        return norm_label(fin[-1].get("label")) if fin else None
    wanted = [str(category)] if category is not None else list(categories)
    out: dict[str, str | None] = dict.fromkeys(wanted)
    for v in verdicts:  # per-category verdicts first, in order
        cat = v.get("category", category)
        if cat is not None and str(cat) in out and v.get("label") is not None:
            out[str(cat)] = norm_label(v["label"])
    for v in verdicts:  # then any all-category summary (after the rule) overrides
        for c, lab in (v.get("labels") or {}).items():
            if str(c) in out and lab is not None:
                out[str(c)] = norm_label(lab)
    if category is not None and out[str(category)] is None:
        for v in reversed(verdicts):
            if v.get("label") is not None:
                out[str(category)] = norm_label(v["label"])
                break
    return out


def vote_prediction(events: list[dict], prediction: Any) -> Any:
    """What a plain majority of the first answers would have predicted (the debate's `vote_comparison`
    events), in the prediction's shape; None when the protocol recorded none (e.g. a baseline).

    A category without such an event keeps the debate's label. When the run applied the cat2 => cat3
    rule, the vote's labels go through the same rule, so the comparison is of the discussion alone."""
    comps = [e for e in events if e.get("type") == "vote_comparison"]
    if not comps:
        return None
    if not isinstance(prediction, dict):
        return norm_label(comps[-1].get("vote_label"))
    votes = {str(e["category"]): norm_label(e.get("vote_label")) for e in comps if e.get("category") is not None}
    if any(e.get("type") == "rule_applied" for e in events):
        from debate.protocols.decisions import apply_cat2_rule

        votes, _ = apply_cat2_rule(votes)
    return {c: votes.get(c, lab) for c, lab in prediction.items()}


def _vote_exit(events: list[dict], tallies: dict[str, list[dict]]) -> bool:
    """A voting debate (council) exited early: in every category its last tally reached consensus or
    stable votes before the round limit (round 0 = consensus at the first vote, the paper's early exit)."""
    if not tallies or not events:
        return False
    started = events[0] if events[0].get("type") == "debate_started" else {}
    max_rounds = ((started.get("settings") or {}).get("params") or {}).get("rounds")
    if max_rounds is None:
        return False
    lasts = [ts[-1] for ts in tallies.values() if ts]
    return bool(lasts) and all(
        (t.get("reached") or t.get("stabilised")) and int(t.get("round", 0)) < int(max_rounds) for t in lasts
    )


def debate_stats(events: list[dict]) -> dict:
    """Rounds, early stop, first-vote consensus, vote changes, per-round stop scores, tokens, time."""
    fin: dict[str, Any] = next((e for e in reversed(events) if e.get("type") == "finished"), {})
    tokens_so_far = 0
    stop_checks: list[dict] = []
    tallies: dict[str, list[dict]] = {}  # per category ("" = single-category debate)
    current_cat = ""
    errors: list[str] = []
    invalid_turns = 0
    turns = 0
    labels_direct: Counter[str] = Counter()
    labels_repaired: Counter[str] = Counter()
    for e in events:
        t = e.get("type")
        if t == "phase_started" and e.get("category") is not None:
            current_cat = str(e["category"])
        elif t == "turn_finished":
            turns += 1
            tokens_so_far += int(e.get("prompt_tokens") or 0) + int(e.get("completion_tokens") or 0)
            invalid_turns += 0 if e.get("valid", True) else 1
            if e.get("label") is not None:  # which labels came straight from the model, which from a repair
                (labels_repaired if e.get("repaired") else labels_direct)[str(e["label"])] += 1
        elif t == "votes_tallied":
            tallies.setdefault(current_cat, []).append(e)
        elif t == "stop_check":
            stop_checks.append(
                {
                    "round": e.get("round", 0),
                    "stop_margin": e.get("stop_margin"),
                    "verdict_confidence": e.get("verdict_confidence"),
                    "decision": e.get("decision"),
                    "preliminary_verdict": norm_label(e.get("preliminary_verdict")),
                    "method": e.get("method"),
                    "tokens_so_far": tokens_so_far,
                }
            )
        elif t == "error":
            errors.append(f"{e.get('error')}: {e.get('message')}")
    first_consensus = None
    vote_changes = 0
    if tallies:
        firsts = [ts[0].get("reached", False) for ts in tallies.values() if ts]
        first_consensus = all(firsts) if firsts else None
        for ts in tallies.values():
            for a, b in zip(ts, ts[1:]):
                va, vb = a.get("votes") or {}, b.get("votes") or {}
                vote_changes += sum(1 for agent in vb if agent in va and va[agent] != vb[agent])
    stop_reason = fin.get("stop_reason", "") or ""
    early = (
        any(s["decision"] == "stop" for s in stop_checks)
        or any(w in stop_reason.lower() for w in ("early", "consensus", "stabil"))
        or _vote_exit(events, tallies)
    )
    prompt_tokens = int(fin.get("prompt_tokens") or 0)
    completion_tokens = int(fin.get("completion_tokens") or 0)
    return {
        "status": fin.get("status", "missing"),
        "stop_reason": stop_reason,
        "rounds": int(fin.get("rounds") or 0),
        "early_stopped": bool(early),
        "first_vote_consensus": first_consensus,
        "vote_changes": vote_changes if tallies else None,
        "stop_checks": stop_checks,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "tokens": prompt_tokens + completion_tokens or tokens_so_far,
        "model_calls": int(fin.get("model_calls") or turns),
        "cache_hits": int(fin.get("cache_hits") or 0),
        "invalid_turns": invalid_turns,
        "labels_direct": dict(labels_direct),
        "labels_repaired": dict(labels_repaired),
        "wall_s": float(fin.get("wall_s") or (events[-1].get("t", 0.0) if events else 0.0)),
        "errors": errors,
    }
