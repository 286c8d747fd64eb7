"""Real servers on loopback for the model-layer tests: llama.cpp's OpenAI-compatible server, the
Ollama stand-in (both as subprocesses over a real GGUF model), the LiteLLM proxy as a router in front of
several of them, and a tiny scripted HTTP server that fails on purpose (500/429 a given number of times)
to exercise retries.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# the LiteLLM proxy's own virtualenv (`make test-setup`; requirements-router.txt says why it is apart)
ROUTER_BIN = REPO / ".venv" / "router" / "bin" / "litellm"
# llama.cpp's own server, built by `make llama-server` from the llama.cpp that the pinned llama-cpp-python
# vendors (the benchmarks' server that answers a prompt the same way every time; not needed by the app)
LLAMA_SERVER_BIN = REPO / ".venv" / "llama-server" / "bin" / "llama-server"
# what keeps the proxy from reaching out (model cost map, blog posts, header and template catalogues): it
# uses the copies bundled in the package; LITELLM_OFFLINE_MODE covers them all in releases that have it
ROUTER_OFFLINE = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_BLOG_POSTS": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_LOCAL_POLICY_TEMPLATES": "True",
    "LITELLM_LOCAL_AUTOROUTER_PRESETS": "True",
    "LITELLM_OFFLINE_MODE": "true",
}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def closed_port() -> int:
    """A loopback port with nothing listening (bound then released)."""
    return free_port()


class ServerProcess:
    def __init__(
        self,
        argv: list[str],
        url: str,
        ready_path: str,
        log: Path,
        headers: dict[str, str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        """`env`: the whole environment of the process (default: ours, offline, with the repo importable)."""
        self.url = url
        self.log = log
        self._fh = open(log, "wb")  # noqa: SIM115 - the server writes to it until stop() closes it
        if env is None:
            env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(argv, stdout=self._fh, stderr=subprocess.STDOUT, env=env, cwd=REPO)
        self._wait(url + ready_path, headers or {})

    def _wait(self, url: str, headers: dict[str, str], timeout_s: float = 180.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early ({self.proc.returncode}); log:\n{self.tail()}")
            try:
                with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=2):
                    return
            except Exception:  # noqa: BLE001 - not up yet
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"server at {url} not ready after {timeout_s} s; log:\n{self.tail()}")

    def tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._fh.close()


def start_llama_server(
    model_path: Path,
    alias: str,
    log_dir: Path,
    api_key: str | None = None,
    n_ctx: int = 2048,
    n_threads: int | None = None,
    interrupt_requests: bool = True,
) -> ServerProcess:
    """`python -m llama_cpp.server` on a free port; `.url` is the OpenAI base URL (…/v1). With
    `interrupt_requests` off it queues a request that comes while it answers another one, rather than end
    the streaming answer early (its default), as a server several clients share must."""
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_path),
        "--model_alias",
        alias,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_threads",
        str(n_threads or int(os.environ.get("DEBATE_N_THREADS", 2))),
        "--n_ctx",
        str(n_ctx),
    ]
    if not interrupt_requests:
        argv += ["--interrupt_requests", "false"]
    if api_key:
        argv += ["--api_key", api_key]
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    return ServerProcess(argv, f"http://127.0.0.1:{port}/v1", "/models", log_dir / f"llama-server-{port}.log", headers)


def start_llama_cpp_native(
    model_path: Path,
    alias: str,
    log_dir: Path,
    n_ctx: int = 4096,
    n_threads: int = 2,
    cache_prompt: bool = False,
) -> ServerProcess:
    """llama.cpp's `llama-server` (LLAMA_SERVER_BIN) on a free port with one slot; `.url` is …/v1.

    With `cache_prompt` off every request evaluates its whole prompt from the first token, in the same
    batches, so a prompt gets the same answer whatever came before it. With it on (llama.cpp's default, and
    what llama_cpp.server always does) only the part after the prefix shared with the previous request is
    evaluated, and llama.cpp's README warns that logits are not bit-for-bit the same across batch sizes: a
    greedy label near a tie can flip with the request that came before, which a benchmark comparing two
    prompts must not mistake for an effect."""
    if not LLAMA_SERVER_BIN.exists():
        raise RuntimeError(
            f"{LLAMA_SERVER_BIN} is missing: `make llama-server` builds it (about 5 minutes on two cores)."
        )
    port = free_port()
    argv = [
        str(LLAMA_SERVER_BIN),
        "--model",
        str(model_path),
        "--alias",
        alias,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--threads",
        str(n_threads),
        "--ctx-size",
        str(n_ctx),
        "--parallel",
        "1",
        "--no-webui",
        "--cache-prompt" if cache_prompt else "--no-cache-prompt",
    ]
    return ServerProcess(argv, f"http://127.0.0.1:{port}/v1", "/models", log_dir / f"llama-cpp-server-{port}.log")


def start_llama_multi_server(
    models: dict[str, Path], log_dir: Path, n_ctx: int = 2048, n_threads: int = 2
) -> ServerProcess:
    """`python -m llama_cpp.server --config_file`: several GGUF models behind one OpenAI-compatible server,
    each under its `model_alias` (the server keeps one loaded and swaps on demand); `.url` is …/v1."""
    port = free_port()
    # interrupt_requests off: by default the server ends a stream early whenever another request is
    # waiting, so a council's members, asked at once, would cut each other's answers off
    config = {
        "host": "127.0.0.1",
        "port": port,
        "interrupt_requests": False,
        "models": [
            {"model": str(path), "model_alias": alias, "n_ctx": n_ctx, "n_threads": n_threads, "verbose": False}
            for alias, path in models.items()
        ],
    }
    config_path = log_dir / f"llama-multi-{port}.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    argv = [sys.executable, "-m", "llama_cpp.server", "--config_file", str(config_path)]
    return ServerProcess(argv, f"http://127.0.0.1:{port}/v1", "/models", log_dir / f"llama-multi-{port}.log")


def start_litellm_router(config: Path, env: dict[str, str], log_dir: Path) -> ServerProcess:
    """The LiteLLM proxy (ROUTER_BIN) with `config` on a free loopback port; `.url` is its OpenAI base URL
    (…/v1). It runs with a bare environment: PATH, a HOME of its own, the offline switches and `env` (the
    master key, the upstreams' URLs the config reads), so none of our variables or keys reach it."""
    port = free_port()
    argv = [str(ROUTER_BIN), "--config", str(config), "--host", "127.0.0.1", "--port", str(port), "--num_workers", "1"]
    home = log_dir / "router-home"
    home.mkdir(exist_ok=True)
    bare = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), **ROUTER_OFFLINE, **env}
    srv = ServerProcess(
        argv, f"http://127.0.0.1:{port}", "/health/liveliness", log_dir / f"litellm-{port}.log", env=bare
    )
    srv.url += "/v1"
    return srv


