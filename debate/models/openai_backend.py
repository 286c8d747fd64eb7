"""`openai:` backend: OpenAI and every server that speaks its chat API (llama.cpp server, vLLM, LM
Studio, OpenRouter).

The SDK's own retries are off (max_retries=0) so that `retry.call_with_retries` is the one bounded
policy, and every SDK exception is translated into a DebateError whose hint says what to do.
Servers differ: llama.cpp accepts `{"type": "json_object", "schema": ...}` but answers HTTP 500 to
OpenAI's `json_schema` form, which vLLM, LM Studio and OpenRouter expect; so with `json_format` "auto"
(settings openai.json_format or OPENAI_JSON_FORMAT) a server that refuses one form gets the next
(`JSON_FORMS`), once per backend, and the form that worked is kept. llama.cpp also serves any model
name with its one model, so the model name is checked once against `/models` to report an unknown model
instead of silently using another.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlparse

from debate.errors import (
    AuthError,
    BackendTimeout,
    BackendUnavailable,
    ContextTooLong,
    DebateError,
    InvalidInput,
    ModelNotFound,
    RateLimited,
    ServerError,
)
from debate.models.backends import BackendInfo
from debate.models.base import HEALTH_TIMEOUT_S, Backend, Chunk, Delta, Final, GenOptions, Message, ModelInfo
from debate.models.labelprobs import TOP_K, label_probs_at_key
from debate.models.limits import capped, server_cap
from debate.models.local import check_request
from debate.models.retry import call_with_retries
from debate.models.spec import ModelSpec, server_url, settings_url
from debate.models.transport import WITHHELD, bounded_transport, normalise_url, saved_secret, scoped
from debate.sanitize import strip_terminal

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# How a JSON schema is asked for, most standard first; "none" leaves it to the prompt and the parser's repair.
JSON_FORMS = ("json_schema", "llama.cpp", "json_object", "none")
START_HINT = (
    "Start an OpenAI-compatible server, e.g. `.venv/bin/python -m llama_cpp.server --model "
    "MODEL.gguf --host 127.0.0.1 --port 8000`, or fix the base URL (settings openai.base_url "
    "or OPENAI_BASE_URL)."
)


def key_for(base_url: str, settings: dict[str, Any] | None = None, env: Mapping[str, str] | None = None) -> str | None:
    """The API key that may be sent to `base_url`, or None.

    A key belongs to the base URL it was configured for, so that a lineup file naming
    `openai:x@http://elsewhere/v1` cannot collect it: a key saved for that very URL (settings
    `openai.keys`, written by the Models page), else the saved `openai.api_key` when `base_url` is the
    saved base URL (or, with none saved, OPENAI_BASE_URL or api.openai.com), else OPENAI_API_KEY when
    `base_url` is OPENAI_BASE_URL (or api.openai.com when that is unset). Every other URL gets no key."""
    s = settings or {}
    env = os.environ if env is None else env
    env_url = env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    return saved_secret(
        base_url, s.get("keys"), s.get("api_key"), s.get("base_url") or env_url, env.get("OPENAI_API_KEY"), env_url
    )


def mask_key(key: str | None) -> str:
    """What a page may show of a key: its last four characters."""
    return f"…{key[-4:]}" if key else ""


def with_saved_key(section: dict[str, Any], base_url: str, key: str = "", forget: bool = False) -> dict[str, Any]:
    """The `openai` settings section after saving (or forgetting) the key for `base_url`.

    Keys are kept per URL in `keys`; an older single `api_key` moves there under the URL it served. An
    empty `key` keeps what is saved, so a form that never shows the key can be saved again."""
    out = {k: v for k, v in (section or {}).items() if k != "api_key"}
    keys = dict(out.get("keys") or {})
    if section.get("api_key"):
        old_url = section.get("base_url") or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        keys.setdefault(normalise_url(old_url), section["api_key"])
    url = normalise_url(base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL)
    if key.strip():
        keys[url] = key.strip()
    elif forget:
        keys.pop(url, None)
    if keys:
        out["keys"] = keys
    else:
        out.pop("keys", None)
    return out


def _detail(e: Exception) -> str:
    """The server's own error text, without the SDK's "Error code: N - " prefix."""
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        body = body.get("message") or (inner.get("message") if isinstance(inner, dict) else inner)
    text = strip_terminal(str(body or getattr(e, "message", "") or e)).strip()  # shown in terminals and pages
    text = text if len(text) <= 300 else text[:297] + "..."
    return text.rstrip(".") + "."


def _http_library() -> Any:
    """The httpx-like library the installed openai SDK is built on (httpx2 in 3.x, httpx before)."""
    import openai._base_client as base

    return getattr(base, "httpx2", None) or base.httpx


def _window_of(model: Any) -> int | None:
    """A model entry's context window, under the names servers use for it."""
    extra = dict(getattr(model, "model_extra", None) or {})
    for value in (extra.get("max_model_len"), extra.get("loaded_context_length"), extra.get("context_length")):
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _context_error(text: str) -> bool:
    t = text.lower()
    return "context" in t and any(w in t for w in ("length", "window", "exceed", "too long", "maximum"))


