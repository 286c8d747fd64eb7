"""Spread one model over several inference servers: a Backend that dispatches to a list of endpoints.

A lineup member may name several endpoints serving the same model, either as a list or as one string
joined with `|`:

    {"model": ["ollama:qwen3:8b@http://10.0.0.5:11434", "ollama:qwen3:8b@http://10.0.0.6:11434",
               "openai:Qwen/Qwen3-8B@http://10.0.0.7:8000/v1"]}
    {"model": "ollama:qwen3:8b@http://gpu1:11434|ollama:qwen3:8b@http://gpu2:11434"}

`expand_lineup` replaces each such member by one synthetic spec (`backend:model@http://fleet.invalid/...`)
and registers a `FleetBackend` for it in the ModelClient, so protocols, the cache and the per-model
semaphore see one model. The fleet sends each request to the least-busy endpoint (ties broken
round-robin) or strictly round-robin, bounds each endpoint by its own `max_parallel`, and fails over
to another endpoint when one is unreachable before it produced any text.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import threading
from typing import Any, Iterator

from debate.errors import BackendTimeout, BackendUnavailable, InvalidInput, ServerError
from debate.models.base import Chunk, Delta, GenOptions, Message, ModelInfo
from debate.models.spec import ModelSpec

FLEET_HOST = "http://fleet.invalid"
POLICIES = ("least-busy", "round-robin")
_FAILOVER = (BackendUnavailable, BackendTimeout, ServerError)


class FleetBackend:
    """A Backend over several endpoint specs of one model."""

    name = "fleet"

    def __init__(self, client: Any, endpoints: list[str], policy: str = "least-busy") -> None:
        if policy not in POLICIES:
            raise InvalidInput(f"Unknown fleet policy {policy!r}.", f"Use one of: {', '.join(POLICIES)}.")
        if len(endpoints) < 1:
            raise InvalidInput("A fleet needs at least one endpoint.", "List one or more model specs.")
        self.specs = [ModelSpec.parse(e) for e in endpoints]
        self.policy = policy
        self._backends = [client.backend_for(s) for s in self.specs]
        self.supports_logprobs = all(getattr(b, "supports_logprobs", False) for b in self._backends)
        self.supports_json_schema = all(getattr(b, "supports_json_schema", False) for b in self._backends)
        caps = [max(1, int(getattr(b, "max_parallel", 1))) for b in self._backends]
        self.max_parallel = sum(caps)
        self._caps = caps
        self._sems = [threading.BoundedSemaphore(c) for c in caps]
        self._busy = [0] * len(self.specs)
        self.served = [0] * len(self.specs)  # requests sent to each endpoint (for reports and tests)
        self._rr = itertools.count()
        self._lock = threading.Lock()

    def list_models(self) -> list[ModelInfo]:
        out: list[ModelInfo] = []
        for b in self._backends:
            out.extend(b.list_models())
        return out

    def _order(self) -> list[int]:
        """Endpoints to try, best first; reserves the first one (busy += 1)."""
        with self._lock:
            start = next(self._rr) % len(self.specs)
            rr = [(start + k) % len(self.specs) for k in range(len(self.specs))]
            if self.policy == "least-busy":
                rr.sort(key=lambda i: self._busy[i] / self._caps[i])  # stable: ties keep round-robin order
            self._busy[rr[0]] += 1
            return rr

    def stream(self, model: str, messages: list[Message], options: GenOptions) -> Iterator[Chunk]:
        order = self._order()
        last_error: Exception | None = None
        for n, i in enumerate(order):
            if n > 0:
                with self._lock:
                    self._busy[i] += 1
            produced = False
            try:
                with self._sems[i]:
                    with self._lock:
                        self.served[i] += 1
                    for chunk in self._backends[i].stream(self.specs[i].model, messages, options):
                        if isinstance(chunk, Delta) and chunk.text:
                            produced = True
                        yield chunk
                return
            except _FAILOVER as e:
                if produced:
                    raise  # text already streamed: a retry would duplicate it
                last_error = e
            finally:
                with self._lock:
                    self._busy[i] -= 1
        assert last_error is not None
        raise last_error


def fleet_spec(endpoints: list[str]) -> str:
    """A stable synthetic spec for a fleet: same model on every endpoint -> same cache key."""
    specs = [ModelSpec.parse(e) for e in endpoints]
    backend = specs[0].backend
    models = {s.model for s in specs}
    if len(models) == 1 and len({s.backend for s in specs}) == 1:
        model = specs[0].model
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{backend}-{model}")
    else:
        model = specs[0].model
        slug = hashlib.sha256("|".join(sorted(endpoints)).encode()).hexdigest()[:12]
    return f"{backend}:{model}@{FLEET_HOST}/{slug}"


def _as_endpoints(value: Any) -> list[str] | None:
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value]
    if isinstance(value, str) and "|" in value:
        parts = [p.strip() for p in value.split("|") if p.strip()]
        try:
            for p in parts:
                ModelSpec.parse(p)
        except InvalidInput:
            return None
        return parts if len(parts) > 1 else None
    return None


def expand_lineup(lineup: Any, client: Any, policy: str = "least-busy") -> tuple[Any, dict[str, list[str]]]:
    """Replace multi-endpoint model entries by fleet specs registered in `client`.

    Returns the rewritten lineup and {fleet spec: endpoints}. Lineups without fleets come back unchanged.
    """
    fleets: dict[str, list[str]] = {}

    def walk(node: Any, key: str = "") -> Any:
        if isinstance(node, dict):
            return {k: walk(v, k) for k, v in node.items()}
        if key in ("model", "spec"):
            eps = _as_endpoints(node)
            if eps:
                spec = fleet_spec(eps)
                if spec not in fleets:
                    fleets[spec] = eps
                    ms = ModelSpec.parse(spec)
                    client.register(f"{ms.backend}@{ms.base_url}", FleetBackend(client, eps, policy))
                return spec
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(lineup), fleets
