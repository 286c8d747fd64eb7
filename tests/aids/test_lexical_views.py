"""Members whose demonstrations are found by shared words (TF-IDF over CheckThat train) instead of by
meaning: the lexical neighbour search on the real train split (leave-one-out, deterministic, bounded
input, its cache), the view key from lineup JSON to agent to threshold key and back through a run's
events, and on the real embedded model a lexical member's prompt holding exactly its lexical neighbours.
"""

from __future__ import annotations

import pytest

from debate.aids import calibration as cal
from debate.aids import demos, lexical
from debate.aids.lexical import LexicalIndex
from debate.errors import InvalidInput
from debate.lineups import load_lineup
from debate.protocols import resolve_agents
from tests.support.engine import by_type, run, scripted
from tests.support.fitted import fitted  # noqa: F401 (a fixture)

POOL = [
    "Coffee study in Nature: two cups a day cut heart disease risk https://t.co/abc",
    "Nature paper finds coffee drinkers live longer",
    "Great game tonight, go Rams!",
    "New survey: 40% of adults skip breakfast",
    "Tonight's game was cancelled because of rain https://t.co/zzz",
]


# -- the neighbour search ----------------------------------------------------------------------------
def test_lexical_neighbours_share_words_and_never_include_the_tweet_itself():
    index = LexicalIndex.fit(POOL)
    labels = ["YES", "YES", "NO", "YES", "NO"]
    sims = index.similarities("Is the Nature coffee study right?")
    assert sims.argmax() in (0, 1) and sims[2] < sims[1]
    shown = demos.nearest(index.similarities(POOL[2]), POOL, labels, 2, exclude_text="  great GAME tonight, go rams! ")
    assert POOL[2] not in [d.text for d in shown]  # leave-one-out: case and spacing do not make it another tweet
    assert shown[-1].text == POOL[4]  # the other game tweet, most similar last
    assert [d.similarity for d in shown] == sorted(d.similarity for d in shown)
    assert demos.nearest(sims, POOL, labels, 2, skip=1) == demos.nearest(sims, POOL, labels, 3)[:2]


def test_lexical_neighbours_on_train_are_deterministic_leave_one_out_and_differ_from_semantic():
    pool = demos.pool()
    for i in (0, 17, 400):
        tweet = pool.texts[i]
        shown = demos.similar_demos(tweet, "checkthat", 2, 8, neighbours="lexical")
        assert len(shown) == 8 and demos.norm_text(tweet) not in {demos.norm_text(d.text) for d in shown}
        assert shown == demos.similar_demos(tweet, "checkthat", 2, 8, neighbours="lexical")
        assert [d.label for d in shown] == [pool.labels(2)[pool.texts.index(d.text)] for d in shown]
        near, far = (demos.similar_demos(tweet, "checkthat", 2, 4, skip=s, neighbours="lexical") for s in (0, 4))
        assert far + near == shown  # slices of one ordering, as for the semantic search
    # the two searches find other train tweets for most tweets (the point of a second view)
    differ = sum(
        {d.text for d in demos.similar_demos(t, "checkthat", 1, 8, neighbours="lexical")}
        != {d.text for d in demos.similar_demos(t, "checkthat", 1, 8)}
        for t in pool.texts[:10]
    )
    assert differ >= 7
    with pytest.raises(InvalidInput, match="Unknown neighbour search"):
        demos.similar_demos("x", "checkthat", 2, 8, neighbours="bm25")


def test_lexical_input_is_bounded_and_links_are_one_token():
    index = demos.pool().lexical()
    huge = "coffee study " * 200_000  # 2.6 MB of claim
    assert len(lexical.prepare(huge)) <= lexical.MAX_CHARS
    assert (index.similarities(huge) == index.similarities(huge[: lexical.MAX_CHARS])).all()
    assert lexical.prepare("see https://t.co/AbC123 now") == "see  httpurl  now"
    blank = index.similarities("\u2603\u2603")  # nothing the index knows: cosine 0 to all, still k demonstrations
    assert not blank.any() and len(demos.similar_demos("\u2603\u2603", "checkthat", 1, 3, neighbours="lexical")) == 3


def test_the_index_is_cached_as_plain_arrays_and_rebuilt_when_damaged(tmp_path):
    first = lexical.cached_index(POOL, "fp", tmp_path, "pool")
    (path,) = tmp_path.glob("lexical-pool-*.npz")
    again = lexical.cached_index(POOL, "fp", tmp_path, "pool")
    q = "coffee heart study"
    assert (again.similarities(q) == first.similarities(q)).all()
    path.write_bytes(b"not an npz")
    assert (lexical.cached_index(POOL, "fp", tmp_path, "pool").similarities(q) == first.similarities(q)).all()
    assert path.stat().st_size > 100


