"""Fit the baseline's decision threshold on P(YES) from a recorded CheckThat **train** run (no model calls).

`python -m debate eval-fit-threshold runs/ct2-train-...` reads each item's answer turn (its raw label
probabilities, recorded in the events) and the gold label, picks the threshold that maximises macro-F1
(debate.aids.calibration.fit_threshold) and, with --write, stores it in debate/aids/fitted_thresholds.json under
the setting it is valid for (model, category, answer format, demonstrations). A run over any split but
train is refused: a threshold fitted on dev or test would make their scores meaningless.
"""

from __future__ import annotations

from typing import Any

from debate.aids import calibration as cal
from debate.errors import InvalidInput
from debate.evaluation.checkpoint import read_meta, read_rows
from debate.protocols.baseline import INFO as BASELINE


def answer_scores(run_dir: str) -> tuple[list[float], list[str], dict[str, Any]]:
    """(P(YES) per item, gold per item, the setting) of a finished baseline run on one category."""
    opts = read_meta(run_dir, "options") or {}
    ds = read_meta(run_dir, "dataset") or {}
    if opts.get("protocol") != "baseline":
        raise InvalidInput(
            f"{run_dir} is a {opts.get('protocol')!r} run; thresholds are fitted on baseline runs.",
            "Run `python -m debate eval --protocol baseline --dataset checkthat-train ...` first.",
        )
    if "train" not in str(ds.get("name", "")):
        raise InvalidInput(
            f"{run_dir} scores {ds.get('name')!r}, not a train split: fitting on it would tune "
            "on the data the threshold is judged on.",
            "Fit on a --dataset checkthat-train run.",
        )
    cat = opts.get("category")
    if cat is None:
        raise InvalidInput(f"{run_dir} ran all categories at once.", "Fit on a run with --category 1, 2 or 3.")
    setting = {**BASELINE.defaults(), **(opts.get("params") or {})}
    scores, golds, models, views = [], [], set(), set()
    for row in read_rows(run_dir, with_events=True):
        if row.get("status") != "done":
            continue
        ans = next(
            (e for e in row.get("events") or [] if e.get("type") == "turn_finished" and e.get("phase") == "answer"),
            None,
        )
        views.add(_view(row.get("events") or [], setting))
        p = cal.normalised((ans or {}).get("label_probs"), ("YES", "NO"))
        gold = row.get("gold")
        gold = gold.get(str(cat)) if isinstance(gold, dict) else gold
        if p is None or gold is None:
            continue
        scores.append(p["YES"])
        golds.append(str(gold).upper())
        models.add((ans or {}).get("model"))  # (there: a missing answer has no probabilities)
    if len(models) != 1 or len(scores) < 10:
        raise InvalidInput(
            f"{run_dir}: {len(scores)} items with label probabilities from models {sorted(models, key=str)}.",
            "Fit needs one model and at least 10 items answered with answer=reason-first or label-first.",
        )
    if len(views) > 1:
        raise InvalidInput(
            f"{run_dir}: its items were answered after different demonstration slices {sorted(views)}.",
            "Fit on a run of one lineup member.",
        )
    k, skip, found = views.pop()
    setting.update(
        model=models.pop(),
        category=int(cat),
        task=ds.get("task", "checkthat"),
        k_demos=k,
        demo_skip=skip,
        neighbours=found,
    )
    return scores, golds, setting


def _view(events: list[dict], setting: dict) -> tuple[int, int, str]:
    """(k, skip, neighbours) of the demonstrations the baseline agent read: its own view from the lineup
    (recorded in debate_started), else the run's k_demos and the semantic search."""
    start = next((e for e in events if e.get("type") == "debate_started"), {})
    agent: dict[str, Any] = next((a for a in start.get("lineup") or [] if a.get("role") == "baseline"), {})
    return (
        int(agent.get("k_demos") or setting.get("k_demos") or 0),
        int(agent.get("demo_skip") or 0),
        str(agent.get("neighbours") or "semantic"),
    )


