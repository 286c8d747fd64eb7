"""One short council on the real embedded models: the debate-against-vote event is stored and read back."""

import pytest

from debate.runner import run_debate
from debate.store import DebateStore
from tests.support.engine import by_type
from tests.support.real_cases import CLAIM, council_config

pytest.importorskip("llama_cpp")


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_real_council_stores_and_replays_its_vote_comparison(tmp_path):
    from tests.support.real_cases import prepared_client

    client = prepared_client(("local:qwen2.5-coder-0.5b",), cache=True)
    # 2 members, 1 round, 24 tokens: the same requests the other real tests make
    cfg = council_config(gold="YES", debate_id="vote-real")
    store = DebateStore(tmp_path / "debates.sqlite")
    store.create_debate({"claim": CLAIM, "protocol": "council", "task": "checkthat", "gold": "YES"}, "vote-real")
    for ev in run_debate(cfg, client):
        store.append_event("vote-real", ev)
    stored = store.events("vote-real")
    assert stored[-1].type == "finished" and stored[-1].status == "completed"
    (cmp,) = by_type(stored, "vote_comparison")
    first = by_type(stored, "votes_tallied")[0]
    verdict = by_type(stored, "verdict")[-1]
    # what was stored is what the real first votes and verdict say
    assert cmp.first_votes == first.votes and len(cmp.first_votes) == 2
    assert cmp.debate_label == verdict.label and cmp.vote_label in ("YES", "NO")
    assert cmp.changed == (cmp.vote_label != verdict.label) and cmp.gold == "YES"
    assert cmp.outcome in ("unanimous", "stood", "changed")
    changed = [r["id"] for r in store.list(vote_outcome="changed")]
    assert changed == (["vote-real"] if cmp.changed else [])
