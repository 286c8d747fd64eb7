"""Markdown tables of several runs, and of our runs beside the papers' rows, for READMEs and notes.

Why generated: numbers copied by hand into a README drift from the runs they came from. `python -m debate
eval-table runs/...` prints these tables from each run's metrics, so the README quotes exactly what the
folders hold and anyone can regenerate it after extending a run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from debate.evaluation.browse import selection
from debate.evaluation.metrics import repair_share
from debate.evaluation.papers import RADAR_RESULTS, TURQUAZ_TABLE2


def _f(v: Any, digits: int = 3) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def _score(m: dict) -> tuple[float | None, float | None, dict]:
    """Accuracy, macro-F1 and per-class F1 of a run (its single category for a CheckThat run)."""
    cats = m.get("categories") or {}
    if len(cats) == 1:
        c = next(iter(cats.values()))
        return c.get("accuracy"), c.get("macro_f1"), c.get("f1") or {}
    return m.get("accuracy"), m.get("macro_f1"), m.get("f1") or {}


def constant_label_f1(m: dict) -> float | None:
    """Macro-F1 of always answering the best single label on the run's items: the floor a classifier
    must clear (on CheckThat cat 2, always NO scores 0.448 while the classes are 111 NO / 26 YES)."""
    cats = m.get("categories") or {}
    conf = (next(iter(cats.values())) if len(cats) == 1 else m).get("confusion") or {}
    golds, matrix = conf.get("gold_labels") or [], conf.get("matrix") or []
    counts = [sum(row) for row in matrix]
    n = sum(counts)
    if not n or len(golds) < 2:
        return None
    return max(2 * c / (c + n) for c in counts) / len(golds)


def _repaired(d: dict) -> str:
    """Labelled turns that needed a repair, and what the repairs answered (e.g. "122/137: YES 118, NO 4")."""
    rep = d.get("labels_repaired") or {}
    n_rep, n = repair_share(d)
    if not n:
        return "–"
    return f"{n_rep}/{n}" + (": " + ", ".join(f"{k} {v}" for k, v in rep.items()) if rep else "")


def runs_table(metrics: Sequence[dict]) -> str:
    """One row per run: what was run, on which items, and its scores and costs."""
    head = (
        "| run | data | protocol, params | items | accuracy | macro-F1 | F1 per class | invalid | "
        "repaired → labels | rounds | early stop | tokens/item | s/item | const. label |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for m in metrics:
        run, d = m.get("run") or {}, m.get("debate") or {}
        acc, mf1, f1 = _score(m)
        cats = m.get("categories") or {}
        invalid = sum(c.get("invalid", 0) for c in cats.values()) if cats else m.get("invalid", 0)
        cat = f" cat {run['category']}" if run.get("category") else ""
        data = f"{m.get('dataset')}{cat}, {selection(run)}"
        params = json.dumps(run.get("params") or {}, sort_keys=True)
        per_class = " / ".join(f"{k} {v:.2f}" for k, v in f1.items())
        lines.append(
            f"| `{run.get('name')}` | {data} | {run.get('protocol')} {params} | "
            f"{(m.get('coverage') or {}).get('done', '–')} | {_f(acc)} | {_f(mf1)} | {per_class} | {invalid} | {_repaired(d)} | "
            f"{_f(d.get('rounds_mean'), 2)} | {_f(d.get('early_stop_rate'), 2)} | "
            f"{d.get('tokens_mean') or 0:,.0f} | {d.get('wall_s_mean') or 0:.0f} | "
            f"{_f(constant_label_f1(m))} |"
        )
    return "\n".join(lines)


def _span(values: list[float], digits: int = 3) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.{digits}f}" if lo == hi else f"{lo:.{digits}f}–{hi:.{digits}f}"


def beside_papers(metrics: Sequence[dict]) -> str:
    """One row per run: our scores beside the papers' rows for the same protocol (the run's category
    column for CheckThat; RADAR's PolitiFact-Hidden rows for LIAR, which are another dataset)."""
    lines = [
        "| run (lineup) | protocol | ours macro-F1 | ours acc. | papers, same protocol: macro-F1 | acc. | "
        "papers' rows and setting |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in metrics:
        run = m.get("run") or {}
        proto, cat = run.get("protocol"), run.get("category")
        acc, mf1, _ = _score(m)
        lineup = run.get("lineup")
        lineup = lineup.get("name", "custom") if isinstance(lineup, dict) else lineup
        ours = f"`{run.get('name')}` ({lineup}) | {proto} | {_f(mf1)} | {_f(acc)}"
        if m.get("dataset") == "checkthat-dev":
            col = {1: 3, 2: 4, 3: 5}.get(cat or 0, 2)
            rows = [r for r in TURQUAZ_TABLE2 if r[1] == proto]
            if rows:
                what = "; ".join(f"{r[0]} {r[col]:.4f}" for r in rows)
                lines.append(
                    f"| {ours} | {_span([float(r[col]) for r in rows], 4)} | – | TurQUaz Table 2, CheckThat 4a "
                    f"dev{f' cat {cat}' if cat else ' (mean of 3 categories)'}: {what} |"
                )
        elif str(m.get("dataset", "")).startswith("liar"):
            radar = [r for r in RADAR_RESULTS if r[2] == proto and r[0].startswith("PolitiFact")]
            if radar:
                what = "; ".join(
                    f"{r[1]}, {r[0].removeprefix('PolitiFact-Hidden, ')}: {r[4]:.3f} / {r[3]:.3f}" for r in radar
                )
                lines.append(
                    f"| {ours} | {_span([r[4] for r in radar])} | {_span([r[3] for r in radar])} | RADAR on "
                    f"PolitiFact-Hidden (another dataset, shown for scale): {what} |"
                )
    return "\n".join(lines)
