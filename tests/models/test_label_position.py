"""A turn's label and its label probabilities come from the same position.

Why: a RADAR judge wrote `[VERDICT]: HALF-TRUE` while its probabilities gave FALSE 0.999, because they
were read wherever the labels held the most probability in the whole answer (its reason said "the claim
is false"). The unit tests drive the llama.cpp logits processor (debate.models.local._StepRecorder) with
a scripted vocabulary and greedy decoding, as llama.cpp calls it; the real-model test runs the embedded
judge and checks every judge turn's written label against its reported probabilities.
"""

from __future__ import annotations

import numpy as np
import pytest

from debate.models.base import LABEL_AT, GenOptions
from debate.models.local import _matches, _StepRecorder, label_probs_from_positions, slot_pattern

LABELS = ("TRUE", "FALSE", "HALF-TRUE")
VOCAB = [
    "<eos>",
    "[REASON]:",
    " the claim is",
    " false",
    " [VERDICT]:",
    " HALF",
    "-TRUE",
    " FALSE",
    " False",
    " because",
    " Verdict",
    " x",
]
EOS = 0


class FakeLlama:
    """What the recorder asks of a llama.cpp model: token text and the end token."""

    def detokenize(self, ids) -> bytes:
        return "".join(VOCAB[int(i)] for i in ids).encode()

    def token_eos(self) -> int:
        return EOS


def logits(probs: dict[str, float]) -> np.ndarray:
    """Scores whose softmax is `probs` over the named tokens (the rest ~0)."""
    out = np.full(len(VOCAB), -30.0)
    for tok, p in probs.items():
        out[VOCAB.index(tok)] = np.log(p)
    return out


def run(steps: list, key: str = "verdict", greedy: bool = True) -> tuple[str, _StepRecorder]:
    """Generate as llama.cpp does: the processor sees the scores, then the best (greedy) token is taken;
    sampled runs take the scripted most likely token too, so the text is the same either way. A step is
    the next token's distribution, or a function of the text so far that gives it."""
    ids = [i for i, t in enumerate(VOCAB) if any(_matches(t, lab) for lab in LABELS)]
    rec = _StepRecorder(np.array(ids, dtype=np.int64), [VOCAB[i] for i in ids], LABELS, None, key, greedy)
    rec.llm = FakeLlama()
    prompt = [EOS, EOS, EOS]
    out: list[int] = []
    for step in steps + [{"<eos>": 1.0}]:
        probs = step("".join(VOCAB[i] for i in out)) if callable(step) else step
        scores = rec(np.array(prompt + out), logits(probs))
        tok = int(np.argmax(scores))
        if tok == EOS:
            break
        out.append(tok)
    return "".join(VOCAB[i] for i in out), rec


# the issue's answer: the reason says "false" with certainty, the verdict slot leans HALF by one token but
# FALSE by its spellings summed (" FALSE" + " False")
ANSWER = [
    {"[REASON]:": 0.9, " x": 0.1},
    {" the claim is": 0.9, " x": 0.1},
    {" false": 0.999, " x": 0.001},
    {" [VERDICT]:": 0.9, " x": 0.1},
    {" HALF": 0.40, " FALSE": 0.30, " False": 0.25, " x": 0.05},
    lambda text: {"-TRUE": 0.9, " x": 0.1} if text.endswith("HALF") else {"<eos>": 1.0},
]


def test_the_old_rule_read_the_reason_not_the_verdict():
    text, rec = run(ANSWER, key="")
    assert text.endswith("[VERDICT]: HALF-TRUE")  # what the judge wrote, greedy
    old = label_probs_from_positions(rec.positions, LABELS)
    assert max(old, key=old.get) == "FALSE" and old["FALSE"] > 0.99  # "wrote HALF-TRUE · P 0.00"
    probs, at = rec.read(LABELS, False)
    assert at == "" and probs == old  # no label key asked: the older rule, unchanged


def test_greedy_the_label_written_is_the_argmax_of_the_probabilities_read_where_it_is_written():
    text, rec = run(ANSWER)
    probs, at = rec.read(LABELS, False)
    assert at == "written"
    assert probs["FALSE"] == pytest.approx(0.55 / 0.95) and probs["HALF-TRUE"] == pytest.approx(0.40 / 0.95)
    assert text.endswith("[VERDICT]: FALSE")  # only the most probable label's tokens stayed allowed
    assert max(probs, key=probs.get) == "FALSE"


def test_sampled_probabilities_are_read_at_the_label_but_not_forced():
    text, rec = run(ANSWER, greedy=False)
    probs, at = rec.read(LABELS, False)
    assert at == "sampled" and text.endswith("HALF-TRUE")  # a draw may be any label; the page says so
    assert probs["HALF-TRUE"] == pytest.approx(0.40 / 0.95)


