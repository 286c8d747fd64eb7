"""The audience server: a small Tornado app that serves a poll and a person's seat to phones, and nothing else.

Routes: GET/POST /p/TOKEN (a poll) and GET/POST /s/TOKEN (a seat). Every other path, method or token is a
404, the same page whatever was asked, so a phone learns nothing about what exists.

Why these choices:
- plain HTML forms, no websockets and no script: a page is about 2 KB (gzip), works on a poor conference
  Wi-Fi and an old phone; pages that wait (for the next stage, the results, the person's turn) reload
  themselves with a meta refresh, and have a Reload link;
- one vote per phone and stage: the phone's voter id is a cookie signed with a key kept in DEBATE_HOME
  (Tornado's signed cookies), not a server session; a cookie changed by hand fails its signature and the
  vote is refused (403); forms carry Tornado's XSRF token, so another site cannot make a phone vote;
- bounds: a request body of at most MAX_BODY bytes (413 past it, checked from Content-Length before the
  body is read, and counted while it streams), per-address request rates (limits.py: 429 with Retry-After);
- every text from a model, a claim or a person is escaped by Tornado's template autoescape; a strict
  Content-Security-Policy (no script at all) and no-referrer keep a token from leaking out of a page.

It reads and writes the same SQLite file as the presenter's app (WAL): votes through the people store,
typed turns through the seat inbox (links.py, handed to the seat by relay.py in the debate's process).
"""

from __future__ import annotations

import asyncio
import logging
import math
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import tornado.httputil
import tornado.template
import tornado.web
from tornado.httpserver import HTTPServer

from debate.audience import links, views
from debate.audience.limits import RateLimiter
from debate.errors import DebateError, InvalidInput
from debate.store import DebateStore
from debate.store import people as people_store

MAX_BODY = 48_000  # bytes: a seat's 4,000-character turn, form-encoded, fits (non-ASCII text triples)
VOTER_COOKIE = "voter"
VOTER_DAYS = 2  # a voter cookie older than this is a new phone (a conference lasts a day or two)
REFRESH_WAIT_S = 8  # a page that waits for the presenter reloads itself this often
REFRESH_SENT_S = 2  # a seat's page while its answer is handed to the debate

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",  # the token is in the URL: never sent on to another site
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}

CSS = (
    "body{font:18px/1.45 system-ui,sans-serif;margin:0;background:#fafafa;color:#111}"
    "main{max-width:34em;margin:0 auto;padding:1em}"
    "h1{font-size:1.15em;margin:.2em 0 .6em}.claim{font-size:1.2em;font-weight:600;margin:.4em 0 1em;"
    "white-space:pre-wrap;overflow-wrap:anywhere}"
    "button{display:block;width:100%;font-size:1.15em;padding:.8em;margin:.5em 0;border:0;border-radius:.5em;"
    "background:#1f5fbf;color:#fff}textarea{width:100%;box-sizing:border-box;font:inherit;min-height:9em}"
    ".note{background:#eef5ea;padding:.7em;border-radius:.4em}.err{background:#fde8e8;padding:.7em;"
    "border-radius:.4em}.meta{color:#555;font-size:.9em}table{width:100%;border-collapse:collapse}"
    "td,th{padding:.35em;border-bottom:1px solid #ddd;text-align:left}"
    "pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85em;background:#fff;padding:.6em;"
    "border:1px solid #ddd;max-height:24em;overflow:auto}a{color:#1f5fbf}"
)

