"""The audience server: a small Starlette app (run by uvicorn) that serves a poll and a person's seat to phones,
and nothing else.

Routes: GET/POST /p/TOKEN (a poll) and GET/POST /s/TOKEN (a seat). Every other path, method or token is a
404, the same page whatever was asked, so a phone learns nothing about what exists.

Why these choices:
- Starlette and uvicorn, with itsdangerous (signed cookies) and Jinja2 (templates): Streamlit itself runs on
  them, so the audience server adds no dependency;
- plain HTML forms, no websockets and no script: a page is under 2 KB (under 1 KB compressed), works on a poor conference
  Wi-Fi and an old phone; pages that wait (for the next stage, the results, the person's turn) reload
  themselves with a meta refresh, and have a Reload link;
- one vote per phone and stage: the phone's id is a cookie signed with a key kept in DEBATE_HOME, not a
  server session; a cookie changed by hand fails its signature and the vote is refused (403); every form
  carries a token derived from that id with the same key, so another site cannot make a phone vote or type;
- bounds: a request body of at most MAX_BODY bytes (413 from its declared length before it is read, and
  counted while it streams), per-address request rates (limits.py: 429 with Retry-After);
- every text from a model, a claim or a person is escaped by Jinja2's autoescape; a strict
  Content-Security-Policy (no script at all) and no-referrer keep a token from leaking out of a page; no
  access log (a path carries a token).

It reads and writes the same SQLite file as the presenter's app (WAL): votes through the people store,
typed turns through the seat inbox (links.py, handed to the seat by relay.py in the debate's process). The
store calls run in a worker thread, so a write waiting for the presenter's commit never stalls other phones.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs

import jinja2
from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from debate.audience import links, views
from debate.audience.limits import RateLimiter
from debate.errors import DebateError, InvalidInput
from debate.store import DebateStore
from debate.store import people as people_store

MAX_BODY = 48_000  # bytes: a seat's 4,000-character turn, form-encoded, fits (non-ASCII text triples)
PHONE_COOKIE = "phone"
PHONE_DAYS = 2  # a phone cookie older than this is a new phone (a conference lasts a day or two)
REFRESH_WAIT_S = 8  # a page that waits for the presenter reloads itself this often
REFRESH_SENT_S = 2  # a seat's page while its answer is handed to the debate
TOKEN_PATH = "{token:str}"

HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    ),
    (b"referrer-policy", b"no-referrer"),  # the token is in the URL: never sent on to another site
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]

log = logging.getLogger("debate.audience")

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
{% if refresh %}<meta http-equiv="refresh" content="{{ refresh }}">{% endif %}
<title>{{ title }}</title><style>{{ css|safe }}</style></head><body><main>
{% block body %}{% endblock %}
</main></body></html>""",
    "error.html": """{% extends "base.html" %}{% block body %}
<h1>{{ title }}</h1><p>{{ message }}</p>{% if hint %}<p class="meta">{{ hint }}</p>{% endif %}
{% endblock %}""",
    "poll.html": """{% extends "base.html" %}{% block body %}
<h1>Audience poll</h1>
<div class="claim">{{ claim }}</div>
{% if error %}<p class="err">{{ error }}</p>{% endif %}
{% if not poll or not poll.open %}
  <p class="note">{{ "The poll is closed. Thank you!" if poll else "The poll is not open yet: this page reloads itself." }}</p>
{% elif stage in mine %}
  <p class="note">Your vote {{ stage }} the debate: <b>{{ mine[stage] }}</b>.
  {{ "Wait for the verdict: the presenter will ask again." if stage == "before" else "Thank you!" }}</p>
{% else %}
  <form method="post"><input type="hidden" name="form" value="{{ form_token }}">
  <p><b>{{ "Before" if stage == "before" else "After" }} the debate: what do you think?</b></p>
  {% for label in poll.labels %}<button name="label" value="{{ label }}">{{ label }}</button>{% endfor %}
  </form>
{% endif %}
{% if rows %}
  <table><tr><th></th><th>before</th><th>after</th><th>swing</th></tr>
  {% for r in rows %}<tr><td><b>{{ r.label }}</b></td><td>{{ r.before }}</td><td>{{ r.after }}</td>
  <td>{{ r.swing }}</td></tr>{% endfor %}</table>
{% endif %}
<p class="meta"><a href="">Reload</a></p>
{% endblock %}""",
    "seat.html": """{% extends "base.html" %}{% block body %}
<h1>Your seat: {{ agent }}{% if role and role != agent %} ({{ role }}){% endif %}</h1>
<div class="claim">{{ claim }}</div>
{% if last and last.status == "refused" %}<p class="err">Refused: {{ last.message }}</p>{% endif %}
{% if error %}<p class="err">{{ error }}</p>{% endif %}
{% if over %}
  <p class="note">The debate has ended. Thank you for taking part!</p>
{% elif not ask %}
  <p class="note">{{ "Your turn is in the debate. " if last and last.status == "accepted" else "" }}Not your turn
  yet: this page reloads itself and shows your turn when the debate reaches it.</p>
{% elif last and last.status == "pending" %}
  <p class="note">Sent: handing your turn to the debate…</p>
{% elif last and last.status == "accepted" %}
  <p class="note">Your turn is in the debate.</p>
{% else %}
  <p><b>Your turn</b> ({{ ask.phase }}{% if ask.round %} {{ ask.round }}{% endif %}) · about {{ left }} s left</p>
  <details open><summary>What your role's prompt shows</summary><pre>{{ ask.prompt }}</pre></details>
  <p class="meta">Answer format: {{ ask.answer_format }}</p>
  <form method="post"><input type="hidden" name="form" value="{{ form_token }}">
  <input type="hidden" name="turn" value="{{ ask.turn_id }}">
  <textarea name="text" maxlength="{{ max_chars }}" required placeholder="Your turn"></textarea>
  <button>Send</button></form>
{% endif %}
<p class="meta"><a href="">Reload</a></p>
{% endblock %}""",
}