def test_an_answer_with_no_label_after_its_key_falls_back_and_says_so():
    steps = [
        {"[REASON]:": 0.9, " x": 0.1},
        {" the claim is": 0.9, " x": 0.1},
        {" false": 0.99, " x": 0.01},
        {" because": 0.9, " x": 0.1},
    ]
    _, rec = run(steps)
    probs, at = rec.read(LABELS, False)
    assert at == "most-mass" and probs["FALSE"] > 0.99
    assert "need not be where the written label is" in LABEL_AT[at]


def test_the_last_label_written_after_the_key_counts_as_the_parser_reads_the_last():
    steps = [
        {" Verdict": 0.9, " x": 0.1},
        {" [VERDICT]:": 0.9, " x": 0.1},
        {" FALSE": 0.9, " HALF": 0.1},
        {" [VERDICT]:": 0.9, " x": 0.1},
        {" HALF": 0.8, " FALSE": 0.2},
        {"-TRUE": 0.9, " x": 0.1},
    ]
    # (the model writes "Verdict" without a separator first: not a label slot)
    text, rec = run(steps)
    probs, at = rec.read(LABELS, False)
    assert text.endswith("[VERDICT]: HALF-TRUE") and at == "written"
    assert probs["HALF-TRUE"] == pytest.approx(0.8)


@pytest.mark.parametrize(
    "tail,hit",
    [
        ("[VERDICT]: ", True),
        ("**Verdict:** [", True),
        ('{"verdict": "', True),
        ("[VERDICT]:", True),
        ("the verdict is ", False),
        ("[VERDICT]: HALF-", False),
        ('"vote": "', False),
    ],
)
def test_the_label_slot_is_what_the_parser_reads(tail, hit):
    assert bool(slot_pattern("verdict").search(tail)) is hit


def test_the_label_key_keys_the_cache_only_when_set():
    assert "label_key" not in GenOptions().key_dict()
    assert GenOptions(label_key="verdict").key_dict()["label_key"] == "verdict"


def test_a_spec_takes_its_label_key_from_its_schema():
    from debate.lineups import Agent
    from debate.protocols.base import TurnSpec, json_answer, label_key_of

    spec = TurnSpec(
        Agent("j", "judge", "local:x"), "judge", 0, [], "p", labels=LABELS, **json_answer("verdict", LABELS, "reason")
    )
    assert label_key_of(spec) == "verdict"
    assert label_key_of(TurnSpec(Agent("j", "judge", "local:x"), "judge", 0, [], "p")) == ""


@pytest.mark.real_model
@pytest.mark.timeout(1800)
def test_real_judge_turns_label_is_the_argmax_of_its_own_probabilities():
    """The embedded RADAR judge, alone over the claim (radar-single, single_mode=judge), on claims whose
    reasons name other labels: the written label is the most probable one of the probabilities the turn
    reports, or the turn says where they were read."""
    pytest.importorskip("llama_cpp")
    from debate.runner import DebateConfig, run_debate
    from tests.support.real_cases import prepared_client

    client = prepared_client(("local:qwen2.5-coder-0.5b",), cache=False)
    judge = {"name": "judge", "model": "local:qwen2.5-coder-0.5b", "temperature": 0.0, "seed": 0}
    lineup = {"name": "t", "members": [judge], "judge": judge, "chair": judge}
    seen = 0
    for claim in ("Crime in New York City fell by half between 1990 and 2000.",):
        cfg = DebateConfig(
            claim=claim,
            protocol="radar-single",
            task="halftruth",
            lineup=lineup,
            params={"single_mode": "judge"},
            evidence=False,
            max_tokens=64,
        )
        events = list(run_debate(cfg, client))
        for t in (e for e in events if e.type == "turn_finished" and e.role == "judge" and e.label):
            seen += 1
            probs = t.label_probs or {}
            assert probs, "the local backend reads label probabilities"
            top = max(probs, key=probs.get)
            assert top == t.label or t.label_at in ("most-mass", "sampled"), (t.text, probs, t.label_at)
            if t.label_at == "written":
                assert top == t.label
        verdict = next(e for e in events if e.type == "verdict")
        assert verdict.basis == "probability"
    assert seen >= 1


def test_a_vote_first_answer_is_read_at_its_first_label_not_at_a_later_key():
    """Label-first answers (`{"vote": "NO", "explanation": "… vote: YES …"}`): the first label position
    counts, as before; a key named again inside the explanation is no label slot."""
    ids = [i for i, t in enumerate(VOCAB) if any(_matches(t, lab) for lab in LABELS)]
    rec = _StepRecorder(
        np.array(ids, dtype=np.int64), [VOCAB[i] for i in ids], LABELS, None, "verdict", True, first=True
    )
    assert rec.slot is None


