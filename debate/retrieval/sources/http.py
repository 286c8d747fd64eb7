"""Bounded HTTP for the evidence sources: every request has a wall-clock deadline and a size cap.

Why not the clients' own transports: pyalex's requests session has no timeout at all, and httpx's
timeouts are per read, so a server that drips a byte a second (or streams without end) would hold a
debate forever. Here the body is read in chunks against one deadline and one byte budget, and each
failure becomes a SourceError whose message says what the service did.
"""

from __future__ import annotations

import email.utils
import ipaddress
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from debate.errors import DebateError

if TYPE_CHECKING:
    import httpx

USER_AGENT = "debate-viewer/1.0 (fact-checking research demo)"  # sources add the contact e-mail
MAX_REDIRECTS = 3
DEFAULT_RETRY_AFTER_S = 30.0
MAX_RETRY_AFTER_S = 600.0


class SourceError(DebateError):
    """A source could not answer this time; the debate goes on with the other sources."""


class SourceTimeout(SourceError):
    """The service did not finish answering within the source's time budget."""


class SourceRateLimited(SourceError):
    """HTTP 429: the source backs off for `retry_after` seconds before asking again."""

    def __init__(self, message: str, hint: str = "", retry_after: float = DEFAULT_RETRY_AFTER_S) -> None:
        super().__init__(message, hint)
        self.retry_after = retry_after


class SourceTooLarge(SourceError):
    """The answer was bigger than the cap; it was cut off, not read whole."""


class SourceBlocked(SourceError):
    """The address is not a public one (loopback, private network, link-local, ...): not fetched."""


# -- which addresses a result page may come from --------------------------------------------------------
# A search result, or a redirect from one, can point anywhere: at this machine (127.0.0.1, ::1), at the
# local network (10.x, 192.168.x), at a cloud's metadata service (169.254.169.254). Fetching it would let
# whoever wrote that page read or poke services that trust the machine running the app. So result pages
# are fetched only from public addresses, checked on the address the connection is actually made to
# (after DNS, at every redirect hop), never on the URL's text.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def address_problem(address: str) -> str | None:
    """What kind of non-public address this IP is ("a loopback address (this machine)", ...), or None
    for a public one."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):  # an IPv4 address wrapped in IPv6 is judged as itself
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo or (None, None))[1]
        if inner is None and ip in _NAT64:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is not None:
            ip = inner
    for test, what in (
        (ip.is_loopback, "a loopback address (this machine)"),
        (ip.is_link_local, "a link-local address (e.g. a cloud metadata service)"),
        (ip.is_unspecified, "the unspecified address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_private, "a private-network address"),
        (ip.is_reserved, "a reserved address"),
        (not ip.is_global, "not a public address"),
    ):
        if test:
            return what
    return None


class PageGuard:
    """Resolves a host once, refuses it if any of its addresses is not public, and connects to the
    address it checked (so a second DNS answer cannot swap in another). `allow` lets exact addresses
    through: the tests' loopback stand-ins, nothing a user sets."""

    def __init__(self, allow: Iterable[str] = ()) -> None:
        self.allow = frozenset(str(a) for a in allow)

    def vetted(self, host: str, port: int) -> list[tuple]:
        """getaddrinfo's answers for host:port, all of them public (or allowed); else SourceBlocked."""
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as e:
            raise SourceError(f"{host} could not be resolved ({e}).") from None
        for info in infos:
            address = str(info[4][0])
            what = None if address in self.allow else address_problem(address)
            if what:
                said = (
                    f"{address} is {what}" if host.strip("[]") == address else f"{host} resolves to {address}, {what}"
                )
                raise SourceBlocked(f"Not fetched: {said}.", "Result pages are read only from public addresses.")
        return infos

    def network_backend(self, core):
        """A network backend for `core` (httpcore, or httpcore2 under the openai SDK's httpx2) whose every
        connection goes through `vetted` and then to the address it checked."""
        from importlib import import_module

        sync_stream = import_module(f"{core.__name__}._backends.sync").SyncStream
        guard = self

        class Backend(core.SyncBackend):
            def connect_tcp(
                self,
                host: str,
                port: int,
                timeout: float | None = None,
                local_address: str | None = None,
                socket_options: Iterable[Any] | None = None,
            ) -> Any:
                last: OSError | None = None
                for family, kind, proto, _, address in guard.vetted(host, port):
                    sock = socket.socket(family, kind, proto)
                    try:
                        sock.settimeout(timeout)
                        sock.connect(address)
                        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                        for option in socket_options or ():
                            sock.setsockopt(*option)
                    except OSError as e:
                        sock.close()
                        last = e
                        continue
                    return sync_stream(sock)
                if isinstance(last, socket.timeout):
                    raise core.ConnectTimeout(str(last))
                raise core.ConnectError(str(last or f"no address for {host}"))

        return Backend()

    def install(self, transport, core):
        """`transport` (an httpx-like HTTPTransport) with its connections made through `network_backend`;
        SourceError when its shape is not the one known (fail closed: nothing is connected unchecked)."""
        pool = getattr(transport, "_pool", None)
        if pool is None or not hasattr(pool, "_network_backend"):
            raise SourceError(
                "This httpx cannot check the addresses it connects to: nothing is fetched from it.",
                "Install the httpx version in requirements.txt.",
            )
        pool._network_backend = self.network_backend(core)
        return transport

    def transport(self):
        """An httpx transport whose every connection (redirects included) goes through `vetted`."""
        import httpcore
        import httpx

        return self.install(httpx.HTTPTransport(), httpcore)


