"""The HTTP transport under the remote backends: how long one request may take, how much it may bring
back, and which secret headers it may carry.

httpx's timeouts bound each read, not the request: a server that sends one byte a second answers every
read in time and so holds a 3 s health check, or a generation, for as long as it likes (and a body that
never ends grows in memory). `BoundedTransport` makes the request's timeout a wall-time bound on the
whole response, status line and headers included, and caps its size, whatever arrives, raising a
DebateError that says which.

The SDKs also add secrets from the environment to every request, wherever it goes: the `ollama` client
sends OLLAMA_API_KEY to any host, the `openai` client OPENAI_ORG_ID / OPENAI_PROJECT_ID. A secret goes
only to the URL it was saved for (see `scoped`), so the transport removes these headers from every
request and sets only the ones its backend was given for its own URL. Both clients follow redirects, and
every hop passes through this transport: a request to another origin (a server that redirects elsewhere)
is sent without any of these headers, and without Authorization even when the SDK set it itself
(httpx keeps it on an http -> https hop of the same host, which is still another URL than the one saved).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any
from urllib.parse import urlparse

import httpx

from debate.errors import BackendTimeout, ResponseTooLarge

MAX_RESPONSE_BYTES = 64 * 1024 * 1024  # an answer with top-20 logprobs per token is ~2 KB a token
DEFAULT_DEADLINE_S = 600.0  # a request given no timeout at all
HEAD_GRACE_S = 1.0
# what stands for a server's error text when a page named its URL and the presenter did not configure it
# (reach.py): the text could be anything the service holds, and whoever typed the URL would read it
WITHHELD = "(the server's own text is not shown for an address the presenter did not configure)."


def bounded_transport(
    where: str,
    *,
    strip: tuple[str, ...] = (),
    headers: Mapping[str, str] | None = None,
    max_bytes: int = MAX_RESPONSE_BYTES,
    http: ModuleType = httpx,
    url: str = "",
    guard: Any = None,
) -> Any:
    """An httpx transport: wall-time and size bounds per response; secret headers set only as given.

    `strip`: header names removed from every request (the SDK may add them from the environment);
    `headers`: headers set on requests to `url`'s origin (the secrets this backend may send to its own URL);
    `url`: the URL the secrets were saved for; a request to another origin carries none of them, nor
    Authorization (without `url`, no request carries secrets);
    `http`: the httpx-compatible library the client is built on (the openai SDK uses `httpx2`);
    `guard`: a retrieval.sources.http.PageGuard every connection goes through (public addresses only, the
    address checked is the one connected to), for a server a page named that nobody configured (reach.py)."""
    _, transport_cls = _classes(http)
    inner = http.HTTPTransport()
    if guard is not None:
        from importlib import import_module

        guard.install(inner, import_module(http.__name__.replace("httpx", "httpcore")))
    return transport_cls(where, tuple(h.lower() for h in strip), dict(headers or {}), max_bytes, inner, url)


SECRET_HEADERS = (
    "authorization",
    "proxy-authorization",
    "api-key",
    "x-api-key",
    "openai-organization",
    "openai-project",
    "cookie",
)


def _origin(url: str) -> tuple[str, str, int | None]:
    p = urlparse((url or "").strip())
    scheme = p.scheme.lower()
    try:
        port = p.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:  # a port that is not a number: matches nothing
        return ("", "", None)
    return (scheme, (p.hostname or "").lower(), port)


def carries_secrets(own_url: str, request_url: str) -> bool:
    """Whether a request to `request_url` may carry the secrets saved for `own_url`: same scheme, host
    and port (the origin). A redirect to another origin, even https on the same host, gets none."""
    own = _origin(own_url)
    return bool(own[1]) and own == _origin(request_url)


_CLASSES: dict[str, tuple[type, type]] = {}


def _classes(http: ModuleType) -> tuple[type, type]:
    """The two classes for one httpx-like library (httpx and httpx2 have the same API, not the same types)."""
    if http.__name__ in _CLASSES:
        return _CLASSES[http.__name__]

    # bases of the library given at run time (httpx or httpx2), which mypy cannot follow
    class BoundedBody(http.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, inner: Any, t0: float, deadline_s: float, max_bytes: int, where: str) -> None:
            self._inner, self._t0, self._deadline_s, self._max, self._where = inner, t0, deadline_s, max_bytes, where

        def __iter__(self) -> Iterator[bytes]:
            got = 0
            for chunk in self._inner:
                got += len(chunk)
                if time.monotonic() - self._t0 > self._deadline_s:
                    raise BackendTimeout(
                        f"{self._where} was still sending one response after {self._deadline_s:g} s "
                        f"({got:,} bytes so far).",
                        "The server is stuck or very slow; check it, or raise the backend's timeout "
                        "(settings timeout_s / health_timeout_s).",
                    )
                if got > self._max:
                    raise ResponseTooLarge(
                        f"{self._where} sent more than {self._max:,} bytes for one response.",
                        "The server does not end its answers; check it, or lower max_tokens.",
                    )
                yield chunk

        def close(self) -> None:
            self._inner.close()

    class BoundedTransport(http.BaseTransport):  # type: ignore[misc,name-defined]
        def __init__(
            self, where: str, strip: tuple[str, ...], headers: dict[str, str], max_bytes: int, inner: Any, url: str = ""
        ) -> None:
            self.where, self.strip, self.headers, self.max_bytes, self._inner = where, strip, headers, max_bytes, inner
            self.url = url

        def handle_request(self, request: Any) -> Any:
            for name in self.strip:
                request.headers.pop(name, None)
            if carries_secrets(self.url, str(request.url)):
                request.headers.update(self.headers)
            else:  # another origin (a redirect's target): nothing saved for our URL goes there
                for name in (*SECRET_HEADERS, *self.headers):
                    request.headers.pop(name, None)
            t0, deadline = time.monotonic(), deadline_of(request)
            watch = _HeadWatch(request, deadline)
            try:
                response = self._inner.handle_request(request)
            except Exception as e:
                if watch.expired.is_set():
                    raise BackendTimeout(
                        f"{self.where} was still sending one response's status and headers after {deadline:g} s.",
                        "The server is stuck or very slow; check it, or "
                        "raise the backend's timeout (settings timeout_s / health_timeout_s).",
                    ) from e
                raise
            finally:
                watch.cancel()
            return http.Response(
                status_code=response.status_code,
                headers=response.headers,
                stream=BoundedBody(response.stream, t0, deadline, self.max_bytes, self.where),
                extensions=response.extensions,
                request=request,
            )

        def close(self) -> None:
            self._inner.close()

    _CLASSES[http.__name__] = (BoundedBody, BoundedTransport)
    return _CLASSES[http.__name__]


class _HeadWatch:
    """Bounds the wait for a response's status line and headers, which the client library reads itself:
    the connection opened for this request is shut down when the deadline passes, so the blocked read
    ends. (A kept-alive connection reused from an earlier request is not seen here: there the per-read
    timeout is the bound.)"""

    def __init__(self, request: Any, deadline_s: float) -> None:
        self.expired = threading.Event()
        self._streams: list[Any] = []
        outer = request.extensions.get("trace")

        def trace(name: str, info: dict[str, Any]) -> None:
            if name.endswith(("connect_tcp.complete", "start_tls.complete")) and info.get("return_value") is not None:
                self._streams.append(info["return_value"])
            if outer is not None:
                outer(name, info)

        request.extensions["trace"] = trace
        # a little after the deadline: a server that sends nothing at all meets the read timeout first,
        # and its own message ("did not answer within ...") is the truer one
        self._timer = threading.Timer(deadline_s + HEAD_GRACE_S, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        self.expired.set()
        for stream in self._streams:
            sock = stream.get_extra_info("socket")
            try:
                if sock is not None:
                    sock.shutdown(socket.SHUT_RDWR)  # wakes the blocked read (close alone may not)
            except OSError:
                pass

    def cancel(self) -> None:
        self._timer.cancel()


def deadline_of(request: Any) -> float:
    """The request's own timeout (the longest of its parts) as the bound on its whole response."""
    t = request.extensions.get("timeout") or {}
    parts = [v for v in (t.get("read"), t.get("connect"), t.get("write"), t.get("pool")) if v]
    return float(max(parts)) if parts else DEFAULT_DEADLINE_S


def normalise_url(url: str) -> str:
    """A base URL in the form secrets are matched by: scheme and host lower-cased, no trailing slash."""
    p = urlparse((url or "").strip())
    return (
        f"{p.scheme.lower()}://{p.netloc.lower()}{p.path.rstrip('/')}" if p.scheme else (url or "").strip().rstrip("/")
    )


def saved_secret(
    url: str, per_url: Mapping[str, str] | None, saved: str | None, saved_url: str, env_value: str | None, env_url: str
) -> str | None:
    """The secret that may be sent to `url`, or None: one saved for that very URL (`per_url`), else the
    one saved with the settings' URL (`saved` for `saved_url`), else the environment's for its own URL."""
    url_n = normalise_url(url)
    for u, value in (per_url or {}).items():
        if value and normalise_url(u) == url_n:
            return str(value)
    if saved and url_n == normalise_url(saved_url):
        return str(saved)
    return scoped(url, env_url, env_value)


def scoped(url: str, env_url: str, env_value: str | None) -> str | None:
    """`env_value` when `url` is the URL the environment configured (`env_url`), else None: a lineup or a
    settings page naming another host never collects what the environment holds for its own."""
    return env_value if env_value and normalise_url(url) == normalise_url(env_url) else None