# -- servers that return each token with its alternatives (openai, ollama) -------------------------
def _server_answer(pieces: list[tuple[str, dict[str, float]]]) -> tuple[list[str], list[dict[str, float]]]:
    """(token written, {alternative: logprob}) per position, as a server's logprobs list them."""
    return [t for t, _ in pieces], [{k: float(np.log(v)) for k, v in alts.items()} for _, alts in pieces]


SERVER_JUDGE = [  # the reason leans FALSE ("false" with 0.9), the verdict slot writes HALF-TRUE
    ("[REASON]:", {"[REASON]:": 1.0}),
    (" the claim is", {" the claim is": 1.0}),
    (" false", {" false": 0.8, " True": 0.1, " half": 0.1}),
    (" [VERDICT]:", {" [VERDICT]:": 1.0}),
    (" HALF", {" HALF": 0.6, " FALSE": 0.2, " TRUE": 0.1, " x": 0.1}),
    ("-TRUE", {"-TRUE": 1.0}),
]


def test_a_server_judge_is_read_where_its_verdict_is_written():
    from debate.models.labelprobs import label_probs_at_key

    chosen, positions = _server_answer(SERVER_JUDGE)
    probs, at = label_probs_at_key(chosen, positions, LABELS, "verdict", greedy=True)
    assert at == "written" and max(probs, key=probs.get) == "HALF-TRUE"
    assert probs["HALF-TRUE"] == pytest.approx(0.6 / 0.9) and probs["FALSE"] == pytest.approx(0.2 / 0.9)
    old = label_probs_from_positions(positions, LABELS)  # the rule servers used before: the reason's "false"
    assert max(old, key=old.get) == "FALSE"


def test_a_server_label_split_over_spellings_says_so():
    from debate.models.labelprobs import label_probs_at_key

    pieces = [(" [VERDICT]:", {" [VERDICT]:": 1.0}), (" TRUE", {" TRUE": 0.4, " FALSE": 0.35, "FALSE": 0.25})]
    probs, at = label_probs_at_key(*_server_answer(pieces), LABELS, "verdict", greedy=True)
    assert at == "split" and at in LABEL_AT and max(probs, key=probs.get) == "FALSE"
    probs, at = label_probs_at_key(*_server_answer(pieces), LABELS, "verdict", greedy=False)
    assert at == "sampled"


def test_a_server_answer_without_its_key_falls_back_and_says_so():
    from debate.models.labelprobs import label_probs_at_key

    pieces = [(" I think", {" I think": 1.0}), (" FALSE", {" FALSE": 0.8, " TRUE": 0.2})]
    probs, at = label_probs_at_key(*_server_answer(pieces), LABELS, "verdict", greedy=True)
    assert at == "most-mass" and probs["FALSE"] == pytest.approx(0.8)
    assert label_probs_at_key([], [], LABELS, "verdict") == (None, "")


# -- a label written as a digit (TurQUaz's judge: `{"category": 1 or 0}`) --------------------------
DIGIT_VOCAB = ["<eos>", '{"explanation": "', "No", " evidence", '", "category": ', "1", "0", "}", " x"]


class DigitLlama:
    def detokenize(self, ids) -> bytes:
        return "".join(DIGIT_VOCAB[int(i)] for i in ids).encode()

    def token_eos(self) -> int:
        return 0


def run_digits(steps: list, spellings: tuple[str, ...], greedy: bool = True) -> tuple[str, _StepRecorder]:
    """As `run`, over a vocabulary where the answer's explanation says "No" and its key is followed by a
    digit; the recorder is set up as the local backend sets it (label ids over names and spellings)."""
    labels = ("YES", "NO")
    ids = [i for i, t in enumerate(DIGIT_VOCAB) if any(_matches(t, lab) for lab in (*labels, *spellings))]
    rec = _StepRecorder(
        np.array(ids, dtype=np.int64), [DIGIT_VOCAB[i] for i in ids], labels, None, "category", greedy, False, spellings
    )
    rec.llm = DigitLlama()
    out: list[int] = []
    for step in steps + [{"<eos>": 1.0}]:
        scores = np.full(len(DIGIT_VOCAB), -30.0)
        for tok, p in step.items():
            scores[DIGIT_VOCAB.index(tok)] = np.log(p)
        tok = int(np.argmax(rec(np.array([0, 0, 0] + out), scores)))
        if tok == 0:
            break
        out.append(tok)
    return "".join(DIGIT_VOCAB[i] for i in out), rec


