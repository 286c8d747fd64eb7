"""Benchmark of several servers behind one router (the LiteLLM proxy, docs/several-servers.md).

    .venv/bin/python bench/bench_router.py [--delay 0.2]

The upstreams are scripted OpenAI-compatible servers on loopback (tests/support/servers.py FlakyOpenAI),
so what is measured is the router, not a model:
1. Overhead: 40 streamed requests one after the other, straight to an upstream that answers at once vs
   through the router in front of it; the median extra time per request.
2. Spread: 30 items through the batch runner (concurrency 6) on one upstream serving one request at a
   time, `--delay` seconds each (default 1.0; a small model's short answer on a GPU), vs three such
   upstreams behind the router; the speed-up. With `--delay 0.2` it is the shape the home-made fleet the
   router replaced was measured on (2.90x for 3 endpoints on this machine).
Needs the router's virtualenv (`make test-setup`); says so and exits 0 without it.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from debate.evaluation.runner import EvalOptions, run_eval
from debate.models.base import GenOptions
from debate.models.registry import default_client
from tests.evaluation.test_eval_runner import fake_run_debate
from tests.support.servers import ROUTER_BIN, FlakyOpenAI, start_litellm_router

ANSWER = '{"label":"YES","explanation":"scripted"}'  # one word: the stand-in streams it as one piece


def router_for(upstreams: list[FlakyOpenAI], tmp: Path, strategy: str = "least-busy") -> tuple[object, str]:
    """The router in front of `upstreams` under the model name `m`; returns it and its key."""
    deployments = "".join(
        f'  - model_name: m\n    litellm_params: {{model: openai/flaky, api_base: "{u.url}", api_key: none}}\n'
        for u in upstreams
    )
    config = tmp / f"router-{len(upstreams)}.yaml"
    config.write_text(
        f"model_list:\n{deployments}router_settings:\n  routing_strategy: {strategy}\n"
        "general_settings:\n  master_key: os.environ/LITELLM_MASTER_KEY\n",
        encoding="utf-8",
    )
    key = "sk-bench-" + secrets.token_hex(8)
    return start_litellm_router(config, {"LITELLM_MASTER_KEY": key}, tmp), key


def use_router(url: str, key: str) -> None:
    os.environ.update(OPENAI_BASE_URL=url, OPENAI_API_KEY=key)


def overhead(tmp: Path) -> None:
    up = FlakyOpenAI(0, reply=ANSWER)
    router, key = router_for([up], tmp)
    try:

        def per_request(spec: str) -> float:
            client = default_client(cache=False)
            client.chat(spec, [{"role": "user", "content": "warm up"}], GenOptions(max_tokens=8)).result()
            times = []
            for n in range(40):
                t = time.perf_counter()
                client.chat(spec, [{"role": "user", "content": f"q{n}"}], GenOptions(max_tokens=8)).result()
                times.append(time.perf_counter() - t)
            return statistics.median(times)

        direct = per_request(f"openai:flaky@{up.url}")
        use_router(router.url, key)
        routed = per_request(f"openai:m@{router.url}")
    finally:
        router.stop()
        up.stop()
    print(
        f"overhead: median request straight to the server {1000 * direct:.1f} ms, through the router "
        f"{1000 * routed:.1f} ms (+{1000 * (routed - direct):.1f} ms a request)"
    )


def spread(tmp: Path, delay_s: float, strategy: str) -> None:
    def run(spec: str, name: str) -> float:
        t = time.perf_counter()
        s = run_eval(
            EvalOptions(
                dataset="checkthat-dev",
                out=str(tmp / name),
                protocol="baseline",
                lineup={"members": [{"model": spec}]},
                category=1,
                limit=30,
                concurrency=6,
                progress=False,
            ),
            client=default_client(cache=False),
            debate_fn=fake_run_debate,
        )
        assert s.done == 30, s
        return time.perf_counter() - t

    ups = [FlakyOpenAI(0, reply=ANSWER, delay_s=delay_s, serial=True) for _ in range(3)]
    router, key = router_for(ups, tmp, strategy)
    try:
        one = run(f"openai:flaky@{ups[0].url}", "one")
        use_router(router.url, key)
        before = [u.chat_calls for u in ups]
        three = run(f"openai:m@{router.url}", "three")
        served = [u.chat_calls - b for u, b in zip(ups, before)]
    finally:
        router.stop()
        for u in ups:
            u.stop()
    print(
        f"spread: 30 items of {delay_s:.1f} s on 1 server {one:.2f}s, on 3 behind the router ({strategy}) {three:.2f}s "
        f"(speed-up {one / three:.2f}x; requests per server {served})"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay", type=float, default=1.0, help="seconds each scripted server takes per request")
    ap.add_argument("--strategy", default="least-busy", help="the router's routing_strategy (e.g. simple-shuffle)")
    ap.add_argument("--spread-only", action="store_true")
    args = ap.parse_args()
    if not ROUTER_BIN.exists():
        print(f"skipped: no LiteLLM proxy at {ROUTER_BIN} (make test-setup)")
        sys.exit(0)
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_JSON_FORMAT"):
        os.environ.pop(var, None)
    os.environ["DEBATE_CACHE"] = "0"
    with tempfile.TemporaryDirectory() as d:
        if not args.spread_only:
            overhead(Path(d))
        spread(Path(d), args.delay, args.strategy)