# -- the view key ------------------------------------------------------------------------------------
LEX = {
    "members": [
        {"name": "sem", "model": "scripted:m1", "seed": 1},
        {"name": "lex", "model": "scripted:m1", "seed": 2, "neighbours": "lexical"},
        {"name": "lex4", "model": "scripted:m2", "seed": 3, "neighbours": "lexical", "k_demos": 4, "demo_skip": 4},
    ],
    "chair": {"name": "chair", "model": "scripted:chair"},
}


def test_view_key_round_trip_lineup_agent_threshold_and_refusal(fitted):
    from debate.aids import settings as aids
    from debate.protocols import PROTOCOLS

    agents = resolve_agents(load_lineup(LEX), "council")
    assert [a.neighbours for a in agents] == ["semantic", "lexical", "lexical", "semantic"]
    assert "neighbours" not in agents[0].to_dict() and agents[1].to_dict()["neighbours"] == "lexical"
    assert resolve_agents(load_lineup(LEX), "baseline", {"member": 2})[0].neighbours == "lexical"
    assert cal.setting_key("m", "checkthat", 1, "label-first", "dialogue", 8, 0, "lexical").endswith(
        "|demos=dialogue-8-lexical"
    )
    assert cal.setting_key("m", "checkthat", 1, "label-first", "dialogue", 4, 4, "lexical").endswith(
        "|demos=dialogue-4-skip4-lexical"
    )
    assert cal.setting_key("m", "checkthat", 1, "label-first", "dialogue", 8, 0, "semantic") == cal.setting_key(
        "m", "checkthat", 1, "label-first", "dialogue", 8
    )  # the old keys stay
    # the aids calibrate only when the lexical views have their own thresholds, and say what each reads
    for k, skip, found in ((8, 0, "semantic"), (8, 0, "lexical")):
        fitted(
            cal.setting_key("scripted:m1", "checkthat", 2, "label-first", "dialogue", k, skip, found),
            {"threshold": 0.4},
        )
    assert aids.overrides("council", "checkthat", [2], agents)["calibration"] == "none"
    fitted(
        cal.setting_key("scripted:m2", "checkthat", 2, "label-first", "dialogue", 4, 4, "lexical"), {"threshold": 0.4}
    )
    assert aids.overrides("council", "checkthat", [2], agents)["calibration"] == "threshold"
    assert aids.overrides("council", "checkthat", [2], [a.to_dict() for a in agents])["calibration"] == "threshold"
    line = aids.describe("council", "checkthat", [2], agents, PROTOCOLS["council"].defaults())
    assert "sem: the 8 nearest; lex: the 8 nearest by shared words; lex4: the 5th-8th nearest by shared words" in line
    assert "TF-IDF" in line
    for bad in ("bm25", 3, ["lexical"]):
        with pytest.raises(InvalidInput, match="neighbours"):
            load_lineup({"members": [{"model": "scripted:m1", "neighbours": bad}]})


@pytest.fixture
def searches(monkeypatch):
    """Each search's 'nearest train tweets', told apart by their text."""
    import debate.protocols.fewshot as fewshot
    from debate.aids.demos import Demo

    def similar(text, task, cat, k, skip=0, neighbours="semantic"):
        return [Demo(f"{neighbours} tweet {i}", "NO", 0.5) for i in range(skip + k, skip, -1)]

    monkeypatch.setattr(fewshot, "similar_demos", similar)


def _shown(messages) -> list[str]:
    return [m["content"].removeprefix("Tweet: ") for m in messages[1:-1] if m["role"] == "user"]


