"""Speed on CPU: the live path asks the models for less and the page/store cost them little.

Pure parts (when an answer is complete, batched token writes, evidence that must not delay a debate)
run on scripted parts; what llama.cpp does (prefix reuse keeps temperature-0 answers identical, a
JSON answer stops when it closes) runs on the real embedded models.
"""

from __future__ import annotations

import threading

import pytest

from debate import live
from debate.events import DebateFinished, DebateStarted, TokenDelta, TurnFinished, TurnStarted
from debate.models.base import GenOptions
from debate.models.stopping import AnswerWatch
from debate.store import DebateStore


# -- AnswerWatch -----------------------------------------------------------------------------------
def _feed(watch: AnswerWatch, text: str, step: int = 3) -> int:
    """Feed in small pieces as a stream does; return how many characters were consumed before done."""
    for i in range(0, len(text), step):
        if watch.feed(text[i : i + step]):
            return i + step
    return len(text)


def test_json_answer_is_done_when_its_object_closes():
    answer = '{"vote": "NO", "explanation": "no study {cited} \\" here"}'
    w = AnswerWatch(json_answer=True)
    n = _feed(w, answer + " The tweet does not contain any evidence. " * 3)
    assert w.done and w.reason == "json closed"
    assert n >= len(answer) and n < len(answer) + 3  # stops within the piece that closed it


def test_prose_before_the_json_and_nested_objects_are_kept():
    w = AnswerWatch(json_answer=True)
    _feed(w, 'I think NO. ```json\n{"a": {"b": "}"}, ')
    assert not w.done  # the brace inside the string and the nested object do not close it
    w.feed('"vote": "NO"}')
    assert w.done


def test_free_text_is_not_cut_by_braces_or_short_repeats():
    w = AnswerWatch(json_answer=False)
    _feed(w, "A {weird} answer. Yes. Yes. Yes. Yes. No. " * 2 + "}" * 5)
    assert not w.done


def test_a_sentence_repeated_three_times_ends_the_answer():
    w = AnswerWatch()
    loop = "The tweet does not contain any evidence of a study. "
    n = _feed(w, "First point here. " + loop * 10)
    assert w.done and w.reason == "repetition"
    assert n <= len("First point here. ") + 3 * len(loop) + 3


def test_a_json_answer_stops_at_its_first_repeat_and_what_came_before_is_read():
    """The chair's looping summary (real model output): generation ends where the repeat begins, the object
    left open is still read, its status kept, and its words end before the loop."""
    from debate.protocols.base import prose_ends_well
    from debate.protocols.parsing import parse_chair
    from tests.engine.test_content_turns import CHAIR_LOOP

    w = AnswerWatch(json_answer=True)
    n = _feed(w, CHAIR_LOOP, step=4)
    assert w.done and w.reason == "repetition" and n < len(CHAIR_LOOP)
    parsed = parse_chair(CHAIR_LOOP[:n])
    assert parsed and parsed["status"] == "CONSENSUS REACHED"
    kept, how, _ = prose_ends_well(parsed, budget_ended=False)
    assert how and kept["summary"].endswith("an academic publication.")
    assert kept["summary"].count("The discussion has also addressed") == 1


def test_watch_is_linear_on_hostile_text():
    w = AnswerWatch(json_answer=True)
    w.feed("{" * 200_000 + '"' + "\\" * 100_000)  # deep nesting and escapes: one pass, no recursion
    assert not w.done


def test_stop_after_json_keeps_old_cache_keys():
    assert "stop_after_json" not in GenOptions().key_dict()
    assert GenOptions(stop_after_json=True).key_dict()["stop_after_json"] is True


# -- batched token writes --------------------------------------------------------------------------
class CountingStore(DebateStore):
    transactions = 0

    def _tx(self, fn):
        self.transactions += 1
        return super()._tx(fn)


def _stream(n_tokens: int, crash: bool = False):
    def run(config, client, retriever=None, cancel=None):
        seq = iter(range(10_000))
        yield DebateStarted(debate_id="x", protocol="baseline", claim="c", seq=next(seq))
        yield TurnStarted(turn_id="t1", agent="a", seq=next(seq))
        for i in range(n_tokens):
            yield TokenDelta(turn_id="t1", agent="a", text=f"w{i} ", seq=next(seq))
        if crash:
            raise RuntimeError("model died")
        yield TurnFinished(turn_id="t1", agent="a", text="".join(f"w{i} " for i in range(n_tokens)), seq=next(seq))
        yield DebateFinished(status="completed", seq=next(seq))

    return run