MESSAGES = {
    400: ("Not understood", "This request could not be read.", "Reload the page and try again."),
    403: (
        "Refused",
        "This phone's cookie is missing or was changed, or the form came from elsewhere.",
        "Reload the page (cookies must be allowed), then try again.",
    ),
    404: ("Not found", "There is nothing here.", "Scan the code on the presenter's screen again."),
    405: ("Not found", "There is nothing here.", "Scan the code on the presenter's screen again."),
    413: ("Too long", f"A request may have at most {MAX_BODY:,} bytes.", "Shorten your answer."),
    429: ("Too many requests", "This address sent too many requests.", "Wait a few seconds, then reload."),
}

ENV = jinja2.Environment(loader=jinja2.DictLoader(TEMPLATES), autoescape=True, undefined=jinja2.ChainableUndefined)


def page(name: str, status: int = 200, headers: dict | None = None, **values) -> HTMLResponse:
    values.setdefault("refresh", 0)
    values.setdefault("error", "")
    return HTMLResponse(ENV.get_template(name).render(css=CSS, **values), status_code=status, headers=headers)


def error_page(status: int, headers: dict | None = None) -> HTMLResponse:
    title, message, hint = MESSAGES.get(status, ("Error", "Something went wrong.", "Reload the page."))
    return page("error.html", status=status, headers=headers, title=title, message=message, hint=hint)


@dataclass
class Context:
    """What every request shares: the stores of one SQLite file, the signing key and the rate limiter."""

    path: Path
    secret: str
    limiter: RateLimiter = field(default_factory=RateLimiter)

    def __post_init__(self) -> None:
        self.links = links.AudienceStore(self.path)
        self.people = people_store.PeopleStore(self.path)
        self.debates = DebateStore(self.path)
        self.signer = URLSafeTimedSerializer(self.secret, salt="audience-phone")

    def form_token(self, phone: str) -> str:
        """The token every form of this phone carries: bound to its id by the key (another site has neither)."""
        return hmac.new(self.secret.encode(), f"form|{phone}".encode(), hashlib.sha256).hexdigest()[:40]


