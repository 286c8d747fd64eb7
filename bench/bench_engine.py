"""Engine benchmark: concurrency of a council round, and the engine's overhead over model time.

    .venv/bin/python bench/bench_engine.py            # scripted backend (a parallel server simulated
                                                      # with a fixed delay per token), a few seconds
    .venv/bin/python bench/bench_engine.py --real     # also the baseline on local:qwen2.5-0.5b

1. Council round: five members answer at once, 20..60 tokens at 10 ms/token on a backend that serves
   requests in parallel (ScriptedBackend, max_parallel 64). Target: the round's wall time (first
   TurnStarted to VotesTallied) at most 1.2x its slowest member's latency.
2. Overhead: a single debate (R=3) whose every answer is 50 tokens at 10 ms/token, against the same
   number of 50-token calls made directly on the ModelClient with the same concurrency (9 batches:
   openings and closings run two at once). Overhead = engine wall / direct wall - 1. Target < 3%.
   Also one baseline call through the engine vs the same call made directly.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from debate.models.base import GenOptions
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.runner import DebateConfig, prepare, run_debate

DELAY = 0.01


def words(n: int, tail: str = "") -> str:
    return " ".join(["w"] * (n - 1)) + " " + tail if tail else " ".join(["w"] * n)


def council_round() -> dict:
    lengths = {1: 20, 2: 30, 3: 40, 4: 50, 5: 60}

    def reply(messages, options):
        return words(lengths[options.seed], '{"vote": "YES"}')

    client = ModelClient({"scripted": ScriptedBackend(default=reply, delay_s=DELAY)})
    lineup = {
        "members": [{"name": f"m{i}", "model": f"scripted:m{i}", "seed": i} for i in range(1, 6)],
        "judge": {"model": "scripted:j"},
    }
    ev = list(run_debate(DebateConfig(claim="x", protocol="council", category=2, lineup=lineup), client))
    start = next(e for e in ev if e.type == "turn_started")
    tally = next(e for e in ev if e.type == "votes_tallied")
    slowest = max(e.latency_s for e in ev if e.type == "turn_finished")
    total = sum(e.latency_s for e in ev if e.type == "turn_finished")
    wall = tally.t - start.t
    return {"wall_s": wall, "slowest_s": slowest, "ratio": wall / slowest, "sum_s": total}


def single_overhead(tokens: int = 50, rounds: int = 3) -> dict:
    client = ModelClient(
        {"scripted": ScriptedBackend(default=lambda m, o: words(tokens, '{"category": 1}'), delay_s=DELAY)}
    )
    lineup = {"members": [{"model": "scripted:a"}, {"model": "scripted:b"}], "judge": {"model": "scripted:j"}}
    t0 = time.perf_counter()
    ev = list(run_debate(DebateConfig(claim="x", protocol="single", lineup=lineup, params={"rounds": rounds}), client))
    wall = time.perf_counter() - t0
    nominal = (2 * rounds + 3) * tokens * DELAY
    raw = raw_batches(client, [len(b) for b in batches_of(ev)], tokens)
    return {"wall_s": wall, "raw_s": raw, "nominal_s": nominal, "overhead": wall / raw - 1, "calls": ev[-1].model_calls}


def batches_of(events) -> list[list[str]]:
    """Turns started together (consecutive TurnStarted events) form one concurrent batch."""
    batches: list[list[str]] = []
    prev = None
    for e in events:
        if e.type == "token":
            continue
        if e.type == "turn_started":
            if prev != "turn_started":
                batches.append([])
            batches[-1].append(e.turn_id)
        prev = e.type
    return batches


def raw_batches(client: ModelClient, sizes: list[int], tokens: int) -> float:
    """The same calls with the same concurrency, made directly on the client with plain threads."""
    import threading

    t0 = time.perf_counter()
    for n in sizes:
        threads = [
            threading.Thread(
                target=lambda i=i: client.chat(
                    f"scripted:raw{i}", [{"role": "user", "content": "x"}], GenOptions(max_tokens=tokens)
                ).result()
            )
            for i in range(n)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return time.perf_counter() - t0


def baseline_overhead(client: ModelClient, lineup, max_tokens: int) -> dict:
    cfg = DebateConfig(
        claim="A new study in Nature finds coffee lowers heart disease risk",
        protocol="baseline",
        category=2,
        lineup=lineup,
        params={"examples": False},
        max_tokens=max_tokens,
    )
    t0 = time.perf_counter()
    ev = list(run_debate(cfg, client))
    engine = time.perf_counter() - t0
    turn = next(e for e in ev if e.type == "turn_finished")
    calls = ev[-1].model_calls
    # the same request(s), made directly: first prompt as sent by the engine
    from debate import prompts
    from debate.protocols.base import DebateContext

    pp = prepare(cfg)
    ctx = DebateContext(config=cfg, client=client, agents=pp.agents, params=pp.params)
    from debate.tasks import resolve_task

    ctx.task = resolve_task("checkthat", 2)
    msgs = prompts.messages(None, "turquaz.baseline", ctx.task_values())
    a = pp.agents[0]
    t0 = time.perf_counter()
    client.chat(
        a.model, msgs, GenOptions(temperature=a.temperature, seed=a.seed, max_tokens=max_tokens, labels=("YES", "NO"))
    ).result()
    raw = time.perf_counter() - t0
    return {
        "engine_s": engine,
        "raw_s": raw,
        "overhead": engine / raw - 1,
        "calls": calls,
        "completion_tokens": turn.completion_tokens,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--real", action="store_true", help="also measure on the embedded qwen2.5-0.5b")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    med = lambda rows, k: statistics.median(r[k] for r in rows)

    rows = [council_round() for _ in range(args.repeat)]
    print(f"council round, 5 members in parallel (scripted, {DELAY * 1000:.0f} ms/token, 20-60 tokens):")
    print(
        f"  wall {med(rows, 'wall_s'):.3f} s  slowest member {med(rows, 'slowest_s'):.3f} s  "
        f"ratio {med(rows, 'ratio'):.3f}x (target <= 1.2x)  sequential sum would be {med(rows, 'sum_s'):.3f} s"
    )

    rows = [single_overhead() for _ in range(args.repeat)]
    print("single debate R=3, 11 calls x 50 tokens (critical path 9 answers):")
    print(
        f"  engine wall {med(rows, 'wall_s'):.3f} s  same calls made directly {med(rows, 'raw_s'):.3f} s "
        f"(nominal {rows[0]['nominal_s']:.3f} s)  "
        f"overhead {med(rows, 'overhead') * 100:.2f}% (target < 3%)"
    )

    client = ModelClient(
        {"scripted": ScriptedBackend(default=lambda m, o: words(50, '{"category": 1}'), delay_s=DELAY)}
    )
    lu = {"members": [{"model": "scripted:a"}], "judge": {"model": "scripted:a"}}
    rows = [baseline_overhead(client, lu, 64) for _ in range(args.repeat)]
    print(
        f"baseline, one 50-token call: engine {med(rows, 'engine_s'):.3f} s vs direct {med(rows, 'raw_s'):.3f} s  "
        f"overhead {med(rows, 'overhead') * 100:.2f}%"
    )

    if args.real:
        from debate.models.registry import default_client

        real = default_client(cache=False)
        lu = {"members": [{"model": "local:qwen2.5-0.5b", "temperature": 0.0, "seed": 0}]}
        baseline_overhead(real, lu, 8)  # load the model once, outside the measurement
        rows = [baseline_overhead(real, lu, 32) for _ in range(args.repeat)]
        calls = rows[0]["calls"]
        print(
            f"baseline on local:qwen2.5-0.5b (32 tokens, {calls} call(s) incl. any repair): engine "
            f"{med(rows, 'engine_s'):.2f} s vs direct {med(rows, 'raw_s'):.2f} s  "
            f"overhead {med(rows, 'overhead') * 100:.2f}%" + ("" if calls == 1 else "  (not comparable: repair)")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