def test_tokens_are_written_in_batches_in_order_and_whole(tmp_path):
    store = CountingStore(tmp_path / "s.sqlite")
    before = store.transactions
    debate_id = live.start_debate({"claim": "c", "protocol": "baseline"}, None, None, store, run=_stream(400))
    assert live.wait(debate_id, 30)
    events = store.events(debate_id)
    assert [e.seq for e in events] == list(range(len(events)))  # gap-free, in order
    tokens = [e for e in events if e.type == "token"]
    assert "".join(t.text for t in tokens) == events[-2].text and len(tokens) == 400
    assert store.transactions - before < 400 / 8  # batched: far fewer commits than tokens


def test_tokens_streamed_before_a_crash_are_kept(tmp_path):
    store = DebateStore(tmp_path / "s.sqlite")
    debate_id = live.start_debate(
        {"claim": "c", "protocol": "baseline"}, None, None, store, run=_stream(37, crash=True)
    )
    assert live.wait(debate_id, 30)
    events = store.events(debate_id)
    assert len([e for e in events if e.type == "token"]) == 37
    assert events[-1].type == "finished" and events[-1].status == "error"
    assert store.get(debate_id)["status"] == "error"


# -- evidence shown beside a debate that does not use it ------------------------------------------
class SlowRetriever:
    """Answers like a retriever whose index/embedder are still loading (searchable False)."""

    def __init__(self, searchable: bool, ready_after_protocol: bool = True) -> None:
        self.searchable = searchable
        self.ready_after_protocol = ready_after_protocol
        self.calls = 0

    def search(self, query, k=20):
        self.calls += 1
        return [{"id": "p1", "text": "a passage", "score": 0.5, "source": "https://example.org"}]


@pytest.mark.parametrize("searchable", [False, True])
def test_display_only_evidence_never_delays_the_first_model_call(searchable):
    from debate.runner import DebateConfig, run_debate
    from tests.support.engine import lineup, scripted

    retriever = SlowRetriever(searchable)
    client, backend = scripted()
    real_stream = backend.stream

    def stream(*a, **kw):  # the index finishes loading while the model answers
        retriever.searchable = True
        return real_stream(*a, **kw)

    backend.stream = stream
    cfg = DebateConfig(claim="A new study shows coffee helps", protocol="baseline", lineup=lineup(1), max_tokens=16)
    events = list(run_debate(cfg, client, retriever=retriever))
    types = [e.type for e in events]
    assert retriever.calls == 1 and "evidence" in types and types[-1] == "finished"
    first_turn, evidence = types.index("turn_started"), types.index("evidence")
    assert events[evidence].in_prompts is False
    if searchable:
        assert evidence < first_turn  # ready: shown before the debate, as before
    else:
        # still loading: the first model call was not held for it. When it comes (beside a turn or after the
        # verdict) depends on how fast the machine runs the thread that searches, so only the order is asserted
        assert evidence > first_turn


def test_evidence_still_loading_after_the_verdict_is_waited_for_a_bounded_time(monkeypatch):
    import debate.runner as runner
    from debate.runner import DebateConfig, run_debate
    from tests.support.engine import lineup, scripted

    monkeypatch.setattr(runner, "EVIDENCE_AFTER_S", 0.3)
    retriever = SlowRetriever(False)
    cfg = DebateConfig(claim="A new study shows coffee helps", protocol="baseline", lineup=lineup(1), max_tokens=16)
    events = list(run_debate(cfg, scripted()[0], retriever=retriever))
    assert retriever.calls == 0 and events[-1].status == "completed"
    note = [e for e in events if e.type == "phase_started" and e.phase == "evidence"]
    assert note and "still loading" in note[0].note


