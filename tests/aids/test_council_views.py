"""Council members that differ in what they know (each reads its own slice of the nearest train tweets),
and the targets' statistics (pooled paired bootstrap, the least-similar slice).

Pure functions on hand-built data (checked against scikit-learn and brute force); the protocols on a
scripted model (which demonstrations each member's prompt holds); `eval-targets` on a real council eval
run over a scripted model; the default embedded council on the real models in
tests/real_model/test_council_views_real.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import f1_score

from debate.aids import calibration as cal
from debate.aids import demos
from debate.aids.demos import Demo
from debate.errors import InvalidInput
from debate.evaluation import targets
from debate.lineups import Agent, load_lineup
from debate.protocols import resolve_agents
from tests.support.engine import by_type, lineup, run, scripted
from tests.support.fitted import fitted  # noqa: F401 (a fixture)

NEAREST = [Demo(f"train tweet {i}", "YES" if i % 2 else "NO", 0.9 - i / 100) for i in range(1, 17)]


# -- demonstration slices -----------------------------------------------------------------------------
def test_select_skips_the_nearest_and_keeps_the_most_similar_last():
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(20, 8)).astype("float32")
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    texts = [f"t{i}" for i in range(20)]
    labels = ["YES" if i % 3 == 0 else "NO" for i in range(20)]
    q = vecs[7] + 0.1 * vecs[3]
    eight = demos.select(q, vecs, texts, labels, 8, exclude_text="t7")
    near = demos.select(q, vecs, texts, labels, 4, exclude_text="t7")
    far = demos.select(q, vecs, texts, labels, 4, exclude_text="t7", skip=4)
    assert "t7" not in {d.text for d in eight}  # leave-one-out holds for every slice
    assert near + [] == eight[4:] and far == eight[:4]  # the two halves of the 8 nearest, disjoint
    assert [d.similarity for d in far] == sorted(d.similarity for d in far)  # most similar last
    assert demos.select(q, vecs, texts, labels, 4, skip=30) == []


def test_threshold_keys_name_the_slice_and_keep_the_old_keys():
    old = cal.setting_key("local:qwen2.5-coder-0.5b", "checkthat", 2, "label-first", "dialogue", 8)
    assert old == "local:qwen2.5-coder-0.5b|checkthat2|answer=label-first|demos=dialogue-8"
    assert cal.setting_key("local:qwen2.5-coder-0.5b", "checkthat", 2, "label-first", "dialogue", 8, 0) == old
    assert cal.setting_key("m", "checkthat", 1, "label-first", "dialogue", 4, 4).endswith("demos=dialogue-4-skip4")


def test_a_lineup_gives_members_their_own_slice_and_refuses_a_bad_one():
    lu = load_lineup(
        {
            "members": [
                {"model": "scripted:m1", "k_demos": 4},
                {"model": "scripted:m2", "k_demos": 4, "demo_skip": 4},
                {"model": "scripted:m3"},
            ]
        }
    )
    a = resolve_agents(lu, "council")
    assert [(x.k_demos, x.demo_skip) for x in a] == [(4, 0), (4, 4), (0, 0), (0, 0)]
    assert a[1].to_dict()["demo_skip"] == 4 and "k_demos" not in a[2].to_dict()  # ordinary seats as before
    assert resolve_agents(lu, "baseline", {"member": 2})[0].demo_skip == 4
    for bad in ({"k_demos": -1}, {"demo_skip": "4"}, {"demo_skip": True}, {"k_demos": 500}):
        with pytest.raises(InvalidInput, match="whole number from 0 to 64"):
            load_lineup({"members": [{"model": "scripted:m1", **bad}]})


@pytest.fixture
def slices(monkeypatch):
    """The 16 'nearest train tweets' of every claim, sliced as demos.select slices them."""
    import debate.protocols.fewshot as fewshot

    def similar(text, task, cat, k, skip=0, neighbours="semantic"):
        return list(reversed(NEAREST[skip : skip + k]))

    monkeypatch.setattr(fewshot, "similar_demos", similar)


def _shown(call) -> list[str]:
    """The demonstration tweets of a prompt, in order."""
    return [m["content"].removeprefix("Tweet: ") for m in call["messages"][1:-1] if m["role"] == "user"]


def test_each_member_reads_its_own_slice_in_every_round_and_votes_by_its_own_threshold(slices, fitted):
    members = [
        {"name": "near", "model": "scripted:m1", "k_demos": 4, "seed": 1},
        {"name": "all8", "model": "scripted:m2", "seed": 2},
        {"name": "far", "model": "scripted:m1", "k_demos": 4, "demo_skip": 4, "seed": 3},
    ]
    lu = {"name": "views", "members": members, "chair": {"name": "chair", "model": "scripted:chair"}}
    for model, k, skip, t in (("m1", 4, 0, 0.5), ("m2", 8, 0, 0.5), ("m1", 4, 4, 0.1)):
        fitted(
            cal.setting_key(f"scripted:{model}", "checkthat", 2, "label-first", "dialogue", k, skip), {"threshold": t}
        )
    client, backend = scripted(
        {"vote": '{"vote": "NO", "explanation": "e"}', "argue": '{"category": "NO"}'},
        label_probs=lambda t, o: {"YES": 0.3, "NO": 0.7},
    )
    backend.supports_json_schema = True
    events = run(
        client,
        protocol="council",
        lineup=lu,
        params={"demos": "dialogue", "k_demos": 8, "rounds": 1, "calibration": "threshold"},
    )
    first = {c["options"].seed: _shown(c) for c in backend.calls[:3]}
    assert first[1] == [f"train tweet {i}" for i in (4, 3, 2, 1)]
    assert first[2] == [f"train tweet {i}" for i in range(8, 0, -1)]
    assert first[3] == [f"train tweet {i}" for i in (8, 7, 6, 5)]
    # P(YES) 0.3: under the far member's own threshold (0.1) it votes YES, the others NO
    assert by_type(events, "votes_tallied")[0].votes == {"near": "NO", "all8": "NO", "far": "YES"}
    later = [c for c in backend.calls if c["messages"][-1]["content"].startswith("Task: You are a member")]
    assert {c["options"].seed: _shown(c) for c in later} == first  # discussion rounds keep each member's slice
    # a slice with no fitted threshold is refused before any model call, naming its key
    client, backend = scripted()
    unfitted = {**members[2], "model": "scripted:m3"}
    events = run(
        client,
        protocol="council",
        lineup={**lu, "members": members[:2] + [unfitted]},
        params={"demos": "dialogue", "calibration": "threshold", "rounds": 0},
    )
    assert "scripted:m3|checkthat2|answer=label-first|demos=dialogue-4-skip4" in by_type(events, "error")[-1].message
    assert not backend.calls


def test_the_aids_calibrate_only_when_every_members_slice_has_a_threshold(fitted):
    from debate.aids import settings as aids

    agents = [
        Agent("a", "member", "scripted:m1", k_demos=4),
        Agent("b", "member", "scripted:m1", k_demos=4, demo_skip=4),
    ]
    fitted(cal.setting_key("scripted:m1", "checkthat", 2, "label-first", "dialogue", 4), {"threshold": 0.4})
    assert aids.overrides("council", "checkthat", [2], agents)["calibration"] == "none"
    fitted(cal.setting_key("scripted:m1", "checkthat", 2, "label-first", "dialogue", 4, 4), {"threshold": 0.4})
    assert aids.overrides("council", "checkthat", [2], agents)["calibration"] == "threshold"
    assert (
        aids.overrides(
            "council", "checkthat", [2], [{"role": "member", "model": "scripted:m1", "k_demos": 4, "demo_skip": 4}]
        )["calibration"]
        == "threshold"
    )


# -- the targets' statistics --------------------------------------------------------------------------
def test_macro_f1_matches_scikit_learn():
    rng = np.random.default_rng(1)
    g = list(rng.choice(["YES", "NO"], 60))
    p = list(rng.choice(["YES", "NO", "INVALID"], 60))
    assert targets.macro_f1(g, p) == pytest.approx(
        f1_score(g, p, labels=["YES", "NO"], average="macro", zero_division=0)
    )


def test_pooled_bootstrap_point_is_the_mean_of_category_differences_and_pairs_items():
    rng = np.random.default_rng(2)
    groups = {}
    for c, n in (("1", 50), ("2", 70), ("3", 40)):
        g = list(rng.choice(["YES", "NO"], n, p=[0.3, 0.7]))
        a = [x if rng.random() < 0.85 else ("NO" if x == "YES" else "YES") for x in g]
        b = [x if rng.random() < 0.6 else ("NO" if x == "YES" else "YES") for x in g]
        groups[c] = (g, a, b)
    r = targets.pooled_paired_bootstrap(groups, n_boot=500, seed=0)
    want = np.mean([f1_score(g, a, average="macro") - f1_score(g, b, average="macro") for g, a, b in groups.values()])
    assert r["diff"] == pytest.approx(want) and r["n"] == 160
    assert r["ci"][0] < r["diff"] < r["ci"][1] and r["ci"][0] > 0  # A is clearly better here
    a_only = sum((x == y) and (z != y) for g, a, b in groups.values() for y, x, z in zip(g, a, b))
    b_only = sum((x != y) and (z == y) for g, a, b in groups.values() for y, x, z in zip(g, a, b))
    assert (r["a_only"], r["b_only"]) == (a_only, b_only)
    same = targets.pooled_paired_bootstrap({c: (g, a, a) for c, (g, a, _) in groups.items()}, n_boot=200)
    assert same["diff"] == 0 and same["ci"] == [0.0, 0.0] and same["p"] == 1.0
    assert targets.pooled_paired_bootstrap({"1": ([], [], [])})["n"] == 0
    with pytest.raises(ValueError):
        targets.pooled_paired_bootstrap({"1": (["YES"], ["YES", "NO"], ["NO"])})


def test_least_similar_third_is_the_lowest_third_with_ties_by_id():
    sims = {"a": 0.5, "b": 0.2, "c": 0.9, "d": 0.2, "e": 0.7, "f": 0.1}
    assert targets.least_similar_third(sims) == {"f", "b"}  # 6 items: 2; b and d tie, b first by id
    assert targets.least_similar_third({"x": 0.3}) == {"x"} and targets.least_similar_third({}) == set()
    assert len(targets.least_similar_third({str(i): i / 100 for i in range(100)})) == 33


# -- eval-targets over a real council eval run ---------------------------------------------------------
def test_eval_targets_reads_members_vote_and_council_from_a_council_run(tmp_path, monkeypatch, slices, fitted):
    """A council eval on a scripted model (members vote by seed), then the targets from its checkpoint."""
    from debate.evaluation.runner import EvalOptions, run_eval

    def vote(messages, options):
        return json.dumps({"vote": "YES" if options.seed == 1 else "NO", "explanation": "e"})

    client, backend = scripted({"vote": vote, "argue": vote})
    monkeypatch.setattr(targets, "knn_shares", lambda texts, cat, k: [0.6 if i % 2 else 0.1 for i in range(len(texts))])
    monkeypatch.setattr(targets, "neighbour_similarity", lambda texts, k: [i / 100 for i in range(len(texts))])
    runs = []
    for c in (1, 2):
        out = tmp_path / f"ct{c}"
        run_eval(
            EvalOptions(
                dataset="checkthat-dev",
                out=str(out),
                protocol="council",
                lineup=lineup(3),
                category=c,
                sample=9,
                concurrency=1,
                max_tokens=32,
                apply_cat2_rule=False,
                params={"demos": "dialogue", "k_demos": 2, "rounds": 0},
                progress=False,
            ),
            client=client,
        )
        runs.append(str(out))
    t = targets.collect(runs, k=8, train_sample=20)
    assert sorted(t.cats) == ["1", "2"] and all(len(it.ids) == 9 for it in t.cats.values())
    it = t.cats["1"]
    assert it.sides["member m1"] == ["YES"] * 9 and it.sides["member m2"] == ["NO"] * 9
    assert it.sides["vote"] == it.sides["council"] == ["NO"] * 9  # 2 of 3 say NO, no discussion (rounds=0)
    assert len(t.slice_ids["1"]) == 3 and t.slice_ids["1"] == set(it.ids[:3])
    text = targets.render(t, n_boot=100)
    assert "| always-NO |" in text and "council vs the k-NN reference" in text and "least-similar third" in text
    assert "debate vs its own first-vote majority" in text
    with pytest.raises(InvalidInput, match="Two runs for category 1"):
        targets.collect([runs[0], runs[0]], train_sample=20)


def test_the_aids_line_says_which_slice_each_member_reads():
    from debate.aids import settings as aids
    from debate.protocols import PROTOCOLS

    agents = resolve_agents(
        load_lineup(
            {
                "members": [
                    {"name": "near", "model": "scripted:m1", "k_demos": 4},
                    {"name": "far", "model": "scripted:m1", "k_demos": 4, "demo_skip": 4},
                    {"name": "next", "model": "scripted:m2", "demo_skip": 1, "k_demos": 2},
                ]
            }
        ),
        "council",
    )
    line = aids.describe("council", "checkthat", [2], agents, PROTOCOLS["council"].defaults())
    assert "near: the 4 nearest; far: the 5th-8th nearest; next: the 2nd-3rd nearest" in line
    plain = aids.describe(
        "council", "checkthat", [2], resolve_agents(load_lineup(lineup(3)), "council"), PROTOCOLS["council"].defaults()
    )
    assert "reads the 8 most similar CheckThat train tweets" in plain


def test_a_threshold_is_fitted_for_the_slice_the_member_read(tmp_path, slices):
    """eval-fit-threshold on a baseline train run of a member with its own slice writes that slice's key."""
    from debate.evaluation.fit import fit_run
    from debate.evaluation.runner import EvalOptions, run_eval

    client, backend = scripted({"argue": '{"category": "NO"}'}, label_probs=lambda t, o: {"YES": 0.4, "NO": 0.6})
    backend.supports_json_schema = True
    lu = {"name": "views", "members": [{"name": "far", "model": "scripted:m1", "k_demos": 4, "demo_skip": 4}]}
    run_eval(
        EvalOptions(
            dataset="checkthat-train",
            out=str(tmp_path / "train"),
            protocol="baseline",
            lineup=lu,
            category=1,
            sample=12,
            concurrency=1,
            progress=False,
            max_tokens=8,
            params={"answer": "label-first", "demos": "dialogue", "k_demos": 8},
        ),
        client=client,
    )
    assert _shown(backend.calls[0]) == [f"train tweet {i}" for i in (8, 7, 6, 5)]
    key, entry = fit_run(str(tmp_path / "train"))
    assert key == "scripted:m1|checkthat1|answer=label-first|demos=dialogue-4-skip4" and entry["n"] == 12


