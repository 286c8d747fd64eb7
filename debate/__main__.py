"""`python -m debate ...`: one command line, with each area registering its own subcommands.

Subcommand modules expose `register(subparsers)`; each parser sets `func(args) -> int`.
DebateErrors are printed as a message and a hint (exit 2), never as a stack trace; anything else that
escapes is printed as one line (exit 1), with the traceback only under DEBATE_DEBUG=1.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from debate.errors import DebateError

# module -> what it adds
_COMMAND_MODULES = (
    "debate.cli.models",  # models
    "debate.cli.run",  # run, protocols, replay
    "debate.cli.index",  # index build|info|query
    "debate.cli.data",  # data fetch|status
    "debate.cli.eval",  # eval
    "debate.cli.share",  # export, fork, robustness
    "debate.cli.annotators",  # annotators add|passwd|role|remove|list
    "debate.cli.audience",  # audience (the server phones reach)
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m debate", description="LLM debate engine and tools.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
                continue  # area not built yet
            raise
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 1
    try:
        return int(args.func(args) or 0)
    except DebateError as e:
        from debate.sanitize import strip_terminal  # messages quote servers' and files' own text

        print(f"error: {strip_terminal(e.message)}", file=sys.stderr)
        if e.hint:
            print(f"hint: {strip_terminal(e.hint)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if os.environ.get("DEBATE_DEBUG"):
            raise
        print(f"error: unexpected {type(e).__name__}: {str(e)[:500]}", file=sys.stderr)
        print(
            "hint: this is a bug in the debate viewer; run again with DEBATE_DEBUG=1 to see where it happened, "
            "and report it with that output.",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
