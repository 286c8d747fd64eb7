"""The openai: backend against llama.cpp's own `llama-server` on loopback (built by `make llama-server`
from the llama.cpp the pinned llama-cpp-python vendors; the module skips without it), and the property
the benchmarks rely on: with `--no-cache-prompt` a prompt gets the same answer, to the last logprob,
whatever request came before it."""

from __future__ import annotations

import pytest

from debate.models import packaged
from debate.models.base import GenOptions
from debate.models.registry import default_client
from tests.support.servers import LLAMA_SERVER_BIN, start_llama_cpp_native

pytestmark = pytest.mark.skipif(
    not LLAMA_SERVER_BIN.exists(), reason=f"{LLAMA_SERVER_BIN} not built (`make llama-server`)"
)

SYSTEM = "You are the judge of a fact-checking debate. Answer TRUE or FALSE, then one sentence of reason. " * 2
CLAIM = (
    "Claim: The Great Wall of China is visible from space with the naked eye. Evidence: astronauts on the "
    "International Space Station report they could not see it without a lens. "
    * 3
    + "Answer with [VERDICT]: TRUE or FALSE."
)
BEFORE = [
    "Claim: Coffee drinkers live longer. Evidence: one cohort study found a small association. " * 4,
    CLAIM[: len(CLAIM) // 2],  # shares half of the prompt: the cache would resume in its middle
    "Tell me a joke about cats.",
]


def ask(user: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = start_llama_cpp_native(
        packaged.ensure_model("smollm2-135m"), "smollm2", tmp_path_factory.mktemp("llama-cpp"), n_ctx=1024
    )
    yield srv
    srv.stop()


@pytest.mark.timeout(300)
def test_streams_and_reads_label_probabilities(server):
    client = default_client(cache=False)
    stream = client.chat(
        f"openai:smollm2@{server.url}", ask(CLAIM), GenOptions(max_tokens=24, labels=("TRUE", "FALSE"))
    )
    pieces = list(stream)
    res = stream.result()
    assert pieces and "".join(pieces) == res.text and res.text.strip()
    assert res.model_id == "smollm2" and res.completion_tokens >= 1
    assert set(res.label_probs) == {"TRUE", "FALSE"}
    assert sum(res.label_probs.values()) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.timeout(300)
def test_a_prompt_gets_the_same_answer_whatever_came_before(server):
    """The probabilities of the first tokens, exactly, after three different requests and after itself."""
    import openai

    raw = openai.OpenAI(base_url=server.url, api_key="none")

    def first_tokens(user: str) -> list:
        r = raw.chat.completions.create(
            model="smollm2", messages=ask(user), temperature=0, max_tokens=6, logprobs=True, top_logprobs=5
        )
        return [
            (t.token, t.logprob, [(a.token, a.logprob) for a in t.top_logprobs]) for t in r.choices[0].logprobs.content
        ], r.choices[0].message.content

    reference = first_tokens(CLAIM)
    after = []
    for other in [*BEFORE, CLAIM]:
        first_tokens(other)
        after.append(first_tokens(CLAIM))
    assert reference[0], "the server returned no logprobs"
    assert all(a == reference for a in after), [a[1] for a in after]
