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
- `error`: answer every request with HTTP `status` and `error_text` as the server's error message;
- `redirect`: answer every request with HTTP 307 to the same path at `redirect_to` (another server).

With `list_ok`, the model lists (GET) are answered normally in every mode: a server that lists its
models and then fails the request.

`delay_s` paces the words (a slow server). `context_length` is reported as the model's window: Ollama's
/api/show `model_info` and vLLM's `max_model_len` in /v1/models. Each request's JSON body is recorded.
`reply` may also be a function of the request's JSON body (answers that depend on the prompt).

Each runs in a thread of the test process on 127.0.0.1 with a port of its own.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from tests.support.servers import send_json


class _QuietHandler(BaseHTTPRequestHandler):
    """What every stand-in's request handler shares: HTTP/1.1, no request log in the test output, and the
    request body read by its Content-Length."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def _body(self) -> bytes:
        n = int(self.headers.get("Content-Length", 0) or 0)
        return self.rfile.read(n) if n else b""


class _Loopback:
    """A stand-in's server: 127.0.0.1 on a port of its own, served from a daemon thread; `stop` first ends
    the waits of handlers that hang or trickle (they wait on `_stop`)."""

    _stop: threading.Event

    def _serve(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.host = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        time.sleep(0.05)
        self.server.shutdown()
        self.server.server_close()


class Recorder(_Loopback):
    def __init__(
        self,
        mode: str = "reply",
        reply: str = '{"vote": "YES", "explanation": "scripted"}',
        model: str = "scripted",
        delay_s: float = 0.0,
        status: int = 500,
        error_text: str = "boom",
        context_length: int | None = None,
        cuts: int | None = None,
        redirect_to: str = "",
        list_ok: bool = False,
    ) -> None:
        self.mode = mode
        self.list_ok = list_ok
        self.redirect_to = redirect_to  # mode "redirect": the other server's origin, e.g. http://127.0.0.1:PORT
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

        class Handler(_QuietHandler):
            def _record(self) -> dict:
                body = self._body()
                try:
                    parsed = json.loads(body or b"{}")
                except ValueError:
                    parsed = {}
                outer.requests.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "body": parsed,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                    }
                )
                return parsed

            def _misbehave(self) -> bool:
                """The modes that answer every path alike; True when this request was answered so."""
                if outer.mode == "hang":
                    self._hang()
                elif outer.mode == "redirect":
                    self.send_response(307)
                    self.send_header("Location", outer.redirect_to + self.path)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif outer.mode == "error":
                    self._json(
                        {"error": {"message": outer.error_text, "type": "server_error"}}
                        if not self.path.startswith("/api/")
                        else {"error": outer.error_text},
                        outer.status,
                    )
                elif outer.mode == "trickle_head":
                    self.close_connection = True
                    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: "
                    for i in range(10**6):
                        if outer._stop.is_set() or not self._send(head[i : i + 1] if i < len(head) else b"a"):
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
                if not outer.list_ok and self._misbehave():
                    return
                if self.path.rstrip("/").endswith("/models"):
                    entry = {"id": outer.model, "object": "model"}
                    if outer.context_length:
                        entry["max_model_len"] = outer.context_length
                    return self._json({"object": "list", "data": [entry]})
                if self.path.startswith("/api/tags"):
                    return self._json(
                        {
                            "models": [
                                {
                                    "name": f"{outer.model}:latest",
                                    "model": f"{outer.model}:latest",
                                    "modified_at": "2025-01-01T00:00:00Z",
                                    "size": 1,
                                    "digest": "0" * 64,
                                    "details": {},
                                }
                            ]
                        }
                    )
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
                    return self._json(
                        {
                            "modelfile": "",
                            "parameters": "",
                            "template": "",
                            "details": {},
                            "model_info": info,
                            "capabilities": ["completion"],
                        }
                    )
                if self.path.startswith("/api/chat"):
                    return self._ollama_chat(body)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                for word in self._words(body):
                    chunk = {
                        "id": "x",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": outer.model,
                        "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}],
                    }
                    if not self._send(f"data: {json.dumps(chunk)}\n\n".encode()):
                        return
                if outer.mode == "cut" and (outer.cuts is None or outer._cut < outer.cuts):
                    outer._cut += 1
                    return  # closes without a finish reason
                end = {
                    "id": "x",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": outer.model,
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                }
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
                    line = {
                        "model": name,
                        "created_at": "2025-01-01T00:00:00Z",
                        "message": {"role": "assistant", "content": word},
                        "done": False,
                    }
                    if not self._send((json.dumps(line) + "\n").encode()):
                        return
                if outer.mode == "no_done":
                    return  # closes without the final line
                self._send(
                    (
                        json.dumps(
                            {
                                "model": name,
                                "created_at": "2025-01-01T00:00:00Z",
                                "message": {"role": "assistant", "content": ""},
                                "done": True,
                                "done_reason": "stop",
                                "prompt_eval_count": 3,
                                "eval_count": 3,
                            }
                        )
                        + "\n"
                    ).encode()
                )

        self._serve(Handler)
        self.url = self.host + "/v1"

    def authorizations(self) -> list[str]:
        return [r["headers"].get("authorization", "") for r in self.requests]


@contextmanager
def recorder(mode: str = "reply", **kw) -> Iterator[Recorder]:
    srv = Recorder(mode, **kw)
    try:
        yield srv
    finally:
        srv.stop()


# -- evidence services ----------------------------------------------------------------------------------
# Stand-ins for the online evidence sources, answering in the shapes the real services document:
# OpenAlex GET /works (https://docs.openalex.org/api-entities/works/get-lists-of-works: meta + results,
# abstracts as an inverted index), MediaWiki api.php (list=search, prop=extracts with formatversion=2),
# DuckDuckGo's HTML endpoint (POST /html/, the result__body markup ddgs's xpaths read) and plain article
# pages. `mode` switches a service to one failure: "timeout" (never answers), "429" (Retry-After),
# "500", "html" (an HTML error page where JSON belongs), "huge" (a 20 MB body) or "endless" (a body that
# never ends).

HUGE_BYTES = 20 * 1024 * 1024

ARTICLES = {
    "coffee": (
        "Coffee drinking and mortality: a large cohort study",
        "Researchers followed 500,000 adults for ten years and found that people who drank two to three cups "
        "of coffee a day had a lower risk of death than non-drinkers, after adjusting for smoking, age and "
        "diet. The association held for ground, instant and decaffeinated coffee. The authors caution "
        "that the study is observational and cannot show that coffee itself lengthens life.",
    ),
    "sealevel": (
        "Global mean sea level has risen about 21 to 24 centimetres since 1880",
        "Satellite altimetry and tide gauge records analysed by NASA and NOAA show that global mean sea "
        "level rose roughly 20 centimetres between 1900 and 2018, and that the rate of rise has "
        "accelerated in recent decades as glaciers and ice sheets melt and warming oceans expand.",
    ),
}


def openalex_work(i: int, title: str, abstract: str) -> dict:
    """One work as OpenAlex returns it (the fields the scholar source reads, plus a few it ignores)."""
    inverted: dict[str, list[int]] = {}
    for pos, word in enumerate(abstract.split()):
        inverted.setdefault(word, []).append(pos)
    return {
        "id": f"https://openalex.org/W10000000{i}",
        "doi": f"https://doi.org/10.1000/standin.{i}",
        "title": title,
        "display_name": title,
        "publication_year": 2021,
        "publication_date": "2021-03-15",
        "type": "article",
        "cited_by_count": 42 + i,
        "is_retracted": False,
        "authorships": [
            {"author_position": "first", "author": {"id": "https://openalex.org/A1", "display_name": "Ada Lovelace"}},
            {"author_position": "last", "author": {"id": "https://openalex.org/A2", "display_name": "Alan Turing"}},
        ],
        "primary_location": {
            "is_oa": True,
            "landing_page_url": f"https://journal.example/article/{i}",
            "source": {"id": "https://openalex.org/S1", "display_name": "Journal of Stand-ins"},
        },
        "abstract_inverted_index": inverted,
    }


class EvidenceService(_Loopback):
    """One service (`kind`: openalex | mediawiki | ddg | pages) on its own loopback port."""

    def __init__(self, kind: str, mode: str = "ok") -> None:
        self.kind, self.mode = kind, mode
        self.requests: list[dict] = []
        self._stop = threading.Event()
        outer = self

        class Handler(_QuietHandler):
            def _send(self, code: int, body: bytes, ctype: str, extra: dict | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(body)
                except OSError:
                    pass

            def _failure(self) -> bool:
                mode = outer.mode
                if mode == "ok":
                    return False
                if mode == "timeout":
                    outer._stop.wait(60)
                    self.close_connection = True
                elif mode == "429":
                    self._send(429, b'{"error": "rate limit"}', "application/json", {"Retry-After": "7"})
                elif mode == "500":
                    self._send(500, b'{"error": "internal"}', "application/json")
                elif mode == "html":
                    self._send(
                        200,
                        b"<!DOCTYPE html><html><body><h1>503 Service Unavailable</h1>"
                        b"<p>Please try again later.</p></body></html>",
                        "text/html; charset=utf-8",
                    )
                elif mode == "huge":
                    self._stream(HUGE_BYTES, declare=True)
                elif mode == "endless":
                    self._stream(None, declare=False)
                return True

            def _stream(self, size: int | None, declare: bool) -> None:
                """`size` bytes of page (None: until the client hangs up or the server stops)."""
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                if declare:
                    self.send_header("Content-Length", str(size))
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                chunk = b"<p>" + b"filler " * 9000 + b"</p>\n"
                sent = 0
                try:
                    while not outer._stop.is_set() and (size is None or sent < size):
                        part = chunk if size is None else chunk[: size - sent]
                        self.wfile.write(part)
                        sent += len(part)
                        if size is None:
                            outer._stop.wait(0.01)
                except OSError:
                    pass

            def _record(self, body: bytes = b"") -> dict:
                parsed = urlparse(self.path)
                q = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
                if body:
                    q.update({k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()})
                outer.requests.append(
                    {
                        "method": self.command,
                        "path": parsed.path,
                        "query": q,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                    }
                )
                return q

            def do_GET(self) -> None:
                q = self._record()
                if self._failure():
                    return
                getattr(self, f"_{outer.kind}")(q)

            def do_POST(self) -> None:
                q = self._record(self._body())
                if self._failure():
                    return
                getattr(self, f"_{outer.kind}")(q)

            def _json(self, obj: dict) -> None:
                self._send(200, json.dumps(obj).encode(), "application/json; charset=utf-8")

            def _openalex(self, q: dict) -> None:
                words = set((q.get("search") or "").lower().split())
                hits = [
                    openalex_work(i, t, a)
                    for i, (t, a) in enumerate(ARTICLES.values())
                    if words & set(f"{t} {a}".lower().split())
                ]
                per = int(q.get("per-page", 25))
                self._json(
                    {
                        "meta": {
                            "count": len(hits),
                            "db_response_time_ms": 12,
                            "page": 1,
                            "per_page": per,
                            "groups_count": None,
                        },
                        "results": hits[:per],
                        "group_by": [],
                    }
                )

            def _mediawiki(self, q: dict) -> None:
                if q.get("meta") == "siteinfo":
                    return self._json({"batchcomplete": True, "query": {"general": {"sitename": "Wikipedia"}}})
                if q.get("list") == "search":
                    words = set((q.get("srsearch") or "").lower().split())
                    rows = [
                        {
                            "ns": 0,
                            "title": t,
                            "pageid": 100 + i,
                            "size": 5000,
                            "wordcount": 800,
                            "snippet": f'<span class="searchmatch">{t.split()[0]}</span> {a[:80]}',
                            "timestamp": "2024-05-01T10:00:00Z",
                        }
                        for i, (t, a) in enumerate(ARTICLES.values())
                        if words & set(f"{t} {a}".lower().split())
                    ]
                    return self._json(
                        {
                            "batchcomplete": True,
                            "continue": {"sroffset": 10, "continue": "-||"},
                            "query": {"searchinfo": {"totalhits": len(rows)}, "search": rows},
                        }
                    )
                if "extracts" in (q.get("prop") or ""):
                    titles = (q.get("titles") or "").split("|")
                    pages = [
                        {"pageid": 100 + i, "ns": 0, "title": t, "extract": a, "touched": "2024-05-02T00:00:00Z"}
                        for i, (t, a) in enumerate(ARTICLES.values())
                        if t in titles
                    ]
                    return self._json({"batchcomplete": True, "query": {"pages": pages}})
                self._json({"error": {"code": "badvalue", "info": 'Unrecognized value for parameter "action".'}})

            def _ddg(self, q: dict) -> None:
                words = set((q.get("q") or "").lower().split())
                base = outer.page_base or f"http://127.0.0.1:{outer.port}"
                items = []
                for key, (t, a) in ARTICLES.items():
                    if words & set(f"{t} {a}".lower().split()):
                        href = f"{base}/pages/{key}"
                        items.append(f'''<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="{href}">{t}</a></h2>
    <div class="result__extras"><div class="result__extras__url"><a class="result__url" href="{href}">{href}</a></div></div>
    <a class="result__snippet" href="{href}">{a[:120]}</a>
    <div class="clear"></div>
  </div>
</div>''')
                for extra in outer.extra_results:
                    items.append(f'''<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="{extra}">A page at {extra}</a></h2>
    <a class="result__snippet" href="{extra}">snippet of a page that may not be readable</a>
  </div>
</div>''')
                page = (
                    "<!DOCTYPE html><html><head><title>" + (q.get("q") or "") + " at DuckDuckGo</title></head>"
                    '<body><div id="links" class="results">' + "\n".join(items) + "</div></body></html>"
                )
                self._send(200, page.encode(), "text/html; charset=UTF-8")

            def _pages(self, q: dict) -> None:
                key = urlparse(self.path).path.rsplit("/", 1)[-1]
                if key == "huge":
                    return self._stream(HUGE_BYTES, declare=False)
                if key == "endless":
                    return self._stream(None, declare=False)
                if key == "error":
                    return self._send(500, b"<html><body>Internal Server Error</body></html>", "text/html")
                if key == "redirect":  # a page that sends the reader on to `to` (anywhere)
                    return self._send(302, b"", "text/html", {"Location": q.get("to", "/")})
                t, a = ARTICLES.get(key, ("Not found", ""))
                if not a:
                    return self._send(404, b"<html><body>Not Found</body></html>", "text/html")
                html = (
                    f'<!DOCTYPE html><html lang="en"><head><title>{t}</title>'
                    f'<meta property="og:site_name" content="Science Daily Stand-in">'
                    f'<meta name="date" content="2023-06-01"></head><body><nav>Home | News | About</nav>'
                    f"<article><h1>{t}</h1><p>Reported by the stand-in newsroom. {a}</p>"
                    f"<p>Independent experts said the findings fit earlier work but called for trials.</p></article>"
                    f"<footer>Copyright Stand-in Media</footer></body></html>"
                )
                self._send(200, html.encode(), "text/html; charset=utf-8")

        self.page_base = ""
        self.extra_results: list[str] = []
        self._serve(Handler)
        self.url = self.host


@contextmanager
def evidence_services(**modes: str) -> Iterator[dict[str, EvidenceService]]:
    """openalex, mediawiki, ddg and pages stand-ins, each in `modes.get(kind, "ok")`."""
    started = {k: EvidenceService(k, modes.get(k, "ok")) for k in ("openalex", "mediawiki", "ddg", "pages")}
    started["ddg"].page_base = started["pages"].url
    try:
        yield started
    finally:
        for s in started.values():
            s.stop()
