"""RADAR early-stop calibration by offline grid search over recorded per-round scores (no model calls).

RADAR stops after round r when the stop margin >= tau_s and the verdict confidence >= tau_c. A run
recorded with early stopping off (or thresholds never met) holds, for every round, the StopCheck scores
and the round judge's preliminary verdict. For any (tau_s, tau_c) we can then replay the decision:
the first round whose scores pass both thresholds gives the prediction (that round's preliminary
verdict) and the cost (tokens spent up to that check); if none passes, the debate's final verdict and
full cost stand. Items of a recording that itself stopped early at round r are exact only for pairs
that stop at or before r; for other pairs we keep the recorded outcome and count them as `approx`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from debate.evaluation.metrics import INVALID, score


def _grid(values: list[float], n: int) -> list[float]:
    vals = sorted({round(float(v), 6) for v in values if v is not None and math.isfinite(v)})
    if not vals:
        return [0.0]
    if len(vals) > n:
        vals = sorted({round(float(q), 6) for q in np.quantile(vals, np.linspace(0, 1, n))})
    return vals


def replay(rows: list[dict], tau_s: float, tau_c: float) -> list[dict]:
    """Per item: the prediction, tokens and stop round under thresholds (tau_s, tau_c)."""
    out = []
    for r in rows:
        st = r.get("stats") or {}
        checks = st.get("stop_checks") or []
        final = {
            "item_id": r["item_id"],
            "gold": r.get("gold"),
            "pred": r.get("prediction"),
            "tokens": int(st.get("tokens") or 0),
            "round": int(st.get("rounds") or 0),
            "stopped": False,
            "approx": False,
        }
        recorded_stop = next((c["round"] for c in checks if c.get("decision") == "stop"), None)
        for c in checks:
            m, v = c.get("stop_margin"), c.get("verdict_confidence")
            if m is None or v is None:
                continue
            if m >= tau_s and v >= tau_c and c.get("preliminary_verdict"):
                final.update(
                    pred=c["preliminary_verdict"],
                    tokens=int(c.get("tokens_so_far") or 0),
                    round=int(c.get("round") or 0),
                    stopped=True,
                )
                break
        else:
            final["approx"] = recorded_stop is not None  # the recording stopped; later rounds are unknown
        out.append(final)
    return out


def calibrate(
    rows: list[dict],
    labels: list[str],
    *,
    tau_s: list[float] | None = None,
    tau_c: list[float] | None = None,
    objective: str = "accuracy",
    n_grid: int = 21,
    tolerance: float = 0.0,
) -> dict:
    """Grid search. The chosen pair maximises `objective` (accuracy | macro_f1); among pairs within
    `tolerance` of the best, the one with the fewest tokens per item wins."""
    if objective not in ("accuracy", "macro_f1"):
        raise ValueError("objective must be accuracy or macro_f1")
    done = [r for r in rows if r.get("status") == "done" and isinstance(r.get("gold"), str)]
    checks = [c for r in done for c in (r.get("stats") or {}).get("stop_checks") or []]
    if not checks:
        return {
            "points": [],
            "chosen": None,
            "n_items": len(done),
            "note": "no StopCheck scores recorded: run a RADAR protocol first",
        }
    ts = tau_s if tau_s is not None else _grid([c.get("stop_margin") for c in checks], n_grid) + [math.inf]
    tc = tau_c if tau_c is not None else _grid([c.get("verdict_confidence") for c in checks], n_grid) + [math.inf]
    points = []
    for s in ts:
        for c in tc:
            rep = replay(done, s, c)
            sc = score(
                [x["gold"] for x in rep], [x["pred"] if isinstance(x["pred"], str) else INVALID for x in rep], labels
            )
            points.append(
                {
                    "tau_s": s,
                    "tau_c": c,
                    "accuracy": sc["accuracy"],
                    "macro_f1": sc["macro_f1"],
                    "tokens_mean": float(np.mean([x["tokens"] for x in rep])),
                    "stop_rate": float(np.mean([x["stopped"] for x in rep])),
                    "rounds_mean": float(np.mean([x["round"] for x in rep])),
                    "approx": int(sum(x["approx"] for x in rep)),
                }
            )
    best = max(p[objective] for p in points)
    near = [p for p in points if p[objective] >= best - tolerance - 1e-12]
    chosen = min(near, key=lambda p: (p["tokens_mean"], -p[objective]))
    never = [p for p in points if math.isinf(p["tau_s"]) or math.isinf(p["tau_c"])]
    return {
        "n_items": len(done),
        "objective": objective,
        "tolerance": tolerance,
        "points": points,
        "frontier": pareto(points, objective),
        "chosen": chosen,
        "no_early_stop": never[0] if never else None,
    }


def pareto(points: list[dict], objective: str = "accuracy") -> list[dict]:
    """Points not beaten on both cost (fewer tokens) and quality: the trade-off curve, cheapest first."""
    front: list[dict] = []
    for p in sorted(points, key=lambda p: (p["tokens_mean"], -p[objective])):
        if not front or p[objective] > front[-1][objective] + 1e-12:
            front.append(p)
    return front


def stop_rounds_table(rows: list[dict], tau_s: float, tau_c: float) -> dict[str, int]:
    """How many items stop at each round under a pair (RADAR Table 6's layout)."""
    counts: dict[str, int] = {}
    for x in replay([r for r in rows if r.get("status") == "done"], tau_s, tau_c):
        key = str(x["round"]) if x["stopped"] else "full"
        counts[key] = counts.get(key, 0) + 1
    return counts


def jsonable(result: Any) -> Any:
    """inf thresholds (= never stop) as the string "inf" for JSON."""
    if isinstance(result, float) and math.isinf(result):
        return "inf"
    if isinstance(result, dict):
        return {k: jsonable(v) for k, v in result.items()}
    if isinstance(result, list):
        return [jsonable(v) for v in result]
    return result
