"""Batch evaluation: a resumable runner over datasets, metrics, early-stop calibration and reports.

Entry points for other code (the Evaluate page, scripts):
    run_eval(EvalOptions(...))                       run or resume a batch into a folder
    list_runs(root), load_metrics(run_dir), load_items(run_dir),
    confusion_items(run_dir, gold, pred, category), item_events(run_dir, item_id), compare(a, b),
    figures(run_dir)
Heavy imports (sklearn, plotly, tqdm) happen inside the modules that need them. The dataset readers
live in debate/datasets.py (the small-model aids read the train split too); `load_dataset` and
`list_datasets` are still reachable from here. Services layer: may import the runner and everything below
it; never the store, live path, CLI, teaching or adjudication.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "EvalOptions",
    "run_eval",
    "list_runs",
    "load_metrics",
    "load_items",
    "confusion_items",
    "figures",
    "item_events",
    "compare",
    "load_dataset",
    "list_datasets",
]

_WHERE = {
    "EvalOptions": "runner",
    "run_eval": "runner",
    "list_runs": "browse",
    "load_metrics": "browse",
    "load_items": "browse",
    "confusion_items": "browse",
    "item_events": "browse",
    "compare": "browse",
    "figures": "browse",
    "load_dataset": "debate.datasets",
    "list_datasets": "debate.datasets",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        where = _WHERE[name]
        return getattr(importlib.import_module(where if "." in where else f"debate.evaluation.{where}"), name)
    raise AttributeError(name)
