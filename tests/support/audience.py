"""The audience server on a loopback port in a thread of the test process (uvicorn, as `debate audience`)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import uvicorn

from debate.audience import server
from debate.audience.limits import RateLimiter


@contextmanager
def audience_server(db: str | Path, *, limiter: RateLimiter | None = None, secret: str = "k" * 64):
    """Yield the server's base URL (http://127.0.0.1:PORT); stopped when the block ends."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    srv = uvicorn.Server(server.uvicorn_config(server.make_app(db, secret, limiter)))
    t = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, name="audience-server", daemon=True)
    t.start()
    deadline = time.monotonic() + 10
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        srv.should_exit = True
        t.join(10)
        sock.close()
