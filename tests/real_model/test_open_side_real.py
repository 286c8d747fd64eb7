"""The embedded models go on from the words the engine began a debater's argument with (open_side): both
packaged chat formats continue the answer rather than start it again."""

from __future__ import annotations

import pytest

from debate import prompts
from tests.engine.test_content_open_side import CLAIM
from tests.support.engine import by_type, radar_lineup


@pytest.mark.real_model
@pytest.mark.timeout(600)
def test_the_embedded_models_go_on_from_the_side_the_engine_began():
    """RADAR with open_side on the packaged models (Qwen2.5-Coder-0.5B politician and judge, SmolLM2-135M
    scientist: both chat formats), no rebuttal round, 16 tokens: every debater turn is its side's opening and
    then the model's own words, which continue it rather than start the answer again; the judge's is its own."""
    pytest.importorskip("llama_cpp")
    from debate.runner import DebateConfig, run_debate
    from tests.support.real_cases import prepared_client

    qwen, smol = "local:qwen2.5-coder-0.5b", "local:smollm2-135m"
    client = prepared_client((qwen, smol), cache=False)
    lu = radar_lineup(qwen, smol, qwen)
    params = {"rounds": 0, "early_stop": False, "state_side": True, "open_side": True}
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="radar",
        task="halftruth",
        category=None,
        lineup=lu,
        params=params,
        max_tokens=16,
        evidence=False,
    )
    events = list(run_debate(cfg, client))
    assert events[-1].type == "finished" and events[-1].status == "completed", [e for e in events if e.type == "error"]
    debaters = [t for t in by_type(events, "turn_finished") if t.role in ("politician", "scientist")]
    assert {(t.role, t.phase) for t in debaters} == {
        (r, p) for r in ("politician", "scientist") for p in ("opening", "closing")
    }
    for t in debaters:
        side = "for" if t.role == "politician" else "against"
        assert t.begun == prompts.render(f"engine.begin_{side}_{t.phase}") and t.text.startswith(t.begun), t.text
        own = t.text[len(t.begun) :]
        assert len(own.split()) >= 3, t.text  # the model wrote on
        assert t.begun.lower() not in own.lower(), t.text  # and did not begin its answer again
    (judge,) = [t for t in by_type(events, "turn_finished") if t.role == "judge"]
    assert judge.begun == "" and by_type(events, "verdict")