def test_every_member_slice_of_the_shipped_councils_has_a_train_threshold_in_every_category():
    """The packaged fitted values cover the embedded council and the candidate councils, so the aids
    calibrate them in every category (the app's default click and `--lineup` with a candidate file)."""
    from pathlib import Path

    from debate.aids import settings as aids

    cal._fitted.cache_clear()
    files = sorted((Path(__file__).parents[2] / "assets" / "lineups" / "council-candidates").glob("*.json"))
    for lu in ["embedded", *[str(f) for f in files if "d-all-disjoint" not in f.name]]:
        agents = resolve_agents(load_lineup(lu), "council")
        assert aids.overrides("council", "checkthat", [1, 2, 3], agents)["calibration"] == "threshold", lu


def test_a_member_whose_entry_says_explain_false_votes_without_words_in_every_round(slices, fitted):
    """explain: false gives that member the label-only schema in the first vote and in the discussion
    rounds, its label written as its threshold counts it (the other members keep their one-sentence
    explanation), and is kept in the stored seats."""
    members = [
        {"name": "quiet", "model": "scripted:m1", "seed": 1, "explain": False},
        {"name": "talks", "model": "scripted:m1", "seed": 2},
    ]
    lu = {"name": "quiet", "members": members, "chair": {"name": "chair", "model": "scripted:chair"}}
    fitted(cal.setting_key("scripted:m1", "checkthat", 2, "label-first", "dialogue", 8, 0), {"threshold": 0.5})
    client, backend = scripted(
        {"vote": '{"vote": "NO", "explanation": "e"}', "argue": '{"category": "NO"}'},
        label_probs=lambda t, o: {"YES": 0.5, "NO": 0.5},  # an even split: the discussion round runs
    )
    backend.supports_json_schema = True
    events = run(
        client,
        protocol="council",
        lineup=lu,
        params={"demos": "dialogue", "k_demos": 8, "rounds": 1, "calibration": "threshold", "explain": "after"},
    )
    schemas: dict[int, list[list[str]]] = {}
    for c in backend.calls:
        if c["options"].seed in (1, 2) and c["options"].json_schema:
            schemas.setdefault(c["options"].seed, []).append(list(c["options"].json_schema["properties"]))
    assert schemas[1] and all(len(props) == 1 for props in schemas[1])  # the vote alone, every round
    # and written as the threshold counts it, so its bubble and the tally say the same vote
    quiet = [c["options"] for c in backend.calls if c["options"].seed == 1 and c["options"].json_schema]
    assert all(o.label_threshold == 0.5 for o in quiet)
    assert schemas[2] and all("explanation" in props for props in schemas[2])
    started = by_type(events, "debate_started")[0]
    seats = {a["agent"]: a for a in started.lineup}
    assert seats["quiet"].get("explain") is False and "explain" not in seats["talks"]


