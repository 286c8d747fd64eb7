"""`python -m debate data fetch|status`: get the datasets the project may not ship, and see what is where.

`fetch` downloads AVeriTeC dev and LIAR into DEBATE_HOME/data (pinned SHA-256, atomic writes; see
debate/data/fetch.py). Run by `make run` / `make test` with a short timeout: offline it prints what is
missing, what works without it and how to use a copy, and exits 1 (the set-up goes on regardless).
"""

from __future__ import annotations

from debate.errors import InvalidInput


def _urls(pairs: list[str]) -> dict[str, str]:
    out = {}
    for p in pairs:
        name, sep, url = p.partition("=")
        if not sep or not name.strip() or not url.strip():
            raise InvalidInput(f"--url {p!r} is not NAME=URL.", "Write e.g. --url liar=https://mirror/liar_dataset.zip")
        out[name.strip()] = url.strip()
    return out


def cmd_fetch(args) -> int:
    from debate.data import fetch as F
    from debate.data.locate import fetched_dir
    from debate.sanitize import plain_text

    urls = _urls(args.url)
    print(f"fetching into {fetched_dir()} (timeout {args.timeout:g} s, {args.attempts} attempt(s) each)", flush=True)

    def report(o: F.Outcome) -> None:
        print(plain_text(f"  {o.source.title} ({o.source.licence}): {o.state}: {o.detail}"), flush=True)

    outcomes = F.fetch(
        args.names or None, urls=urls, timeout=args.timeout, attempts=args.attempts, force=args.force, report=report
    )
    failed = [o for o in outcomes if o.state == "failed"]
    if not failed:
        print("every dataset is on this machine")
        return 0
    print("\nmissing, and what works without it (everything else works as usual):")
    for o in failed:
        files = ", ".join(f.rel for f in o.source.files)
        print(f"  - {o.source.title} ({files}): {o.source.without}.")
    print(
        "to use a copy you already have, point DEBATE_SHARED_DATA at the folder that holds these paths, e.g.\n"
        "  export DEBATE_SHARED_DATA=/path/to/data   # with averitec/dev.json, liar/train.tsv, liar/valid.tsv\n"
        "or run `python -m debate data fetch` again when the network allows."
    )
    return 1


def cmd_status(args) -> int:
    from debate.data.fetch import status
    from debate.data.locate import search_roots

    print("search order (first match wins, file by file):")
    for i, (name, root) in enumerate(search_roots(), 1):
        print(f"  {i}. {name}: {root}" + ("" if root.is_dir() else "  (absent)"))
    print()
    for r in status():
        where = f"{r['where']}: {r['path']}" if r["path"] else "not found (python -m debate data fetch)"
        note = "  (not the pinned file: SHA-256 differs)" if r["state"] == "differs" else ""
        print(f"  {r['file']:<32} {r['state']:<8} {where}{note}")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("data", help="fetch the datasets that are not shipped; show which are found where")
    sub = p.add_subparsers(dest="data_command", metavar="ACTION", required=True)

    f = sub.add_parser("fetch", help="download AVeriTeC dev and LIAR into DEBATE_HOME/data (SHA-256 checked)")
    f.add_argument("names", nargs="*", metavar="NAME", help="averitec, liar (default: both)")
    f.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for a connection or data (default 30)")
    f.add_argument("--attempts", type=int, default=3, help="tries per download for transient failures (default 3)")
    f.add_argument(
        "--url",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="download NAME from URL instead (a mirror); the pinned sums still apply",
    )
    f.add_argument("--force", action="store_true", help="download even when a right copy is already found")
    f.set_defaults(func=cmd_fetch)

    s = sub.add_parser("status", help="where each dataset file is found, and whether it is the pinned file")
    s.set_defaults(func=cmd_status)