TEMPLATES = {
    "base.html": """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
{% if refresh %}<meta http-equiv="refresh" content="{{ refresh }}">{% end %}
<title>{{ title }}</title><style>{% raw css %}</style></head><body><main>
{% block body %}{% end %}
</main></body></html>""",
    "error.html": """{% extends "base.html" %}{% block body %}
<h1>{{ title }}</h1><p>{{ message }}</p>{% if hint %}<p class="meta">{{ hint }}</p>{% end %}
{% end %}""",
    "poll.html": """{% extends "base.html" %}{% block body %}
<h1>Audience poll</h1>
<div class="claim">{{ claim }}</div>
{% if error %}<p class="err">{{ error }}</p>{% end %}
{% if not poll or not poll["open"] %}
  <p class="note">{{ "The poll is closed. Thank you!" if poll else "The poll is not open yet: this page reloads itself." }}</p>
{% elif stage in mine %}
  <p class="note">Your vote {{ stage }} the debate: <b>{{ mine[stage] }}</b>.
  {{ "Wait for the verdict: the presenter will ask again." if stage == "before" else "Thank you!" }}</p>
{% else %}
  <form method="post">{% raw xsrf_form_html() %}
  <p><b>{{ "Before" if stage == "before" else "After" }} the debate: what do you think?</b></p>
  {% for label in poll["labels"] %}<button name="label" value="{{ label }}">{{ label }}</button>{% end %}
  </form>
{% end %}
{% if rows %}
  <table><tr><th></th><th>before</th><th>after</th><th>swing</th></tr>
  {% for r in rows %}<tr><td><b>{{ r["label"] }}</b></td><td>{{ r["before"] }}</td><td>{{ r["after"] }}</td>
  <td>{{ r["swing"] }}</td></tr>{% end %}</table>
{% end %}
<p class="meta"><a href="">Reload</a></p>
{% end %}""",
    "seat.html": """{% extends "base.html" %}{% block body %}
<h1>Your seat: {{ agent }}{% if role and role != agent %} ({{ role }}){% end %}</h1>
<div class="claim">{{ claim }}</div>
{% if last and last["status"] == "refused" %}<p class="err">Refused: {{ last["message"] }}</p>{% end %}
{% if error %}<p class="err">{{ error }}</p>{% end %}
{% if over %}
  <p class="note">The debate has ended. Thank you for taking part!</p>
{% elif not ask %}
  <p class="note">{{ "Your turn is in the debate. " if last and last["status"] == "accepted" else "" }}Not your turn
  yet: this page reloads itself and shows your turn when the debate reaches it.</p>
{% elif last and last["status"] == "pending" %}
  <p class="note">Sent: handing your turn to the debate…</p>
{% elif last and last["status"] == "accepted" %}
  <p class="note">Your turn is in the debate.</p>
{% else %}
  <p><b>Your turn</b> ({{ ask.get("phase", "") }}{% if ask.get("round") %} {{ ask["round"] }}{% end %}) ·
  about {{ left }} s left</p>
  <details open><summary>What your role's prompt shows</summary><pre>{{ ask.get("prompt", "") }}</pre></details>
  <p class="meta">Answer format: {{ ask.get("answer_format", "") }}</p>
  <form method="post">{% raw xsrf_form_html() %}
  <input type="hidden" name="turn" value="{{ ask.get("turn_id", "") }}">
  <textarea name="text" maxlength="{{ max_chars }}" required placeholder="Your turn"></textarea>
  <button>Send</button></form>
{% end %}
<p class="meta"><a href="">Reload</a></p>
{% end %}""",
}

MESSAGES = {
    400: ("Not understood", "This request could not be read.", "Reload the page and try again."),
    403: (
        "Refused",
        "This phone's poll cookie is missing or was changed, or the form is too old.",
        "Reload the page (cookies must be allowed), then try again.",
    ),
    404: ("Not found", "There is nothing here.", "Scan the code on the presenter's screen again."),
    405: ("Not found", "There is nothing here.", "Scan the code on the presenter's screen again."),
    413: ("Too long", f"A request may have at most {MAX_BODY:,} bytes.", "Shorten your answer."),
    429: ("Too many requests", "This address sent too many requests.", "Wait a few seconds, then reload."),
}


@dataclass
class Context:
    """What every handler shares: the stores of one SQLite file and the rate limiter."""

    path: Path
    limiter: RateLimiter = field(default_factory=RateLimiter)

    def __post_init__(self) -> None:
        self.links = links.AudienceStore(self.path)
        self.people = people_store.PeopleStore(self.path)
        self.debates = DebateStore(self.path)


