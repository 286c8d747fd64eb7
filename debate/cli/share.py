"""`python -m debate export | fork | robustness`: share a debate, continue it, test its verdict.

export     EVENTS --html OUT.html    one self-contained HTML file that opens offline (debate.sharing.html)
fork       EVENTS --round N [--say NOTE] [--lineup L] [--param k=v] --events OUT.jsonl (debate.sharing.fork)
robustness EVENTS [--seeds 2] [--out-dir DIR]   swapped positions, shuffled members, other seeds
           (debate.sharing.robustness)

EVENTS is a JSONL events file (`run --events`), a Library JSON export, or the id of a stored debate.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from debate.cli.inputs import load_events
from debate.cli.run import _kv, _retriever, out_file, stream_debate
from debate.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    e = sub.add_parser("export", help="export a debate as one self-contained HTML file (opens offline)")
    e.add_argument("events", metavar="EVENTS")
    e.add_argument("--html", required=True, metavar="OUT.html")
    e.set_defaults(func=cmd_export)

    f = sub.add_parser(
        "fork",
        help="continue a debate from the state after round N",
        description="Replay a debate up to round N, then let the models continue, optionally with a "
        "moderator's note, another lineup or other parameters.",
    )
    f.add_argument("events", metavar="EVENTS")
    f.add_argument("--round", type=int, required=True, help="fork after this round (0 = after the openings)")
    f.add_argument("--say", default="", metavar="NOTE", help="a moderator's note every later prompt carries")
    f.add_argument("--lineup", default=None, help="another lineup (preset or JSON file) with the same seats")
    f.add_argument("--param", type=_kv, action="append", default=[], metavar="NAME=VALUE")
    f.add_argument("--events", dest="out", required=True, metavar="OUT.jsonl", help="the fork's whole event stream")
    f.add_argument("--index", default=None)
    f.add_argument("--no-cache", action="store_true")
    f.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    f.set_defaults(func=cmd_fork)

    r = sub.add_parser("robustness", help="re-run a debate with swapped positions, shuffled members, other seeds")
    r.add_argument("events", metavar="EVENTS")
    r.add_argument("--seeds", type=int, default=2, help="how many other seeds (default 2)")
    r.add_argument("--out-dir", default=None, help="write each variant's events here as JSONL")
    r.add_argument("--index", default=None)
    r.add_argument("--no-cache", action="store_true")
    r.set_defaults(func=cmd_robustness)


def _people_of(ref: str) -> dict | None:
    """A person's verdict and the audience poll of a stored debate (by id) or of a Library JSON export."""
    from debate import config
    from debate.store import people

    p = Path(ref).expanduser()
    if p.is_file():
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except ValueError:  # a JSONL events file: events only
            return None
        return {k: data.get(k) for k in ("overrules", "poll")} if isinstance(data, dict) else None
    return people.export(config.store_db(), ref) if config.store_db().is_file() else None


def cmd_export(args: argparse.Namespace) -> int:
    from debate.sharing.html import to_html

    out = Path(out_file(args.html, "--html") or args.html)  # --html is required: never None
    events = load_events(args.events)
    try:
        out.write_text(to_html(events, people=_people_of(args.events)), encoding="utf-8")
    except OSError as e:
        raise InvalidInput(
            f"Cannot write {out}: {e.strerror or e}.", "Choose a file in a folder you can write to."
        ) from None
    print(f"wrote {out} ({out.stat().st_size:,} bytes, no external resources)")
    return 0


def cmd_fork(args: argparse.Namespace) -> int:
    from debate.models.registry import default_client
    from debate.runner import prepare
    from debate.sharing.fork import fork_config

    out_file(args.out, "--events")
    cfg = fork_config(load_events(args.events), args.round, say=args.say, lineup=args.lineup, params=dict(args.param))
    pp = prepare(cfg)
    retriever = _retriever(args.index) if pp.evidence_on and cfg.fork.evidence is None else None
    return stream_debate(cfg, default_client(cache=not args.no_cache), retriever, args.out, args.color)


def cmd_robustness(args: argparse.Namespace) -> int:
    from debate.models.registry import default_client
    from debate.runner import prepare, run_debate
    from debate.sharing.robustness import format_table, table, variant_configs, variant_row, verdict_of
    from debate.transcript import write_event

    events = load_events(args.events)
    original, _ = verdict_of(events)
    variants = variant_configs(events, seeds=args.seeds)
    client = default_client(cache=not args.no_cache)
    out_dir = Path(args.out_dir).expanduser() if args.out_dir else None
    if out_dir:
        if out_dir.exists() and not out_dir.is_dir():
            raise InvalidInput(
                f"--out-dir {out_dir} is a file, not a folder.", "Name a folder (it is created if missing)."
            )
        out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for v in variants:
        pp = prepare(v.config)
        retriever = _retriever(args.index) if pp.evidence_on else None
        print(f"running variant: {v.name} ({v.description})", file=sys.stderr, flush=True)
        evs = list(run_debate(v.config, client, retriever=retriever))
        if out_dir:
            with open(
                out_dir / f"variant-{v.name.replace(' ', '-').replace('+', 'plus')}.jsonl", "w", encoding="utf-8"
            ) as fh:
                for ev in evs:
                    write_event(fh, ev)
        rows.append({**variant_row(v.name, evs, getattr(evs[0], "debate_id", "")), "description": v.description})
    sys.stdout.write(format_table(table(original, rows)))
    return 0
