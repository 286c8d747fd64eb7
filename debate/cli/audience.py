"""`python -m debate audience`: the server phones reach, alone on its own port.

    python -m debate audience --host 0.0.0.0 --port 8502

Serves only the polls and seat links the presenter made (debate.audience); the presenter's app stays on
127.0.0.1. It prints the address phones use and writes it into DEBATE_HOME, where the app's Poll and Present
pages read it to show the link as a QR code. Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import socket
import sys

from debate.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser(
        "audience",
        help="serve the open polls and the people's seats to phones (nothing else of the app), on its own port",
        description="A small web server for a room: the open poll (vote per phone and stage, results when "
        "the presenter shows them) and a person's own seat. Run the app itself on 127.0.0.1.",
    )
    a.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every network of this machine)")
    a.add_argument("--port", type=int, default=8502)
    a.add_argument(
        "--url",
        default=None,
        help="the address phones use, when it is not this machine's own (a proxy, a name): shown in the QR code",
    )
    a.add_argument("--rate", type=float, default=None, help="requests a second per phone's address (default 20)")
    a.add_argument("--burst", type=int, default=None, help="requests at once per address (default 200)")
    a.set_defaults(func=cmd_audience)


def cmd_audience(args: argparse.Namespace) -> int:
    import uvicorn

    from debate import config
    from debate.audience import address, limits, server

    if not 1 <= args.port <= 65535:
        raise InvalidInput(f"Port {args.port} is not a port.", "Use a number from 1 to 65535, e.g. 8502.")
    rate = limits.RATE if args.rate is None else args.rate
    burst = limits.BURST if args.burst is None else args.burst
    if rate <= 0 or burst < 1:
        raise InvalidInput("--rate must be above 0 and --burst at least 1.", "Leave them out for the defaults.")
    url = address.public_url(args.host, args.port, args.url)
    limiter = limits.RateLimiter(rate=rate, burst=burst)
    app = server.make_app(config.store_db(), address.secret_key(), limiter)
    sock = _bound(args.host, args.port)
    address.publish(url)
    print(f"Audience server for phones: {url} (polls /p/…, seats /s/…; nothing else)", file=sys.stderr, flush=True)
    print(f"Debates of {config.store_db()}; the app shows each link as a QR code. Ctrl-C stops it.", file=sys.stderr)
    try:
        uvicorn.Server(server.uvicorn_config(app, args.host, args.port)).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        address.unpublish()
        sock.close()
    return 0


def _bound(host: str, port: int) -> socket.socket:
    """A listening socket, or a message that says why not (a port in use is the usual reason)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise InvalidInput(
            f"Cannot listen on {host}:{port}: {e.strerror or e}.",
            "Another program uses this port (choose another with --port), or the address is not this machine's.",
        ) from e
    return sock
