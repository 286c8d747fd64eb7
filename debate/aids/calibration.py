"""Calibrating the label probabilities a small model already gives, and saying when a label contradicts them.

Why: the embedded 0.5B / 135M models lean hard towards one label (README "Results"), so the label they
write is often the prior of the prompt, not a judgement of the tweet. Their label probabilities still
rank tweets (a tweet that cites a study gets more P(YES) than one that does not) even when the arg-max is
always the same. Two standard repairs, each a visible option of the baseline protocol:

- **contextual calibration** (Zhao et al., "Calibrate Before Use", ICML 2021): ask the same prompt with a
  content-free input ("N/A") and divide each label's probability by the probability the prompt alone
  gives it (W = diag(p_cf)^-1, b = 0), then renormalise. No data needed.
- **class weights fitted on the LIAR train split** for the RADAR judge's three labels (argmax of
  w_l · p_l, the multi-class form of a threshold), the same way.
- **a decision threshold fitted on the CheckThat train split** (`python -m debate eval-fit-threshold` on a
  train run): YES iff P(YES) >= t, t chosen to maximise macro-F1 on train. Fitted values are data in
  `debate/aids/fitted_thresholds.json`, keyed by model and prompt setting; never fitted on dev or test.

All functions here are pure (no model, no I/O except `fitted_threshold`, which reads the packaged file).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from debate.models.packaged import canonical_spec

FITTED_PATH = Path(__file__).with_name("fitted_thresholds.json")
CALIBRATIONS = ("none", "contextual", "threshold")
CONTENT_FREE = "N/A"  # Zhao et al.'s first content-free input


def normalised(probs: Mapping[str, float] | None, labels: Sequence[str]) -> dict[str, float] | None:
    """Probabilities over exactly `labels`, summing to 1; None when nothing is known."""
    if not probs:
        return None
    vals = {lab: max(0.0, float(probs.get(lab, 0.0) or 0.0)) for lab in labels}
    total = sum(vals.values())
    if total <= 0:
        return None
    return {lab: v / total for lab, v in vals.items()}


def contextual(
    probs: Mapping[str, float] | None,
    content_free: Mapping[str, float] | None,
    labels: Sequence[str],
    floor: float = 1e-6,
) -> dict[str, float] | None:
    """Zhao et al. (2021) contextual calibration: q_l ∝ p_l / p_cf_l. The floor keeps a label the
    content-free prompt never offers from dividing by zero (it then dominates only if p_l > 0)."""
    p = normalised(probs, labels)
    cf = normalised(content_free, labels)
    if p is None:
        return None
    if cf is None:
        return p
    return normalised({lab: p[lab] / max(cf[lab], floor) for lab in labels}, labels)


def threshold_label(p_yes: float, threshold: float, yes: str = "YES", no: str = "NO") -> str:
    """The binary decision at a threshold on P(YES) (>= is YES)."""
    return yes if p_yes >= threshold else no


def fit_threshold(
    scores: Sequence[float], golds: Sequence[str], yes: str = "YES", no: str = "NO"
) -> tuple[float, float]:
    """(threshold, macro-F1) maximising macro-F1 of `score >= t` → YES over the given items.

    Candidates are the midpoints between consecutive distinct scores (plus both ends); among equally
    good thresholds the middle one of the best set is taken, the least sensitive to the sample. The
    confusion counts of every candidate come from one vectorised comparison (n × m), so fitting on a
    few hundred train items is instant; tests check the result against scikit-learn's f1_score."""
    import numpy as np

    if len(scores) != len(golds) or not len(scores):
        raise ValueError("fit_threshold needs as many scores as gold labels, at least one")
    s = np.asarray(scores, dtype=float)
    pos = np.array([str(x).upper() == yes for x in golds])
    pts = np.unique(s)
    cands = np.concatenate([[pts[0] - 1e-9], (pts[1:] + pts[:-1]) / 2, [pts[-1] + 1e-9]])
    said_yes = s[None, :] >= cands[:, None]  # candidates × items
    tp = (said_yes & pos).sum(1)
    fp = (said_yes & ~pos).sum(1)
    fn = (~said_yes & pos).sum(1)
    tn = (~said_yes & ~pos).sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        f_yes = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), 0.0)
        f_no = np.where(2 * tn + fn + fp > 0, 2 * tn / (2 * tn + fn + fp), 0.0)
    macro = (f_yes + f_no) / 2
    best_idx = np.flatnonzero(macro >= macro.max() - 1e-12)
    i = int(best_idx[len(best_idx) // 2])
    return round(float(cands[i]), 6), round(float(macro[i]), 6)


def weighted(
    probs: Mapping[str, float] | None, weights: Mapping[str, float], labels: Sequence[str]
) -> dict[str, float] | None:
    """q_l ∝ w_l · p_l: a class prior correction (the multi-class form of a threshold)."""
    p = normalised(probs, labels)
    if p is None:
        return None
    return normalised({lab: p[lab] * float(weights.get(lab, 1.0)) for lab in labels}, labels)


def fit_class_weights(
    probs: Sequence[Mapping[str, float]],
    golds: Sequence[str],
    labels: Sequence[str],
    span: float = 3.0,
    step: float = 0.25,
    passes: int = 4,
) -> tuple[dict[str, float], float]:
    """(weights, macro-F1) maximising macro-F1 of argmax_l w_l · p_l over the given items.

    Coordinate ascent over log-weights on a grid (the first label's weight stays 1); among equally good
    values the one nearest no change is kept, so a weight moves only when it helps. Deterministic, and
    instant for a few hundred items. Fitted on a train split only (`eval-fit-threshold`)."""
    import numpy as np

    if len(probs) != len(golds) or not len(probs):
        raise ValueError("fit_class_weights needs as many probability rows as gold labels, at least one")
    labs = list(labels)
    P = np.array([[float((normalised(p, labs) or {}).get(lab, 0.0)) for lab in labs] for p in probs])
    g = np.array([labs.index(str(x).upper()) if str(x).upper() in labs else -1 for x in golds])

    def macro(logw: np.ndarray) -> float:
        pred = np.argmax(np.log(np.maximum(P, 1e-12)) + logw, axis=1)
        f1s = []
        for c in range(len(labs)):
            tp = int(((pred == c) & (g == c)).sum())
            fp = int(((pred == c) & (g != c)).sum())
            fn = int(((pred != c) & (g == c)).sum())
            f1s.append(2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else 0.0)
        return float(np.mean(f1s))

    grid = np.round(np.arange(-span, span + step / 2, step), 6)
    grid = grid[np.argsort(np.abs(grid), kind="stable")]  # nearest no change first: wins ties
    logw = np.zeros(len(labs))
    best = macro(logw)
    for _ in range(passes):
        moved = False
        for c in range(1, len(labs)):
            for v in grid:
                trial = logw.copy()
                trial[c] = v
                f = macro(trial)
                if f > best + 1e-12:
                    best, logw, moved = f, trial, True
        if not moved:
            break
    return {lab: round(float(np.exp(w)), 6) for lab, w in zip(labs, logw)}, round(best, 6)


def judge_key(model: str, task: str, protocol: str, judge_answer: str) -> str:
    """Which fitted class weights apply to a RADAR judge: its model, task, protocol and answer format."""
    return f"{canonical_spec(model)}|{task}|{protocol}-judge|judge_answer={judge_answer}"


def setting_key(
    model: str,
    task: str,
    category: int | None,
    answer: str,
    demos: str,
    k: int,
    skip: int = 0,
    neighbours: str = "semantic",
) -> str:
    """Which fitted threshold applies: it is only valid for the prompt it was fitted with (a member that
    skips the nearest neighbours, or finds them by shared words, reads other demonstrations, so it has its
    own). The default view (semantic neighbours, no skip) keeps the key it always had."""
    cat = f"{task}{category if category is not None else ''}"
    shown = ""
    if demos in ("similar", "dialogue"):
        shown = f"-{k}" + (f"-skip{skip}" if skip > 0 else "") + (f"-{neighbours}" if neighbours != "semantic" else "")
    return f"{canonical_spec(model)}|{cat}|answer={answer}|demos={demos}{shown}"


def _own_key(key: str) -> str:
    """A fitted entry's key with its model under the packaged model's own name (an entry fitted under an
    old name, such as local:qwen2.5-0.5b, applies to local:qwen2.5-coder-0.5b)."""
    model, sep, rest = str(key).partition("|")
    return canonical_spec(model) + sep + rest


@lru_cache(maxsize=1)
def _fitted() -> dict:
    try:
        data = json.loads(FITTED_PATH.read_text())
    except (OSError, ValueError):
        return {}
    return {_own_key(k): v for k, v in data.items()} if isinstance(data, dict) else {}


def fitted_threshold(key: str) -> dict | None:
    """The fitted entry {threshold, train_macro_f1, n, run, ...} for a setting, or None."""
    entry = _fitted().get(key)
    return dict(entry) if isinstance(entry, dict) and "threshold" in entry else None


def fitted_weights(key: str) -> dict | None:
    """The fitted entry {weights, train_macro_f1, n, run, ...} for a RADAR judge, or None."""
    entry = _fitted().get(key)
    return dict(entry) if isinstance(entry, dict) and isinstance(entry.get("weights"), dict) else None


def save_fitted(key: str, entry: dict, path: Path | None = None) -> None:
    """Add or replace one fitted entry (sorted keys, so the data file diffs cleanly)."""
    path = path or FITTED_PATH
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data[key] = entry
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    _fitted.cache_clear()


LABEL_SETS = (("YES", "NO"), ("TRUE", "FALSE", "HALF-TRUE"), ("TRUE", "FALSE", "HALF-TRUE", "NEI"))


def disagreement(
    label: str | None, confidence: float | None, probs: Mapping[str, float] | None, labels: Sequence[str] = ()
) -> str | None:
    """A sentence when the shown label is not the most probable one by the model's own probabilities.

    Why: a card saying "YES · confidence 0.04" lets a reader believe the machine is sure of YES. With
    the full distribution we name the label it preferred. With only the label's own probability p over
    n labels, p < 1/n means at least one other label is more probable (the rest share 1 − p); without
    the label set, the smallest known set containing the label is assumed (YES/NO, then the three
    half-truth labels)."""
    if label is None:
        return None
    lab = str(label).upper()
    p = normalised(probs, list(labels) or list(probs or {})) if probs else None
    if p and lab in p:
        top = max(p, key=lambda k: p[k])
        if top != lab and p[top] > p[lab] + 1e-9:
            return (
                f"The model's own probability of {lab} ({p[lab]:.2f}) is below that of {top} "
                f"({p[top]:.2f}): the label comes from its written answer or a vote, not from its "
                f"probabilities."
            )
        return None
    if confidence is None:
        return None
    labels = tuple(labels) or next((s for s in LABEL_SETS if lab in s), ())
    if len(labels) >= 2 and confidence < 1 / len(labels) - 1e-9:
        others = (
            "NO"
            if labels == ("YES", "NO") and lab == "YES"
            else ("YES" if labels == ("YES", "NO") else "another label")
        )
        return (
            f"The model's own probability of {lab} is {confidence:.2f}, so {others} was more probable: "
            f"the label comes from its written answer or a vote, not from its probabilities."
        )
    return None