def test_evidence_that_becomes_ready_after_the_verdict_is_shown():
    """The app loads the embedder at idle priority, so it often finishes only once the models are done:
    the finished debate waits for it (the CPU is free then) and shows the passages after the verdict."""
    from debate.runner import DebateConfig, run_debate
    from tests.support.engine import lineup, scripted

    retriever = SlowRetriever(False)
    cfg = DebateConfig(claim="A new study shows coffee helps", protocol="baseline", lineup=lineup(1), max_tokens=16)
    events = []
    for ev in run_debate(cfg, scripted()[0], retriever=retriever):
        events.append(ev)
        if ev.type == "verdict":
            threading.Timer(0.3, lambda: setattr(retriever, "searchable", True)).start()
    types = [e.type for e in events]
    assert retriever.calls == 1 and types.index("evidence") > types.index("verdict")
    assert events[-1].type == "finished" and events[-1].status == "completed"


# -- the real embedded model -----------------------------------------------------------------------
FEW_SHOT = (
    "Category: does the tweet refer to a scientific study? Examples: 'A new Nature paper shows X' → YES; "
    "'I love coffee' → NO; 'Researchers at MIT found Y' → YES; 'Vote tomorrow!' → NO. " * 2
)


def _member(discussion: str) -> list[dict]:
    return [
        {
            "role": "user",
            "content": f"{FEW_SHOT}\nTweet: Harvard study: coffee drinkers live longer.\n"
            f"Council discussion: {discussion}\nAnswer in one short sentence.",
        }
    ]


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_prefix_reuse_keeps_temperature_zero_answers_identical(monkeypatch):
    """A council's calls share long prefixes; reusing llama.cpp's state for them must not change a
    single temperature-0 answer nor a seeded sampled one against resetting before every request."""
    from debate.models.client import ModelClient
    from debate.models.local import LocalBackend

    client = ModelClient({"local": LocalBackend()})
    calls = [
        (_member("None"), GenOptions(max_tokens=12)),
        (_member("None"), GenOptions(max_tokens=12, temperature=0.7, seed=101)),  # same prompt, sampled
        (_member("qwen-a: It cites a Harvard study, so YES."), GenOptions(max_tokens=12)),
        (
            _member("qwen-a: It cites a Harvard study, so YES."),  # a longer sampled answer after it
            GenOptions(max_tokens=24, temperature=1.0, seed=303),
        ),
        (
            [{"role": "user", "content": "Summarise the council's discussion in one sentence."}],
            GenOptions(max_tokens=8),
        ),
        # the next round's member prompt, after the chair's other prompt took the state: a saved one
        (_member("qwen-a: It cites a Harvard study, so YES. smol-a: NO."), GenOptions(max_tokens=12)),
    ]

    def run_all(reuse: str) -> list:
        monkeypatch.setenv("DEBATE_PREFIX_REUSE", reuse)
        return [client.chat("local:qwen2.5-coder-0.5b", m, o).result() for m, o in calls]

    fresh = run_all("0")
    reused = run_all("1")
    assert [r.text for r in reused] == [r.text for r in fresh]
    assert all(r.text.strip() for r in fresh)
    assert all(r.prompt_reused_tokens == 0 for r in fresh)
    # prompts are cut at fixed positions, so whole blocks are reused by sampled requests too: the same
    # prompt again, and a longer discussion after the shared few-shot block
    from debate.models.local import ALIGN

    assert reused[1].prompt_reused_tokens == reused[1].prompt_tokens - 1  # the same prompt: all but its last token
    assert reused[2].prompt_reused_tokens > 0.8 * reused[0].prompt_tokens - ALIGN
    assert reused[4].prompt_reused_tokens == 0  # another prompt family: nothing in common
    assert reused[5].prompt_reused_tokens > 0.8 * reused[0].prompt_tokens - ALIGN  # restored from a slot
    assert [r.prompt_tokens for r in reused] == [r.prompt_tokens for r in fresh]


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_json_answer_stops_when_its_object_closes():
    from debate.models.client import ModelClient
    from debate.models.local import LocalBackend

    client = ModelClient({"local": LocalBackend()})
    msgs = [
        {
            "role": "user",
            "content": "Does the tweet Harvard study - coffee drinkers live longer cite a study? Answer "
            'with the JSON {"vote": "YES" or "NO"} and then explain your reasoning in a second paragraph.',
        }
    ]
    # a JSON of the vote alone, then prose: Qwen2.5-0.5B closes it within a few tokens and writes the paragraph
    # after it (measured: 7 tokens stopped, 45 free). With an explanation inside the JSON it often ran past the
    # budget unclosed, which made this an expected failure that could not fail (the stop on an explanation
    # with unescaped quotes is tested on streamed text above)
    free = client.chat("local:qwen2.5-coder-0.5b", msgs, GenOptions(max_tokens=96)).result()
    stopped = client.chat("local:qwen2.5-coder-0.5b", msgs, GenOptions(max_tokens=96, stop_after_json=True)).result()
    start = stopped.text.index("{")
    assert stopped.text.rstrip().endswith("}") and stopped.finish_reason == "stop"
    assert free.text.startswith(stopped.text.rstrip())  # the same answer, cut where its JSON closed
    assert stopped.completion_tokens < free.completion_tokens
    import json_repair

    assert json_repair.loads(stopped.text[start:]).get("vote") in ("YES", "NO")