class Base(tornado.web.RequestHandler):
    """Rate limit, body bound, headers and the one error page, shared by every route (and the 404)."""

    def initialize(self, ctx: Context) -> None:
        self.ctx = ctx
        self._body = bytearray()
        self._too_big = False
        self._retry_after = 0

    def set_default_headers(self) -> None:
        self.clear_header("Server")
        for k, v in HEADERS.items():
            self.set_header(k, v)

    def prepare(self) -> None:
        ok, wait = self.ctx.limiter.allow(self.request.remote_ip or "?")
        if not ok:
            self._retry_after = max(1, math.ceil(wait))  # send_error clears headers: set in write_error
            raise tornado.web.HTTPError(429)
        length = self.request.headers.get("Content-Length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            raise tornado.web.HTTPError(413)

    def data_received(self, chunk: bytes) -> None:  # bodies stream in (stream_request_body): counted here
        if len(self._body) + len(chunk) > MAX_BODY:
            self._too_big = True
            return
        self._body += chunk

    def check_xsrf_cookie(self) -> None:
        """Tornado checks XSRF before the streamed body is read; `form` checks it once the body is in."""

    def form(self) -> None:
        """Read the form body (bounded), then check its XSRF token."""
        if self._too_big:
            raise tornado.web.HTTPError(413)
        args: dict[str, list[bytes]] = {}
        tornado.httputil.parse_body_arguments(
            self.request.headers.get("Content-Type", ""), bytes(self._body), args, {}, self.request.headers
        )
        for k, v in args.items():
            self.request.body_arguments.setdefault(k, []).extend(v)
            self.request.arguments.setdefault(k, []).extend(v)
        tornado.web.RequestHandler.check_xsrf_cookie(self)

    def get_template_namespace(self) -> dict:
        ns = super().get_template_namespace()
        ns.update(css=CSS, refresh=0, error="")
        return ns

    def write_error(self, status_code: int, **kwargs) -> None:
        title, message, hint = MESSAGES.get(status_code, ("Error", "Something went wrong.", "Reload the page."))
        if status_code == 429:
            self.set_header("Retry-After", str(self._retry_after))
        if status_code in (413, 429):  # refused before the body was read: Tornado closes the connection
            self.set_header("Connection", "close")
        self.render("error.html", title=title, message=message, hint=hint)

    def not_found(self) -> None:
        raise tornado.web.HTTPError(404)


class NotFound(Base):
    """Every path that is not a poll or a seat, with any method."""

    def prepare(self) -> None:
        super().prepare()
        raise tornado.web.HTTPError(404)


@tornado.web.stream_request_body
class PollPage(Base):
    def _link(self, token: str) -> dict:
        link = self.ctx.links.find(token, "poll")
        if link is None:
            self.not_found()
        return link

    def _voter(self, *, issue: bool) -> str | None:
        raw = self.get_signed_cookie(VOTER_COOKIE, max_age_days=VOTER_DAYS)
        voter = raw.decode("ascii", "replace") if raw else None
        if voter is None and issue:
            voter = uuid.uuid4().hex
            self.set_signed_cookie(VOTER_COOKIE, voter, expires_days=VOTER_DAYS, httponly=True, samesite="Lax")
        return voter

    def _show(self, link: dict, voter: str, error: str = "", status: int = 200) -> None:
        did = link["debate_id"]
        poll = self.ctx.people.poll(did)
        mine = self.ctx.people.voted(did, f"phone:{voter}") if poll else {}
        claim = (poll or {}).get("claim") or (self.ctx.debates.get(did) or {}).get("claim", "")
        rows = views.results_rows(self.ctx.people.tallies(did)) if poll and link["shown"] else []
        stage = (poll or {}).get("stage")
        waiting = not poll or not poll["open"] or stage in mine
        self.set_status(status)
        self.render(
            "poll.html",
            title="Audience poll",
            claim=claim,
            poll=poll,
            stage=stage,
            mine=mine,
            rows=rows,
            error=error,
            refresh=REFRESH_WAIT_S if waiting else 0,
        )

    def get(self, token: str) -> None:
        link = self._link(token)
        self.xsrf_token  # noqa: B018 - sets the XSRF cookie the vote form needs
        self._show(link, self._voter(issue=True) or "")

    def post(self, token: str) -> None:
        link = self._link(token)
        self.form()
        voter = self._voter(issue=False)
        if voter is None:  # missing, expired or changed by hand: not a phone this server knows
            raise tornado.web.HTTPError(403)
        label = self.get_body_argument("label", "")[:200]
        try:
            self.ctx.people.vote(link["debate_id"], f"phone:{voter}", label)
        except InvalidInput as e:
            return self._show(link, voter, error=f"{e.message} {e.hint}".strip(), status=409)
        self.redirect(self.request.path, status=303)


@tornado.web.stream_request_body
class SeatPage(Base):
    def _link(self, token: str) -> dict:
        link = self.ctx.links.find(token, "seat")
        if link is None:
            self.not_found()
        return link

    def _show(self, link: dict, error: str = "", status: int = 200) -> None:
        did, agent = link["debate_id"], link["agent"]
        row = self.ctx.debates.get(did) or {}
        events = self.ctx.debates.event_dicts(did)
        ask = views.open_ask(events, agent)
        last = self.ctx.links.last_answer(did, agent, ask["turn_id"]) if ask else None
        role = dict(views.person_seats(events)).get(agent, "")
        over = views.ended(events) or row.get("status") != "running"  # ended, stopped, interrupted or deleted
        form_shown = ask and not over and not (last and last["status"] in ("pending", "accepted"))
        self.set_status(status)
        self.render(
            "seat.html",
            title=f"Your seat: {agent}",
            agent=agent,
            role=(ask or {}).get("role") or role,
            claim=row.get("claim", ""),
            ask=ask,
            last=last,
            over=over,
            left=views.seconds_left(row.get("created_at", ""), ask or {}, datetime.now(UTC)),
            max_chars=links.MAX_ANSWER_CHARS,
            error=error,
            refresh=0
            if form_shown or over
            else (REFRESH_SENT_S if last and last["status"] == "pending" else REFRESH_WAIT_S),
        )

    def get(self, token: str) -> None:
        link = self._link(token)
        self.xsrf_token  # noqa: B018 - sets the XSRF cookie the answer form needs
        self._show(link)

    def post(self, token: str) -> None:
        link = self._link(token)
        self.form()
        did, agent = link["debate_id"], link["agent"]
        turn = self.get_body_argument("turn", "")[:200]
        text = self.get_body_argument("text", "")
        ask = views.open_ask(self.ctx.debates.event_dicts(did), agent)
        try:
            if ask is None or ask.get("turn_id") != turn:
                raise InvalidInput(
                    "This turn is no longer waiting for an answer.", "The page now shows where the debate is."
                )
            self.ctx.links.submit(did, agent, turn, text)
        except DebateError as e:
            return self._show(link, error=f"{e.message} {e.hint}".strip(), status=409)
        self.redirect(self.request.path, status=303)


def _log(handler: tornado.web.RequestHandler) -> None:
    """No access log: a request's path carries a poll's or a seat's token. Server errors are logged, pathless."""
    if handler.get_status() >= 500:
        logging.getLogger("debate.audience").error(
            "%s %s on a %s page", handler.get_status(), handler.request.method, type(handler).__name__
        )


def make_app(path: str | Path, secret: str, limiter: RateLimiter | None = None) -> tornado.web.Application:
    ctx = Context(Path(path), limiter or RateLimiter())
    return tornado.web.Application(
        [
            (r"/p/([A-Za-z0-9_-]{1,64})", PollPage, {"ctx": ctx}),
            (r"/s/([A-Za-z0-9_-]{1,64})", SeatPage, {"ctx": ctx}),
        ],
        default_handler_class=NotFound,
        default_handler_args={"ctx": ctx},
        cookie_secret=secret,
        xsrf_cookies=True,
        xsrf_cookie_kwargs={"httponly": True, "samesite": "Strict"},
        template_loader=tornado.template.DictLoader(TEMPLATES),
        compress_response=True,
        autoreload=False,
        log_function=_log,
        debug=False,
    )


def make_server(app: tornado.web.Application) -> HTTPServer:
    """The HTTP server: small bodies, short idle and body timeouts, the peer's own address (no proxy headers)."""
    return HTTPServer(app, max_body_size=MAX_BODY * 2, idle_connection_timeout=60, body_timeout=20, xheaders=False)


async def serve(path: str | Path, host: str, port: int, secret: str, limiter: RateLimiter | None = None) -> None:
    """Serve until cancelled."""
    server = make_server(make_app(path, secret, limiter))
    server.listen(port, host)
    try:
        await asyncio.Event().wait()
    finally:
        server.stop()