def judge_probs(run_dir: str) -> tuple[list[dict], list[str], dict[str, Any]]:
    """(the final judge's label probabilities per item, gold per item, the setting) of a finished RADAR
    run on a train split; the setting's `items` are the item ids, in the same order."""
    from debate.protocols import PROTOCOLS

    opts = read_meta(run_dir, "options") or {}
    ds = read_meta(run_dir, "dataset") or {}
    protocol = opts.get("protocol")
    if "train" not in str(ds.get("name", "")):
        raise InvalidInput(
            f"{run_dir} scores {ds.get('name')!r}, not a train split: fitting on it would tune "
            "on the data the weights are judged on.",
            "Fit on a --dataset liar-train run.",
        )
    setting = {**PROTOCOLS[str(protocol)].defaults(), **(opts.get("params") or {})}
    labels = tuple(ds.get("labels") or ())
    probs, golds, models, ids = [], [], set(), []
    for row in read_rows(run_dir, with_events=True):
        if row.get("status") != "done" or row.get("gold") is None:
            continue
        j = next(
            (
                e
                for e in reversed(row.get("events") or [])
                if e.get("type") == "turn_finished" and e.get("phase") == "judge"
            ),
            None,
        )
        p = cal.normalised((j or {}).get("label_probs"), labels)
        if p is None:
            continue
        ids.append(str(row["item_id"]))
        probs.append(p)
        golds.append(str(row["gold"]).upper())
        models.add((j or {}).get("model"))
    if len(models) != 1 or len(probs) < 10:
        raise InvalidInput(
            f"{run_dir}: {len(probs)} judge verdicts with label probabilities from models {sorted(models, key=str)}.",
            "Fit needs one judge model and at least 10 items with --param judge_answer=constrained.",
        )
    setting.update(model=models.pop(), task=ds.get("task", "halftruth"), protocol=protocol, labels=labels, items=ids)
    return probs, golds, setting


def fit_run(run_dir: str) -> tuple[str, dict]:
    """(setting key, fitted entry) for a train run: a threshold for a CheckThat baseline run, class
    weights for a RADAR run's judge."""
    opts = read_meta(run_dir, "options") or {}
    if str(opts.get("protocol", "")).startswith("radar"):
        probs, golds, s = judge_probs(run_dir)
        weights, f1 = cal.fit_class_weights(probs, golds, s["labels"])
        key = cal.judge_key(s["model"], s["task"], s["protocol"], str(s["judge_answer"]))
        where = f"{(read_meta(run_dir, 'dataset') or {}).get('name')}" + (
            f", stratified sample of {opts['sample']} (seed {opts.get('sample_seed', 0)})" if opts.get("sample") else ""
        )
        return key, {"weights": weights, "train_macro_f1": f1, "n": len(probs), "fitted_on": where, "run": str(run_dir)}
    scores, golds, s = answer_scores(run_dir)
    t, f1 = cal.fit_threshold(scores, golds)
    key = cal.setting_key(
        s["model"],
        s["task"],
        s["category"],
        s["answer"],
        s["demos"],
        int(s["k_demos"]),
        *((int(s["demo_skip"]), s["neighbours"]) if s["demos"] == "dialogue" else (0, "semantic")),
    )
    opts = read_meta(run_dir, "options") or {}
    where = (
        "checkthat-train"
        + (f", stratified sample of {opts['sample']} (seed {opts.get('sample_seed', 0)})" if opts.get("sample") else "")
        + (
            f", its first {min(int(opts['limit']), len(scores))} in file order"
            if opts.get("limit") and opts.get("sample") and int(opts["limit"]) < int(opts["sample"])
            else ""
        )
    )  # a stopped pass: the items it reached
    return key, {
        "threshold": t,
        "train_macro_f1": f1,
        "n": len(scores),
        "positives": sum(g == "YES" for g in golds),
        "fitted_on": where,
        "run": str(run_dir),
    }


def constant_rows(rows: list[dict], categories: list[str]) -> list[dict]:
    """The run's items answered by the constant-label floor: per category (or for the single label
    task) always the most frequent gold label of these items, which maximises a constant's macro-F1
    (2c / (c + n) grows with the class count c). Paired with the run by item id in `eval-compare`."""
    from collections import Counter

    done = [r for r in rows if r.get("status") == "done" and r.get("gold") is not None]
    if categories:
        best = {
            c: Counter(r["gold"][c] for r in done if isinstance(r["gold"], dict) and c in r["gold"]).most_common(1)[0][
                0
            ]
            for c in categories
            if any(isinstance(r["gold"], dict) and c in r["gold"] for r in done)
        }
        return [{**r, "prediction": {c: best[c] for c in (r.get("prediction") or {}) if c in best}} for r in done]
    label = Counter(r["gold"] for r in done).most_common(1)[0][0] if done else None
    return [{**r, "prediction": label} for r in done]
