"""Councils on the real models: each member reads its own slice of the nearest train tweets and votes by
the threshold fitted for that slice (a few tokens per answer, no discussion round). The default embedded
council, and the candidate whose third member reads the 5th-8th nearest tweets (distinct slices)."""

from __future__ import annotations

import pytest

from debate.aids.demos import similar_demos
from debate.lineups import load_lineup
from debate.protocols import resolve_agents
from debate.runner import DebateConfig, run_debate
from tests.support.engine import by_type

llama_cpp = pytest.importorskip("llama_cpp")
LINEUPS = ("embedded", "assets/lineups/council-candidates/c-qwen-far-third.json")
CLAIM = "New study in Nature shows that drinking coffee lowers the risk of heart disease by 20% https://t.co/x"


@pytest.fixture(scope="module")
def client():
    from tests.support.real_cases import prepared_client

    return prepared_client({a.model for lu in LINEUPS for a in resolve_agents(load_lineup(lu), "council")}, cache=False)


@pytest.mark.real_model
@pytest.mark.timeout(900)
@pytest.mark.parametrize("lineup", LINEUPS)
def test_council_members_read_their_own_slices_and_vote_by_their_thresholds(client, monkeypatch, lineup):
    asked: list[tuple[str, list]] = []
    chat = client.chat

    def recording(model, messages, options):
        asked.append((str(model), messages))
        return chat(model, messages, options)

    monkeypatch.setattr(client, "chat", recording)
    params = {"demos": "dialogue", "k_demos": 8, "calibration": "threshold", "vote_from": "probs", "rounds": 0}
    events = list(
        run_debate(
            DebateConfig(
                claim=CLAIM,
                protocol="council",
                task="checkthat",
                category=1,
                lineup=lineup,
                params=params,
                max_tokens=8,
            ),
            client,
        )
    )
    assert events[-1].status == "completed", [e.message for e in by_type(events, "error")]
    members = [a for a in resolve_agents(load_lineup(lineup), "council") if a.role == "member"]
    first = by_type(events, "votes_tallied")[0]
    assert set(first.votes) == {m.agent for m in members} and set(first.votes.values()) <= {"YES", "NO"}
    assert by_type(events, "verdict")[-1].label in ("YES", "NO")
    for m, (model, messages) in zip(members, asked):
        want = [d.text.strip() for d in similar_demos(CLAIM, "checkthat", 1, m.k_demos or 8, m.demo_skip)]
        shown = [x["content"].removeprefix("Tweet: ") for x in messages[1:-1] if x["role"] == "user"]
        assert model == m.model and shown == want, m.agent
    if lineup != "embedded":  # the third member reads the 5th-8th nearest: the first member's first four turns
        assert _texts(asked[2][1]) == _texts(asked[0][1])[:4] and len(_texts(asked[2][1])) == 4


def _texts(messages: list) -> list[str]:
    return [x["content"] for x in messages[1:-1] if x["role"] == "user"]