def test_a_lexical_member_reads_its_own_neighbours_and_votes_by_its_own_threshold(searches, fitted):
    client, backend = scripted(
        {"vote": '{"vote": "NO", "explanation": "e"}', "argue": '{"category": "NO"}'},
        label_probs=lambda t, o: {"YES": 0.3, "NO": 0.7},
    )
    backend.supports_json_schema = True
    for model, k, skip, found, t in (
        ("m1", 8, 0, "semantic", 0.5),
        ("m1", 8, 0, "lexical", 0.2),
        ("m2", 4, 4, "lexical", 0.5),
    ):
        fitted(
            cal.setting_key(f"scripted:{model}", "checkthat", 2, "label-first", "dialogue", k, skip, found),
            {"threshold": t},
        )
    events = run(
        client,
        protocol="council",
        lineup=LEX,
        params={"demos": "dialogue", "k_demos": 8, "rounds": 0, "calibration": "threshold"},
    )
    first = {c["options"].seed: _shown(c["messages"]) for c in backend.calls}
    assert first[1] == [f"semantic tweet {i}" for i in range(8, 0, -1)]
    assert first[2] == [f"lexical tweet {i}" for i in range(8, 0, -1)]
    assert first[3] == [f"lexical tweet {i}" for i in range(8, 4, -1)]
    assert by_type(events, "votes_tallied")[0].votes == {"sem": "NO", "lex": "YES", "lex4": "NO"}
    started = by_type(events, "debate_started")[0].lineup
    assert [a.get("neighbours", "semantic") for a in started] == ["semantic", "lexical", "lexical", "semantic"]
    # a fork / replay re-runs the recorded seats: the lexical view survives the round trip through events
    client2, backend2 = scripted(
        {"vote": '{"vote": "NO", "explanation": "e"}', "argue": '{"category": "NO"}'},
        label_probs=lambda t, o: {"YES": 0.3, "NO": 0.7},
    )
    backend2.supports_json_schema = True
    run(
        client2,
        protocol="council",
        lineup=LEX,
        seats=started,
        params={"demos": "dialogue", "k_demos": 8, "rounds": 0, "calibration": "threshold"},
    )
    assert {c["options"].seed: _shown(c["messages"]) for c in backend2.calls} == first


def test_a_threshold_is_fitted_under_the_lexical_key(tmp_path, searches):
    from debate.evaluation.fit import fit_run
    from debate.evaluation.runner import EvalOptions, run_eval

    client, backend = scripted({"argue": '{"category": "NO"}'}, label_probs=lambda t, o: {"YES": 0.4, "NO": 0.6})
    backend.supports_json_schema = True
    run_eval(
        EvalOptions(
            dataset="checkthat-train",
            out=str(tmp_path / "train"),
            protocol="baseline",
            lineup=LEX,
            category=1,
            sample=12,
            concurrency=1,
            progress=False,
            max_tokens=8,
            params={"answer": "label-first", "demos": "dialogue", "k_demos": 8, "member": 2},
        ),
        client=client,
    )
    assert _shown(backend.calls[0]["messages"])[0] == "lexical tweet 8"
    key, entry = fit_run(str(tmp_path / "train"))
    assert key == "scripted:m1|checkthat1|answer=label-first|demos=dialogue-8-lexical" and entry["n"] == 12


# -- the real embedded model ---------------------------------------------------------------------------
@pytest.mark.real_model
@pytest.mark.timeout(600)
def test_real_model_lexical_member_prompt_holds_its_lexical_neighbours(monkeypatch):
    """The shipped candidate's lexical Qwen member as the label-only baseline, a few tokens."""
    pytest.importorskip("llama_cpp")
    from debate.runner import DebateConfig, run_debate
    from tests.support.real_cases import prepared_client

    lineup = "assets/lineups/council-candidates/f-qwen-lexical.json"
    client = prepared_client(["local:qwen2.5-coder-0.5b"], cache=False)
    asked = []
    chat = client.chat

    def recording(model, messages, options):
        asked.append(messages)
        return chat(model, messages, options)

    monkeypatch.setattr(client, "chat", recording)
    claim = "New study in Nature shows that drinking coffee lowers the risk of heart disease by 20% https://t.co/x"
    events = list(
        run_debate(
            DebateConfig(
                claim=claim,
                protocol="baseline",
                task="checkthat",
                category=2,
                lineup=lineup,
                max_tokens=8,
                params={"member": 2, "answer": "label-first", "demos": "dialogue", "k_demos": 8},
            ),
            client,
        )
    )
    assert events[-1].status == "completed", [e.message for e in by_type(events, "error")]
    lexical_tweets = [d.text.strip() for d in demos.similar_demos(claim, "checkthat", 2, 8, neighbours="lexical")]
    semantic_tweets = [d.text.strip() for d in demos.similar_demos(claim, "checkthat", 2, 8)]
    assert _shown(asked[0]) == lexical_tweets and lexical_tweets != semantic_tweets
    assert by_type(events, "verdict")[-1].label in ("YES", "NO")
    assert "by shared words" in by_type(events, "phase_started")[0].note
