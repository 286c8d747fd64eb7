"""One short debate per protocol on the real embedded models (llama.cpp): each ends with a parsed verdict,
run by the engine and then from the Debate page (AppTest).

Kept small on purpose (1 round or none, 24 tokens per answer, no few-shot examples): the point is that
the whole path, real prompts through real models to a parsed label, works; quality is measured by batch
evaluation. RADAR runs over the real default evidence corpus (AVeriTeC dev, MiniLM + FAISS). The engine
runs what the page runs (tests/support/real_cases.py), first: in this module's process the page's model
calls are then answered by the response cache with the answers the engine's run recorded, so the page's
own path (widgets, the run in the background, the live view, the store) is what those tests spend time on.
"""

import pytest

from debate.data import locate
from debate.runner import DebateConfig, run_debate
from tests.support.engine import by_type
from tests.support.real_cases import AIDS, CASES, CLAIM, MAX_TOKENS, TOP_K, engine_params, labels_for
from tests.ui.test_ui_app import _app, _html, _run_to_end, _set, _store

llama_cpp = pytest.importorskip("llama_cpp")


@pytest.fixture(scope="module")
def client():
    from tests.support.real_cases import prepared_client

    return prepared_client(("local:qwen2.5-coder-0.5b", "local:smollm2-135m"), cache=True)


@pytest.mark.real_model
@pytest.mark.timeout(900)
@pytest.mark.parametrize("protocol", list(CASES))
def test_short_real_debate_ends_with_a_parsed_verdict(client, protocol):
    case = CASES[protocol]
    retriever = None
    if protocol.startswith("radar"):
        from debate.retrieval import default_retriever

        retriever = default_retriever()
    cfg = DebateConfig(
        claim=CLAIM,
        protocol=protocol,
        task=case["task"],
        category=case["category"],
        lineup="embedded",
        params=engine_params(protocol),
        max_tokens=MAX_TOKENS,
        top_k=TOP_K,
        aids=AIDS,
    )
    events = list(run_debate(cfg, client, retriever=retriever))
    fin = events[-1]
    errors = [e.message for e in by_type(events, "error")]
    assert fin.type == "finished" and fin.status == "completed", errors
    verdict = by_type(events, "verdict")[-1]
    assert verdict.label in labels_for(case["task"])
    done = by_type(events, "turn_finished")
    assert done and all(t.completion_tokens > 0 for t in done)
    assert fin.model_calls >= len(done) and fin.completion_tokens > 0
    assert any(t.model == "local:qwen2.5-coder-0.5b" for t in done)
    if retriever is not None and locate.find("averitec/dev.json") is None:
        # AVeriTeC dev, the default corpus, not fetched: the debate ran without evidence and said why
        assert not any(e.passages for e in by_type(events, "evidence"))
        # said as a warning the debate went on after (an "error" event that is not the end) or an evidence note
        assert any("no local corpus" in str(e).lower() for e in events if e.type in ("error", "evidence")), [
            e.type for e in events
        ]
    elif retriever is not None:
        (ev,) = by_type(events, "evidence")
        assert len(ev.passages) == TOP_K and all(p["source"] and p["score"] > 0 for p in ev.passages)
        assert [p["id"] for p in ev.passages] == [f"E{i}" for i in range(1, TOP_K + 1)]


