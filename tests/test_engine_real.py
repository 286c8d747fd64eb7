"""One short debate per protocol on the real embedded models (llama.cpp): each ends with a parsed verdict.

Kept small on purpose (2 members, 1 round, 24-40 tokens per answer): the point is that the whole path,
real prompts through real models to a parsed label, works; quality is measured by batch evaluation.
"""

import pytest

from debate.runner import DebateConfig, run_debate
from tests.support.engine import FakeRetriever, by_type

llama_cpp = pytest.importorskip("llama_cpp")

LINEUP = {
    "name": "embedded-small",
    "members": [{"name": "qwen", "model": "local:qwen2.5-0.5b", "temperature": 0.0, "seed": 1},
                {"name": "smol", "model": "local:smollm2-135m", "temperature": 0.7, "seed": 2}],
    "judge": {"name": "judge", "model": "local:qwen2.5-0.5b", "temperature": 0.0, "seed": 0},
    "chair": {"name": "chair", "model": "local:qwen2.5-0.5b", "temperature": 0.0, "seed": 0},
    "roles": {"stop": {"name": "stop", "model": "local:qwen2.5-0.5b", "temperature": 0.0, "seed": 0}},
}
TWEET = "New study published in Nature finds coffee lowers heart disease risk https://www.nature.com/articles/s41586"
CLAIM = "The city cut its budget deficit by 15% last year."
SHORT = {"examples": False, "max_context_chars": 1200}


@pytest.fixture(scope="module")
def client():
    from debate.models.registry import default_client
    c = default_client(cache=True)
    bad = [m for m in ("local:qwen2.5-0.5b", "local:smollm2-135m")
           if not any(i.spec == m and i.status == "ready" for i in c.backend_for(__import__(
               "debate.models.spec", fromlist=["ModelSpec"]).ModelSpec.parse(m)).list_models())]
    if bad:
        pytest.skip(f"embedded models not prepared: {bad} (run `make test`, which prepares them)")
    return c


CASES = [
    ("baseline", "checkthat", 2, {"examples": False}, 40),
    ("council", "checkthat", 2, {**SHORT, "rounds": 1}, 40),
    ("single", "checkthat", 1, {**SHORT, "rounds": 1}, 24),
    ("team", "checkthat", 2, {**SHORT, "rounds": 0, "team_size": 1}, 24),
    ("radar", "halftruth", None, {"rounds": 1, "max_context_chars": 1200}, 24),
    ("radar-single", "halftruth", None, {}, 24),
]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("protocol,task,category,params,max_tokens", CASES, ids=[c[0] for c in CASES])
def test_short_real_debate_ends_with_a_parsed_verdict(client, protocol, task, category, params, max_tokens):
    cfg = DebateConfig(claim=TWEET if task == "checkthat" else CLAIM, protocol=protocol, task=task,
                       category=category, lineup=LINEUP, params=params, max_tokens=max_tokens, top_k=2)
    events = list(run_debate(cfg, client, retriever=FakeRetriever(2)))
    fin = events[-1]
    errors = [e.message for e in by_type(events, "error")]
    assert fin.type == "finished" and fin.status == "completed", errors
    verdict = by_type(events, "verdict")[-1]
    assert verdict.label in (("YES", "NO") if task == "checkthat" else ("TRUE", "FALSE", "HALF-TRUE"))
    done = by_type(events, "turn_finished")
    assert done and all(t.completion_tokens > 0 for t in done)
    assert fin.model_calls >= len(done) and fin.completion_tokens > 0
    assert any(t.model == "local:qwen2.5-0.5b" for t in done)
