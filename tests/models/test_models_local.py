"""The embedded llama.cpp backend on the real packaged models (short generations)."""

from __future__ import annotations

import json
import threading

import pytest

from debate.errors import ContextTooLong, ModelFileError, ModelNotFound
from debate.models import packaged
from debate.models.base import GenOptions
from debate.models.client import ModelClient
from debate.models.local import LocalBackend, label_probs_from_positions

ASK = [
    {"role": "system", "content": "Answer with one word: YES or NO."},
    {"role": "user", "content": "Is Paris the capital of France?"},
]
VOTE_SCHEMA = {
    "type": "object",
    "properties": {"vote": {"type": "string", "enum": ["YES", "NO"]}},
    "required": ["vote"],
}


@pytest.fixture(scope="module")
def client() -> ModelClient:
    return ModelClient({"local": LocalBackend()})


@pytest.mark.timeout(300)
def test_embedded_model_streams_and_completes(client):
    stream = client.chat(
        "local:smollm2-135m", [{"role": "user", "content": "Name three colours."}], GenOptions(max_tokens=12)
    )
    pieces = list(stream)
    res = stream.result()
    assert len(pieces) >= 3 and "".join(pieces) == res.text and res.text.strip()
    assert res.completion_tokens == 12 and res.finish_reason == "length"
    assert res.prompt_tokens > 5 and 0 < res.ttft_s <= res.latency_s
    assert res.model == "local:smollm2-135m" and res.model_id.endswith(".gguf") and res.cached is False


@pytest.mark.timeout(300)
def test_labels_get_probabilities_from_logprobs(client):
    res = client.chat("local:qwen2.5-coder-0.5b", ASK, GenOptions(max_tokens=4, labels=("YES", "NO"))).result()
    assert set(res.label_probs) == {"YES", "NO"}
    assert sum(res.label_probs.values()) == pytest.approx(1.0, abs=1e-6)
    voted = "YES" if "YES" in res.text.upper() else "NO"
    assert res.label_probs[voted] > 0.5  # the greedy answer is the more probable label


@pytest.mark.timeout(300)
def test_json_schema_output_and_label_inside_json(client):
    res = client.chat(
        "local:qwen2.5-coder-0.5b",
        ASK + [{"role": "user", "content": "Reply as JSON."}],
        GenOptions(max_tokens=24, json_schema=VOTE_SCHEMA, labels=("YES", "NO")),
    ).result()
    vote = json.loads(res.text)["vote"]
    assert vote in ("YES", "NO")
    assert res.label_probs[vote] > 0.5 and sum(res.label_probs.values()) == pytest.approx(1.0)


@pytest.mark.timeout(300)
def test_same_request_twice_is_identical_without_cache(client):
    opts = GenOptions(max_tokens=16, cache=False)
    msgs = [{"role": "user", "content": "Write one sentence about rivers."}]
    a = client.chat("local:smollm2-135m", msgs, opts).result()
    b = client.chat("local:smollm2-135m", msgs, opts).result()
    assert a.text == b.text and not a.cached and not b.cached


@pytest.mark.timeout(300)
def test_any_gguf_path_and_parallel_callers_share_one_model():
    path = packaged.ensure_model("smollm2-135m")
    client = ModelClient({"local": LocalBackend()})
    spec = f"local:{path}"
    results: list = []
    msgs = [{"role": "user", "content": "Say hello."}]
    threads = [
        threading.Thread(target=lambda: results.append(client.chat(spec, msgs, GenOptions(max_tokens=6)).result()))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2 and results[0].text == results[1].text and results[0].text


@pytest.mark.timeout(300)
def test_context_too_long_says_what_to_do():
    client = ModelClient({"local": LocalBackend(n_ctx=256)})
    with pytest.raises(ContextTooLong) as err:
        client.chat(
            "local:smollm2-135m", [{"role": "user", "content": "word " * 400}], GenOptions(max_tokens=4)
        ).result()
    assert "too long" in err.value.message and "DEBATE_N_CTX" in err.value.hint


def test_unknown_model_and_missing_file_are_clear(client, tmp_path):
    with pytest.raises(ModelNotFound) as err:
        client.chat("local:gpt-17", ASK).result()
    assert "qwen2.5-coder-0.5b" in err.value.hint and ".gguf" in err.value.hint
    with pytest.raises(ModelFileError, match="does not exist"):
        client.chat(f"local:{tmp_path / 'nope.gguf'}", ASK).result()
    bad = tmp_path / "garbage.gguf"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelFileError, match="could not load"):
        client.chat(f"local:{bad}", ASK).result()


