"""Bounded HTTP for the evidence sources: every request has a wall-clock deadline and a size cap.

Why not the clients' own transports: pyalex's requests session has no timeout at all, and httpx's
timeouts are per read, so a server that drips a byte a second (or streams without end) would hold a
debate forever. Here the body is read in chunks against one deadline and one byte budget, and each
failure becomes a SourceError whose message says what the service did.
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass
from urllib.parse import urlparse

from debate.errors import DebateError

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
            raise SourceError(f"{service} answered with an HTML page instead of JSON (an error or block page).",
                              "Try again later, or leave this source out.")
        try:
            return json.loads(self.body)
        except ValueError as e:
            raise SourceError(f"{service} answered with unreadable JSON ({e}).",
                              "Try again later, or leave this source out.") from None


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


def check_url(url: str) -> str:
    scheme = urlparse(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise SourceError(f"Refusing to fetch {url[:80]!r}: only http and https addresses are fetched.")
    return url


def request(service: str, method: str, url: str, *, timeout_s: float, max_bytes: int,
            params: dict | None = None, data: dict | None = None, json_body: dict | None = None,
            headers: dict | None = None, ok_statuses: tuple[int, ...] = (200,)) -> Reply:
    """One request, its whole body read within `timeout_s` and `max_bytes`; raises SourceError."""
    import httpx

    check_url(url)
    deadline = time.monotonic() + timeout_s
    hdrs = {"User-Agent": USER_AGENT, **(headers or {})}
    try:
        with httpx.Client(timeout=httpx.Timeout(timeout_s), follow_redirects=True,
                          max_redirects=MAX_REDIRECTS, headers=hdrs) as client:
            with client.stream(method, url, params=params, data=data, json=json_body) as r:
                if r.status_code == 429:
                    wait = retry_after_s(r.headers.get("retry-after"))
                    raise SourceRateLimited(f"{service} said 429 Too Many Requests: backing off {wait:.0f} s.",
                                            "The other sources still answer; this one is asked again after that.",
                                            retry_after=wait)
                if r.status_code >= 500:
                    raise SourceError(f"{service} failed with HTTP {r.status_code}.",
                                      "A problem on the service's side: try again later.")
                if r.status_code not in ok_statuses:
                    raise SourceError(f"{service} refused the request with HTTP {r.status_code}.",
                                      "Check this source's settings (address, key).")
                declared = r.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > max_bytes:
                    raise SourceTooLarge(f"{service} sent {int(declared) // 1_000_000} MB, over the "
                                         f"{max_bytes // 1_000_000 or 1} MB cap: not read.")
                chunks, total = [], 0
                for chunk in r.iter_bytes():
                    total += len(chunk)
                    if total > max_bytes:
                        raise SourceTooLarge(f"{service} sent more than the {max_bytes // 1000} kB cap: cut off.")
                    if time.monotonic() > deadline:
                        raise SourceTimeout(f"{service} was still sending after {timeout_s:g} s: cut off.")
                    chunks.append(chunk)
                return Reply(r.status_code, str(r.url), r.headers.get("content-type", ""), b"".join(chunks),
                             dict(r.headers))
    except SourceError:
        raise
    except httpx.TimeoutException:
        raise SourceTimeout(f"{service} did not answer within {timeout_s:g} s.",
                            "Slow or unreachable: the debate goes on without it.") from None
    except httpx.TooManyRedirects:
        raise SourceError(f"{service} redirected more than {MAX_REDIRECTS} times.") from None
    except httpx.HTTPError as e:
        raise SourceError(f"{service} cannot be reached ({type(e).__name__}).",
                          "Check the network connection, or leave this source out.") from None