def test_the_page_says_what_run_will_ask_of_the_models():
    from debate.protocols import PROTOCOLS
    from ui.catalog import resolve, run_summary

    params = PROTOCOLS["council"].defaults()
    line = run_summary(resolve("embedded", "council", params), params, 256)
    assert "4 agents" in line and "smollm2-135m" in line and "up to 5 rounds" in line
    assert "consensus or stable votes" in line and "at most 256 tokens" in line


# -- reading the first prompts ahead (debate.live.warmup) ---------------------------------------------
COFFEE = "New study: people who drink 3 cups of coffee a day live longer, researchers at Harvard found https://t.co/abc"


def test_first_requests_come_from_the_protocol_itself():
    """The warm-up reads exactly what the debate will send first: one request per distinct model,
    found by running the protocol against instant scripted replies (no second copy of the prompts)."""
    from debate.live.warmup import first_requests
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend
    from debate.runner import DebateConfig, run_debate

    cfg = DebateConfig(claim=COFFEE, protocol="council")
    got = first_requests(cfg)
    assert sorted(s for s, _, _ in got) == ["local:qwen2.5-coder-0.5b", "local:smollm2-135m"]
    scripted = ScriptedBackend(default='{"vote": "NO", "explanation": "."}')
    for _ in run_debate(cfg, ModelClient(backend_factory=lambda spec: scripted)):
        pass
    # the members of a round ask at once: which of the two Qwen members asks first depends on the threads,
    # so the request read ahead for a model is one its members really send (word for word, same options)
    for spec, messages, options in got:
        model = spec.split(":", 1)[1]
        sent = [c for c in scripted.calls if c["model"] == model]
        assert any(messages == c["messages"] and options == c["options"] for c in sent), model
        assert COFFEE in messages[-1]["content"]


