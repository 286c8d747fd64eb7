"""A small server speaking Ollama's REST API over real llama.cpp models, for tests on machines where
Ollama itself cannot be installed.

Endpoints: GET / and /api/version, GET /api/tags, POST /api/show, POST /api/chat (NDJSON stream or a
single JSON object; `format` = "json" or a JSON schema; `options` temperature/seed/num_predict/stop;
`logprobs`/`top_logprobs`). Unknown models get Ollama's 404 `{"error": "model ... not found"}`.

    python -m tests.support.ollama_standin --port 11434 --model qwen2.5:0.5b=/path/model.gguf
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

VERSION = "0.12.6-standin"


def _now() -> str:
    return datetime.now(UTC).isoformat()


class _TopK:
    """Logits processor recording the top alternatives of each generated position."""

    def __init__(self, llm, k: int) -> None:
        self.llm, self.k, self.positions, self.prompt_tokens = llm, k, [], 0

    def __call__(self, input_ids, scores):
        import numpy as np

        if not self.positions:
            self.prompt_tokens = len(input_ids)
        if self.k:
            idx = np.argpartition(scores, -self.k)[-self.k :]
            idx = idx[np.argsort(-scores[idx])]
            m = float(scores.max())
            logz = m + math.log(float(np.exp(scores.astype(np.float64) - m).sum()))
            self.positions.append(
                [(self.llm.detokenize([int(i)]).decode("utf-8", "ignore"), float(scores[i]) - logz) for i in idx]
            )
        else:
            self.positions.append([])
        return scores


class StandIn:
    def __init__(self, models: dict[str, Path], n_ctx: int = 2048) -> None:
        self.paths = {self._full(k): Path(v) for k, v in models.items()}
        self.n_ctx = n_ctx
        self._llms: dict[str, object] = {}
        self.lock = threading.Lock()

    @staticmethod
    def _full(name: str) -> str:
        return name if ":" in name else f"{name}:latest"

    def llm(self, name: str):
        from llama_cpp import Llama

        if name not in self._llms:
            self._llms[name] = Llama(
                model_path=str(self.paths[name]),
                n_ctx=self.n_ctx,
                n_threads=int(os.environ.get("DEBATE_N_THREADS", 2)),
                verbose=False,
            )
        return self._llms[name]

    @staticmethod
    def details(name: str) -> dict:
        """Ollama's `details` block; the family and size read off the tag (`qwen2.5:0.5b`), as Ollama's own
        library names them, since the stand-in does not parse the GGUF header."""
        head, _, tag = name.partition(":")
        family = head.rstrip("0123456789.") or head
        return {
            "parent_model": "",
            "format": "gguf",
            "family": family,
            "families": [family],
            "parameter_size": tag.upper() if tag != "latest" else "",
            "quantization_level": "",
        }

    def tags(self) -> dict:
        out = []
        for name, p in self.paths.items():
            st = p.stat()
            out.append(
                {
                    "name": name,
                    "model": name,
                    "modified_at": datetime.fromtimestamp(st.st_mtime, UTC).isoformat(),
                    "size": st.st_size,
                    "digest": hashlib.sha256(str(p).encode()).hexdigest(),
                    "details": self.details(name),
                }
            )
        return {"models": out}


def make_handler(state: StandIn):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def _send(self, code: int, obj: dict | str) -> None:
            body = (json.dumps(obj) if isinstance(obj, dict) else obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json" if isinstance(obj, dict) else "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _body(self) -> dict:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)) or 0)
            return json.loads(raw or b"{}")

        def _model(self, body: dict) -> str | None:
            name = StandIn._full(body.get("model") or body.get("name") or "")
            if name not in state.paths:
                self._send(404, {"error": f'model "{body.get("model")}" not found, try pulling it first'})
                return None
            return name

        def do_HEAD(self) -> None:
            self._send(200, "Ollama is running")

        def do_GET(self) -> None:
            if self.path in ("/", ""):
                self._send(200, "Ollama is running")
            elif self.path == "/api/version":
                self._send(200, {"version": VERSION})
            elif self.path == "/api/tags":
                self._send(200, state.tags())
            elif self.path == "/api/ps":
                self._send(200, {"models": []})
            else:
                self._send(404, "404 page not found")

        def do_POST(self) -> None:
            try:
                body = self._body()
            except ValueError:
                self._send(400, {"error": "invalid JSON body"})
                return
            if self.path == "/api/show":
                name = self._model(body)
                if name:
                    # the window this stand-in's model holds, where Ollama reports the model's own length
                    self._send(
                        200,
                        {
                            "modelfile": f"FROM {state.paths[name]}",
                            "parameters": "",
                            "template": "",
                            "details": StandIn.details(name),
                            "model_info": {"general.architecture": "llama", "llama.context_length": state.n_ctx},
                            "capabilities": ["completion"],
                            "modified_at": _now(),
                        },
                    )
            elif self.path == "/api/chat":
                name = self._model(body)
                if name:
                    log = os.environ.get("OLLAMA_STANDIN_LOG")  # tests read the prompts that arrived
                    if log:
                        with state.lock, open(log, "a", encoding="utf-8") as fh:
                            fh.write(
                                json.dumps(
                                    {"model": name, "messages": body.get("messages"), "options": body.get("options")}
                                )
                                + "\n"
                            )
                    self._chat(name, body)
            else:
                self._send(404, "404 page not found")

        def _chat(self, name: str, body: dict) -> None:
            from llama_cpp import LogitsProcessorList

            opts = body.get("options") or {}
            fmt = body.get("format")
            stream = body.get("stream", True)
            want_lp = bool(body.get("logprobs"))
            k = int(body.get("top_logprobs") or 0) if want_lp else 0
            kw = dict(
                messages=body.get("messages") or [],
                temperature=float(opts.get("temperature", 0.8)),
                max_tokens=int(opts.get("num_predict", 128)),
                stop=opts.get("stop") or None,
                stream=True,
            )
            if opts.get("seed") is not None:
                kw["seed"] = int(opts["seed"])
            if fmt == "json":
                kw["response_format"] = {"type": "json_object"}
            elif isinstance(fmt, dict):
                kw["response_format"] = {"type": "json_object", "schema": fmt}
            t0 = time.perf_counter_ns()
            with state.lock:
                llm = state.llm(name)
                llm.reset()
                rec = _TopK(llm, k)
                kw["logits_processor"] = LogitsProcessorList([rec])
                try:
                    gen = llm.create_chat_completion(**kw)
                    first = next(gen, None)
                except ValueError as e:
                    self._send(400, {"error": str(e)})
                    return
                if stream:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/x-ndjson")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                parts, finish, sent = [], "stop", 0
                chunks = ([first] if first else []) + list(gen) if not stream else None
                for chunk in chunks if chunks is not None else self._chain(first, gen):
                    choice = chunk["choices"][0]
                    text = choice.get("delta", {}).get("content") or ""
                    finish = choice.get("finish_reason") or finish
                    if not text:
                        continue
                    parts.append(text)
                    lps = self._logprobs(rec.positions[sent:], want_lp)
                    sent = len(rec.positions)
                    if stream:
                        msg = {
                            "model": name,
                            "created_at": _now(),
                            "message": {"role": "assistant", "content": text},
                            "done": False,
                        }
                        if lps is not None:
                            msg["logprobs"] = lps
                        self._chunk(msg)
                final = {
                    "model": name,
                    "created_at": _now(),
                    "message": {"role": "assistant", "content": "" if stream else "".join(parts)},
                    "done": True,
                    "done_reason": "length" if finish == "length" else "stop",
                    "total_duration": time.perf_counter_ns() - t0,
                    "load_duration": 0,
                    "prompt_eval_count": rec.prompt_tokens,
                    "prompt_eval_duration": 0,
                    "eval_count": len(rec.positions),
                    "eval_duration": time.perf_counter_ns() - t0,
                }
                if stream:
                    self._chunk(final)
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    if want_lp:
                        final["logprobs"] = self._logprobs(rec.positions, True)
                    self._send(200, final)

        @staticmethod
        def _chain(first, gen):
            if first is not None:
                yield first
            yield from gen

        @staticmethod
        def _logprobs(positions: list, want: bool) -> list | None:
            if not want:
                return None
            return [
                {
                    "token": pos[0][0] if pos else "",
                    "logprob": pos[0][1] if pos else 0.0,
                    "top_logprobs": [{"token": t, "logprob": lp} for t, lp in pos],
                }
                for pos in positions
            ]

        def _chunk(self, obj: dict) -> None:
            data = (json.dumps(obj) + "\n").encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    return Handler


def serve(models: dict[str, Path], port: int, host: str = "127.0.0.1", n_ctx: int = 2048) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer((host, port), make_handler(StandIn(models, n_ctx)))
    server.daemon_threads = True
    return server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=11434)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--n_ctx", type=int, default=2048)
    ap.add_argument("--model", action="append", default=[], help="name=path.gguf (repeatable)")
    args = ap.parse_args()
    models = dict(m.split("=", 1) for m in args.model)
    serve({k: Path(v) for k, v in models.items()}, args.port, args.host, args.n_ctx).serve_forever()


if __name__ == "__main__":
    main()