class Guard:
    """Before any route: the address's rate, the declared body size; on every answer: the security headers,
    and a closed connection after a refusal (the rest of its body is never read)."""

    def __init__(self, app, ctx: Context) -> None:
        self.app, self.ctx = app, ctx

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        refusal = None
        ok, wait = self.ctx.limiter.allow((scope.get("client") or ("?",))[0])
        if not ok:
            refusal = error_page(429, {"Retry-After": str(max(1, math.ceil(wait))), "Connection": "close"})
        else:
            length = dict(scope.get("headers") or []).get(b"content-length")
            if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
                refusal = error_page(413, {"Connection": "close"})

        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        if refusal is not None:
            return await refusal(scope, receive, with_headers)
        await self.app(scope, receive, with_headers)


async def read_form(request: Request) -> dict[str, str]:
    """The url-encoded form body, at most MAX_BODY bytes (413 past it, counted as it arrives)."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise HTTPException(413)
    if not request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        raise HTTPException(400)
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=10, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(400) from None
    return {k: v[0] for k, v in fields.items()}


def phone_of(request: Request, ctx: Context) -> str | None:
    """The phone's id from its signed cookie, or None when missing, expired or changed by hand."""
    raw = request.cookies.get(PHONE_COOKIE)
    if not raw:
        return None
    try:
        value = ctx.signer.loads(raw, max_age=PHONE_DAYS * 86400)
    except BadSignature:
        return None
    return value if isinstance(value, str) else None


def with_phone(response: Response, ctx: Context, phone: str, fresh: bool) -> Response:
    if fresh:
        response.set_cookie(
            PHONE_COOKIE, ctx.signer.dumps(phone), max_age=PHONE_DAYS * 86400, httponly=True, samesite="lax"
        )
    return response


async def checked_post(request: Request, ctx: Context) -> tuple[str, dict[str, str]]:
    """(phone id, form) of a POST whose phone cookie is valid and whose form token is this phone's; else 403."""
    form = await read_form(request)
    phone = phone_of(request, ctx)
    if phone is None or not hmac.compare_digest(form.get("form", ""), ctx.form_token(phone)):
        raise HTTPException(403)
    return phone, form


# -- a poll -----------------------------------------------------------------------------------------------
def poll_view(ctx: Context, link: dict, phone: str, error: str = "", status: int = 200) -> HTMLResponse:
    did = link["debate_id"]
    poll = ctx.people.poll(did)
    mine = ctx.people.voted(did, f"phone:{phone}") if poll else {}
    claim = (poll or {}).get("claim") or (ctx.debates.get(did) or {}).get("claim", "")
    rows = views.results_rows(ctx.people.tallies(did)) if poll and link["shown"] else []
    stage = (poll or {}).get("stage")
    waiting = not poll or not poll["open"] or stage in mine
    return page(
        "poll.html",
        status=status,
        title="Audience poll",
        claim=claim,
        poll=poll,
        stage=stage,
        mine=mine,
        rows=rows,
        error=error,
        form_token=ctx.form_token(phone),
        refresh=REFRESH_WAIT_S if waiting else 0,
    )


def found(ctx: Context, token: str, kind: str) -> dict:
    link = ctx.links.find(token, kind)
    if link is None:
        raise HTTPException(404)
    return link


async def shown(request: Request, kind: str, view) -> Response:
    """GET of a poll or a seat: its link found by token, the phone's cookie set on its first visit."""
    ctx: Context = request.app.state.ctx
    link = await run_in_threadpool(found, ctx, request.path_params["token"], kind)
    phone = phone_of(request, ctx)
    fresh = phone is None
    phone = phone or uuid.uuid4().hex
    return with_phone(await run_in_threadpool(view, ctx, link, phone), ctx, phone, fresh)


async def poll_get(request: Request) -> Response:
    return await shown(request, "poll", poll_view)