def test_explain_in_a_lineup_entry_must_be_true_or_false():
    lu = {"name": "x", "members": [{"model": "scripted:m1", "explain": "no"}], "chair": {"model": "scripted:c"}}
    with pytest.raises(InvalidInput, match="explain"):
        load_lineup(lu)


def test_the_aids_ask_a_smollm2_member_once_and_say_so_only_where_one_sits():
    """The embedded council's SmolLM2 member: its votes in a discussion round did not depend on the tweet
    (measured), so with the aids it votes once; a council without one is told nothing about it."""
    from debate.aids import settings as aids
    from debate.lineups import PRESETS

    agents = resolve_agents(load_lineup(PRESETS["embedded"]), "council")
    smol = [a.agent for a in agents if a.model == "local:smollm2-135m"]
    assert smol  # the default council seats one
    got = aids.overrides("council", "checkthat", [1], agents)
    assert got["keep_first_vote"] == "local:smollm2-135m"
    defaults = {"keep_first_vote": "none", "demos": "paper", "calibration": "none"}
    assert f"{smol[0]} votes once" in aids.describe("council", "checkthat", [1], agents, defaults)
    qwen_only = [a for a in agents if a.model != "local:smollm2-135m"]
    assert "keep_first_vote" not in aids.overrides("council", "checkthat", [1], qwen_only)
