"""The view folded from events, and the text-only rendering of model output (pure, no Streamlit)."""

from __future__ import annotations

import json

from debate.events import (
    ChairSummary,
    DebateFinished,
    DebateStarted,
    EvidenceRetrieved,
    PhaseStarted,
    StopCheck,
    TokenDelta,
    TurnFinished,
    TurnStarted,
    Verdict,
    VotesTallied,
)
from ui.safe import anchor, escape, text_html
from ui.transcript import DebateView, build_view, split_reasoning


def _events():
    evs = [
        DebateStarted(debate_id="d", protocol="council", claim="c", lineup=[{"agent": "B"}, {"agent": "A"}]),
        EvidenceRetrieved(passages=[{"id": "E1", "text": "p", "score": 0.5, "source": "s"}]),
        PhaseStarted(phase="vote", round=0, title="Initial votes"),
        TurnStarted(turn_id="t1", agent="A", role="member", model="m"),
        TurnStarted(turn_id="t2", agent="B", role="member", model="m"),
        TokenDelta(turn_id="t1", agent="A", text="<think>hmm", t=1.0),
        TokenDelta(turn_id="t2", agent="B", text="Yes [E1]", t=1.2),
        TokenDelta(turn_id="t1", agent="A", text="</think>No", t=1.5),
        TurnFinished(
            turn_id="t1",
            agent="A",
            role="member",
            model="m",
            text="No",
            reasoning="hmm",
            label="NO",
            completion_tokens=3,
            prompt_tokens=10,
        ),
        VotesTallied(round=0, votes={"A": "NO", "B": None}, counts={"NO": 1}, consensus_share=0.5),
        ChairSummary(round=1, agent="C", summary="s"),
        StopCheck(round=1, stop_margin=0.6, verdict_confidence=0.9, tau_s=0.5, tau_c=0.8, decision="stop"),
        Verdict(label="NO", explanation="e"),
        DebateFinished(
            status="completed", prompt_tokens=20, completion_tokens=5, model_calls=3, cache_hits=1, wall_s=2.0
        ),
    ]
    for i, e in enumerate(evs):
        e.seq = i
    return evs


def test_fold_builds_sections_turns_and_totals():
    evs = _events()
    view = build_view(evs[:8])
    assert [s.title for s in view.sections] == ["Initial votes"]
    a, b = view.turns["t1"], view.turns["t2"]
    assert a.display() == ("hmm", "No", False) and b.display() == ("", "Yes [E1]", False)
    assert view.cited() == {"E1"} and view.first_token_t() == 1.0
    assert view.colors["B"] != view.colors["A"] and list(view.colors)[:2] == ["B", "A"]  # lineup order
    assert view.status == "running" and view.counters()["tokens"] == 2 + 1  # deltas so far
    view.extend(evs[8:])
    assert a.done and a.label == "NO" and a.tokens == 3
    kinds = [k for k, _ in view.sections[0].items]
    assert kinds == ["turn", "turn", "votes_tallied", "chair_summary", "stop_check", "verdict"]  # in stream order
    assert view.verdict.label == "NO" and view.status == "completed"
    assert view.counters() == {"tokens": 25, "model_calls": 3, "cache_hits": 1, "elapsed": 2.0}


def test_fold_is_idempotent_and_incremental():
    evs = _events()
    whole = build_view(evs)
    parts = DebateView().extend(evs[:5]).extend(evs[3:])  # overlap is ignored
    assert parts.turns["t1"].text == whole.turns["t1"].text and parts.n_events == whole.n_events


def test_split_reasoning_while_streaming():
    assert split_reasoning("<think>abc") == ("abc", "", True)
    assert split_reasoning("<think>abc</think> answer") == ("abc", "answer", False)
    assert split_reasoning("plain <think> not at start") == ("", "plain <think> not at start", False)