def test_radars_first_prompts_are_read_ahead_with_their_passages():
    """RADAR's prompts carry the evidence: read ahead without it, they would share only the claim with the
    real ones. Given the page's retriever, the warm-up finds the same first requests the debate sends,
    passages included; a protocol whose evidence is only shown beside it does not search ahead."""
    from debate.live.warmup import first_requests
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend
    from debate.runner import DebateConfig, run_debate
    from tests.support.engine import FakeRetriever

    cfg = DebateConfig(claim=COFFEE, protocol="radar", params={"shared_evidence": True}, top_k=3, questions=2)
    got = first_requests(cfg, FakeRetriever())
    assert got and all("Passage 1 about the claim." in m[0]["content"] for _, m, _ in got)
    scripted = ScriptedBackend(default="[REASON]: .\n[VERDICT]: NO")
    for _ in run_debate(
        DebateConfig(claim=COFFEE, protocol="radar", params={"shared_evidence": True}, top_k=3),
        ModelClient(backend_factory=lambda spec: scripted),
        retriever=FakeRetriever(),
    ):
        pass
    # both openings, word for word as the debate sends them (the embedded lineup seats both debaters on one
    # model: the first request per model alone left the second opening to be read after Run), and nothing
    # that holds an earlier answer (the rebuttals, the judge)
    sent = [c["messages"] for c in scripted.calls]
    roles = [
        next(r for r in ("politician", "scientist", "judge") if f"You are a {r}" in m[0]["content"]) for _, m, _ in got
    ]
    assert sorted(roles[:2]) == ["politician", "scientist"] and "judge" not in roles, roles
    assert all(messages in sent for _, messages, _ in got) and not any("[REASON]" in str(m) for _, m, _ in got)
    council = FakeRetriever()
    first_requests(DebateConfig(claim=COFFEE, protocol="council"), council)
    assert council.queries == []


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_radars_openings_reuse_the_prompts_read_ahead_with_their_passages(tmp_path, monkeypatch):
    """On the embedded models: after the warm-up with the page's retriever, both of RADAR's opening prompts
    (claim, passages, role) are in llama.cpp's saved states, and each is reused whole when it is sent."""
    import json

    from debate.live.warmup import warm
    from debate.models.client import ModelClient
    from debate.models.local import LocalBackend, unload_all
    from debate.retrieval.multi import MultiRetriever
    from debate.retrieval.retriever import Retriever
    from debate.retrieval.sources.local import LocalSource
    from debate.runner import DebateConfig, run_debate

    monkeypatch.setenv("DEBATE_INDEX_DIR", str(tmp_path / "indexes"))
    f = tmp_path / "facts.jsonl"
    f.write_text(
        json.dumps(
            {
                "id": "coffee",
                "text": "Adults who drank three cups of coffee a day had a lower risk "
                "of death in a cohort of 500,000 people.",
                "source": "https://x.example",
            }
        )
    )
    retriever = MultiRetriever(["local"], sources=[LocalSource(Retriever("warm-facts", corpus=f))], floor=None)
    cfg = DebateConfig(
        claim=COFFEE,
        protocol="radar",
        params={"shared_evidence": True, "rounds": 0, "early_stop": False},
        max_tokens=8,
        top_k=3,
    )
    client = ModelClient({"local": LocalBackend()})
    unload_all()
    rows = warm(cfg, client, retriever=retriever)
    assert rows and all(r["done"] for r in rows)
    openings = []
    for ev in run_debate(cfg, client, retriever=retriever):
        if isinstance(ev, TurnFinished):
            openings.append(ev)
            if len(openings) == 2:
                break
    # both debaters are Qwen2.5-Coder-0.5B in the embedded lineup: the opening read ahead is in llama.cpp's
    # state whole; the other one, on the same model, reuses the claim and the passages that lead it
    # (shared_evidence) and reads its own role's text (docs/benchmarks.md, "RADAR's scientist")
    # both debaters are Qwen2.5-Coder-0.5B in the embedded lineup: both openings were read ahead, each kept in
    # one of llama.cpp's saved states, so each is in the state whole when it is sent (all but its last token)
    assert {t.model for t in openings} == {"local:qwen2.5-coder-0.5b"}
    assert len(rows) >= 2 and all(r["done"] for r in rows)  # the openings (and closings, which hold no answer)
    for t in openings:
        assert t.prompt_tokens > 250 and t.prompt_reused_tokens == t.prompt_tokens - 1, (t.role, t.prompt_tokens)


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_warm_ahead_makes_the_first_request_reuse_its_prompt_and_changes_no_answer(monkeypatch):
    from debate.live.warmup import warm
    from debate.models.client import ModelClient
    from debate.models.local import LocalBackend, unload_all
    from debate.runner import DebateConfig, run_debate

    cfg = DebateConfig(claim=COFFEE, protocol="baseline", max_tokens=16)
    client = ModelClient({"local": LocalBackend()})

    def turns() -> list[TurnFinished]:
        return [e for e in run_debate(cfg, client) if isinstance(e, TurnFinished)]

    monkeypatch.setenv("DEBATE_PREFIX_REUSE", "0")
    cold = turns()
    monkeypatch.setenv("DEBATE_PREFIX_REUSE", "1")
    unload_all()  # as after a start: nothing loaded, nothing read
    assert warm(cfg, client) == [{"model": "local:qwen2.5-coder-0.5b", "done": True}]
    hot = turns()
    assert [t.text for t in hot] == [t.text for t in cold] and hot[0].text.strip()
    assert hot[0].prompt_tokens > 400
    assert hot[0].prompt_reused_tokens == hot[0].prompt_tokens - 1  # only the last token is read again


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_a_warm_up_gives_way_to_a_real_request():
    """A warm-up must never hold a debate back: when a real request arrives it stops at the next block,
    and the real answer is the one a fresh state gives."""
    import time

    from debate.models import local
    from debate.models.client import ModelClient

    backend = local.LocalBackend()
    client = ModelClient({"local": backend})
    long_msgs = [
        {
            "role": "user",
            "content": "Background: " + "The council met and discussed coffee. " * 300 + "\nSay YES or NO.",
        }
    ]
    short = [{"role": "user", "content": "Is coffee a drink? Answer YES or NO."}]
    opts = GenOptions(max_tokens=4)
    fresh = client.chat("local:qwen2.5-coder-0.5b", short, opts).result().text
    local.unload_all()
    result: dict = {}
    t = threading.Thread(target=lambda: result.setdefault("done", backend.warm("qwen2.5-coder-0.5b", long_msgs, opts)))
    t.start()
    path, fmt = backend.resolve("qwen2.5-coder-0.5b")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until the warm-up is reading its prompt
        entry = local._loaded.get((str(path.resolve()), backend.n_ctx, backend.n_threads, fmt))
        ev = getattr(entry[0], "eval", None) if entry else None
        if isinstance(ev, local.AlignedEval) and not ev.pending and entry[0].n_tokens > 0:
            break
        time.sleep(0.05)
    real = client.chat("local:qwen2.5-coder-0.5b", short, opts).result()
    t.join(60)
    assert result == {"done": False}
    assert real.text == fresh