# the explanation opens with "No" (certain), the key is followed by "1" (YES) at 0.7
DIGIT_ANSWER = [
    {'{"explanation": "': 1.0},
    {"No": 0.95, " x": 0.05},
    {" evidence": 1.0},
    {'", "category": ': 1.0},
    {"1": 0.6, "0": 0.3, " x": 0.1},
    {"}": 1.0},
]


def test_a_digit_label_is_read_at_its_key_not_where_yes_or_no_hold_the_most_mass():
    from debate.protocols.parsing import parse_label

    text, rec = run_digits(DIGIT_ANSWER, ())  # before: only YES/NO spellings looked for
    probs, at = rec.read(("YES", "NO"), False)
    assert at == "most-mass" and probs["NO"] > 0.99  # the explanation's "No", against the "1" written
    assert parse_label(text, ("YES", "NO")).label == "YES"

    text, rec = run_digits(DIGIT_ANSWER, ("1", "0"))
    probs, at = rec.read(("YES", "NO"), False)
    assert at == "written" and text.endswith('"category": 1}')
    assert probs["YES"] == pytest.approx(0.6 / 0.9) and probs["NO"] == pytest.approx(0.3 / 0.9)
    assert parse_label(text, ("YES", "NO")).label == max(probs, key=probs.get)


def test_greedy_the_digit_written_is_the_argmax_of_the_labels_digits():
    steps = DIGIT_ANSWER[:4] + [{"1": 0.40, "0": 0.35, " x": 0.25}, {"}": 1.0}]
    text, rec = run_digits(steps, ("1", "0"))
    probs, at = rec.read(("YES", "NO"), False)
    assert at == "written" and text.endswith("1}") and probs["YES"] > probs["NO"]


def test_a_server_digit_label_is_read_where_it_is_written():
    from debate.models.labelprobs import label_probs_at_key

    pieces = [
        ('{"explanation": "', {'{"explanation": "': 1.0}),
        ("No", {"No": 0.95, "Yes": 0.05}),
        ('", "category": ', {'", "category": ': 1.0}),
        ("0", {"0": 0.8, "1": 0.2}),
        ("}", {"}": 1.0}),
    ]
    probs, at = label_probs_at_key(*_server_answer(pieces), ("YES", "NO"), "category", greedy=True)
    assert at == "most-mass" and probs["NO"] > 0.9  # without the spellings: the explanation's "No"
    probs, at = label_probs_at_key(
        *_server_answer(pieces), ("YES", "NO"), "category", greedy=True, spellings=("1", "0")
    )
    assert at == "written" and probs == pytest.approx({"YES": 0.2, "NO": 0.8})


def test_the_paper_judge_answer_spells_its_labels_as_digits_and_keys_the_cache_with_them():
    from debate.protocols.base import json_answer

    assert json_answer("category", ("YES", "NO"), numeric=True)["label_spellings"] == ("1", "0")
    assert "label_spellings" not in json_answer("verdict", LABELS, "reason")
    assert "label_spellings" not in GenOptions().key_dict()
    assert GenOptions(label_spellings=("1", "0")).key_dict()["label_spellings"] == ["1", "0"]


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_real_paper_judge_answer_label_is_the_argmax_of_its_digit_probabilities():
    """The embedded model answering in the paper's judge JSON (`{"category": 1 or 0, ...}`, the baseline's
    `answer=paper`, the same turn as the single and team debates' judge) on tweets of both kinds: every
    answer's probabilities are read where its digit is written, and the label is their argmax."""
    pytest.importorskip("llama_cpp")
    from debate.runner import DebateConfig, run_debate
    from tests.support.real_cases import prepared_client

    client = prepared_client(("local:qwen2.5-coder-0.5b",), cache=False)
    agent = {"name": "baseline", "model": "local:qwen2.5-coder-0.5b", "temperature": 0.0, "seed": 0}
    lineup = {"name": "t", "members": [agent], "judge": agent, "chair": agent}
    seen = 0
    for claim in (
        "BREAKING: the new vaccine causes infertility in 80% of women, a leaked study shows.",
        "Our city council approved the new bike lanes on Main Street today.",
    ):
        cfg = DebateConfig(
            claim=claim,
            protocol="baseline",
            task="checkthat",
            lineup=lineup,
            params={"answer": "paper", "demos": "paper", "calibration": "none"},
            evidence=False,
            max_tokens=64,
        )
        events = list(run_debate(cfg, client))
        for t in (e for e in events if e.type == "turn_finished" and e.label):
            seen += 1
            probs = t.label_probs or {}
            assert t.label_at == "written", (t.text, probs, t.label_at)
            assert max(probs, key=probs.get) == t.label, (t.text, probs)
    assert seen >= 2