def test_model_text_becomes_inert_html():
    out = text_html("<script>alert(1)</script> **b** $x$ :smile: [E1] [E9]\n\nnext", debate_id="d 1", known={"E1"})
    assert "<script" not in out and "&#60;script&#62;" in out
    assert "**" not in out and "$" not in out.replace("&#36;", "") and ":smile:" not in out
    assert f'<a class="cite" href="#{anchor("d 1", "E1")}">&#91;E1&#93;</a>' in out
    assert "cite missing" in out  # E9 is no passage
    assert "\n" not in out and out.count("<br>") == 2 and out.startswith('<div class="txt">')
    assert escape("a&b") == "a&#38;b" and anchor("d 1", "E1") == "ev-d1-E1"


def test_a_vote_counted_from_probabilities_is_shown_beside_the_written_label():
    """Small-model aids: a council member voting by its threshold may be counted as the label it did not write;
    its bubble says so (a student reading the transcript would otherwise see the tally contradict it)."""
    from ui.render import _header_html

    evs = [
        TurnStarted(turn_id="t1", agent="A", role="member", model="m", phase="vote", round=0),
        TurnStarted(turn_id="t2", agent="B", role="member", model="m", phase="vote", round=0),
        TurnFinished(turn_id="t1", agent="A", role="member", phase="vote", round=0, text="{}", label="YES"),
        TurnFinished(turn_id="t2", agent="B", role="member", phase="vote", round=0, text="{}", label="NO"),
        VotesTallied(round=0, votes={"A": "NO", "B": "NO"}, counts={"NO": 2}, consensus_share=1.0),
    ]
    for i, e in enumerate(evs):
        e.seq = i
    view = build_view(evs)
    assert view.turns["t1"].counted == "NO" and view.turns["t2"].counted is None
    assert "counted as NO" in _header_html(view.turns["t1"], "#000")
    assert "counted as" not in _header_html(view.turns["t2"], "#000")


def test_a_members_sentence_said_again_is_shown_once_and_pointed_to():
    """A council member whose vote in a later round repeats, with the same label, the sentence of an earlier
    round's vote (its own first, else another member's) shows where that reason was given instead of the
    sentence again; a vote of the same round written alike, or a new sentence, or another label, is shown
    as written. Every view reads it from TurnView.words (the page, Markdown, HTML, the terminal)."""
    from debate.sharing.markdown import to_markdown

    same = "The tweet does not contain any scientific claims, research findings, or scientific phenomena."
    other = "The tweet links to a news story about a clinical trial of a new heart drug in Boston."

    def vote(tid, agent, rnd, label, said):
        parsed = {"vote": label, "explanation": said}
        text = json.dumps(parsed)
        started = TurnStarted(turn_id=tid, agent=agent, role="member", model="m", round=rnd)
        done = TurnFinished(
            turn_id=tid, agent=agent, role="member", model="m", round=rnd, text=text, label=label, parsed=parsed
        )
        return [started, done]

    evs = [DebateStarted(debate_id="d", protocol="council", claim="c", lineup=[{"agent": "a"}, {"agent": "b"}])]
    evs += vote("a0", "a", 0, "NO", same) + vote("b0", "b", 0, "NO", same)  # alike, at once: not a copy
    evs += vote("a1", "a", 1, "NO", same) + vote("b1", "b", 1, "YES", same) + vote("c1", "c", 1, "NO", same)
    evs += vote("a2", "a", 2, "NO", other)
    v = build_view(evs)
    words = {tid: v.turns[tid].words() for tid in ("a0", "b0", "a1", "b1", "c1", "a2")}
    assert words["a0"] == same and words["b0"] == same
    assert words["a1"] == "NO, for the same reason as its own first vote."
    assert words["b1"] == same  # another label: its sentence is its argument for it
    assert words["c1"] == "NO, for the same reason as a's first vote."
    assert words["a2"] == other
    md = to_markdown({"id": "d", "claim": "c", "protocol": "council"}, evs)
    assert md.count(same) == 3 and "for the same reason as its own first vote" in md
