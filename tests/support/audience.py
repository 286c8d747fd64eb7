"""The audience server on a loopback port in a thread of the test process (its own event loop)."""

from __future__ import annotations

import asyncio
import socket
import threading
from contextlib import contextmanager
from pathlib import Path

from debate.audience import server
from debate.audience.limits import RateLimiter


@contextmanager
def audience_server(db: str | Path, *, limiter: RateLimiter | None = None, secret: str = "k" * 64):
    """Yield the server's base URL (http://127.0.0.1:PORT); stopped when the block ends."""
    ready, state = threading.Event(), {}

    def run() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        sock.setblocking(False)
        http = server.make_server(server.make_app(db, secret, limiter))
        http.add_sockets([sock])
        state.update(loop=loop, port=sock.getsockname()[1], http=http)
        ready.set()
        loop.run_forever()
        http.stop()
        loop.close()

    t = threading.Thread(target=run, name="audience-server", daemon=True)
    t.start()
    ready.wait(10)
    try:
        yield f"http://127.0.0.1:{state['port']}"
    finally:
        state["loop"].call_soon_threadsafe(state["loop"].stop)
        t.join(10)
