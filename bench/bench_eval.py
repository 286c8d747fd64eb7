"""Benchmark of the batch runner's own cost (scripted models, no LLM).

    .venv/bin/python bench/bench_eval.py

Overhead per item: checkthat-dev (137 items, all three categories) with a zero-latency scripted model
through the real ModelClient, SQLite checkpoint and reports; what is left is the runner's cost. Spreading a
batch over several servers is the router's job: bench/bench_router.py.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from debate.evaluation.runner import EvalOptions, run_eval
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from tests.evaluation.test_eval_runner import fake_run_debate, scripted_answer


def overhead(tmp: Path) -> None:
    client = ModelClient({"scripted": ScriptedBackend(default=scripted_answer)})
    lineup = {"members": [{"model": "scripted:bot"}]}
    t = time.perf_counter()
    s = run_eval(
        EvalOptions(
            dataset="checkthat-dev",
            out=str(tmp / "o"),
            protocol="baseline",
            lineup=lineup,
            concurrency=4,
            progress=False,
        ),
        client=client,
        debate_fn=fake_run_debate,
    )
    wall = time.perf_counter() - t
    t = time.perf_counter()
    run_eval(
        EvalOptions(
            dataset="checkthat-dev",
            out=str(tmp / "o"),
            protocol="baseline",
            lineup=lineup,
            concurrency=4,
            progress=False,
        ),
        client=client,
        debate_fn=fake_run_debate,
    )
    resume = time.perf_counter() - t
    print(
        f"overhead: {s.done} items (3 model calls each) in {wall:.2f}s = {1000 * wall / s.done:.1f} ms/item "
        f"including the final report; a resume with nothing to do takes {resume:.2f}s"
    )


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        overhead(Path(d))
