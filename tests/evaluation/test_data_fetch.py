"""`python -m debate data fetch` against a loopback stand-in for the publishers' servers.

The stand-in (stdlib http.server in a thread) serves the real files and their broken variants: a good
file, one cut short, one with a wrong byte (wrong checksum), a 404 and one that hangs after its first
bytes. The download addresses are replaced the way a user would point at a mirror (the sources'
environment variables), and each case must be told plainly with nothing half-written left behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from debate.__main__ import main
from debate.data import locate
from debate.data.catalog import AVERITEC, LIAR
from tests.conftest import data_path


class _Files:
    def __init__(self) -> None:
        self.dev = data_path("averitec/dev.json").read_bytes()
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:  # the published zip's layout
            for name in ("train.tsv", "valid.tsv"):
                zf.writestr(name, data_path(f"liar/{name}").read_bytes())
            zf.writestr("test.tsv", "not used\n")
            zf.writestr("README", "LIAR\n")
        self.liar = buf.getvalue()
        self.release = threading.Event()


def _handler(files: _Files):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a) -> None:  # quiet
            pass

        def _send(self, body: bytes, length: int | None = None) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body) if length is None else length))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path == "/good/dev.json":
                self._send(files.dev)
            elif self.path == "/good/liar_dataset.zip":
                self._send(files.liar)
            elif self.path == "/cut/dev.json":  # says the full length, sends half, closes
                self._send(files.dev[: len(files.dev) // 2], length=len(files.dev))
                self.close_connection = True
            elif self.path == "/wrong/dev.json":  # the right size, one byte changed
                body = bytearray(files.dev)
                body[1000] ^= 1
                self._send(bytes(body))
            elif self.path == "/hang/dev.json":  # the headers and a first block, then nothing
                self.send_response(200)
                self.send_header("Content-Length", str(len(files.dev)))
                self.end_headers()
                self.wfile.write(files.dev[:4096])
                self.wfile.flush()
                files.release.wait(60)
            else:
                self.send_error(404)

    return Handler


@pytest.fixture(scope="module")
def server():
    files = _Files()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _handler(files))
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        files.release.set()
        srv.shutdown()
        srv.server_close()


@pytest.fixture()
def home(tmp_path, monkeypatch) -> Path:
    """A fresh DEBATE_HOME and an empty DEBATE_SHARED_DATA (the sibling folder of this checkout still
    holds the sets, so every fetch here is --force: download even when a right copy is found)."""
    monkeypatch.setenv("DEBATE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DEBATE_SHARED_DATA", str(tmp_path / "empty"))
    (tmp_path / "empty").mkdir()
    return tmp_path / "home"


def _fetch(capsys, *names: str, timeout: float = 2.0, attempts: int = 1) -> tuple[int, str]:
    rc = main(["data", "fetch", *names, "--force", "--timeout", str(timeout), "--attempts", str(attempts)])
    return rc, capsys.readouterr().out


def _leftovers(home: Path) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file() and p.suffix == ".part")


def test_a_good_file_is_stored_under_debate_home_with_its_pinned_sum(server, home, capsys, monkeypatch):
    monkeypatch.setenv(AVERITEC.url_env, f"{server}/good/dev.json")
    monkeypatch.setenv(LIAR.url_env, f"{server}/good/liar_dataset.zip")
    rc, out = _fetch(capsys)
    assert rc == 0, out
    assert "AVeriTeC dev (CC BY-NC 4.0): fetched" in out and "LIAR (train, valid) (research use only): fetched" in out
    for f in (*AVERITEC.files, *LIAR.files):
        p = home / "data" / f.rel
        assert hashlib.sha256(p.read_bytes()).hexdigest() == f.sha256
        assert locate.where(f.rel) == ("fetched", p)  # DEBATE_SHARED_DATA is empty: the fetched copy is next
    assert not (home / "data" / "liar" / "test.tsv").exists()  # only what the project reads is extracted
    assert _leftovers(home) == [] and sorted(p.name for p in (home / "data").iterdir()) == ["averitec", "liar"]


@pytest.mark.parametrize(
    "case,told",
    [
        ("cut", "was cut short"),
        ("wrong", "is not the pinned file (SHA-256"),
        ("missing", "answered HTTP 404 (not found)"),
        ("hang", "stopped sending: nothing arrived for 1 s (read timeout)"),
    ],
)
def test_a_bad_download_is_told_plainly_and_leaves_nothing(server, home, capsys, monkeypatch, case, told):
    monkeypatch.setenv(AVERITEC.url_env, f"{server}/{case}/dev.json")
    t0 = time.monotonic()
    rc, out = _fetch(capsys, "averitec", timeout=1.0, attempts=2)
    took = time.monotonic() - t0
    assert rc == 1 and "AVeriTeC dev (CC BY-NC 4.0): failed:" in out and told in out, out
    assert "no local corpus" in out and "DEBATE_SHARED_DATA" in out  # what works without it, and the way out
    assert not (home / "data" / "averitec").exists() and _leftovers(home) == []
    assert took < 8, f"{case}: {took:.1f} s for 2 attempts of 1 s"  # bounded: the hang does not hang the set-up


def test_a_failed_refetch_keeps_the_good_copy(server, home, capsys, monkeypatch):
    monkeypatch.setenv(AVERITEC.url_env, f"{server}/good/dev.json")
    assert _fetch(capsys, "averitec")[0] == 0
    monkeypatch.setenv(AVERITEC.url_env, f"{server}/wrong/dev.json")
    rc, out = _fetch(capsys, "averitec")
    assert rc == 1 and "not the pinned file" in out
    p = home / "data" / AVERITEC.files[0].rel
    assert hashlib.sha256(p.read_bytes()).hexdigest() == AVERITEC.files[0].sha256 and _leftovers(home) == []


def test_a_zip_without_the_member_or_not_a_zip_is_refused(server, home, capsys, monkeypatch):
    monkeypatch.setenv(LIAR.url_env, f"{server}/good/dev.json")  # a JSON file where the zip should be
    rc, out = _fetch(capsys, "liar")
    assert rc == 1 and "is not a zip archive" in out and not (home / "data" / "liar").exists()
    assert _leftovers(home) == []


def test_offline_it_says_what_is_missing_what_works_and_how_to_use_a_copy(home, capsys, monkeypatch):
    with contextlib.closing(__import__("socket").socket()) as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv(AVERITEC.url_env, f"http://127.0.0.1:{port}/dev.json")
    monkeypatch.setenv(LIAR.url_env, f"http://127.0.0.1:{port}/liar_dataset.zip")
    t0 = time.monotonic()
    rc, out = _fetch(capsys, attempts=2)
    assert rc == 1 and time.monotonic() - t0 < 10
    assert out.count("could not connect") == 2 and "(no network?)" in out
    assert "missing, and what works without it" in out and "export DEBATE_SHARED_DATA=" in out
    assert "RADAR's fitted class weights are committed values and still apply" in out
    assert not (home / "data").exists()


def test_a_url_argument_replaces_the_address_and_bad_ones_are_refused(server, home, capsys):
    rc = main(["data", "fetch", "averitec", "--force", "--url", f"averitec={server}/good/dev.json"])
    assert rc == 0 and "fetched" in capsys.readouterr().out
    assert main(["data", "fetch", "averitec", "--force", "--url", "averitec=ftp://example.org/dev.json"]) == 1
    assert "'ftp://example.org/dev.json' is not a usable http(s) address" in capsys.readouterr().out
    assert main(["data", "fetch", "--url", "nonsense"]) == 2
    assert "is not NAME=URL" in capsys.readouterr().err
    assert main(["data", "fetch", "imagenet"]) == 2
    assert "Unknown dataset 'imagenet'" in capsys.readouterr().err


def test_status_names_the_search_order_and_where_each_file_is(home, capsys):
    assert main(["data", "status"]) == 0
    out = capsys.readouterr().out
    order = [ln.split(":")[0].strip() for ln in out.splitlines() if ln[:4].strip().rstrip(".").isdigit()]
    assert order == ["1. DEBATE_SHARED_DATA", "2. fetched", "3. shipped", "4. beside the checkout"]
    assert "checkthat2025_4a/ct_train.tsv    ok       shipped:" in out
