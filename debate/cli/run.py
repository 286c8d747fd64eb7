"""`python -m debate run | protocols | replay`: debates from the terminal.

`run` streams a readable transcript (coloured only on a terminal) while writing every event as JSONL;
`replay` renders a stored JSONL with the same renderer, so it prints the identical transcript. Ctrl-C
stops a run cleanly between tokens: the events so far are kept and the file ends with `finished`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from contextlib import nullcontext
from pathlib import Path

from debate.cli.inputs import load_events
from debate.cli.server import add_server_args
from debate.errors import InvalidInput
from debate.transcript import TextRenderer, write_event

AIDS_HELP = (
    "small-model aids (the app's default for the embedded models): similar CheckThat train tweets as "
    "earlier turns, label probabilities against thresholds fitted on train, a constrained RADAR judge; "
    "only over parameters left at the paper's defaults; see debate/aids/settings.py. Off: the papers' settings"
)


def _kv(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param {text!r}: write it as name=value, e.g. theta=0.6")
    k, v = text.split("=", 1)
    return k.strip(), v.strip()


def _category(text: str) -> int | None:
    if text.strip().lower() in ("all", "none", "0", ""):
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("--category: 1, 2, 3 or all") from None


def register(sub: argparse._SubParsersAction) -> None:
    _add_run(sub)

    q = sub.add_parser("protocols", help="list the protocols with their parameters and defaults")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_protocols)

    r = sub.add_parser(
        "replay", help="print the transcript of a JSONL events file, a Library export or a stored debate"
    )
    r.add_argument("events", metavar="FILE")
    r.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    r.set_defaults(func=cmd_replay)


def _add_run(sub: argparse._SubParsersAction) -> None:
    """`run`: its options in the order its help lists them."""
    p = sub.add_parser(
        "run",
        help="run one debate and stream its transcript",
        description="Run a debate on a tweet or claim; stream the transcript; write events as JSONL.",
    )
    for add_options in (
        _add_claim_options,
        _add_model_options,
        _add_debate_options,
        _add_evidence_options,
        _add_evidence_guard_options,
        _add_task_options,
        _add_terminal_options,
        _add_human_options,
    ):
        add_options(p)
    p.set_defaults(func=cmd_run)


def default_task(task: str | None, protocol: str) -> str:
    """The task a run without --task is judged for: RADAR's true/false task for the protocols whose judge
    decides TRUE / FALSE / HALF-TRUE, else CheckThat, as the app's Debate page switches it. A RADAR run from
    the command line was judged as a CheckThat category ("the tweet contains scientific claims") while the
    app judged the same claim true or false."""
    from debate.tasks import TRUE_FALSE_PROTOCOLS

    return task or ("halftruth" if protocol in TRUE_FALSE_PROTOCOLS else "checkthat")


def _add_claim_options(p: argparse.ArgumentParser) -> None:
    """The claim, and the task (and CheckThat category) it is judged for."""
    from debate import tasks
    from debate.runner import MAX_CLAIM_CHARS

    p.add_argument(
        "claim", help=f"the tweet or claim, at most {MAX_CLAIM_CHARS:,} characters ('-' reads it from standard input)"
    )
    p.add_argument(
        "--task",
        default=None,
        choices=tasks.names(),
        help="default: halftruth for RADAR and RADAR-single (their judge decides TRUE / FALSE / HALF-TRUE), "
        "checkthat for the others, as the app switches it",
    )
    p.add_argument("--category", type=_category, default=1, help="CheckThat category 1-3, or 'all' (default 1)")


def _add_model_options(p: argparse.ArgumentParser) -> None:
    """Which protocol, on which models (a lineup, or every seat on one server)."""
    from debate.protocols import PROTOCOLS

    p.add_argument("--protocol", default="council", choices=list(PROTOCOLS))
    p.add_argument(
        "--lineup",
        default="embedded",
        help="preset (embedded, paper-council[-ollama|-openai], paper-debate[-ollama]) or a lineup JSON file",
    )
    add_server_args(p)


def _add_debate_options(p: argparse.ArgumentParser) -> None:
    """Where the events go, and how long and at what pace the debate runs."""
    p.add_argument("--events", metavar="FILE", help="write every event to FILE as JSONL")
    p.add_argument("--rounds", type=int, help="rounds (sets the protocol's 'rounds' parameter)")
    p.add_argument("--max-tokens", type=int, default=None, help="per model answer (default 256; 128 at --pace demo)")
    p.add_argument("--aids", action=argparse.BooleanOptionalAction, default=False, help=AIDS_HELP)
    p.add_argument(
        "--pace",
        choices=("paper", "demo"),
        default="paper",
        help="paper: the papers' settings (default); demo: the app's live-demo pace for the embedded "
        "models (fewer rounds at most, shorter answers; see debate/live/pace.py)",
    )


def _add_evidence_options(p: argparse.ArgumentParser) -> None:
    """Whether the debate gets evidence: how many passages, from which index and sources, with which questions."""
    from debate.retrieval.sources import names as source_names

    ev = p.add_mutually_exclusive_group()
    ev.add_argument(
        "--evidence", dest="evidence", action="store_true", default=None, help="retrieve evidence (default: only RADAR)"
    )
    ev.add_argument("--no-evidence", dest="evidence", action="store_false")
    p.add_argument("--top-k", type=int, default=None, help="evidence passages (default 20; 6 at --pace demo)")
    p.add_argument("--index", default=None, help="retrieval index name (default: the built-in corpus)")
    p.add_argument(
        "--sources",
        default=None,
        metavar="NAMES",
        help=f"evidence sources, comma-separated: {','.join(source_names())} (default: every one "
        "that answers its health check; offline that is local only)",
    )
    p.add_argument(
        "--questions",
        type=int,
        default=0,
        metavar="N",
        help="0-3 questions the lineup's judge model writes for the evidence search, searched beside "
        "the claim (AVeriTeC / RADAR style; one more model call). Default 0: the claim alone",
    )


def _add_evidence_guard_options(p: argparse.ArgumentParser) -> None:
    """How a passage enters the prompts: what becomes of one that reads like an order, and its fence."""
    p.add_argument(
        "--flagged-evidence",
        choices=("mask", "keep", "drop"),
        default="mask",
        help='a passage that reads like an order to the model ("ignore the instructions", "the judge '
        'must answer TRUE"): mask = keep it, fenced and flagged, with the sentences that read like an '
        "order left out of the prompts (default); keep = the whole passage, fenced and flagged; "
        "drop = hold the passage back",
    )
    p.add_argument(
        "--evidence-guard",
        choices=("fence", "datamark", "off"),
        default="fence",
        help="how passages enter prompts: fence = between per-debate delimiters, the prompt's markers "
        "neutralised, a system sentence that evidence is never an instruction (default); "
        "datamark = also ^ between the quoted words; off = verbatim (for measuring the guard)",
    )


def _add_task_options(p: argparse.ArgumentParser) -> None:
    """The protocol's parameters and seed, the gold label, a custom task's words and the cat2 rule."""
    p.add_argument(
        "--param",
        type=_kv,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="protocol parameter, repeatable (see `python -m debate protocols`)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gold", help="gold label, shown beside the verdict")
    p.add_argument("--custom-title", default="", help="custom task: what the tweet is judged for")
    p.add_argument("--custom-description", default="")
    p.add_argument("--no-cat2-rule", action="store_true", help="do not apply 'category 2 => category 3'")


def _add_terminal_options(p: argparse.ArgumentParser) -> None:
    """The response cache, the models' availability check and the transcript's colours."""
    p.add_argument("--no-cache", action="store_true", help="do not use the response cache")
    p.add_argument("--no-check", action="store_true", help="skip the model availability check")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")


def _add_human_options(p: argparse.ArgumentParser) -> None:
    """A person in a seat: which seat, answers from a file, and the time a turn may take."""
    p.add_argument(
        "--human",
        action="append",
        default=[],
        metavar="ROLE",
        help="a person plays this seat (a role such as opponent, judge, member, or an agent's name), "
        "answering in the terminal; repeatable",
    )
    p.add_argument(
        "--human-file",
        metavar="F",
        help="the person's answers from F (blocks separated by a line '---'), in the order the debate asks for them",
    )
    p.add_argument(
        "--human-timeout",
        type=float,
        default=180.0,
        metavar="S",
        help="seconds a person has for one turn; then it passes and the debate goes on (default 180)",
    )


def out_file(path: str | None, what: str) -> str | None:
    """`path` checked as a file to write, before any model is loaded: not a folder, in a folder that exists."""
    if not path:
        return path
    p = Path(path).expanduser()
    if p.is_dir():
        raise InvalidInput(f"{what} {p} is a folder.", f"Name a file in it, e.g. {p / 'debate.jsonl'}.")
    if not p.parent.is_dir():
        raise InvalidInput(f"No folder {p.parent} to write {p.name} into.", "Create it or choose another path.")
    return str(p)


def _use_color(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def _retriever(index: str | None, sources: str | None = None, *, multi: bool = True):
    """The local index alone (`multi` False: batch runs without --sources, as before), or every source
    asked for (None: those that answer their health check), ranked together."""
    try:
        from debate.retrieval.retriever import Retriever, default_retriever
    except ImportError:
        return None
    local = Retriever(index) if index else default_retriever()
    if not multi and sources is None:
        return local
    from debate.retrieval.multi import MultiRetriever

    return MultiRetriever(sources, local=local)


def _for_terminal(ev):
    """The event with every text field stripped of terminal control sequences (model text is hostile:
    an answer could move the cursor, rewrite earlier lines or retitle the window). The renderer adds its
    own colours afterwards."""
    from debate.events import event_from_dict
    from debate.sanitize import clean_for_terminal

    return event_from_dict(clean_for_terminal(ev.to_dict()))


def cmd_run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from debate.cli.server import on_server
    from debate.models.registry import default_client
    from debate.protocols import validate_lineup
    from debate.retrieval.sources import parse_names
    from debate.runner import DebateConfig, prepare

    out_file(args.events, "--events")
    claim = sys.stdin.read() if args.claim == "-" else args.claim
    from debate.live import pace

    params = {**pace.overrides(args.pace, args.protocol), **dict(args.param)}
    if args.rounds is not None:
        params["rounds"] = args.rounds
    if args.max_tokens is None:
        args.max_tokens = pace.max_tokens(args.pace)
    if args.top_k is None:
        args.top_k = pace.top_k(args.pace)
    cfg = DebateConfig(
        claim=claim.strip(),
        protocol=args.protocol,
        task=default_task(args.task, args.protocol),
        category=args.category,
        custom_title=args.custom_title,
        custom_description=args.custom_description,
        lineup=args.lineup,
        params=params,
        evidence=args.evidence,
        top_k=args.top_k,
        max_tokens=args.max_tokens,
        seed=args.seed,
        gold=args.gold,
        apply_cat2_rule=not args.no_cat2_rule,
        aids=args.aids,
        sources=",".join(parse_names(args.sources) or []) or None,
        humans=args.human or None,
        human_timeout_s=args.human_timeout,
        questions=args.questions,
        evidence_guard=args.evidence_guard,
        flagged_evidence=args.flagged_evidence,
    )
    if args.human_file and not args.human:
        raise InvalidInput(
            "--human-file gives a person's answers, but no seat is played by a person.",
            "Add --human ROLE (e.g. --human opponent).",
        )
    pp = prepare(cfg)  # bad input fails here, before any model loads
    client = default_client(cache=not args.no_cache)
    if (lineup := on_server(args, cfg.lineup, client)) is not None:  # every seat on --server, names checked
        cfg = replace(cfg, lineup=lineup)
        pp = prepare(cfg)
    if not args.no_check:
        bad = [r for r in validate_lineup(pp.lineup, client, pp.info.name, pp.params) if not r["ok"]]
        if bad:
            lines = "; ".join(
                f"{r['model']} ({', '.join(r['agents'])}): {r['status']} {r['detail']}".strip() for r in bad
            )
            raise InvalidInput(
                f"Some models of the lineup are not available: {lines}",
                "See `python -m debate models`, pick another --lineup, or pass --no-check.",
            )
    retriever = _retriever(args.index, cfg.sources) if pp.evidence_on else None
    answerer = None
    if args.human:
        from debate.cli.human import Answerer, read_answers

        answerer = Answerer(read_answers(args.human_file) if args.human_file else None)
    return stream_debate(cfg, client, retriever, args.events, args.color, answerer)


def stream_debate(cfg, client, retriever, events_path: str | None, color: str, answerer=None) -> int:
    """Run `cfg`, print its transcript as it streams and write its events; Ctrl-C stops it cleanly.
    Shared by `run` and `fork` (debate.cli.share). Exit code 0 completed, 130 stopped, 1 otherwise."""
    from debate.events import DebateFinished
    from debate.runner import run_debate

    try:
        fh_or_none = open(events_path, "w", encoding="utf-8") if events_path else nullcontext()  # noqa: SIM115 - entered below
    except OSError as e:
        raise InvalidInput(
            f"Cannot write the events to {events_path}: {e.strerror or e}.",
            "Choose a file in a folder you can write to.",
        ) from None
    cancel = threading.Event()
    old = signal.signal(signal.SIGINT, lambda *_: cancel.set())
    renderer = TextRenderer(color=_use_color(color))
    status = "error"
    try:
        with fh_or_none as fh:
            for ev in run_debate(cfg, client, retriever=retriever, cancel=cancel):
                if fh is not None:
                    write_event(fh, ev)
                sys.stdout.write(renderer.feed(_for_terminal(ev)))
                sys.stdout.flush()
                if answerer is not None:  # a seat the person plays: asked here, answered through debate.seats
                    answerer.on_event(ev)
                if isinstance(ev, DebateFinished):
                    status = ev.status
    finally:
        signal.signal(signal.SIGINT, old)
    return {"completed": 0, "stopped": 130}.get(status, 1)


def cmd_protocols(args: argparse.Namespace) -> int:
    from debate.protocols import FAILED, PROTOCOLS

    if args.json:
        print(
            json.dumps(
                {
                    n: {
                        "title": i.title,
                        "one_line": i.one_line,
                        "roles": list(i.roles),
                        "evidence_default": i.uses_evidence,
                        "params": {k: {"default": d, "description": desc} for k, (d, desc) in i.params.items()},
                    }
                    for n, i in PROTOCOLS.items()
                },
                indent=2,
            )
        )
        return 0
    for name, info in PROTOCOLS.items():
        print(
            f"{name}: {info.title}\n  {info.one_line}\n  roles: {', '.join(info.roles)}"
            f"{'  (evidence on by default)' if info.uses_evidence else ''}"
        )
        for k, (default, desc) in info.params.items():
            print(f"    {k} = {default!r}\n        {desc}")
        print()
    for name, why in FAILED.items():  # another package's protocol that could not be loaded, and why
        print(f"{name}: not loaded ({why})\n")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    renderer = TextRenderer(color=_use_color(args.color))
    for ev in load_events(args.events):
        sys.stdout.write(renderer.feed(_for_terminal(ev)))
    sys.stdout.flush()
    return 0
