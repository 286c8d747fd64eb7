"""Loopback HTTP servers that misbehave on purpose, for the hardening tests (model text
and remote servers are hostile: the app must stay safe and responsive whatever they send).

`Recorder` speaks enough of OpenAI's chat API (GET /v1/models, streamed POST /v1/chat/completions) and
of Ollama's (/api/tags, /api/version, NDJSON /api/chat) to be a backend, records every request's
headers, and can be told to:

- `reply`: stream these words and finish properly (the default);
- `hang`: accept the connection, read the request, never answer (until stopped);
- `flood`: stream words without end, ignoring max_tokens (a server that does not honour it);
- `no_done`: (Ollama) stream the words, then close without the final `done: true` line;
- `cut`: (OpenAI) stream the words, then close without a finish reason or `[DONE]` (a cut-off stream;
  only the first `cuts` answers when given);
- `trickle`: answer every request (lists too) with HTTP 200 and then one byte every `delay_s`, for ever;
- `trickle_head`: the same, one byte at a time from the status line on (the headers never end);
- `error`: answer every request with HTTP `status` and `error_text` as the server's error message.

`delay_s` paces the words (a slow server). `context_length` is reported as the model's window: Ollama's
/api/show `model_info` and vLLM's `max_model_len` in /v1/models. Each request's JSON body is recorded.
`reply` may also be a function of the request's JSON body (answers that depend on the prompt).

Each runs in a thread of the test process on 127.0.0.1 with a port of its own.
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

from tests.support.servers import send_json


class Recorder:
    def __init__(self, mode: str = "reply", reply: str = '{"vote": "YES", "explanation": "scripted"}',
                 model: str = "scripted", delay_s: float = 0.0, status: int = 500, error_text: str = "boom",
                 context_length: int | None = None, cuts: int | None = None) -> None:
        self.mode = mode
        self.cuts = cuts  # mode "cut": how many answers are cut (None: all), the later ones finish
        self.status = status
        self.error_text = error_text
        self.context_length = context_length
        self.delay_s = delay_s
        self.reply = reply
        self.model = model
        self.requests: list[dict] = []  # {"method", "path", "body", "headers"}
        self._stop = threading.Event()
        self._cut = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def _record(self) -> dict:
                n = int(self.headers.get("Content-Length", 0) or 0)
                body = self.rfile.read(n) if n else b""
                try:
                    parsed = json.loads(body or b"{}")
                except ValueError:
                    parsed = {}
                outer.requests.append({"method": self.command, "path": self.path, "body": parsed,
                                       "headers": {k.lower(): v for k, v in self.headers.items()}})
                return parsed

            def _misbehave(self) -> bool:
                """The modes that answer every path alike; True when this request was answered so."""
                if outer.mode == "hang":
                    self._hang()
                elif outer.mode == "error":
                    self._json({"error": {"message": outer.error_text, "type": "server_error"}}
                               if not self.path.startswith("/api/") else {"error": outer.error_text}, outer.status)
                elif outer.mode == "trickle_head":
                    self.close_connection = True
                    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: "
                    for i in range(10**6):
                        if outer._stop.is_set() or not self._send(head[i:i + 1] if i < len(head) else b"a"):
                            break
                        outer._stop.wait(outer.delay_s)
                elif outer.mode == "trickle":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.close_connection = True
                    while not outer._stop.is_set() and self._send(b" "):
                        outer._stop.wait(outer.delay_s)
                else:
                    return False
                return True

            def _json(self, obj: dict, code: int = 200) -> None:
                send_json(self, code, obj)

            def _hang(self) -> None:
                outer._stop.wait(120)
                self.close_connection = True

            def do_GET(self) -> None:
                self._record()
                if self._misbehave():
                    return
                if self.path.rstrip("/").endswith("/models"):
                    entry = {"id": outer.model, "object": "model"}
                    if outer.context_length:
                        entry["max_model_len"] = outer.context_length
                    return self._json({"object": "list", "data": [entry]})
                if self.path.startswith("/api/tags"):
                    return self._json({"models": [{"name": f"{outer.model}:latest", "model": f"{outer.model}:latest",
                                                   "modified_at": "2025-01-01T00:00:00Z", "size": 1,
                                                   "digest": "0" * 64, "details": {}}]})
                if self.path.startswith("/api/version") or self.path == "/":
                    return self._json({"version": "0.0.0-recorder"})
                self._json({"error": "not found"}, 404)

            def do_POST(self) -> None:
                body = self._record()
                if self._misbehave():
                    return
                if self.path.startswith("/api/show"):
                    info = {"general.architecture": "llama"}
                    if outer.context_length:
                        info["llama.context_length"] = outer.context_length
                    return self._json({"modelfile": "", "parameters": "", "template": "", "details": {},
                                       "model_info": info, "capabilities": ["completion"]})
                if self.path.startswith("/api/chat"):
                    return self._ollama_chat(body)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                for word in self._words(body):
                    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": outer.model,
                             "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}]}
                    if not self._send(f"data: {json.dumps(chunk)}\n\n".encode()):
                        return
                if outer.mode == "cut" and (outer.cuts is None or outer._cut < outer.cuts):
                    outer._cut += 1
                    return  # closes without a finish reason
                end = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": outer.model,
                       "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                self._send(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())

            def _words(self, body: dict) -> Iterator[str]:
                if outer.mode == "flood":
                    while not outer._stop.is_set():
                        outer._stop.wait(outer.delay_s)
                        yield "flood "
                    return
                reply = outer.reply(body) if callable(outer.reply) else outer.reply
                for w in reply.split(" "):
                    outer._stop.wait(outer.delay_s)
                    yield w + " "

            def _send(self, data: bytes) -> bool:
                try:
                    self.wfile.write(data)
                    self.wfile.flush()
                    return True
                except OSError:  # the client hung up (it capped the answer): fine
                    return False

            def _ollama_chat(self, body: dict) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                name = body.get("model", outer.model)
                for word in self._words(body):
                    line = {"model": name, "created_at": "2025-01-01T00:00:00Z",
                            "message": {"role": "assistant", "content": word}, "done": False}
                    if not self._send((json.dumps(line) + "\n").encode()):
                        return
                if outer.mode == "no_done":
                    return  # closes without the final line
                self._send((json.dumps({"model": name, "created_at": "2025-01-01T00:00:00Z",
                                        "message": {"role": "assistant", "content": ""}, "done": True,
                                        "done_reason": "stop", "prompt_eval_count": 3,
                                        "eval_count": 3}) + "\n").encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.host = f"http://127.0.0.1:{self.port}"
        self.url = self.host + "/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def authorizations(self) -> list[str]:
        return [r["headers"].get("authorization", "") for r in self.requests]

    def stop(self) -> None:
        self._stop.set()
        time.sleep(0.05)
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def recorder(mode: str = "reply", **kw) -> Iterator[Recorder]:
    srv = Recorder(mode, **kw)
    try:
        yield srv
    finally:
        srv.stop()