async def poll_post(request: Request) -> Response:
    ctx: Context = request.app.state.ctx
    link = await run_in_threadpool(found, ctx, request.path_params["token"], "poll")
    phone, form = await checked_post(request, ctx)
    label = form.get("label", "")[:200]

    def vote() -> Response:
        try:
            ctx.people.vote(link["debate_id"], f"phone:{phone}", label)
        except InvalidInput as e:
            return poll_view(ctx, link, phone, error=f"{e.message} {e.hint}".strip(), status=409)
        return RedirectResponse(request.url.path, status_code=303)

    return await run_in_threadpool(vote)


# -- a person's seat --------------------------------------------------------------------------------------
def seat_view(ctx: Context, link: dict, phone: str, error: str = "", status: int = 200) -> HTMLResponse:
    did, agent = link["debate_id"], link["agent"]
    row = ctx.debates.get(did) or {}
    events = ctx.debates.event_dicts(did)
    ask = views.open_ask(events, agent)
    last = ctx.links.last_answer(did, agent, ask["turn_id"]) if ask else None
    role = dict(views.person_seats(events)).get(agent, "")
    over = views.ended(events) or row.get("status") != "running"  # ended, stopped, interrupted or deleted
    form_shown = ask and not over and not (last and last["status"] in ("pending", "accepted"))
    return page(
        "seat.html",
        status=status,
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
        form_token=ctx.form_token(phone),
        refresh=0
        if form_shown or over
        else (REFRESH_SENT_S if last and last["status"] == "pending" else REFRESH_WAIT_S),
    )


async def seat_get(request: Request) -> Response:
    return await shown(request, "seat", seat_view)


async def seat_post(request: Request) -> Response:
    ctx: Context = request.app.state.ctx
    link = await run_in_threadpool(found, ctx, request.path_params["token"], "seat")
    phone, form = await checked_post(request, ctx)
    did, agent, turn = link["debate_id"], link["agent"], form.get("turn", "")[:200]

    def submit() -> Response:
        ask = views.open_ask(ctx.debates.event_dicts(did), agent)
        try:
            if ask is None or ask.get("turn_id") != turn:
                raise InvalidInput(
                    "This turn is no longer waiting for an answer.", "The page shows where the debate is."
                )
            ctx.links.submit(did, agent, turn, form.get("text", ""))
        except DebateError as e:
            return seat_view(ctx, link, phone, error=f"{e.message} {e.hint}".strip(), status=409)
        return RedirectResponse(request.url.path, status_code=303)

    return await run_in_threadpool(submit)


async def refused(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    if status >= 500:  # no path in the log: it carries a token
        log.error("%s on a %s request", status, request.method)
    return error_page(status, {"Connection": "close"} if status in (413, 429) else None)


def make_app(path: str | Path, secret: str, limiter: RateLimiter | None = None) -> Starlette:
    ctx = Context(Path(path), secret, limiter or RateLimiter())
    app = Starlette(
        routes=[
            Route(f"/p/{TOKEN_PATH}", poll_get, methods=["GET"]),
            Route(f"/p/{TOKEN_PATH}", poll_post, methods=["POST"]),
            Route(f"/s/{TOKEN_PATH}", seat_get, methods=["GET"]),
            Route(f"/s/{TOKEN_PATH}", seat_post, methods=["POST"]),
        ],
        middleware=[Middleware(Guard, ctx=ctx), Middleware(GZipMiddleware, minimum_size=500)],
        exception_handlers={HTTPException: refused, 405: refused},
    )
    app.state.ctx = ctx
    return app


def uvicorn_config(app: Starlette, host: str = "127.0.0.1", port: int = 0):
    """uvicorn for phones: no access log (tokens), no Server header, short keep-alive, bounded concurrency."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        access_log=False,
        server_header=False,
        log_level="warning",
        timeout_keep_alive=15,
        limit_concurrency=500,
        h11_max_incomplete_event_size=16 * 1024,  # request line and headers
        lifespan="off",
    )
