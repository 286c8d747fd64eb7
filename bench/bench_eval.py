"""Benchmark of the batch runner's own cost and of fleet dispatch (scripted models, no LLM).

    .venv/bin/python bench/bench_eval.py

1. Overhead per item: checkthat-dev (137 items, all three categories) with a zero-latency scripted model
   through the real ModelClient, SQLite checkpoint and reports; what is left is the runner's cost.
2. Fleet: the same batch on one endpoint serving 1 request at a time vs a fleet of 3 such endpoints,
   each request taking ~0.2 s (a slow model), concurrency 6.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from debate.evaluation.runner import EvalOptions, run_eval  # noqa: E402
from debate.models.client import ModelClient  # noqa: E402
from debate.models.scripted import ScriptedBackend  # noqa: E402
from tests.test_eval_runner import fake_run_debate, scripted_answer  # noqa: E402


def overhead(tmp: Path) -> None:
    client = ModelClient({"scripted": ScriptedBackend(default=scripted_answer)})
    lineup = {"members": [{"model": "scripted:bot"}]}
    t = time.perf_counter()
    s = run_eval(EvalOptions(dataset="checkthat-dev", out=str(tmp / "o"), protocol="baseline", lineup=lineup,
                             concurrency=4, progress=False), client=client, debate_fn=fake_run_debate)
    wall = time.perf_counter() - t
    t = time.perf_counter()
    run_eval(EvalOptions(dataset="checkthat-dev", out=str(tmp / "o"), protocol="baseline", lineup=lineup,
                         concurrency=4, progress=False), client=client, debate_fn=fake_run_debate)
    resume = time.perf_counter() - t
    print(f"overhead: {s.done} items (3 model calls each) in {wall:.2f}s = {1000 * wall / s.done:.1f} ms/item "
          f"including the final report; a resume with nothing to do takes {resume:.2f}s")


def fleet(tmp: Path) -> None:
    def run(endpoints: list[str], backends: dict) -> float:
        client = ModelClient(backends)
        model = endpoints if len(endpoints) > 1 else endpoints[0]
        t = time.perf_counter()
        s = run_eval(EvalOptions(dataset="checkthat-dev", out=str(tmp / f"f{len(endpoints)}"), protocol="baseline",
                             lineup={"members": [{"model": model}]}, category=1, limit=30, concurrency=6,
                             progress=False), client=client, debate_fn=fake_run_debate)
        assert s.done == 30, s
        return time.perf_counter() - t

    def slow() -> ScriptedBackend:  # 4 words at 0.05 s each: ~0.2 s a request, one at a time
        return ScriptedBackend(default='{"label": "YES", "why": 1}', delay_s=0.05, max_parallel=1)

    one = run(["scripted:m@http://a"], {"scripted@http://a": slow()})
    eps = [f"scripted:m@http://{h}" for h in "abc"]
    three = run(eps, {f"scripted@http://{h}": slow() for h in "abc"})
    print(f"fleet: 30 items on 1 endpoint {one:.2f}s, on a fleet of 3 {three:.2f}s (speed-up {one / three:.2f}x)")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        overhead(Path(d))
        fleet(Path(d))
