"""The short real-model debates shared by the engine tests and the Debate-page AppTests.

Both run the same configurations on the `embedded` lineup (fixed seeds, so every request is
deterministic), and both in one module (tests/real_model/test_engine_real.py), the engine first: the page
then drives the same debates, and the product's own response cache (the module's process, one DEBATE_HOME)
answers its identical model calls with the real answers recorded moments earlier. The engine runs what the
page runs (`engine_params`: the live-demo pace's parameters under each case's own), or the page's requests
would differ and nothing would be answered from the cache. The browser tests use a separate DEBATE_HOME, so
they stream from the models live.
"""

from __future__ import annotations

AIDS = True  # the app's default (debate/aids/): the engine tests run what the page runs, so its cache answers
CLAIM = "A new study in Nature shows coffee lowers the risk of heart disease https://www.nature.com/articles/x1"
MAX_TOKENS = 24
TOP_K = 3
# `python -m debate run` flags that make a command-line run of a case the run the page makes (the live-demo
# pace, the aids as AIDS says): with them a test that runs a case from the command line sends the same model
# calls as the engine tests, and the session's shared response cache answers whichever of them runs second
# (without them the command line ran the papers' pace without the aids: other prompts, all live)
AS_THE_PAGE_RUNS: tuple[str, ...] = ("--pace", "demo", "--aids" if AIDS else "--no-aids")

# protocol -> task, category and the parameters that keep a real-model run short
CASES: dict[str, dict] = {
    "baseline": {"task": "checkthat", "category": 2, "params": {"examples": False}},
    "council": {"task": "checkthat", "category": 2, "params": {"rounds": 1, "members": 2, "examples": False}},
    "single": {"task": "checkthat", "category": 1, "params": {"rounds": 0}},
    "team": {"task": "checkthat", "category": 2, "params": {"rounds": 0, "team_size": 1, "examples": False}},
    # early_stop on (the demo pace turns it off): the stop agent and the round judge on real models
    "radar": {"task": "halftruth", "category": None, "params": {"rounds": 0, "early_stop": True}},
    "radar-single": {"task": "halftruth", "category": None, "params": {}},
}


def engine_params(protocol: str) -> dict:
    """What the Debate page runs for a case: the live-demo pace's parameters, the case's own over them."""
    from debate.live import pace

    return {**pace.overrides("demo", protocol), **CASES[protocol]["params"]}


def labels_for(task: str) -> tuple[str, ...]:
    return ("YES", "NO") if task == "checkthat" else ("TRUE", "FALSE", "HALF-TRUE")


def prepared_client(models, cache: bool = True):
    """The default client, or a skip naming the embedded models that are not assembled yet: the real-model
    tests need them, and `make test` prepares them before the suite runs."""
    import pytest

    from debate.models.registry import default_client
    from debate.models.spec import ModelSpec

    client = default_client(cache=cache)
    bad = [
        m
        for m in sorted(set(models))
        if not any(i.spec == m and i.status == "ready" for i in client.backend_for(ModelSpec.parse(m)).list_models())
    ]
    if bad:
        pytest.skip(f"embedded models not prepared: {bad} (run `make test`, which prepares them)")
    return client


def council_config(params: dict | None = None, **kw):
    """The shared short council (CASES["council"]) on the embedded lineup, as the Debate page runs it (the
    aids on): `params` added to the case's own, `kw` to the config (a gold label, a debate id, evidence)."""
    from debate.runner import DebateConfig

    case = CASES["council"]
    return DebateConfig(
        claim=CLAIM,
        protocol="council",
        task=case["task"],
        category=case["category"],
        lineup="embedded",
        params={**case["params"], **(params or {})},
        max_tokens=MAX_TOKENS,
        aids=AIDS,
        **kw,
    )
