"""RADAR's `shared_evidence` (the live-demo pace): the claim and the passages lead every prompt, once,
identical across roles, so llama.cpp's prefix reuse evaluates the pool once per model; the paper's
layout (off) is untouched. Scripted models: this is prompt assembly, not model behaviour."""

from __future__ import annotations

from debate.live import pace
from tests.support.engine import FakeRetriever, lineup, run, scripted


def _prompts(shared: bool) -> list[list[dict]]:
    client, backend = scripted()
    run(
        client,
        "radar",
        task="halftruth",
        category=None,
        retriever=FakeRetriever(3),
        lineup=lineup(3),
        params={"rounds": 1, "shared_evidence": shared},
    )
    return [c["messages"] for c in backend.calls]


def test_the_pool_leads_every_prompt_once_and_identically():
    calls = _prompts(True)
    assert len(calls) >= 5
    leads = {m[0]["content"].split("\n\n", 1)[0] for m in calls}
    assert leads == {"Claim: A new study at https://nature.com/articles/x shows coffee helps."}
    for msgs in calls:
        text = "\n".join(m["content"] for m in msgs)
        assert msgs[0]["role"] == "system" and text.count("Passage 2 about the claim.") == 1
    prefixes = {m[0]["content"][: m[0]["content"].index("Passage 3 about the claim.")] for m in calls}
    assert len(prefixes) == 1  # the same leading text for the judge, the stop agent and every debater


def test_off_keeps_the_papers_layout():
    calls = _prompts(False)
    assert not any(m[0]["content"].startswith("Claim:") for m in calls)
    assert all("Passage 2 about the claim." in m[-1]["content"] for m in calls if "Evidence" in m[-1]["content"])


def test_the_demo_pace_switches_it_on_with_fewer_passages():
    assert pace.overrides("demo", "radar")["shared_evidence"] is True and pace.top_k("demo") < pace.top_k("paper")
    assert "shared_evidence" not in pace.overrides("paper", "radar")


def test_the_demo_pace_argues_one_round_without_stop_checks_and_says_so():
    from debate.protocols import PROTOCOLS

    assert pace.overrides("demo", "radar") == {
        "rounds": 1,
        "early_stop": False,
        "shared_evidence": True,
        "answer_sentences": 3,
    }
    assert pace.overrides("paper", "radar") == {}  # the papers' setting: the pace toggle off
    line = pace.describe("demo", "radar", dict(PROTOCOLS["radar"].params))
    assert "rounds 1 (paper: 3)" in line and "early_stop False (paper: True)" in line and "6 evidence passages" in line
