"""Small-model aids: calibration maths, similar demonstrations (never from the scored split), the baseline's
calibrated verdict on a scripted model, the train-only threshold fit, and one real-model run."""

from __future__ import annotations

import json
import random

import pytest

from debate.aids import calibration as cal
from debate.aids import demos
from debate.errors import InvalidInput
from tests.support.engine import by_type, run, scripted

# -- calibration maths --------------------------------------------------------------------------------


def test_contextual_calibration_divides_out_the_content_free_prior():
    q = cal.contextual({"YES": 0.8, "NO": 0.2}, {"YES": 0.9, "NO": 0.1}, ("YES", "NO"))
    # q ∝ (0.8/0.9, 0.2/0.1) = (0.889, 2.0) → YES 0.3077
    assert q["YES"] == pytest.approx(0.8 / 0.9 / (0.8 / 0.9 + 2.0))
    assert sum(q.values()) == pytest.approx(1.0)
    # unnormalised inputs and a missing content-free answer
    assert cal.contextual({"YES": 4, "NO": 1}, None, ("YES", "NO")) == pytest.approx({"YES": 0.8, "NO": 0.2})
    assert cal.contextual(None, {"YES": 1}, ("YES", "NO")) is None


def test_a_threshold_is_contextual_calibration_with_the_prior_t():
    rng = random.Random(0)
    for _ in range(200):
        p, t = rng.random(), rng.uniform(0.01, 0.99)
        q = cal.contextual({"YES": p, "NO": 1 - p}, {"YES": t, "NO": 1 - t}, ("YES", "NO"))
        if abs(p - t) > 1e-9:
            assert (q["YES"] > 0.5) == (cal.threshold_label(p, t) == "YES")


def test_fit_threshold_maximises_train_macro_f1():
    from sklearn.metrics import f1_score

    rng = random.Random(1)
    golds = ["YES" if rng.random() < 0.25 else "NO" for _ in range(40)]
    # a model biased towards YES (all scores high) that still ranks positives higher
    scores = [min(1.0, 0.7 + 0.2 * (g == "YES") + rng.gauss(0, 0.08)) for g in golds]
    t, best = cal.fit_threshold(scores, golds)
    brute = max(
        f1_score(golds, ["YES" if s >= c else "NO" for s in scores], average="macro") for c in sorted(set(scores))
    )
    assert best == pytest.approx(brute, abs=1e-6)
    assert 0.7 < t < 0.95  # well above 0.5: the arg-max would call almost everything YES
    assert cal.fit_threshold([0.1, 0.2, 0.8, 0.9], ["NO", "NO", "YES", "YES"]) == (0.5, 1.0)
    with pytest.raises(ValueError):
        cal.fit_threshold([0.1], [])


def test_disagreement_flags_a_label_below_another_labels_probability():
    assert "so NO was more probable" in cal.disagreement("YES", 0.04, None)
    assert cal.disagreement("YES", 0.6, None) is None
    assert cal.disagreement("NO", None, {"YES": 0.7, "NO": 0.3}).startswith("The model's own probability of NO")
    assert cal.disagreement("TRUE", 0.3, None) is not None  # 0.3 < 1/3 of three half-truth labels
    assert cal.disagreement("TRUE", 0.4, None) is None  # another may or may not be higher: say nothing
    assert cal.disagreement("FALSE", 0.4, {"TRUE": 0.5, "FALSE": 0.4, "HALF-TRUE": 0.1}) is not None
    assert cal.disagreement(None, 0.1, None) is None


def test_fitted_entries_round_trip(tmp_path, monkeypatch):
    path = tmp_path / "fitted.json"
    monkeypatch.setattr(cal, "FITTED_PATH", path)
    cal._fitted.cache_clear()
    key = cal.setting_key("local:qwen2.5-coder-0.5b", "checkthat", 2, "label-first", "similar", 4)
    assert key == "local:qwen2.5-coder-0.5b|checkthat2|answer=label-first|demos=similar-4"
    assert cal.fitted_threshold(key) is None
    cal.save_fitted(key, {"threshold": 0.81, "train_macro_f1": 0.6}, path)
    assert cal.fitted_threshold(key)["threshold"] == 0.81
    cal._fitted.cache_clear()


# -- demonstrations -----------------------------------------------------------------------------------


