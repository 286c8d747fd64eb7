"""How long a server that sends one byte at a time can hold a health check and an answer, and the memory
the process grows meanwhile. A loopback server answers HTTP 200 and then one byte every 0.2 s for ever.

    .venv/bin/python -m bench.bench_trickle   (from the repository root)

Prints wall seconds and the error each bound raised, for the OpenAI and the Ollama backends.
"""

from __future__ import annotations

import resource
import time

from debate.errors import DebateError
from debate.models.base import GenOptions
from debate.models.client import ModelClient
from debate.models.ollama_backend import OllamaBackend
from debate.models.openai_backend import OpenAIBackend
from tests.support.hostile_servers import recorder


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    import ollama  # noqa: F401 - imported before timing: the SDKs take seconds to import on a busy machine
    import openai  # noqa: F401

    with recorder("trickle", delay_s=0.2) as srv:
        for kind in ("openai", "ollama"):
            health = (
                OpenAIBackend(srv.url, health_timeout_s=3.0)
                if kind == "openai"
                else OllamaBackend(srv.host, health_timeout_s=3.0)
            )
            t = time.perf_counter()
            row = health.list_models()[0]
            print(
                f"{kind:6} health check (3 s timeout): {time.perf_counter() - t:5.1f} s  -> {row.status}: "
                f"{row.detail[:90]}"
            )
            if kind == "openai":
                gen, spec = OpenAIBackend(srv.url, timeout_s=10.0, retries=1), f"openai:scripted@{srv.url}"
                gen._known.add("scripted")
            else:
                gen, spec = OllamaBackend(srv.host, timeout_s=10.0, retries=1, num_ctx=0), f"ollama:scripted@{srv.host}"
                gen._windows["scripted"] = None
            client = ModelClient({f"{kind}@{srv.url if kind == 'openai' else srv.host}": gen})
            t = time.perf_counter()
            try:
                client.chat(spec, [{"role": "user", "content": "hi"}], GenOptions(max_tokens=16, cache=False)).result()
                outcome = "answered"
            except DebateError as e:
                outcome = e.message[:90]
            print(f"{kind:6} answer (10 s timeout):       {time.perf_counter() - t:5.1f} s  -> {outcome}")
    print(f"peak RSS {_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