@dataclass
class Reply:
    status: int
    url: str
    content_type: str
    body: bytes
    headers: dict

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self, service: str):
        import json

        if "html" in self.content_type.lower() or self.body.lstrip()[:1] == b"<":
            raise SourceError(
                f"{service} answered with an HTML page instead of JSON (an error or block page).",
                "Try again later, or leave this source out.",
            )
        try:
            return json.loads(self.body)
        except ValueError as e:
            raise SourceError(
                f"{service} answered with unreadable JSON ({e}).", "Try again later, or leave this source out."
            ) from None


def retry_after_s(value: str | None) -> float:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), clamped to a sane range."""
    if not value:
        return DEFAULT_RETRY_AFTER_S
    value = value.strip()
    try:
        secs = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
            secs = when.timestamp() - time.time()
        except (TypeError, ValueError):
            return DEFAULT_RETRY_AFTER_S
    return max(1.0, min(MAX_RETRY_AFTER_S, secs))


UNREADABLE = "Not fetched: its address could not be read."


def readable_url(url: str) -> str:
    """`url` when httpx and urllib both read it the same plain way; SourceBlocked otherwise. An address
    such as `http://0177.0.0.1/` (octal: a browser reads 127.0.0.1) or one with a backslash is refused
    rather than guessed at: the guard must judge the host that is really connected to."""
    import httpx

    if "\\" in url or any(ord(ch) < 0x21 for ch in url):
        raise SourceBlocked(UNREADABLE)
    try:
        parsed = httpx.URL(url)
        host = urlparse(url).hostname or ""
    except (httpx.InvalidURL, ValueError, UnicodeError):
        raise SourceBlocked(UNREADABLE) from None
    # the two parsers must agree on the host (a name in another script is compared as httpx's IDNA form)
    if not parsed.host or (host.isascii() and parsed.host.strip("[]").lower() != host.lower()):
        raise SourceBlocked(UNREADABLE)
    if _odd_ipv4(host):
        raise SourceBlocked(UNREADABLE)
    return url


def _odd_ipv4(host: str) -> bool:
    """Whether `host` is an IPv4 address in a form other than four decimal numbers (`0x7f.1`, `2130706433`,
    `0177.0.0.1`): the C resolver and browsers read these as addresses, while a check of the text would
    take them for a name."""
    try:
        ipaddress.IPv4Address(host)
        return False
    except ValueError:
        pass
    try:
        socket.inet_aton(host)
    except (OSError, ValueError):
        return False
    return True


def check_url(url: str) -> str:
    scheme = urlparse(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise SourceError(f"Refusing to fetch {url[:80]!r}: only http and https addresses are fetched.")
    return url


def request(
    service: str,
    method: str,
    url: str,
    *,
    timeout_s: float,
    max_bytes: int,
    params: dict | None = None,
    data: dict | None = None,
    json_body: dict | None = None,
    headers: dict | None = None,
    ok_statuses: tuple[int, ...] = (200,),
    guard: PageGuard | None = None,
    keyed: bool = False,
) -> Reply:
    """One request, its whole body read within `timeout_s` and `max_bytes`; raises SourceError. With a
    `guard`, every connection (each redirect hop too) goes only to public addresses, and directly (an
    environment proxy would connect on our behalf, past the check). `keyed`: the request carries a key
    (in a header or the body) saved for `url`; a redirect to another origin is refused, since httpx would
    resend custom headers, and a 307/308 the body, to wherever the service points."""
    import httpx

    check_url(url)
    deadline = time.monotonic() + timeout_s
    hdrs = {"User-Agent": USER_AGENT, **(headers or {})}
    try:
        with httpx.Client(
            timeout=httpx.Timeout(timeout_s),
            follow_redirects=True,
            max_redirects=MAX_REDIRECTS,
            headers=hdrs,
            event_hooks=_redirect_hooks(service, url, keyed),
            transport=None if guard is None else guard.transport(),
        ) as client:
            with client.stream(method, url, params=params, data=data, json=json_body) as r:
                refused = _status_problem(service, r.status_code, r.headers, ok_statuses)
                if refused is not None:
                    raise refused
                too_large = _declared_size_problem(service, r.headers.get("content-length"), max_bytes)
                if too_large is not None:
                    raise too_large
                body = _read_body(service, r.iter_bytes(), max_bytes=max_bytes, deadline=deadline, timeout_s=timeout_s)
                return Reply(r.status_code, str(r.url), r.headers.get("content-type", ""), body, dict(r.headers))
    except SourceError:
        raise
    except httpx.TimeoutException:
        raise SourceTimeout(
            f"{service} did not answer within {timeout_s:g} s.", "Slow or unreachable: the debate goes on without it."
        ) from None
    except httpx.TooManyRedirects:
        raise SourceError(f"{service} redirected more than {MAX_REDIRECTS} times.") from None
    except (httpx.InvalidURL, ValueError, UnicodeError):  # an address (or a redirect's) no parser reads
        raise SourceBlocked(f"{UNREADABLE[:-1]} ({service}).") from None
    except httpx.HTTPError as e:
        raise SourceError(
            f"{service} cannot be reached ({type(e).__name__}).",
            "Check the network connection, or leave this source out.",
        ) from None


def _redirect_hooks(service: str, url: str, keyed: bool) -> dict[str, list]:
    """httpx's event hooks for `request`: every redirect's address must read plainly, and a keyed request's
    every hop must stay on the origin its key was saved for."""
    from debate.models.transport import carries_secrets

    def own_origin_only(req: httpx.Request) -> None:
        if not carries_secrets(url, str(req.url)):
            raise SourceError(
                f"{service} redirected to {req.url.host or 'another address'}: not followed, "
                "the key is sent only to the address it was saved for.",
                "Set this source's address to where the service really answers.",
            )

    def plain_redirects_only(response: httpx.Response) -> None:
        location = response.headers.get("location") if response.is_redirect else None
        if location is not None and _unreadable_redirect(response.url, location):
            raise SourceBlocked(f"Not fetched: it redirected to an address that could not be read ({service}).")

    hooks: dict[str, list] = {"response": [plain_redirects_only]}
    if keyed:
        hooks["request"] = [own_origin_only]
    return hooks


def _unreadable_redirect(base: httpx.URL, location: str) -> bool:
    """Whether a redirect's Location (relative or absolute) is one httpx and a browser could read differently."""
    import httpx

    try:
        readable_url(str(base.join(location)))
        return "\\" in location or any(ord(ch) < 0x20 for ch in location)
    except (SourceBlocked, httpx.InvalidURL, ValueError):
        return True