@pytest.mark.real_model
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("protocol", list(CASES))
def test_each_protocol_from_the_debate_page(client, protocol):
    """The page builds the case's configuration from its widgets and runs it to a verdict on screen (after
    the engine's run of the same case: `client` is the module's, so the cache it filled is this one)."""
    case = CASES[protocol]
    at = _app()
    at.text_area(key="claim").input(CLAIM)
    at.selectbox(key="cfg_task").set_value(case["task"]).run()
    if case["task"] == "checkthat":
        at.selectbox(key="cfg_category").set_value(case["category"])
    at.radio(key="cfg_protocol").set_value(protocol).run()
    for k, v in case["params"].items():
        _set(at, f"p_{protocol}_{k}", v)
    _set(at, "cfg_max_tokens", MAX_TOKENS)
    if protocol.startswith("radar"):
        _set(at, "cfg_top_k", TOP_K)
    at.run()
    assert at.session_state["cfg_preset"] == "embedded"
    row = _run_to_end(at)
    assert row["status"] == "completed", row
    html = _html(at)
    assert "verdict-card" in html
    assert len(at.chat_message) >= 1 + (protocol not in ("baseline",))
    assert {m.label for m in at.metric} == {"Tokens", "Model calls", "Cache hits", "Elapsed"}
    assert int(next(m.value for m in at.metric if m.label == "Model calls")) >= 1
    charts = at.get("plotly_chart")
    if protocol == "council":
        assert charts and "tally" in html
    if protocol.startswith("radar"):
        # evidence panel: passages, or (offline, a claim the bundled index does not cover) the reason there are none
        # or, where AVeriTeC was never fetched, that there is no local corpus at all
        assert (
            "passage" in html
            or any("No passage is about this claim" in i.value for i in at.info)
            or "no local corpus on this machine" in html
        )
    events = _store().events(row["id"])
    assert events[0].type == "debate_started" and events[-1].type == "finished"
    # the page built the configuration its widgets show
    started = events[0]
    assert (started.protocol, started.task, started.claim) == (protocol, case["task"], CLAIM)
    assert started.category == case["category"]
    assert all(started.settings.get("params", started.settings).get(k) == v for k, v in case["params"].items()), (
        started.settings
    )


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_real_debate_longer_than_the_context_window_is_condensed_and_still_judged(client):
    """A real llama.cpp model whose window (n_ctx) cannot hold the whole debate: the engine reads n_ctx, the
    judge's prompt is condensed oldest-first with a TranscriptShortened event, and the real judge still
    answers with a parsed verdict — no "context too long" failure."""
    from debate.models.client import ModelClient
    from debate.models.local import LocalBackend
    from debate.protocols.prompting import budget_chars

    n_ctx, max_tokens = 700, 64
    small = ModelClient({"local": LocalBackend(n_ctx=n_ctx)})
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="single",
        task="checkthat",
        category=2,
        lineup="embedded",
        params={"rounds": 0},
        max_tokens=max_tokens,
    )
    events = list(run_debate(cfg, small))
    fin = events[-1]
    assert fin.status == "completed", [e.message for e in by_type(events, "error")]
    shortened = [e for e in by_type(events, "transcript_shortened") if e.agent == "judge"]
    assert len(shortened) == 1 and shortened[0].budget_chars == budget_chars(n_ctx, max_tokens)
    assert shortened[0].original_chars > shortened[0].budget_chars >= shortened[0].final_chars
    judge = [t for t in by_type(events, "turn_finished") if t.agent == "judge"][0]
    assert judge.prompt_tokens + judge.completion_tokens <= n_ctx
    assert by_type(events, "verdict")[-1].label in ("YES", "NO")


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_real_explanation_after_the_label_leaves_the_vote_and_its_probability_unchanged(client):
    """The aids' explain=after on the real Qwen2.5-Coder-0.5B: the same prompt and the label decoded first give
    the label-only answer's own P(YES) (so the threshold fitted for it holds), then one whole sentence."""
    params = {"answer": "label-first", "demos": "dialogue", "k_demos": 8, "calibration": "threshold"}
    turns = {}
    for explain in ("none", "after"):
        cfg = DebateConfig(
            claim=CLAIM,
            protocol="baseline",
            task="checkthat",
            category=1,
            lineup="embedded",
            params={**params, "explain": explain},
            max_tokens=MAX_TOKENS,
        )
        events = list(run_debate(cfg, client))
        assert events[-1].status == "completed", [e.message for e in by_type(events, "error")]
        (turns[explain],) = by_type(events, "turn_finished")
    none, after = turns["none"], turns["after"]
    assert after.label == none.label and after.label_probs == pytest.approx(none.label_probs, abs=1e-4)
    expl = after.parsed["explanation"]
    assert after.completion_tokens > none.completion_tokens and len(expl) > 10 and expl.endswith(".")
    # threshold decoding: the label written (and explained) is the one the threshold picks, whatever the
    # model would have sampled; its probabilities are still read unbiased
    p_yes = none.label_probs["YES"] / sum(none.label_probs.values())
    for thr, want in ((max(0.01, p_yes - 0.05), "YES"), (min(0.99, p_yes + 0.05), "NO")):
        cfg = DebateConfig(
            claim=CLAIM,
            protocol="baseline",
            task="checkthat",
            category=1,
            lineup="embedded",
            params={**params, "explain": "after", "threshold": thr},
            max_tokens=MAX_TOKENS,
        )
        events = list(run_debate(cfg, client))
        (turn,) = by_type(events, "turn_finished")
        assert turn.label == want and turn.label_probs == pytest.approx(none.label_probs, abs=1e-4)
        assert turn.confidence > 0.5 and by_type(events, "verdict")[-1].label == want


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_the_default_council_bare_smollm2_votes_and_a_chair_that_writes_the_tallys_state(client):
    """The embedded council at the app's defaults (one discussion round kept), on a CheckThat dev tweet whose
    first vote splits on this lineup (1 YES, 2 NO: 67 % < 80 %), one debate for two aids:
    - SmolLM2-135M's lineup entry says explain: false, so its answers are its vote alone (decoded under the
      label-only schema), while the Qwen members still explain;
    - chair_status=tally: the chair's status is the state of the tally it read; before, the 0.5B chair wrote
      CONSENSUS REACHED above every such tally."""
    import json

    from debate.live import pace

    tweet = "'For some reason there are a disproportionate number of Patriots fans [working] in the White House.' -"
    cfg = DebateConfig(
        claim=tweet,
        protocol="council",
        task="checkthat",
        category=1,
        lineup="embedded",
        params={**pace.overrides("demo", "council"), "rounds": 1},
        max_tokens=pace.max_tokens("demo"),
        aids=True,
    )
    events = list(run_debate(cfg, client))
    assert events[-1].status == "completed", [e.message for e in by_type(events, "error")]
    members = [t for t in by_type(events, "turn_finished") if t.role == "member"]
    smol = [t for t in members if t.model == "local:smollm2-135m"]
    qwen = [t for t in members if t.model == "local:qwen2.5-coder-0.5b"]
    assert smol and qwen
    for t in smol:
        assert t.valid and t.label in ("YES", "NO") and t.label_probs
        assert list(json.loads(t.text)) in (["category"], ["vote"]), t.text  # the vote, nothing more
        assert not t.unsupported_figures and not t.echoed_format
    assert all(t.parsed.get("explanation") for t in qwen)

    started = events[0]
    assert started.settings.get("params", started.settings).get("chair_status") == "tally"
    tallies = by_type(events, "votes_tallied")
    chairs = [t for t in by_type(events, "turn_finished") if t.role == "chair"]
    assert not tallies[0].reached, tallies[0].counts  # the split this test is about (fixed seeds)
    assert chairs and chairs[0].label == "CONSENSUS NOT REACHED", [c.text for c in chairs]
    assert chairs[0].parsed.get("summary"), chairs[0].text
