"""Downloading the datasets the project may not ship (AVeriTeC dev, LIAR) into DEBATE_HOME/data.

Each file is written to a temporary file beside its final place, checked against its pinned SHA-256
(catalog.py) and only then renamed into place, so a cut connection, a hung server, a wrong file or an
interrupted run leaves nothing half-written behind: the file is there and right, or it is not there.
Transient failures (no connection, a read that timed out, a cut body, HTTP 5xx/429) are retried a few
times with a short back-off (tenacity); a 404, another 4xx or a wrong checksum is final at once.

The download address of each source can be replaced (`urls=`, or the source's `url_env` variable), for
a mirror or a test's stand-in server; the pinned sums still decide what is kept.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from debate.data import locate
from debate.data.catalog import SOURCES, DataFile, Source, sha256_of
from debate.errors import InvalidInput

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_ATTEMPTS = 3
MAX_ARCHIVE_BYTES = 64 << 20  # LIAR's zip is about 1 MB; anything far larger is not it
_CHUNK = 1 << 16


class FetchFailed(Exception):
    """A download that did not give the pinned file; `transient` ones are worth another attempt."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.transient = transient


@dataclass
class Outcome:
    """What `fetch` did for one source: "fetched", "present" (a right copy was already found) or "failed"."""

    source: Source
    state: str
    detail: str
    paths: list[Path] = field(default_factory=list)


def right_copy(f: DataFile) -> Path | None:
    """The first file in the search order that is this catalogue file byte for byte, or None."""
    for _, root in locate.search_roots():
        p = root / f.rel
        if p.is_file() and p.stat().st_size == f.size and sha256_of(p) == f.sha256:
            return p
    return None


def url_for(src: Source, urls: Mapping[str, str] | None = None) -> str:
    """The address to download `src` from: `urls[name]`, else its environment variable, else its own."""
    return (urls or {}).get(src.name) or os.environ.get(src.url_env, "").strip() or src.url


def _describe(e: Exception, url: str, timeout: float) -> FetchFailed:
    import httpx

    if isinstance(e, FetchFailed):
        return e
    if isinstance(e, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
        return FetchFailed(f"{url!r} is not a usable http(s) address")
    if isinstance(e, httpx.ConnectTimeout):
        return FetchFailed(f"no connection to {url} within {timeout:g} s (no network?)", True)
    if isinstance(e, httpx.ConnectError):
        return FetchFailed(f"could not connect to {url} (no network?): {str(e)[:160]}", True)
    if isinstance(e, httpx.ReadTimeout):
        return FetchFailed(f"{url} stopped sending: nothing arrived for {timeout:g} s (read timeout)", True)
    if isinstance(e, httpx.RemoteProtocolError):
        return FetchFailed(f"the download from {url} was cut short ({str(e)[:160]})", True)
    if isinstance(e, httpx.TimeoutException):
        return FetchFailed(f"{url} timed out after {timeout:g} s", True)
    if isinstance(e, httpx.HTTPError):
        return FetchFailed(f"downloading {url} failed: {type(e).__name__}: {str(e)[:160]}", True)
    if isinstance(e, OSError):
        return FetchFailed(f"cannot write the download: {e}")
    raise e


def _get_once(url: str, out: Path, timeout: float, max_bytes: int) -> None:
    """One GET of `url` into `out` (truncated first): a status other than 200, a body longer than
    `max_bytes` or shorter than its Content-Length, or a whole download slower than 10 timeouts fails."""
    import httpx

    deadline = time.monotonic() + 10 * timeout
    try:
        with httpx.Client(
            timeout=httpx.Timeout(timeout), follow_redirects=True, headers={"User-Agent": "debate-viewer data fetch"}
        ) as client:
            with client.stream("GET", url) as r:
                if r.status_code != 200:
                    transient = r.status_code == 429 or r.status_code >= 500
                    reason = "not found" if r.status_code == 404 else r.reason_phrase or "error"
                    raise FetchFailed(f"{url} answered HTTP {r.status_code} ({reason})", transient)
                expected = r.headers.get("content-length")
                got = 0
                with open(out, "wb") as fh:
                    for chunk in r.iter_bytes(_CHUNK):
                        got += len(chunk)
                        if got > max_bytes:
                            raise FetchFailed(f"{url} sent more than {max_bytes:,} bytes: not the expected file")
                        if time.monotonic() > deadline:
                            raise FetchFailed(f"{url} is too slow: not done after {10 * timeout:g} s", True)
                        fh.write(chunk)
                if expected and expected.isdigit() and got != int(expected):
                    raise FetchFailed(
                        f"the download from {url} was cut short: {got:,} of {int(expected):,} bytes", True
                    )
    except Exception as e:  # noqa: BLE001 - every failure becomes one sentence (or is re-raised)
        raise _describe(e, url, timeout) from None


def download(
    url: str,
    out: Path,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    attempts: int = DEFAULT_ATTEMPTS,
    max_bytes: int = MAX_ARCHIVE_BYTES,
) -> None:
    """GET `url` into `out`, retrying transient failures; raises FetchFailed with the last reason."""
    from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

    retrying = Retrying(
        stop=stop_after_attempt(max(1, attempts)),
        wait=wait_exponential(multiplier=0.5, max=4),
        retry=retry_if_exception(lambda e: isinstance(e, FetchFailed) and e.transient),
        reraise=True,
    )
    for attempt in retrying:
        with attempt:
            _get_once(url, out, timeout, max_bytes)


def _temp_in(dest: Path, name: str) -> Path:
    """A new temporary file directly in `dest` (same file system as every final place under it, so the
    rename is atomic); no folder of a dataset is made until a checked file goes into it."""
    dest.mkdir(parents=True, exist_ok=True)
    fd, path = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=dest)
    os.close(fd)
    return Path(path)