def test_select_takes_the_nearest_and_never_the_tweet_itself():
    import numpy as np

    texts = ["a study in Nature", "A  study in nature", "cat video", "new paper on arXiv", "lunch"]
    vecs = np.eye(5, dtype="float32")
    vecs[1] = vecs[0]  # a duplicate of the query (other case and spacing)
    q = vecs[0] * 0.9 + vecs[3] * 0.1
    out = demos.select(q, vecs, texts, ["YES", "YES", "NO", "YES", "NO"], k=2, exclude_text="A study in NATURE")
    assert [d.text for d in out] == ["cat video", "new paper on arXiv"]  # ties keep pool order
    assert all(demos.norm_text(d.text) != "a study in nature" for d in out)
    assert out[-1].text == "new paper on arXiv"  # most similar last, next to the tweet
    assert demos.select(q, vecs, texts, ["NO"] * 5, k=0) == []
    block = demos.format_demos(out)
    assert "Example 2 (Positive)" in block and "training data" in block


def test_similar_demos_come_from_train_never_from_the_scored_split():
    """Real MiniLM embeddings over the real train split (cached under DEBATE_INDEX_DIR after the first run)."""
    pytest.importorskip("sentence_transformers")
    from debate.datasets import load_dataset

    train = {demos.norm_text(i.text) for i in load_dataset("checkthat-train").items}
    dev = load_dataset("checkthat-dev").items
    dev_only = [i for i in dev if demos.norm_text(i.text) not in train][:3]
    for item in dev_only:
        shown = demos.similar_demos(item.text, "checkthat", 2, 4)
        assert len(shown) == 4
        assert all(demos.norm_text(d.text) in train for d in shown)
        assert all(demos.norm_text(d.text) != demos.norm_text(item.text) for d in shown)
    own = load_dataset("checkthat-train").items[5]
    shown = demos.similar_demos(own.text, "checkthat", 2, 4)
    assert all(demos.norm_text(d.text) != demos.norm_text(own.text) for d in shown)  # leave-one-out
    with pytest.raises(InvalidInput):
        demos.similar_demos("x", "halftruth", None, 4)


# -- the baseline protocol on a scripted model ---------------------------------------------------------


def _probs(text, options):
    """The scripted model is sure of YES for any tweet, and even surer for the content-free one."""
    return {"YES": 0.95, "NO": 0.05} if "N/A" in text else {"YES": 0.7, "NO": 0.3}


def test_contextual_calibration_turns_the_written_yes_into_no():
    client, backend = scripted(
        {
            "judge": lambda m, o: (
                '{"category": "YES", "tweet": "N/A"}' if "Tweet: N/A" in m[-1]["content"] else '{"category": "YES"}'
            )
        },
        label_probs=_probs,
    )
    events = run(
        client,
        protocol="baseline",
        params={"answer": "label-first", "calibration": "contextual", "calibrated_reading": True},
    )
    assert [c["messages"][-1]["content"].count("Tweet: N/A") for c in backend.calls] == [0, 1]
    assert all('"category": <one of "YES", "NO">' in c["messages"][-1]["content"] for c in backend.calls)
    v = by_type(events, "verdict")[-1]
    # (0.7/0.95, 0.3/0.05) → YES 0.109
    assert v.label == "NO" and v.confidence == pytest.approx(0.891, abs=1e-3)
    assert v.probs["NO"] == v.confidence and cal.disagreement(v.label, v.confidence, v.probs) is None
    assert "The model wrote YES" in v.explanation
    # without the calibrated reading chosen, the answer is the label written and NO a named second opinion
    v = by_type(
        run(client, protocol="baseline", params={"answer": "label-first", "calibration": "contextual"}), "verdict"
    )[-1]
    assert (v.label, v.calibrated_label, v.reading) == ("YES", "NO", "written")


def test_threshold_calibration_uses_the_given_or_fitted_threshold():
    client, _ = scripted({"judge": '{"category": "YES"}'}, label_probs=lambda t, o: {"YES": 0.7, "NO": 0.3})
    v = by_type(
        run(
            client,
            protocol="baseline",
            params={"answer": "label-first", "calibration": "threshold", "threshold": 0.8, "calibrated_reading": True},
        ),
        "verdict",
    )[-1]
    assert v.label == "NO" and "threshold 0.8" in v.explanation
    v = by_type(
        run(
            client,
            protocol="baseline",
            params={"answer": "label-first", "calibration": "threshold", "threshold": 0.6, "calibrated_reading": True},
        ),
        "verdict",
    )[-1]
    assert v.label == "YES" and v.confidence > 0.5
    # nothing fitted for a scripted model: the written label stands, and the card says why
    v = by_type(
        run(client, protocol="baseline", params={"answer": "label-first", "calibration": "threshold"}), "verdict"
    )[-1]
    assert v.label == "YES" and "no threshold fitted" in v.explanation.lower()


