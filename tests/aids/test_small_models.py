"""Small-model aids, second part: demonstrations as dialogue turns, the council voting with thresholds fitted on
train for its members' own models, and the RADAR judge's constrained and calibrated verdict. Protocol
logic on scripted models; the last tests run the real embedded models."""

from __future__ import annotations

import json
import random

import pytest

from debate.aids import calibration as cal
from debate.aids.demos import Demo, dialogue
from debate.errors import InvalidInput
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from tests.support.engine import by_type, lineup, run, scripted
from tests.support.fitted import fitted  # noqa: F401 (a fixture)

CLAIM = "A new study at https://nature.com/articles/x shows coffee helps."
SHOWN = [Demo("Researchers found sleep matters https://doi.org/1", "YES", 0.7), Demo("coffee is life lol", "NO", 0.8)]


@pytest.fixture
def fake_demos(monkeypatch):
    """Two fixed 'most similar train tweets' (the real selection is tested in test_calibration.py)."""
    import debate.protocols.fewshot as fewshot

    monkeypatch.setattr(
        fewshot, "similar_demos", lambda text, task, cat, k, skip=0, neighbours="semantic": SHOWN[skip : skip + k]
    )


def _refused(events) -> str:
    """The error a refused set-up ends with (message and what to do), before any model call."""
    assert events[-1].status == "error" and not by_type(events, "turn_started")
    err = by_type(events, "error")[-1]
    return f"{err.message} {err.hint}"


def test_dialogue_turns_answer_each_demonstration_with_its_label():
    turns = dialogue(SHOWN)
    assert [m["role"] for m in turns] == ["user", "assistant", "user", "assistant"]
    assert turns[0]["content"] == "Tweet: Researchers found sleep matters https://doi.org/1"
    assert json.loads(turns[1]["content"]) == {"category": "YES"}
    assert json.loads(dialogue(SHOWN, "vote")[3]["content"]) == {"vote": "NO"}


