"""`ollama:` backend through the `ollama` client: streamed /api/chat, usage from the server's counters,
JSON schema via `format`, label probabilities from `logprobs` where the server returns them.

Model names carry tags (`qwen3:8b`); a bare name means `:latest`, as in Ollama itself. Errors are
translated to DebateErrors that say how to start the server or which models are installed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from debate.errors import (
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
from debate.models.transport import WITHHELD, bounded_transport, saved_secret
from debate.sanitize import strip_terminal

DEFAULT_HOST = "http://127.0.0.1:11434"
# The context window asked for with every request (num_ctx), unless settings ollama.num_ctx says otherwise,
# and never more than the model's own length (/api/show). Without it Ollama uses its small server default
# and cuts longer prompts by itself, silently; with it the engine knows the window and shortens the
# transcript only past it, with an event. 8192 tokens hold the papers' longest judge and council prompts.
DEFAULT_NUM_CTX = 8192


def host_url(host: str | None) -> str:
    """A host as the client needs it: OLLAMA_HOST is often written as 127.0.0.1:11434."""
    host = (host or DEFAULT_HOST).strip()
    return (host if host.startswith(("http://", "https://")) else "http://" + host).rstrip("/")


def key_for(host: str, settings: dict[str, Any] | None = None, env: Mapping[str, str] | None = None) -> str | None:
    """The Ollama API key that may be sent to `host`, or None: one saved for that host (settings
    `ollama.keys`), else `ollama.api_key` when `host` is the saved host, else OLLAMA_API_KEY when `host`
    is OLLAMA_HOST (or the default host when that is unset). The ollama client itself would send
    OLLAMA_API_KEY to whatever host a lineup names."""
    s = settings or {}
    env = os.environ if env is None else env
    env_host = host_url(env.get("OLLAMA_HOST"))
    return saved_secret(
        host_url(host),
        s.get("keys"),
        s.get("api_key"),
        host_url(s.get("host") or env_host),
        env.get("OLLAMA_API_KEY"),
        env_host,
    )


class OllamaBackend(Backend):
    name = "ollama"
    supports_logprobs = True  # when the server is recent enough; otherwise label_probs is None
    supports_json_schema = True

    def __init__(
        self,
        host: str | None = None,
        *,
        max_parallel: int = 2,
        timeout_s: float = 300.0,
        retries: int | None = None,
        url_in_spec: bool = False,
        health_timeout_s: float = HEALTH_TIMEOUT_S,
        api_key: str | None = None,
        num_ctx: int = DEFAULT_NUM_CTX,
        guard: Any = None,
    ) -> None:
        """`api_key`: sent as given (the registry passes `key_for(host, settings)`); without one, only
        OLLAMA_API_KEY, and only when `host` is OLLAMA_HOST. `num_ctx`: the context window asked for
        (0 = the model's own length). `guard`: as for OpenAIBackend (reach.py)."""
        self.url_in_spec = url_in_spec
        self.guard = guard  # listed specs carry `@host` (made for a spec naming it)
        self.host = host_url(server_url(host or os.environ.get("OLLAMA_HOST"), "The Ollama host"))
        self.api_key = api_key or key_for(self.host, {})
        self.num_ctx = max(0, int(num_ctx or 0))
        self._windows: dict[str, int | None] = {}
        self.max_parallel = max(1, int(max_parallel))
        self.timeout_s = timeout_s
        self.health_timeout_s = health_timeout_s  # model lists and checks, not generations
        self.retries = retries
        self._client: Any = None
        self._health_client: Any = None
        self._logprobs_ok = True

    @property
    def client(self) -> Any:
        if self._client is None:
            from ollama import Client

            self._client = Client(host=self.host, timeout=self.timeout_s, transport=self._transport())
        return self._client

    def _transport(self) -> Any:
        """Whole-response time and size bounds; Authorization only with this host's own key."""
        auth = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return bounded_transport(
            f"Ollama at {self.host}", strip=("authorization",), headers=auth, url=self.host, guard=self.guard
        )

    @property
    def health_client(self) -> Any:
        """A client with the short timeout, for listing: a hung server answers nothing for minutes."""
        if self._health_client is None:
            from ollama import Client

            self._health_client = Client(host=self.host, timeout=self.health_timeout_s, transport=self._transport())
        return self._health_client

    def _list(self) -> Any:
        import httpx

        try:
            return self.health_client.list().models
        except httpx.TimeoutException as e:
            raise BackendTimeout(
                f"Ollama at {self.host} did not answer a model list within {self.health_timeout_s:g} s.",
                "Check that `ollama serve` is running and not stuck (settings "
                "ollama.health_timeout_s raises this limit).",
            ) from e

    def translate(self, e: Exception, model: str = "") -> DebateError:
        import httpx
        import ollama

        if isinstance(e, DebateError):
            return e
        if isinstance(e, (httpx.TimeoutException,)):
            return BackendTimeout(
                f"Ollama at {self.host} did not answer within {self.timeout_s:.0f} s.",
                "Try again, or use a smaller model or fewer max_tokens.",
            )
        if isinstance(e, (ConnectionError, httpx.ConnectError, httpx.RemoteProtocolError)):
            return BackendUnavailable(
                f"Cannot reach Ollama at {self.host}.",
                "Start it with `ollama serve` (or set OLLAMA_HOST / settings ollama.host to where it runs).",
            )
        if isinstance(e, ollama.ResponseError):
            msg = strip_terminal(str(e.error))[:300]  # the server's text is shown in terminals and pages
            shown = msg if self.guard is None else WITHHELD  # ... unless a page named an unconfigured URL
            if e.status_code == 404 or "not found" in msg.lower():
                return ModelNotFound(
                    f"Ollama at {self.host} has no model {model!r}.",
                    f"Pull it with `ollama pull {model}`; {self._installed_hint()}",
                )
            if e.status_code == 429:
                return RateLimited(f"Ollama at {self.host} is busy (HTTP 429): {shown}", "Wait and try again.")
            if "context" in msg.lower() and ("exceed" in msg.lower() or "length" in msg.lower()):
                return ContextTooLong(
                    f"The prompt is too long for {model}: {shown.rstrip('.')}.",
                    "Shorten the messages or raise the model's num_ctx.",
                )
            if e.status_code >= 500:
                return ServerError(
                    f"Ollama at {self.host} failed (HTTP {e.status_code}): {shown}",
                    "Check the Ollama server log, or try again.",
                )
            return InvalidInput(
                f"Ollama refused the request (HTTP {e.status_code}): {shown}", "Check the options and the model name."
            )
        return DebateError(f"Request to Ollama at {self.host} failed: {e}.", "See the message above.")

    def _installed_hint(self) -> str:
        try:
            names = self.model_names()
        except DebateError:
            return "could not list installed models."
        return f"installed: {', '.join(names) or '(none)'}."

    def model_names(self) -> list[str]:
        try:
            return sorted(m.model for m in self._list())
        except Exception as e:
            raise self.translate(e) from e

    def list_models(self) -> list[ModelInfo]:
        suffix = f"@{self.host}" if self.url_in_spec else ""
        try:
            models = self._list()
        except Exception as e:  # noqa: BLE001 - reported as a row, never raised
            err = self.translate(e)
            return [
                ModelInfo(
                    spec=f"ollama:{suffix}",
                    backend="ollama",
                    name="",
                    status="unreachable",
                    detail=str(err),
                    extra={"host": self.host},
                )
            ]
        return [
            ModelInfo(
                spec=f"ollama:{m.model}{suffix}",
                backend="ollama",
                name=m.model,
                status="ready",
                detail=self.host,
                size_bytes=m.size,
                extra={"host": self.host},
            )
            for m in models
        ]

    def endpoint(self) -> str | None:
        return self.host

    def context_window(self, model: str) -> int | None:
        """The window every request for `model` asks for (num_ctx): the setting, at most the model's own
        length as /api/show reports it (asked once per model, with the short health timeout)."""
        if model not in self._windows:
            own = None
            try:
                info = self.health_client.show(model)
                meta = getattr(info, "modelinfo", None) or getattr(info, "model_info", None) or {}
                own = next(
                    (int(v) for k, v in dict(meta).items() if str(k).endswith(".context_length") and str(v).isdigit()),
                    None,
                )
            except Exception:  # noqa: BLE001 - a server without /api/show: the setting alone
                own = None
            self._windows[model] = min(self.num_ctx, own) if self.num_ctx and own else (self.num_ctx or own)
        return self._windows[model]

    def _open(self, model: str, messages: list[Message], options: GenOptions) -> tuple[Any, Iterator[Any]]:
        opts: dict[str, Any] = {"temperature": options.temperature, "num_predict": server_cap(options)}
        if self.context_window(model):
            opts["num_ctx"] = self.context_window(model)
        if options.seed is not None:
            opts["seed"] = options.seed
        if options.stop:
            opts["stop"] = list(options.stop)
        kw: dict[str, Any] = dict(model=model, messages=messages, stream=True, options=opts)
        if options.json_schema:
            kw["format"] = options.json_schema
        if options.labels and self._logprobs_ok:
            kw.update(logprobs=True, top_logprobs=TOP_K)
        try:
            it = self.client.chat(**kw)
            first = next(it, None)  # the HTTP status arrives with the first line: fail here, retryably
        except Exception as e:
            err = self.translate(e, model)
            if isinstance(err, InvalidInput) and "logprobs" in err.message and self._logprobs_ok:
                self._logprobs_ok = False  # an older server: go on without label probabilities
                return self._open(model, messages, options)
            raise err from e
        return first, it

    def stream(self, model: str, messages: list[Message], options: GenOptions) -> Iterator[Chunk]:
        check_request(messages, options)
        return capped(
            self._read(model, messages, options), options, deadline_s=self.timeout_s, where=f"Ollama at {self.host}"
        )

    def _read(self, model: str, messages: list[Message], options: GenOptions) -> Iterator[Chunk]:
        # lazy: the request starts when the caller iterates, i.e. inside the client's concurrency slot
        first, it = call_with_retries(lambda: self._open(model, messages, options), attempts=self.retries)
        positions: list[dict[str, float]] = []
        chosen: list[str] = []  # the token written at each position (where the label is read)
        last = None
        pieces = 0

        def chunks() -> Iterator[Any]:
            if first is not None:
                yield first
            yield from it

        try:
            for part in chunks():
                last = part
                text = part.message.content if part.message else ""
                if text:
                    pieces += 1
                    yield Delta(text)
                for lp in part.logprobs or []:
                    top = {t.token: t.logprob for t in (lp.top_logprobs or [])}
                    chosen.append(str(lp.token))
                    positions.append(top or {lp.token: lp.logprob})
        except Exception as e:
            raise self.translate(e, model) from e
        reason = (getattr(last, "done_reason", None) or "stop") if last else "stop"
        if last is None or not getattr(last, "done", False):
            reason = "incomplete"  # the stream ended without its `done` line: not the whole answer, never cached
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
            if options.labels and positions
            else (None, "")
        )
        yield Final(
            prompt_tokens=getattr(last, "prompt_eval_count", 0) or 0,
            completion_tokens=getattr(last, "eval_count", 0) or pieces,
            finish_reason=reason if reason in ("length", "incomplete") else "stop",
            label_probs=probs,
            model_id=getattr(last, "model", "") or model,
            label_at=at,
        )


def _make(spec: ModelSpec, s: dict[str, Any], guard: Any) -> Backend:
    host = settings_url(spec, s, "host", "ollama.host", "OLLAMA_HOST", "The Ollama host")
    return OllamaBackend(
        host,
        max_parallel=int(s.get("max_parallel", 2)),
        timeout_s=float(s.get("timeout_s", 300)),
        retries=s.get("retries"),
        url_in_spec=bool(spec.base_url),
        health_timeout_s=float(s.get("health_timeout_s", HEALTH_TIMEOUT_S)),
        api_key=key_for(host or "", s),  # a key only for the host it was saved for
        num_ctx=int(s.get("num_ctx", DEFAULT_NUM_CTX)),
        guard=guard,
    )


INFO = BackendInfo("ollama", "Ollama", _make, "an Ollama server", server=True, url_example="http://gpu-box:11434")