def test_list_models_reports_packaged_and_user_files(tmp_path):
    rows = {r.name: r for r in LocalBackend(models={"mine": str(tmp_path / "x.gguf")}).list_models()}
    assert rows["qwen2.5-coder-0.5b"].status == "ready" and rows["qwen2.5-coder-0.5b"].license == "Apache-2.0"
    assert rows["mine"].status == "missing" and "does not exist" in rows["mine"].detail


# -- the label helper (pure) ----------------------------------------------------------------------
def test_label_helper_picks_the_discriminating_position_in_json():
    import math

    ln = math.log
    positions = [
        {'{"': ln(0.9), "{": ln(0.1)},
        {"reason": ln(0.7), "vote": ln(0.3)},
        {"No": ln(0.2), "There": ln(0.5), "The": ln(0.3)},  # free text that merely starts with "No"
        {' "': ln(0.95), '"': ln(0.05)},
        {"YES": ln(0.6), "NO": ln(0.25), " Yes": ln(0.05), "N": ln(0.05), "maybe": ln(0.05)},
    ]
    probs = label_probs_from_positions(positions, ("YES", "NO"))
    assert probs["YES"] == pytest.approx(0.65 / 0.95) and probs["NO"] == pytest.approx(0.30 / 0.95)


def test_label_helper_reads_a_label_decoded_first_at_its_own_position():
    """Vote-first answers: the label's position, even when a later sentence opens with "No" more surely."""
    import math

    ln = math.log
    positions = [
        {'{"': ln(0.9)},
        {"YES": ln(0.55), "NO": ln(0.40), "maybe": ln(0.05)},  # `{"category": "` → the label
        {'",': ln(0.9)},
        {"No": ln(0.97), "The": ln(0.03)},  # the explanation: "No scientific claim is made."
    ]
    first = label_probs_from_positions(positions, ("YES", "NO"), first=True)
    assert first["YES"] == pytest.approx(0.55 / 0.95)
    assert label_probs_from_positions(positions, ("YES", "NO"))["NO"] == pytest.approx(1.0)  # why `first` exists


def test_label_helper_multi_label_and_none():
    import math

    pos = [{"HALF": math.log(0.5), "TRUE": math.log(0.3), "NE": math.log(0.1), "F": math.log(0.1)}]
    probs = label_probs_from_positions(pos, ("TRUE", "FALSE", "HALF-TRUE", "NEI"))
    assert probs == pytest.approx({"TRUE": 0.3, "FALSE": 0.1, "HALF-TRUE": 0.5, "NEI": 0.1})
    assert label_probs_from_positions([{"hello": 0.0}], ("YES", "NO")) is None
    assert label_probs_from_positions([], ("YES", "NO")) is None


@pytest.mark.parametrize(
    "messages, options, needle",
    [
        ([], GenOptions(), "No messages"),
        ([{"role": "robot", "content": "hi"}], GenOptions(), "not a chat message"),
        ([{"role": "user"}], GenOptions(), "not a chat message"),
        (ASK, GenOptions(max_tokens=0), "max_tokens"),
        (ASK, GenOptions(temperature=-1), "temperature"),
    ],
)
def test_malformed_requests_are_refused_before_the_model(client, messages, options, needle):
    from debate.errors import InvalidInput

    with pytest.raises(InvalidInput, match=needle) as err:
        client.chat("local:smollm2-135m", messages, options).result()
    assert err.value.hint