def test_baseline_with_dialogue_demos(fake_demos):
    client, backend = scripted({"argue": '{"category": "NO"}'}, label_probs=lambda t, o: {"YES": 0.2, "NO": 0.8})
    backend.supports_json_schema = True  # as the local backend: the answer is decoded under its schema
    events = run(client, protocol="baseline", params={"answer": "label-first", "demos": "dialogue", "k_demos": 2})
    msgs = backend.calls[0]["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert "Category Description" in msgs[0]["content"] and '"category": <one of "YES", "NO">' in msgs[0]["content"]
    assert "Example 1" not in msgs[0]["content"]  # the demonstrations replace the App. A.2 examples
    assert msgs[-1]["content"] == f"Tweet: {CLAIM}"
    assert backend.calls[0]["options"].json_schema["required"] == ["category"]  # label only, decoded first
    v = by_type(events, "verdict")[-1]
    assert v.label == "NO" and "earlier turns" in by_type(events, "phase_started")[0].note
    assert "needs answer=label-first" in _refused(
        run(client, protocol="baseline", params={"answer": "paper", "demos": "dialogue"})
    )


def test_explain_after_keeps_the_prompt_and_decodes_the_label_first(fake_demos):
    """explain=after: the label-only prompt word for word, the label decoded (and its probability read)
    first, then one sentence the reader sees; baseline and council's initial votes alike."""
    said = '{"category": "NO", "explanation": "It is a joke about coffee."}'
    params = {"answer": "label-first", "demos": "dialogue", "k_demos": 2}
    calls = {}
    for explain in ("none", "after"):
        client, backend = scripted({"argue": said}, label_probs=lambda t, o: {"YES": 0.2, "NO": 0.8})
        backend.supports_json_schema = True
        events = run(client, protocol="baseline", params={**params, "explain": explain})
        calls[explain] = backend.calls[0]
    assert calls["after"]["messages"] == calls["none"]["messages"]  # the fitted threshold still applies
    schema, opts = calls["after"]["options"].json_schema, calls["after"]["options"]
    assert list(schema["properties"]) == ["category", "explanation"] and opts.label_first
    assert not calls["none"]["options"].label_first  # label-only requests keep their cache keys
    assert "pattern" in schema["properties"]["explanation"]  # one whole sentence, not a cut phrase
    assert "It is a joke about coffee." in by_type(events, "verdict")[-1].explanation

    assert calls["after"]["options"].label_threshold is None  # no threshold asked for: the model's own label

    client, backend = scripted({"argue": said}, label_probs=lambda t, o: {"YES": 0.2, "NO": 0.8})
    backend.supports_json_schema = True
    run(client, protocol="council", n=2, params={"demos": "dialogue", "k_demos": 2, "rounds": 0, "explain": "after"})
    assert calls["none"]["messages"] == backend.calls[0]["messages"]
    assert backend.calls[0]["options"].json_schema == schema


def test_explain_after_with_a_threshold_writes_the_counted_label(fake_demos, fitted):
    """With a fitted threshold the backend is asked to write the label the threshold picks (so the
    explanation argues for the counted vote), and the turn's confidence is the calibrated one."""
    fitted(
        cal.setting_key("scripted:m1", "checkthat", 2, "label-first", "dialogue", 2),
        {"threshold": 0.15, "fitted_on": "checkthat-train (test)"},
    )
    client, backend = scripted(
        {"argue": '{"category": "YES", "explanation": "A claim."}'}, label_probs=lambda t, o: {"YES": 0.2, "NO": 0.8}
    )
    backend.supports_json_schema = True
    events = run(
        client,
        protocol="baseline",
        params={
            "answer": "label-first",
            "demos": "dialogue",
            "k_demos": 2,
            "calibration": "threshold",
            "explain": "after",
        },
    )
    assert backend.calls[0]["options"].label_threshold == 0.15
    (turn,) = by_type(events, "turn_finished")
    assert turn.label == "YES" and turn.confidence == pytest.approx((0.2 / 0.15) / (0.2 / 0.15 + 0.8 / 0.85))
    v = by_type(events, "verdict")[-1]
    assert v.label == "YES" and "wrote" not in v.explanation  # no contradiction left to explain
    client, backend = scripted({"argue": '{"category": "YES"}'}, label_probs=lambda t, o: {"YES": 0.2, "NO": 0.8})
    backend.supports_json_schema = True
    run(
        client,
        protocol="baseline",
        params={"answer": "label-first", "demos": "dialogue", "k_demos": 2, "calibration": "threshold"},
    )
    assert backend.calls[0]["options"].label_threshold is None  # label-only answers: requests as measured


def _council_client(p_yes: dict[str, float]) -> tuple[ModelClient, ScriptedBackend]:
    """Members whose P(YES) is fixed per model (the written label says YES for everyone)."""
    replies = {m: f'{{"category": "YES", "m": "{m}"}}' for m in p_yes}
    backend = ScriptedBackend(
        replies,
        default='{"status": "CONSENSUS NOT REACHED", "summary": "s"}',
        label_probs=lambda t, o: next(({"YES": p, "NO": 1 - p} for m, p in p_yes.items() if f'"{m}"' in t), None),
    )
    return ModelClient({"scripted": backend}), backend


def test_council_initial_vote_is_the_baseline_prompt_and_each_member_uses_its_models_threshold(fake_demos, fitted):
    params = {"demos": "dialogue", "k_demos": 2, "rounds": 0}
    for m, t in (("m1", 0.5), ("m2", 0.1), ("m3", 0.9)):
        fitted(
            cal.setting_key(f"scripted:{m}", "checkthat", 2, "label-first", "dialogue", 2),
            {"threshold": t, "fitted_on": "checkthat-train (test)"},
        )
    client, backend = _council_client({"m1": 0.3, "m2": 0.3, "m3": 0.3})
    events = run(client, protocol="council", n=3, params={**params, "calibration": "threshold"})
    assert by_type(events, "votes_tallied")[0].votes == {"m1": "NO", "m2": "YES", "m3": "NO"}
    assert by_type(events, "verdict")[-1].label == "NO"
    # the members' first prompts are exactly the baseline's, so the baseline's fitted threshold applies
    base_client, base_backend = _council_client({"m1": 0.3})
    run(base_client, protocol="baseline", n=3, params={"answer": "label-first", "demos": "dialogue", "k_demos": 2})
    assert backend.calls[0]["messages"] == base_backend.calls[0]["messages"]
    # nothing fitted for a model: refused with what to do, never a silent default
    cal._fitted.cache_clear()
    client, _ = _council_client({"m1": 0.3, "m2": 0.3, "m3": 0.3, "m4": 0.3})
    assert "no threshold fitted" in _refused(
        run(client, protocol="council", n=4, params={**params, "calibration": "threshold"})
    )
    assert "demos=dialogue" in _refused(
        run(client, protocol="council", n=3, params={"rounds": 0, "calibration": "threshold"})
    )


def test_council_discussion_rounds_keep_the_demonstrations_and_the_papers_member_prompt(fake_demos):
    client, backend = scripted(
        {"vote": '{"vote": "NO", "explanation": "e"}', "argue": '{"category": "YES"}'},
        label_probs=lambda t, o: (
            ({"YES": 0.6 if o.seed == 1 else 0.3} if "YES" in t else {"YES": 0.2}) | {"NO": 0.4 if "YES" in t else 0.8}
        ),
    )
    backend.supports_json_schema = True
    events = run(
        client,
        protocol="council",
        n=2,
        params={"demos": "dialogue", "k_demos": 2, "rounds": 1, "theta": 1.0, "vote_from": "probs"},
    )
    votes = [c for c in backend.calls if c["messages"][-1]["content"].startswith("Task: You are a member")]
    first = backend.calls[0]["messages"]
    assert len(votes) == 2 and all(c["messages"][:-1] == first[:-1] for c in votes)  # same system + demos
    assert "Council Discussion" in votes[0]["messages"][-1]["content"]
    assert votes[0]["options"].json_schema["required"] == ["vote", "explanation"]  # the vote decoded first
    assert [t.votes for t in by_type(events, "votes_tallied")] == [{"m1": "YES", "m2": "NO"}, {"m1": "NO", "m2": "NO"}]


def test_fit_class_weights_maximises_train_macro_f1():
    from itertools import product

    from sklearn.metrics import f1_score

    labels = ("TRUE", "HALF-TRUE", "FALSE")
    rng = random.Random(3)
    golds = [rng.choice(labels) for _ in range(60)]
    # a judge that leans hard on TRUE but ranks the gold label a little higher
    probs = []
    for g in golds:
        raw = {"TRUE": 3.0, "HALF-TRUE": 1.0, "FALSE": 1.0}
        raw[g] += 1.2 + rng.gauss(0, 0.5)
        probs.append(cal.normalised(raw, labels))
    weights, best = cal.fit_class_weights(probs, golds, labels)
    assert weights["TRUE"] == 1.0 and weights["FALSE"] > 1.5 and weights["HALF-TRUE"] > 1.5
    pred = lambda w: [max(labels, key=lambda lab: p[lab] * w[lab]) for p in probs]
    assert best == pytest.approx(f1_score(golds, pred(weights), average="macro"), abs=1e-6)
    raw_f1 = f1_score(golds, pred(dict.fromkeys(labels, 1.0)), average="macro")
    assert best > raw_f1 + 0.2
    grid = [2 ** (x / 2) for x in range(-8, 9)]
    brute = max(
        f1_score(golds, pred({"TRUE": 1.0, "HALF-TRUE": a, "FALSE": b}), average="macro")
        for a, b in product(grid, grid)
    )
    assert best >= brute - 0.03  # coordinate ascent lands at (or next to) the grid's best
    assert cal.weighted({"TRUE": 0.5, "FALSE": 0.5}, {"FALSE": 3}, ("TRUE", "FALSE")) == pytest.approx(
        {"TRUE": 0.25, "FALSE": 0.75}
    )


def test_radar_judge_constrained_and_calibrated(fitted):
    judge = '{"reason": "The evidence [E1] agrees.", "verdict": "TRUE"}'
    client, backend = scripted(
        {"verdict": judge},
        label_probs=lambda t, o: {"TRUE": 0.6, "HALF-TRUE": 0.3, "FALSE": 0.1} if "verdict" in t else None,
    )
    backend.supports_json_schema = True
    params = {"rounds": 0, "early_stop": False, "judge_answer": "constrained"}
    v = by_type(run(client, protocol="radar", task="halftruth", category=None, params=params), "verdict")[-1]
    jcall = backend.calls[-1]
    assert jcall["options"].json_schema["required"] == ["reason", "verdict"] and jcall["options"].max_tokens >= 64
    assert v.label == "TRUE" and v.probs is None
    # class weights fitted on train turn the judge's lean on TRUE into FALSE
    key = cal.judge_key("scripted:judge", "halftruth", "radar", "constrained")
    fitted(key, {"weights": {"TRUE": 1.0, "HALF-TRUE": 1.0, "FALSE": 8.0}, "fitted_on": "liar-train (test)"})
    fitted_params = {**params, "judge_calibration": "fitted"}
    v = by_type(run(client, protocol="radar", task="halftruth", category=None, params=fitted_params), "verdict")[-1]
    # by default the verdict stays the label the judge wrote; the weights' label is a second opinion beside it
    assert (v.label, v.reading, v.calibrated_label, v.written_label) == ("TRUE", "written", "FALSE", None)
    assert v.basis == "probability" and v.calibrated_confidence == pytest.approx(0.8 / 1.7, abs=1e-4)
    v = by_type(
        run(
            client,
            protocol="radar",
            task="halftruth",
            category=None,
            params={**fitted_params, "calibrated_reading": True},
        ),
        "verdict",
    )[-1]
    assert v.label == "FALSE" and v.confidence == pytest.approx(v.probs["FALSE"]) and v.confidence > v.probs["TRUE"]
    assert (v.reading, v.written_label) == ("calibrated", "TRUE")
    assert "The judge wrote TRUE" in v.explanation and "liar-train (test)" in v.explanation
    assert cal.disagreement(v.label, v.confidence, v.probs) is None
    # contextual: one more judge call whose prompt holds nothing of the claim, the evidence or the debate
    client, backend = scripted(
        {"verdict": lambda m, o: judge.replace("TRUE", "FALSE") if "N/A" in m[-1]["content"] else judge},
        label_probs=lambda t, o: (
            {"TRUE": 0.2, "HALF-TRUE": 0.1, "FALSE": 0.7}
            if "FALSE" in t
            else {"TRUE": 0.6, "HALF-TRUE": 0.3, "FALSE": 0.1}
        ),
    )
    events = run(
        client,
        protocol="radar-single",
        task="halftruth",
        category=None,
        params={"judge_answer": "constrained", "judge_calibration": "contextual", "calibrated_reading": True},
    )
    cf = backend.calls[-1]["messages"]
    assert "coffee" not in json.dumps(cf) and "My argument" not in json.dumps(cf)
    v = by_type(events, "verdict")[-1]
    assert [t.phase for t in by_type(events, "turn_finished")][-2:] == ["judge", "calibrate"]
    # (0.6/0.2, 0.3/0.1, 0.1/0.7) → TRUE and HALF-TRUE tie at 3.0: the first label wins
    assert v.label == "TRUE" and "content-free prior" in v.explanation


def _liar_files(root) -> None:
    """LIAR's two splits in its own format (14 tab-separated columns, no header), small: the fit reads the
    scripted judge's probabilities, not the statements, and LIAR itself is on a machine only once fetched."""
    labels = ("true", "mostly-true", "half-true", "barely-true", "false", "pants-fire")
    (root / "liar").mkdir(parents=True)
    for split in ("train", "valid"):
        rows = [
            "\t".join(
                [
                    f"{i}.json",
                    labels[i % 6],
                    f"Statement {i} about the budget.",
                    "economy",
                    "speaker",
                    "",
                    "",
                    "",
                    "0",
                    "0",
                    "0",
                    "0",
                    "0",
                    "a speech",
                ]
            )
            for i in range(18)
        ]
        (root / "liar" / f"{split}.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_fit_class_weights_from_a_radar_train_run(tmp_path, monkeypatch):
    from debate.evaluation.fit import fit_run
    from debate.evaluation.runner import EvalOptions, run_eval

    _liar_files(tmp_path / "data")
    monkeypatch.setenv("DEBATE_SHARED_DATA", str(tmp_path / "data"))  # first in the data search order
    client, _ = scripted(
        {"verdict": '{"reason": "r", "verdict": "TRUE"}'},
        label_probs=lambda t, o: {"TRUE": 0.5, "HALF-TRUE": 0.2, "FALSE": 0.3} if "verdict" in t else None,
    )
    common = dict(
        protocol="radar-single",
        lineup=lineup(2),
        sample=12,
        concurrency=1,
        progress=False,
        params={"judge_answer": "constrained"},
        max_tokens=8,
        evidence=False,
    )
    run_eval(EvalOptions(dataset="liar-valid", out=str(tmp_path / "valid"), **common), client=client)
    with pytest.raises(InvalidInput, match="not a train split"):
        fit_run(str(tmp_path / "valid"))
    run_eval(EvalOptions(dataset="liar-train", out=str(tmp_path / "train"), **common), client=client)
    key, entry = fit_run(str(tmp_path / "train"))
    assert key == "scripted:judge|halftruth|radar-single-judge|judge_answer=constrained"
    assert (
        entry["n"] == 12
        and set(entry["weights"]) == {"TRUE", "HALF-TRUE", "FALSE"}
        and "liar-train" in entry["fitted_on"]
    )
    json.dumps(entry)


# -- the aids switch (debate/aids/settings.py) --------------------------------------------------------------------


def test_aids_apply_only_where_their_data_exists_and_never_over_a_persons_edit(fitted):
    from debate.aids import settings as aids
    from debate.protocols import PROTOCOLS
    from debate.runner import DebateConfig, prepare

    def params(protocol, task="checkthat", category=2, given=None, on=True):
        return prepare(
            DebateConfig(
                claim="c",
                protocol=protocol,
                task=task,
                category=category,
                lineup=lineup(3),
                params=given or {},
                aids=on,
            )
        ).params

    council = params("council")
    assert (council["demos"], council["vote_from"], council["calibration"]) == ("dialogue", "probs", "none")
    for m in ("m1", "m2", "m3"):  # a threshold for every member's model: calibrated votes
        fitted(
            cal.setting_key(f"scripted:{m}", "checkthat", 2, "label-first", "dialogue", aids.K_DEMOS),
            {"threshold": 0.4},
        )
    assert params("council")["calibration"] == "threshold"
    assert params("council", category=None)["calibration"] == "none"  # nothing fitted for categories 1 and 3
    assert params("council", given={"k_demos": 3})["k_demos"] == 3  # a value the person changed stays theirs
    assert params("council", on=False) == PROTOCOLS["council"].defaults()
    assert params("council", task="halftruth", category=None) == PROTOCOLS["council"].defaults()  # no CheckThat train
    radar = params("radar", task="halftruth", category=None)
    assert (radar["judge_answer"], radar["judge_calibration"]) == ("constrained", "none")
    fitted(cal.judge_key("scripted:judge", "halftruth", "radar", "constrained"), {"weights": {"TRUE": 1, "FALSE": 2}})
    assert params("radar", task="halftruth", category=None)["judge_calibration"] == "fitted"
    assert "(paper: paper)" in aids.describe("baseline", "checkthat", [2], [], PROTOCOLS["baseline"].defaults())