def test_paper_setting_is_unchanged_and_bad_settings_are_refused():
    client, backend = scripted(label_probs=lambda t, o: {"YES": 0.1, "NO": 0.9})
    v = by_type(run(client, protocol="baseline"), "verdict")[-1]
    assert len(backend.calls) == 1 and '{"category": 0 or 1' in backend.calls[0]["messages"][-1]["content"]
    assert v.label == "YES" and v.probs is None
    with pytest.raises(InvalidInput, match="calibration"):
        run(client, protocol="baseline", params={"calibration": "platt"})


def test_fit_refuses_anything_but_a_train_run(tmp_path):
    from debate.evaluation.fit import fit_run
    from debate.evaluation.runner import EvalOptions, run_eval
    from tests.support.engine import lineup

    client, _ = scripted(
        {
            "judge": lambda m, o: (
                '{"category": "%s"}' % ("YES" if "study" in m[-1]["content"].split("Tweet:")[-1] else "NO")
            )
        },
        label_probs=lambda t, o: {"YES": 0.9, "NO": 0.1} if "YES" in t else {"YES": 0.6, "NO": 0.4},
    )
    common = dict(
        protocol="baseline",
        lineup=lineup(1),
        category=2,
        sample=12,
        concurrency=1,
        progress=False,
        params={"answer": "label-first"},
        max_tokens=8,
    )
    run_eval(EvalOptions(dataset="checkthat-dev", out=str(tmp_path / "dev"), **common), client=client)
    with pytest.raises(InvalidInput, match="not a train split"):
        fit_run(str(tmp_path / "dev"))
    run_eval(EvalOptions(dataset="checkthat-train", out=str(tmp_path / "train"), **common), client=client)
    key, entry = fit_run(str(tmp_path / "train"))
    assert key == "scripted:m1|checkthat2|answer=label-first|demos=paper"
    assert entry["n"] == 12 and 0.6 <= entry["threshold"] <= 0.9 and "checkthat-train" in entry["fitted_on"]
    json.dumps(entry)


