"""Read-only access to finished and running evaluation runs, for the Evaluate page and scripts.

The page never opens SQLite itself: it lists runs, loads their metrics, drills down from a confusion
cell to its items and from an item to its stored debate events (rebuilt as typed events, so the shared
transcript renderer can show them). All of it works while a run is still writing (SQLite WAL).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from debate.errors import InvalidInput
from debate.evaluation.checkpoint import DB_NAME, read_meta, read_rows
from debate.evaluation.metrics import INVALID, compare_runs
from debate.evaluation.report import run_metrics
from debate.events import Event, event_from_dict


def runs_dir() -> Path:
    """Where `python -m debate eval --out runs/NAME` puts runs by convention (DEBATE_RUNS_DIR overrides)."""
    return Path(os.environ.get("DEBATE_RUNS_DIR", "runs"))


def list_runs(root: str | Path | None = None) -> list[dict]:
    """One summary per run folder under `root` (newest first): name, path, dataset, protocol, lineup,
    category, counts per status, macro_f1/accuracy (from metrics.json when present), created_at."""
    root = Path(root) if root is not None else runs_dir()
    out: list[dict[str, Any]] = []
    for db in sorted(root.glob(f"*/{DB_NAME}")):
        run_dir = db.parent
        try:
            opts = read_meta(run_dir, "options") or {}
            ds = read_meta(run_dir, "dataset") or {}
            created = read_meta(run_dir, "created_at")
            rows = read_rows(run_dir)
        except Exception as e:  # noqa: BLE001 - one broken folder must not hide the others
            out.append({"name": run_dir.name, "path": str(run_dir), "error": str(e)})
            continue
        mfile = run_dir / "metrics.json"
        m = json.loads(mfile.read_text()) if mfile.exists() else {}
        counts: dict[str, int] = {}
        for r in rows:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        out.append(
            {
                "name": run_dir.name,
                "path": str(run_dir),
                "dataset": ds.get("name"),
                "task": ds.get("task"),
                "protocol": opts.get("protocol"),
                "lineup": opts.get("lineup"),
                "category": opts.get("category"),
                "items": len(rows),
                "selection": selection(opts),
                "counts": counts,
                "macro_f1": m.get("macro_f1"),
                "accuracy": m.get("accuracy"),
                "created_at": created,
                "report": str(run_dir / "report.html") if (run_dir / "report.html").exists() else None,
            }
        )
    return sorted(out, key=lambda r: r.get("created_at") or 0, reverse=True)


def selection(opts: dict) -> str:
    """How a run chose its items, in words: which part of the split its numbers describe."""
    sample, limit = opts.get("sample"), opts.get("limit")
    if sample:
        head = f"stratified sample of {sample} (seed {opts.get('sample_seed', 0)})"
        return head + (f", first {limit}" if limit and limit < sample else "")
    return f"first {limit}" if limit else "all"


def load_metrics(run_dir: str | Path, *, fresh: bool = False) -> dict:
    """metrics.json of a run (recomputed from the checkpoint when missing, or when `fresh`)."""
    mfile = Path(run_dir) / "metrics.json"
    if mfile.exists() and not fresh:
        return json.loads(mfile.read_text())
    return run_metrics(run_dir)


def load_items(run_dir: str | Path) -> list[dict]:
    """All items of a run without their events: item_id, text, gold, prediction, status, stats, error."""
    return read_rows(run_dir)


def confusion_items(run_dir: str | Path, gold: str, pred: str, category: str | int | None = None) -> list[dict]:
    """Items in one confusion-matrix cell (gold row, predicted column; pred "INVALID" for unparsed)."""
    cat = None if category in (None, "") else str(category)
    out = []
    for r in read_rows(run_dir):
        if r["status"] != "done":
            continue
        g, p = r["gold"], r["prediction"]
        if cat is not None:
            if not isinstance(g, dict) or not isinstance(p, dict) or cat not in p:
                continue
            g, p = g.get(cat), p.get(cat)
        if g == gold and (p or INVALID) == pred:
            out.append(r)
    return out


def item_events(run_dir: str | Path, item_id: str) -> list[Event]:
    """The stored debate of one item as typed events (token deltas were not stored)."""
    rows = read_rows(run_dir, [str(item_id)], with_events=True)
    if not rows:
        raise InvalidInput(f"Item {item_id!r} is not in run {run_dir}.", "Pick an item listed by load_items().")
    return [event_from_dict(d) for d in rows[0]["events"] or []]


def pooled(runs: str | Path) -> tuple[list[dict], dict]:
    """(rows, dataset) of one run, or of several comma-separated runs of one dataset taken as one: e.g. two
    samples drawn with different --sample-seed, so a replication can be reported alone and pooled. An item
    in more than one run counts once (the first run's row)."""
    parts = [p.strip() for p in str(runs).split(",") if p.strip()]
    if not parts:
        raise InvalidInput("No run given.", "Name a run folder, or several joined by commas.")
    rows: dict[str, dict] = {}
    dataset: dict = {}
    for part in parts:
        ds = read_meta(part, "dataset") or {}
        if dataset and ds.get("name") != dataset.get("name"):
            raise InvalidInput(
                f"{part} scores {ds.get('name')!r}, not {dataset.get('name')!r}.", "Pool only runs of the same dataset."
            )
        dataset = dataset or ds
        for r in read_rows(part):
            rows.setdefault(str(r.get("item_id")), r)
    return list(rows.values()), dataset


def compare(run_a: str | Path, run_b: str | Path, *, n_boot: int = 2000, seed: int = 0) -> dict:
    """Paired comparison A - B on the items both runs finished (bootstrap CI of macro-F1, McNemar).
    Either side may pool comma-separated runs (`pooled`)."""
    (rows_a, ds_a), (rows_b, ds_b) = pooled(run_a), pooled(run_b)
    if ds_a.get("name") != ds_b.get("name"):
        raise InvalidInput(
            f"Runs are on different datasets ({ds_a.get('name')} vs {ds_b.get('name')}).",
            "Compare two runs of the same dataset.",
        )
    res = compare_runs(rows_a, rows_b, ds_a, n_boot=n_boot, seed=seed)
    res.update(run_a=str(run_a), run_b=str(run_b))
    return res


def figures(run_dir: str | Path) -> list:
    """The report's plotly figures (confusion matrices, F1 per class, tokens, rounds, early-stop curve),
    for a page to show with st.plotly_chart."""
    from debate.evaluation.report import _figures

    return _figures(load_metrics(run_dir), read_rows(run_dir))
