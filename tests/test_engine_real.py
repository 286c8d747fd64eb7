"""One short debate per protocol on the real embedded models (llama.cpp): each ends with a parsed verdict.

Kept small on purpose (1 round or none, 24 tokens per answer, no few-shot examples): the point is that
the whole path, real prompts through real models to a parsed label, works; quality is measured by batch
evaluation. RADAR runs over the real default evidence corpus (AVeriTeC dev, MiniLM + FAISS).
The cases are shared with the Debate-page AppTests (tests/support/real_cases.py).
"""

import pytest

from debate.runner import DebateConfig, run_debate
from tests.support.engine import by_type
from tests.support.real_cases import CASES, CLAIM, MAX_TOKENS, TOP_K, labels_for

llama_cpp = pytest.importorskip("llama_cpp")


@pytest.fixture(scope="module")
def client():
    from debate.models.registry import default_client
    from debate.models.spec import ModelSpec
    c = default_client(cache=True)
    bad = [m for m in ("local:qwen2.5-0.5b", "local:smollm2-135m")
           if not any(i.spec == m and i.status == "ready" for i in c.backend_for(ModelSpec.parse(m)).list_models())]
    if bad:
        pytest.skip(f"embedded models not prepared: {bad} (run `make test`, which prepares them)")
    return c


@pytest.mark.real_model
@pytest.mark.timeout(900)
@pytest.mark.parametrize("protocol", list(CASES))
def test_short_real_debate_ends_with_a_parsed_verdict(client, protocol):
    case = CASES[protocol]
    retriever = None
    if protocol.startswith("radar"):
        from debate.retrieval import default_retriever
        retriever = default_retriever()
    cfg = DebateConfig(claim=CLAIM, protocol=protocol, task=case["task"], category=case["category"],
                       lineup="embedded", params=dict(case["params"]), max_tokens=MAX_TOKENS, top_k=TOP_K)
    events = list(run_debate(cfg, client, retriever=retriever))
    fin = events[-1]
    errors = [e.message for e in by_type(events, "error")]
    assert fin.type == "finished" and fin.status == "completed", errors
    verdict = by_type(events, "verdict")[-1]
    assert verdict.label in labels_for(case["task"])
    done = by_type(events, "turn_finished")
    assert done and all(t.completion_tokens > 0 for t in done)
    assert fin.model_calls >= len(done) and fin.completion_tokens > 0
    assert any(t.model == "local:qwen2.5-0.5b" for t in done)
    if retriever is not None:
        (ev,) = by_type(events, "evidence")
        assert len(ev.passages) == TOP_K and all(p["source"] and p["score"] > 0 for p in ev.passages)
        assert [p["id"] for p in ev.passages] == [f"E{i}" for i in range(1, TOP_K + 1)]