def start_ollama_standin(models: dict[str, Path], log_dir: Path, n_ctx: int = 2048) -> ServerProcess:
    """The Ollama stand-in on a free port; `.url` is the Ollama host (http://127.0.0.1:PORT)."""
    port = free_port()
    argv = [sys.executable, "-m", "tests.support.ollama_standin", "--port", str(port), "--n_ctx", str(n_ctx)]
    for name, path in models.items():
        argv += ["--model", f"{name}={path}"]
    return ServerProcess(argv, f"http://127.0.0.1:{port}", "/api/version", log_dir / f"ollama-standin-{port}.log")


def send_json(handler: BaseHTTPRequestHandler, code: int, obj: dict) -> None:
    """One JSON response with its length (keep-alive clients need it)."""
    body = json.dumps(obj).encode()
    handler.send_response(code)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


# -- a server that fails on purpose -------------------------------------------------------------
class FlakyOpenAI:
    """OpenAI-style /v1 server in a thread: `fail_times` answers of `status`, then a streamed reply."""

    def __init__(
        self, fail_times: int, status: int = 500, reply: str = "hello there", delay_s: float = 0, serial: bool = False
    ) -> None:
        """`serial`: one request at a time, the others wait (a server with one slot, as llama.cpp's)."""
        self.fail_times = fail_times
        self._slot = threading.Lock() if serial else None
        self.delay_s = delay_s
        self.status = status
        self.reply = reply
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def _json(self, code: int, obj: dict) -> None:
                send_json(self, code, obj)

            def do_GET(self) -> None:
                self._json(200, {"object": "list", "data": [{"id": "flaky", "object": "model"}]})

            def do_POST(self) -> None:
                if outer._slot is None:
                    self._answer()
                    return
                with outer._slot:
                    self._answer()

            def _answer(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.requests.append(self.path)
                if outer.delay_s:
                    time.sleep(outer.delay_s)
                if sum(1 for p in outer.requests if p.endswith("/chat/completions")) <= outer.fail_times:
                    self._json(
                        outer.status, {"error": {"message": f"scripted failure {outer.status}", "type": "server_error"}}
                    )
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for word in outer.reply.split(" "):
                    chunk = {
                        "id": "x",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": "flaky",
                        "choices": [{"index": 0, "delta": {"content": word + " "}, "finish_reason": None}],
                    }
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                end = {
                    "id": "x",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": "flaky",
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                }
                self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def chat_calls(self) -> int:
        return sum(1 for p in self.requests if p.endswith("/chat/completions"))

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def flaky_openai(fail_times: int, status: int = 500, delay_s: float = 0) -> Iterator[FlakyOpenAI]:
    srv = FlakyOpenAI(fail_times, status, delay_s=delay_s)
    try:
        yield srv
    finally:
        srv.stop()