def test_judge_cross_validation_scores_held_out_claims_only():
    """scripts/judge_cv.py: weights refitted per fold and scored on the held-out fold, so a judge whose
    probabilities carry the label scores well, and one of pure noise falls to chance even where the
    in-sample fit flatters it."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("judge_cv", Path(__file__).parents[2] / "scripts" / "judge_cv.py")
    jcv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(jcv)
    labels = ("TRUE", "HALF-TRUE", "FALSE")
    rng = random.Random(0)
    golds = [labels[i % 3] for i in range(60)]

    def probs(informative: bool) -> list[dict]:
        out = []
        for g in golds:
            raw = {lab: rng.random() for lab in labels}
            if informative:  # the gold label leads, but the judge overrates TRUE fourfold: weights fix that
                raw[g] += 0.6
            raw["TRUE"] *= 4
            out.append(cal.normalised(raw, labels))
        return out

    good = probs(True)
    good_cv, _ = jcv.cross_validated(good, golds, labels)
    as_decoded = sum(max(labels, key=p.get) == g for p, g in zip(good, golds)) / len(golds)
    noise = probs(False)
    noise_cv, _ = jcv.cross_validated(noise, golds, labels)
    _, noise_in_sample = cal.fit_class_weights(noise, golds, labels)
    assert as_decoded < 0.65 < 0.75 < good_cv and noise_cv < 0.45 and noise_in_sample > noise_cv


def test_the_1_5b_judge_lineup_file_changes_only_the_judge():
    from debate.lineups import PRESETS, load_lineup

    mine = load_lineup("assets/lineups/embedded-judge-1.5b.json")
    assert mine["judge"]["model"] == "local:qwen2.5-coder-1.5b" and mine["judge"]["temperature"] == 0
    assert {k: v for k, v in mine.items() if k not in ("name", "description", "judge")} == {
        k: v for k, v in PRESETS["embedded"].items() if k not in ("name", "description", "judge")
    }


# -- the real embedded model ---------------------------------------------------------------------------


@pytest.mark.real_model
@pytest.mark.timeout(600)
def test_real_model_calibrated_baseline_with_similar_demos():
    pytest.importorskip("llama_cpp")
    pytest.importorskip("sentence_transformers")
    from debate.models.registry import default_client
    from debate.runner import DebateConfig, run_debate

    client = default_client(cache=True)
    cfg = DebateConfig(
        claim="New study: people who drink 3 cups of coffee a day live longer, researchers at "
        "Harvard found https://www.hsph.harvard.edu/news/coffee-study",
        protocol="baseline",
        task="checkthat",
        category=2,
        lineup="embedded",
        max_tokens=12,
        params={
            "answer": "label-first",
            "demos": "similar",
            "k_demos": 2,
            "calibration": "contextual",
            "calibrated_reading": True,
        },
    )
    events = list(run_debate(cfg, client))
    assert events[-1].status == "completed", [e.message for e in by_type(events, "error")]
    done = by_type(events, "turn_finished")
    assert [t.phase for t in done] == ["answer", "calibrate"]
    assert all(t.valid and t.label in ("YES", "NO") and t.label_probs for t in done)
    v = by_type(events, "verdict")[-1]
    assert v.label in ("YES", "NO") and sum(v.probs.values()) == pytest.approx(1.0, abs=1e-4)
    assert v.confidence == pytest.approx(v.probs[v.label], abs=1e-6) and v.confidence >= 0.5
    assert cal.disagreement(v.label, v.confidence, v.probs) is None
    assert "most similar CheckThat train tweets" in by_type(events, "phase_started")[0].note


def test_reason_first_asks_for_the_reason_before_the_label():
    client, backend = scripted(
        {"argue": '{"explanation": "It cites a study in Nature.", "category": "YES"}'},
        label_probs=lambda t, o: {"YES": 0.8, "NO": 0.2},
    )
    v = by_type(run(client, protocol="baseline", params={"answer": "reason-first"}), "verdict")[-1]
    prompt = backend.calls[0]["messages"][-1]["content"]
    assert prompt.index('"explanation"') < prompt.index('"category"')
    assert v.label == "YES" and v.explanation.startswith("It cites a study") and v.confidence == pytest.approx(0.8)


def test_constant_floor_rows_pair_with_the_run():
    from debate.evaluation.fit import constant_rows
    from debate.evaluation.metrics import compare_runs

    rows = [
        {
            "item_id": str(i),
            "status": "done",
            "gold": {"2": "YES" if i < 3 else "NO"},
            "prediction": {"2": "YES" if i < 4 else "NO"},
        }
        for i in range(10)
    ]
    const = constant_rows(rows, ["1", "2", "3"])
    assert {r["prediction"]["2"] for r in const} == {"NO"} and len(const) == 10
    res = compare_runs(rows, const, {"categories": ["1", "2", "3"], "labels": ["YES", "NO"]}, n_boot=200)
    # run: 9/10 right, macro-F1 (6/7 + 12/13)/2; constant NO: F1(NO) = 14/17, F1(YES) = 0
    assert res["macro_f1_diff"] == pytest.approx((6 / 7 + 12 / 13) / 2 - (14 / 17) / 2)
    assert res["mcnemar"]["a_only_correct"] == 3 and res["mcnemar"]["b_only_correct"] == 1


# -- the verdict card (Streamlit AppTest, real rendering code) -------------------------------------------


def _card_script():
    import streamlit as st

    from debate.events import Verdict
    from ui.render import render_verdict
    from ui.transcript import build_view

    render_verdict(
        build_view(
            [
                Verdict(
                    seq=1,
                    label=st.session_state["label"],
                    confidence=st.session_state["conf"],
                    probs=st.session_state["probs"],
                    source="baseline",
                    explanation="<b>model text</b>",
                )
            ]
        )
    )


@pytest.mark.parametrize(
    "label,conf,probs,warned",
    [
        ("YES", 0.04, None, True),
        ("YES", 0.96, None, False),
        ("FALSE", 0.4, {"TRUE": 0.5, "FALSE": 0.4, "HALF-TRUE": 0.1}, True),
        ("NO", 0.7, {"YES": 0.3, "NO": 0.7}, False),
    ],
)
def test_verdict_card_says_when_the_label_is_not_the_most_probable(label, conf, probs, warned):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_card_script, default_timeout=30)
    at.session_state["label"], at.session_state["conf"], at.session_state["probs"] = label, conf, probs
    at.run()
    assert not at.exception
    html = "\n".join(m.value for m in at.markdown)
    assert "verdict-card" in html and "<b>model text" not in html
    assert ("was more probable" in html or "is below that of" in html) == warned


def test_council_can_vote_by_the_members_own_probabilities():
    """Members write YES but their probabilities favour NO: vote_from=probs follows the probabilities."""
    client, _ = scripted(
        {"vote": '{"vote": "YES", "explanation": "e"}'}, label_probs=lambda t, o: {"YES": 0.3, "NO": 0.7}
    )
    written = by_type(run(client, protocol="council", n=3, params={"rounds": 0}), "verdict")[-1]
    probs = by_type(run(client, protocol="council", n=3, params={"rounds": 0, "vote_from": "probs"}), "verdict")[-1]
    assert written.label == "YES" and probs.label == "NO"
    tallies = by_type(run(client, protocol="council", n=3, params={"rounds": 0, "vote_from": "probs"}), "votes_tallied")
    assert set(tallies[0].votes.values()) == {"NO"}
