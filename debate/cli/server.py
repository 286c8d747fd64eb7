"""`--server` and `--model-map` for `run` and `eval`: one flag puts every seat of a lineup on one server.

    python -m debate run --lineup paper-council --server openai@http://gpu:8000/v1 --model-map map.json "..."

The server is asked for its models before anything runs; a model it lacks is refused with what it has
and what to do (debate/lineup_server.py), and the mapping used is printed to standard error.
"""

from __future__ import annotations

import argparse
import sys

from debate.errors import InvalidInput
from debate.sanitize import plain_text

SERVER_HELP = (
    "put every seat of the lineup on this server: openai@URL, ollama@URL, a URL (…/v1 = "
    "OpenAI-compatible, port 11434 = Ollama), or openai / ollama for the configured one "
    "(settings, OPENAI_BASE_URL, OLLAMA_HOST); a key goes only to the URL it was saved for"
)
MAP_HELP = (
    'the server\'s names for the lineup\'s models: a JSON file {"gemma3:12b": "NAME", ...} or '
    "gemma3:12b=NAME,qwen3:8b=NAME (keys: a model or a seat's name); unmapped models are found in "
    "the server's model list by name"
)


def add_server_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", metavar="SERVER", help=SERVER_HELP)
    p.add_argument("--model-map", metavar="MAP", help=MAP_HELP)


def on_server(args: argparse.Namespace, lineup, client) -> dict | None:
    """The lineup (a preset name, file or dict) with every seat on `args.server`, checked against the
    server's model list; None without --server."""
    from debate.lineup_server import describe, parse_model_map, parse_server, point_at_server, unused_keys
    from debate.lineups import load_lineup

    if not args.server:
        if args.model_map:
            raise InvalidInput(
                "--model-map names the server's models, but no --server is given.",
                "Add --server openai@URL or --server ollama@URL.",
            )
        return None
    server = parse_server(args.server)
    base, model_map = load_lineup(lineup), parse_model_map(args.model_map)
    lu, rows = point_at_server(base, server, model_map, client)
    print(plain_text(f"Lineup {lu['name']}:\n{describe(rows)}"), file=sys.stderr)  # names are the server's text
    if unused := unused_keys(base, model_map):
        print(
            f"note: the model map's {', '.join(map(repr, unused))} name no model or seat of this lineup (not used).",
            file=sys.stderr,
        )
    return lu