class OpenAIBackend(Backend):
    name = "openai"
    supports_logprobs = True
    supports_json_schema = True

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        max_parallel: int = 4,
        timeout_s: float = 120.0,
        retries: int | None = None,
        url_in_spec: bool = False,
        json_format: str | None = None,
        health_timeout_s: float = HEALTH_TIMEOUT_S,
        guard: Any = None,
    ) -> None:
        """`api_key`: sent as given (the registry passes `key_for(base_url, settings)`); without one, only
        OPENAI_API_KEY, and only when `base_url` is OPENAI_BASE_URL or OpenAI's own.
        `url_in_spec`: listed specs carry `@base_url` (the backend was made for a spec naming it).
        `json_format`: "auto" (default) or one of JSON_FORMS to always use that form.
        `guard`: for a URL a page named that the presenter did not configure (reach.py): every connection
        goes through it, and errors carry the HTTP status, not the server's text."""
        self.url_in_spec = url_in_spec
        self.guard = guard
        self.base_url = (
            server_url(base_url or os.environ.get("OPENAI_BASE_URL"), "The OpenAI-compatible base URL")
            or DEFAULT_BASE_URL
        ).rstrip("/")
        key = api_key or key_for(self.base_url)  # the environment's key only for the environment's URL
        self.configured = bool(key) or self.base_url != DEFAULT_BASE_URL
        self.api_key = key or ("sk-no-key" if self.base_url != DEFAULT_BASE_URL else "")
        self.max_parallel = max(1, int(max_parallel))
        self.timeout_s = timeout_s
        self.health_timeout_s = health_timeout_s  # model lists and checks, not generations
        self.retries = retries
        self.is_openai = urlparse(self.base_url).hostname == "api.openai.com"
        # the SDK sends these from the environment to any host: only the environment's own URL gets them
        env_url = os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.organization = scoped(self.base_url, env_url, os.environ.get("OPENAI_ORG_ID"))
        self.project = scoped(self.base_url, env_url, os.environ.get("OPENAI_PROJECT_ID"))
        fmt = (json_format or os.environ.get("OPENAI_JSON_FORMAT") or "auto").strip().lower()
        if fmt != "auto" and fmt not in JSON_FORMS:
            raise InvalidInput(
                f"Unknown JSON format {fmt!r} for the openai backend.",
                f"Use auto or one of {', '.join(JSON_FORMS)} (settings openai.json_format).",
            )
        self.json_format = fmt
        # forms still to try: OpenAI itself speaks json_schema; other servers fall back on refusal
        self._json_forms = list(JSON_FORMS[:1] if self.is_openai else JSON_FORMS) if fmt == "auto" else [fmt]
        self._client: Any = None
        self._known: set[str] = set()
        self._windows: dict[str, int | None] = {}
        self._listed = False
        self._stream_usage = True  # cleared if the server rejects stream_options
        self._lock = threading.Lock()

    @property
    def client(self) -> Any:
        if self._client is None:
            if not self.api_key:
                raise AuthError(
                    "No API key for openai: models at api.openai.com.",
                    "Set OPENAI_API_KEY (or settings openai.api_key), or point OPENAI_BASE_URL "
                    "at a local OpenAI-compatible server.",
                )
            import openai

            secrets = {
                k: v for k, v in (("OpenAI-Organization", self.organization), ("OpenAI-Project", self.project)) if v
            }
            lib = _http_library()
            transport = bounded_transport(
                self.base_url,
                strip=("openai-organization", "openai-project"),
                headers=secrets,
                http=lib,
                url=self.base_url,
                guard=self.guard,
            )
            make = getattr(openai, "DefaultHttpxClient", None) if lib.__name__ != "httpx" else None
            http = (make or lib.Client)(transport=transport, timeout=self.timeout_s, follow_redirects=True)
            self._client = openai.OpenAI(
                base_url=self.base_url,
                api_key=self.api_key,
                max_retries=0,
                timeout=self.timeout_s,
                http_client=http,
                organization=self.organization,
                project=self.project,
            )
        return self._client

    # -- error translation ---------------------------------------------------------------------
    def translate(self, e: Exception, model: str = "") -> DebateError:
        import openai

        where = self.base_url
        if isinstance(e, DebateError):
            return e
        if isinstance(e.__cause__, DebateError):  # the transport's own bound, wrapped by the SDK
            return e.__cause__
        if isinstance(e, openai.APITimeoutError):
            return BackendTimeout(
                f"{where} did not answer within {self.timeout_s:.0f} s.",
                "Try again, use a smaller model or max_tokens, or raise the timeout.",
            )
        if isinstance(e, openai.APIConnectionError):
            return BackendUnavailable(f"Cannot reach the OpenAI-compatible server at {where}.", START_HINT)
        if isinstance(e, (openai.AuthenticationError, openai.PermissionDeniedError)):
            return AuthError(
                f"{where} rejected the API key (HTTP {e.status_code}).",
                "Check OPENAI_API_KEY (or settings openai.api_key) for this server.",
            )
        if isinstance(e, openai.NotFoundError):
            return ModelNotFound(f"{where} has no model {model!r} (HTTP 404).", self._available_hint())
        if isinstance(e, openai.RateLimitError):
            return RateLimited(
                f"{where} is rate-limiting requests (HTTP 429).",
                "Wait a little, lower max_parallel, or check your plan's limits.",
            )
        if isinstance(e, openai.APIStatusError):
            body = _detail(e) if self.guard is None else WITHHELD
            if _context_error(body):
                return ContextTooLong(
                    f"The prompt is too long for {model} at {where}: {body}",
                    "Shorten the messages or use a model/server with a larger context.",
                )
            if e.status_code >= 500:
                return ServerError(
                    f"{where} failed with HTTP {e.status_code}: {body}",
                    "The server had an internal error; check its log, or try again later.",
                )
            return InvalidInput(
                f"{where} refused the request (HTTP {e.status_code}): {body}",
                "Check the options (JSON schema, stop, max_tokens) this server supports.",
            )
        return DebateError(f"Request to {where} failed: {e}.", "See the message above.")

    def _available_hint(self) -> str:
        try:
            names = self.model_names()
        except DebateError:
            return "List the server's models with `python -m debate models`."
        shown = ", ".join(names[:15]) + (" …" if len(names) > 15 else "")
        return f"Models at this server: {shown or '(none)'}."

    # -- models ---------------------------------------------------------------------------------
    def model_names(self) -> list[str]:
        """The server's models, asked with the short health timeout: a server that accepts the
        connection and never answers must not hold a page (or a run's check) for the generation timeout."""
        import openai

        try:
            models = list(self.client.with_options(timeout=self.health_timeout_s).models.list())
            with self._lock:
                self._windows.update((m.id, _window_of(m)) for m in models)
                # a listed name needs no second check: llama-cpp-python's server answers /models only
                # between generations, so a check during a council's answers would wait for them
                self._known.update(m.id for m in models)
            return sorted(m.id for m in models)
        except openai.APITimeoutError as e:
            raise BackendTimeout(
                f"{self.base_url} did not answer a model list within {self.health_timeout_s:g} s.",
                "Check that the server is running and not stuck (settings openai.health_timeout_s raises this limit).",
            ) from e
        except Exception as e:
            raise self.translate(e) from e

    def list_models(self) -> list[ModelInfo]:
        if not self.configured:
            return [
                ModelInfo(
                    spec="openai:",
                    backend="openai",
                    name="",
                    status="unreachable",
                    detail="not configured: set OPENAI_API_KEY or OPENAI_BASE_URL",
                )
            ]
        suffix = f"@{self.base_url}" if self.url_in_spec else ""
        try:
            names = self.model_names()
        except DebateError as e:
            return [
                ModelInfo(
                    spec=f"openai:{suffix}",
                    backend="openai",
                    name="",
                    status="unreachable",
                    detail=str(e),
                    extra={"base_url": self.base_url},
                )
            ]
        return [
            ModelInfo(
                spec=f"openai:{n}{suffix}",
                backend="openai",
                name=n,
                status="ready",
                detail=self.base_url,
                extra={"base_url": self.base_url},
            )
            for n in names
        ]

    def endpoint(self) -> str | None:
        return self.base_url

    def context_window(self, model: str) -> int | None:
        """The context window the server reports for `model` in its /models list (vLLM `max_model_len`,
        OpenRouter and LM Studio `context_length`), or None: then the engine
        sends the whole prompt and the server's own error says if it is too long."""
        if model not in self._windows and not self._listed:
            self._listed = True  # asked once: a server without /models is not asked again
            try:
                self.model_names()
            except DebateError:
                pass
        return self._windows.get(model)

    def _check_model(self, model: str) -> None:
        """Refuse an unknown name once, up front (llama.cpp would silently serve its own model)."""
        if model in self._known or self.is_openai:
            return
        try:
            names = self.model_names()
        except (ModelNotFound, InvalidInput):
            return  # this server has no /models: let the request decide
        if names and model not in names:
            raise ModelNotFound(
                f"{self.base_url} has no model {model!r}.", f"Models at this server: {', '.join(names[:15])}."
            )
        with self._lock:
            self._known.add(model)

    # -- the call -------------------------------------------------------------------------------
    def _request(self, model: str, messages: list[Message], options: GenOptions) -> dict[str, Any]:
        kw: dict[str, Any] = dict(
            model=model, messages=messages, stream=True, temperature=options.temperature, max_tokens=server_cap(options)
        )
        if options.seed is not None:
            kw["seed"] = options.seed
        if options.stop:
            kw["stop"] = list(options.stop)
        if options.labels:
            kw.update(logprobs=True, top_logprobs=TOP_K)
        form = self._json_forms[0]
        if options.json_schema and form != "none":
            kw["response_format"] = {
                "json_schema": {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": options.json_schema, "strict": False},
                },
                "llama.cpp": {"type": "json_object", "schema": options.json_schema},
                "json_object": {"type": "json_object"},
            }[form]
        if self._stream_usage:
            kw["stream_options"] = {"include_usage": True}
        return kw

    def _open(self, model: str, messages: list[Message], options: GenOptions) -> Any:
        self._check_model(model)
        kw = self._request(model, messages, options)
        try:
            return self.client.chat.completions.create(**kw)
        except Exception as e:
            err = self.translate(e, model)
            if isinstance(err, InvalidInput) and "stream_options" in err.message and self._stream_usage:
                self._stream_usage = False  # older servers: count tokens ourselves
                return self._open(model, messages, options)
            if "response_format" in kw and isinstance(err, (InvalidInput, ServerError)) and len(self._json_forms) > 1:
                return self._next_json_form(model, messages, options, err)
            raise err from e

    def _next_json_form(self, model: str, messages: list[Message], options: GenOptions, err: DebateError) -> Any:
        """The server refused this way of asking for JSON: try the next forms; keep the first that works.
        If none does, the refusal was about something else: report the first error, change nothing."""
        forms = self._json_forms
        for i in range(1, len(forms)):
            self._json_forms = forms[i:]
            try:
                return self.client.chat.completions.create(**self._request(model, messages, options))
            except Exception:  # noqa: BLE001 - the original error is the one to report
                continue
        self._json_forms = forms
        raise err

    def stream(self, model: str, messages: list[Message], options: GenOptions) -> Iterator[Chunk]:
        check_request(messages, options)
        return capped(self._read(model, messages, options), options, deadline_s=self.timeout_s, where=self.base_url)

    def _recover(self, model: str, messages: list[Message], options: GenOptions) -> Any:
        """The stream ended before any token or finish reason: llama.cpp's server does this when the
        request fails after HTTP 200 (e.g. prompt longer than its context). Asking once more without
        streaming returns the real error, or the answer (nothing was yielded yet, so no duplicate)."""
        kw = self._request(model, messages, options)
        kw.pop("stream_options", None)
        kw["stream"] = False
        import openai

        for attempt in range(2):  # the broken stream may leave a pooled connection the server resets
            try:
                return self.client.chat.completions.create(**kw)
            except openai.APIConnectionError as e:
                if attempt or isinstance(e, openai.APITimeoutError):
                    raise self.translate(e, model) from e
            except Exception as e:
                raise self.translate(e, model) from e
        raise AssertionError("unreachable")

    def _read(self, model: str, messages: list[Message], options: GenOptions) -> Iterator[Chunk]:
        # lazy: the request starts when the caller iterates, i.e. inside the client's concurrency slot
        response = call_with_retries(lambda: self._open(model, messages, options), attempts=self.retries)
        positions: list[dict[str, float]] = []
        chosen: list[str] = []  # the token written at each position (where the label is read)
        usage = None
        finish, model_id, pieces = None, "", 0
        try:
            for chunk in response:
                model_id = getattr(chunk, "model", "") or model_id
                if getattr(chunk, "usage", None):
                    usage = chunk.usage
                for choice in chunk.choices or []:
                    text = choice.delta.content if choice.delta else None
                    if text:
                        pieces += 1
                        yield Delta(text)
                    lp = getattr(choice, "logprobs", None)
                    for tok in (getattr(lp, "content", None) or []) if lp else []:
                        chosen.append(str(tok.token))
                        positions.append(
                            {t.token: t.logprob for t in (tok.top_logprobs or [])} or {tok.token: tok.logprob}
                        )
                    if choice.finish_reason:
                        finish = choice.finish_reason
        except Exception as e:
            raise self.translate(e, model) from e
        finally:
            close = getattr(response, "close", None)
            if close:
                close()
        if finish is None and pieces == 0:
            done = self._recover(model, messages, options)
            choice = done.choices[0]
            if choice.message.content:
                pieces = 1
                yield Delta(choice.message.content)
            lp = getattr(choice, "logprobs", None)
            for tok in (getattr(lp, "content", None) or []) if lp else []:
                chosen.append(str(tok.token))
                positions.append({t.token: t.logprob for t in (tok.top_logprobs or [])} or {tok.token: tok.logprob})
            usage, finish, model_id = done.usage, choice.finish_reason, done.model or model_id
        probs, at = (
            label_probs_at_key(
                chosen,
                positions,
                options.labels,
                options.label_key,
                options.label_first,
                float(options.temperature) == 0.0,
                options.label_spellings,
            )
            if options.labels
            else (None, "")
        )
        yield Final(
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or pieces,
            finish_reason=finish or "incomplete",
            label_probs=probs,
            model_id=model_id,
            label_at=at,
        )


def _make(spec: ModelSpec, s: dict[str, Any], guard: Any) -> Backend:
    url = (
        settings_url(spec, s, "base_url", "openai.base_url", "OPENAI_BASE_URL", "The OpenAI-compatible base URL")
        or DEFAULT_BASE_URL
    )
    return OpenAIBackend(
        url,
        key_for(url, s),  # a key only for the URL it was saved for
        max_parallel=int(s.get("max_parallel", 4)),
        timeout_s=float(s.get("timeout_s", 120)),
        retries=s.get("retries"),
        url_in_spec=bool(spec.base_url),
        json_format=s.get("json_format"),
        health_timeout_s=float(s.get("health_timeout_s", HEALTH_TIMEOUT_S)),
        guard=guard,
    )


INFO = BackendInfo(
    "openai",
    "OpenAI-compatible",
    _make,
    "vLLM, llama.cpp, LM Studio",
    server=True,
    url_example="http://gpu-box:8000/v1",
)
