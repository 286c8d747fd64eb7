"""Several inference servers behind one router: the real LiteLLM proxy on loopback in front of two real
llama.cpp servers, the app given the router's one URL (docs/several-servers.md).

The router runs the committed config (assets/router/two-llama-servers.yaml) as it is: one model name,
`smollm2`, with a deployment on each server, least-busy routing, and a master key the app sends as its
key for that URL. Each llama.cpp server serves SmolLM2-135M (the smallest packaged model) with one thread
and queues concurrent requests (interrupt_requests off). The app is told the servers' JSON form
(OPENAI_JSON_FORMAT=llama.cpp): finding it out by trial sends llama.cpp the OpenAI form first, which it
answers with HTTP 500, and a router takes a 500 for a failing server and leaves it out for a while. On
top of that: the paper's council with one flag (`run --server`), a batch (`eval --concurrency 2`), label
probabilities through the router, and a server going down. Which server answered is read from each
server's own access log."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from debate.models import packaged
from debate.models.base import GenOptions
from debate.models.registry import default_client
from tests.support.paper_server import CLAIM, PAPER, council_ran
from tests.support.servers import REPO, ROUTER_BIN, start_litellm_router, start_llama_server

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(not ROUTER_BIN.exists(), reason="no LiteLLM proxy: run `make test-setup`"),
]

CONFIG = REPO / "assets" / "router" / "two-llama-servers.yaml"
MAP = dict.fromkeys((*PAPER, "llama3.1:8b"), "smollm2")  # every seat onto the router's one model name


class Routed:
    """Two llama.cpp servers and the router in front of them."""

    def __init__(self, tmp: Path) -> None:
        model = packaged.ensure_model("smollm2-135m")
        self.upstreams = [
            start_llama_server(model, "smollm2", tmp, n_ctx=2048, n_threads=1, interrupt_requests=False)
            for _ in range(2)
        ]
        self.key = "sk-test-" + secrets.token_hex(16)
        env = {"LITELLM_MASTER_KEY": self.key, "UPSTREAM_1": self.upstreams[0].url, "UPSTREAM_2": self.upstreams[1].url}
        self.router = start_litellm_router(CONFIG, env, tmp)

    def refused(self) -> int:
        """HTTP 500 answers of the servers (a form of request they do not take)."""
        return sum(s.log.read_text(errors="replace").count('" 500 Internal Server Error') for s in self.upstreams)

    def served(self) -> list[int]:
        """Chat requests each server has answered, from its own access log."""
        return [
            len(re.findall(r'"POST /v1/chat/completions HTTP/1\.1" 200', s.log.read_text(errors="replace")))
            for s in self.upstreams
        ]

    def stop(self) -> None:
        for s in (self.router, *self.upstreams):
            s.stop()


@pytest.fixture(scope="module")
def routed(tmp_path_factory):
    f = Routed(tmp_path_factory.mktemp("router"))
    yield f
    f.stop()


@pytest.fixture()
def key_for_router(routed, monkeypatch):
    """The router's key, for the router's URL only (a key reaches the server it was given for)."""
    monkeypatch.setenv("OPENAI_BASE_URL", routed.router.url)
    monkeypatch.setenv("OPENAI_API_KEY", routed.key)
    monkeypatch.setenv("OPENAI_JSON_FORMAT", "llama.cpp")


def _cli(home: Path, routed: Routed, *args: str) -> subprocess.CompletedProcess:
    # a request waits in a server's queue behind the others sent to it, and the app's clock runs from the
    # moment it was sent: on a busy 2-core machine that is longer than the default 120 s
    (home / "settings.json").write_text(json.dumps({"openai": {"timeout_s": 600}}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "OLLAMA_"))}
    env.update(
        DEBATE_HOME=str(home),
        PYTHONPATH=str(REPO),
        DEBATE_CACHE="0",
        OPENAI_BASE_URL=routed.router.url,
        OPENAI_API_KEY=routed.key,
        OPENAI_JSON_FORMAT="llama.cpp",
    )
    return subprocess.run(
        [sys.executable, "-m", "debate", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.mark.timeout(600)
def test_the_papers_council_runs_through_the_router_with_one_flag(routed, tmp_path):
    """Five members asked at once: the router spreads them over both servers."""
    before = routed.served()
    events = tmp_path / "ev.jsonl"
    r = _cli(
        tmp_path,
        routed,
        "run",
        "--lineup",
        "paper-council",
        "--server",
        f"openai@{routed.router.url}",
        "--model-map",
        ",".join(f"{k}={v}" for k, v in MAP.items()),
        "--rounds",
        "0",
        "--param",
        "examples=false",
        "--max-tokens",
        "24",
        "--color",
        "never",
        "--events",
        str(events),
        CLAIM,
    )
    assert r.returncode == 0, r.stderr[-2000:] + r.stdout[-2000:]
    council_ran([json.loads(line) for line in events.read_text().splitlines()], routed.router.url, "openai", MAP)
    got = [a - b for a, b in zip(routed.served(), before)]
    assert sum(got) >= 6 and min(got) >= 1, got  # five votes and the chair's verdict, on both servers
    assert routed.refused() == 0


@pytest.mark.timeout(600)
def test_eval_with_concurrency_2_through_the_router(routed, tmp_path):
    before = routed.served()
    out = tmp_path / "run"
    r = _cli(
        tmp_path,
        routed,
        "eval",
        "--dataset",
        "checkthat-dev",
        "--protocol",
        "baseline",
        "--lineup",
        "paper-council",
        "--server",
        f"openai@{routed.router.url}",
        "--model-map",
        ",".join(f"{k}={v}" for k, v in MAP.items()),
        "--category",
        "1",
        "--limit",
        "4",
        "--concurrency",
        "2",
        "--max-tokens",
        "16",
        "--no-evidence",
        "--no-progress",
        "--out",
        str(out),
    )
    assert r.returncode == 0, r.stderr[-2000:] + r.stdout[-2000:]
    assert "4/4 done, 0 failed" in r.stdout, r.stdout[-2000:]
    assert (out / "metrics.json").is_file() and (out / "report.html").is_file()
    got = [a - b for a, b in zip(routed.served(), before)]
    assert sum(got) >= 4 and min(got) >= 1, got
    assert routed.refused() == 0


@pytest.mark.timeout(300)
def test_label_probabilities_come_through_the_router(routed, key_for_router):
    ask = [
        {"role": "system", "content": "Answer with one word: YES or NO."},
        {"role": "user", "content": "Is the sun hot?"},
    ]
    res = (
        default_client(cache=False)
        .chat(f"openai:smollm2@{routed.router.url}", ask, GenOptions(max_tokens=4, labels=("YES", "NO")))
        .result()
    )
    assert set(res.label_probs) == {"YES", "NO"}
    assert sum(res.label_probs.values()) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.timeout(300)
def test_a_server_that_goes_down_is_left_out(routed, key_for_router):
    """Last in the module: it stops the second server. Every request still gets its answer, from the first."""
    routed.upstreams[1].stop()
    before = routed.served()
    client = default_client(cache=False)
    for n in range(4):
        res = client.chat(
            f"openai:smollm2@{routed.router.url}",
            [{"role": "user", "content": f"Say hi {n}."}],
            GenOptions(max_tokens=4),
        ).result()
        assert res.text.strip() and res.finish_reason in ("stop", "length")
    assert routed.served()[0] - before[0] == 4