def test_json_answer_with_unescaped_quotes_still_stops_at_its_closing_brace():
    """Qwen2.5-Coder-0.5B writes quotes inside its explanation without escaping them; with an odd number the
    strict string state is inverted when the object closes, and the answer used to run to the cap."""
    answer = '{"vote": "NO", "explanation": "It\'s a "study. No data."}'
    w = AnswerWatch(json_answer=True)
    n = _feed(w, answer + " The tweet does not contain any evidence. " * 3, step=1)
    assert w.done and w.reason == "json closed" and n == len(answer)
    w = AnswerWatch(json_answer=True)  # an escaped quote before a brace is still text
    assert not w.feed('{"vote": "NO", "explanation": "a set {1, 2}, a \\"} quote')


def _slow_opening(delay_s: float):
    """A debate whose first token comes `delay_s` after it starts, then ten more and the end."""

    def run(config, client, retriever=None, cancel=None):
        import time

        yield DebateStarted(debate_id="x", protocol="baseline", claim="c", seq=0)
        yield TurnStarted(turn_id="t1", agent="a", seq=1)
        time.sleep(delay_s)
        for i in range(11):
            yield TokenDelta(turn_id="t1", agent="a", text=f"w{i} ", seq=2 + i)
            time.sleep(0.02)
        yield TurnFinished(turn_id="t1", agent="a", text="x", seq=13)
        yield DebateFinished(status="completed", seq=14)

    return run


def test_run_can_wait_for_the_first_words_and_the_first_token_is_stored_at_once(tmp_path):
    store = DebateStore(tmp_path / "s.sqlite")
    debate_id = live.start_debate({"claim": "c"}, None, None, store, run=_slow_opening(0.3), wait_words_s=10)
    # returned once the first token was written, not after the whole batch interval or the end
    tokens = [e for e in store.events(debate_id) if e.type == "token"]
    assert tokens and tokens[0].text == "w0 " and len(tokens) < 11
    assert live.wait(debate_id, 30)


def test_the_wait_for_words_is_bounded_and_ends_with_the_debate(tmp_path):
    import time

    store = DebateStore(tmp_path / "s.sqlite")
    t0 = time.perf_counter()
    debate_id = live.start_debate({"claim": "c"}, None, None, store, run=_slow_opening(5.0), wait_words_s=0.5)
    assert time.perf_counter() - t0 < 4.0 and not [e for e in store.events(debate_id) if e.type == "token"]
    assert live.wait(debate_id, 30)
    t0 = time.perf_counter()  # a debate that ends without a word frees the page at once
    live.start_debate({"claim": "c"}, None, None, store, run=lambda *a, **k: iter([]), wait_words_s=10)
    assert time.perf_counter() - t0 < 4.0