def _checked(tmp: Path, f: DataFile, where: str) -> None:
    got = sha256_of(tmp)
    if got != f.sha256:
        raise FetchFailed(
            f"{f.rel} from {where} is not the pinned file (SHA-256 {got[:16]}…, expected "
            f"{f.sha256[:16]}…, {tmp.stat().st_size:,} bytes, expected {f.size:,}): not kept"
        )


def _extract(archive: Path, f: DataFile, out: Path, where: str) -> None:
    """Member `f.member` of the zip `archive` into `out`, read by name (no path from the archive is
    ever used) and bounded by the pinned size."""
    try:
        with zipfile.ZipFile(archive) as zf:
            infos = [i for i in zf.infolist() if not i.is_dir() and Path(i.filename).name == f.member]
            if not infos:
                raise FetchFailed(f"{where} holds no {f.member}: not the expected archive")
            info = infos[0]
            if info.file_size != f.size:
                raise FetchFailed(
                    f"{f.member} in {where} has {info.file_size:,} bytes, expected {f.size:,}: "
                    "not the pinned file, not kept"
                )
            with zf.open(info) as src, open(out, "wb") as dst:
                left = f.size + 1
                while block := src.read(min(_CHUNK, left)):
                    left -= len(block)
                    if left <= 0:
                        raise FetchFailed(f"{f.member} in {where} is longer than it says: not kept")
                    dst.write(block)
    except zipfile.BadZipFile:
        raise FetchFailed(f"{where} is not a zip archive (the server sent something else)") from None
    except (zipfile.LargeZipFile, RuntimeError, EOFError, OSError) as e:  # encrypted, damaged or unwritable
        raise FetchFailed(f"cannot read {f.member} from {where}: {e}") from None


def fetch_source(
    src: Source,
    *,
    urls: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    attempts: int = DEFAULT_ATTEMPTS,
    force: bool = False,
) -> Outcome:
    """Make every file of `src` present in DEBATE_HOME/data (unless a right copy is found already)."""
    if src.shipped:
        found = [right_copy(f) for f in src.files]
        if all(found):
            return Outcome(src, "present", "ships with the repository", [p for p in found if p])
        return Outcome(
            src,
            "failed",
            "ships with the repository but is missing or changed here: restore it with `git checkout -- data`",
        )
    if not force:
        found = [right_copy(f) for f in src.files]
        if all(found):
            return Outcome(src, "present", "already on this machine", [p for p in found if p])
    url = url_for(src, urls)
    dest = locate.fetched_dir()
    temps: list[Path] = []
    done: list[Path] = []
    try:
        if src.archive == "zip":
            archive = _temp_in(dest, f"{src.name}.zip")
            temps.append(archive)
            download(url, archive, timeout=timeout, attempts=attempts, max_bytes=MAX_ARCHIVE_BYTES)
            staged = []
            for f in src.files:
                tmp = _temp_in(dest, Path(f.rel).name)
                temps.append(tmp)
                _extract(archive, f, tmp, url)
                _checked(tmp, f, url)
                staged.append((tmp, dest / f.rel))
        else:
            staged = []
            for f in src.files:
                tmp = _temp_in(dest, Path(f.rel).name)
                temps.append(tmp)
                download(url, tmp, timeout=timeout, attempts=attempts, max_bytes=f.size + 1)
                _checked(tmp, f, url)
                staged.append((tmp, dest / f.rel))
        for tmp, target in staged:  # every file checked: only now does anything appear in place
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, target)
            done.append(target)
        return Outcome(src, "fetched", f"downloaded from {url}, SHA-256 checked", done)
    except FetchFailed as e:
        return Outcome(src, "failed", e.message)
    finally:
        for t in temps:
            t.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            dest.rmdir()  # only if nothing was ever fetched: an empty folder says nothing


def fetch(
    names: list[str] | None = None,
    *,
    urls: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    attempts: int = DEFAULT_ATTEMPTS,
    force: bool = False,
    report: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Fetch the named sources (default: every one that is not shipped), one Outcome each."""
    wanted = names or [n for n, s in SOURCES.items() if not s.shipped]
    unknown = [n for n in wanted if n not in SOURCES]
    if unknown:
        raise InvalidInput(f"Unknown dataset {', '.join(map(repr, unknown))}.", f"Use one of: {', '.join(SOURCES)}.")
    if not timeout or timeout <= 0:
        raise InvalidInput(f"A timeout of {timeout!r} s cannot be used.", "Give a positive number of seconds.")
    out = []
    for n in wanted:
        o = fetch_source(SOURCES[n], urls=urls, timeout=timeout, attempts=attempts, force=force)
        if report is not None:
            report(o)
        out.append(o)
    return out


def status() -> list[dict]:
    """Each catalogue file: where it is found (first in the search order), and whether it is the pinned
    file. For `data status` and the docs' claim that what is found is what was fitted on."""
    rows = []
    for src in SOURCES.values():
        for f in src.files:
            hit = locate.where(f.rel)
            if hit is None:
                rows.append({"source": src.name, "file": f.rel, "state": "missing", "where": "", "path": ""})
                continue
            name, path = hit
            ok = path.stat().st_size == f.size and sha256_of(path) == f.sha256
            rows.append(
                {
                    "source": src.name,
                    "file": f.rel,
                    "state": "ok" if ok else "differs",
                    "where": name,
                    "path": str(path),
                }
            )
    return rows