def _status_problem(
    service: str, status: int, headers: httpx.Headers, ok_statuses: tuple[int, ...]
) -> SourceError | None:
    """What an answer's HTTP status says went wrong (a 429 with how long to back off), or None."""
    if status == 429:
        wait = retry_after_s(headers.get("retry-after"))
        return SourceRateLimited(
            f"{service} said 429 Too Many Requests: backing off {wait:.0f} s.",
            "The other sources still answer; this one is asked again after that.",
            retry_after=wait,
        )
    if status >= 500:
        return SourceError(
            f"{service} failed with HTTP {status}.",
            "A problem on the service's side: try again later.",
        )
    if status not in ok_statuses:
        return SourceError(
            f"{service} refused the request with HTTP {status}.",
            "Check this source's settings (address, key).",
        )
    return None


def _declared_size_problem(service: str, declared: str | None, max_bytes: int) -> SourceTooLarge | None:
    """An answer whose Content-Length is over the cap is not read at all."""
    if declared and declared.isdigit() and int(declared) > max_bytes:
        return SourceTooLarge(
            f"{service} sent {int(declared) // 1_000_000} MB, over the {max_bytes // 1_000_000 or 1} MB cap: not read."
        )
    return None


def _read_body(service: str, chunks: Iterable[bytes], *, max_bytes: int, deadline: float, timeout_s: float) -> bytes:
    """The body, read chunk by chunk against one byte budget and one wall-clock deadline."""
    parts, total = [], 0
    for chunk in chunks:
        total += len(chunk)
        if total > max_bytes:
            raise SourceTooLarge(f"{service} sent more than the {max_bytes // 1000} kB cap: cut off.")
        if time.monotonic() > deadline:
            raise SourceTimeout(f"{service} was still sending after {timeout_s:g} s: cut off.")
        parts.append(chunk)
    return b"".join(parts)
