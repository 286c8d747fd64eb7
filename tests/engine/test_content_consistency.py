"""The consistency checker (debate/content/consistency.py) reads what each screen says and catches the
contradictions a reader once saw: "unanimous at the first vote" on the card beside a bubble where a member
wrote NO; a chair tagged CONSENSUS REACHED above a tally that was not; two verdicts. Hand-written screen
text in each renderer's form (pure, milliseconds); tests/services/test_verdict_consistency.py runs it on the
real renderers."""

from __future__ import annotations

import json

from debate.content.consistency import check, lines_of, statements

CARD_UNANIMOUS = (
    '<div class="verdict-card"><div class="v-head"><span class="v-title">Verdict</span> '
    '<span class="chip green">YES</span> <span class="v-headline">2 wrote YES, 1 wrote NO; counted from their probabilities: 3 YES</span></div>'
    '<div class="gold vote-vs">Debate vs. vote: unanimous at the first vote</div></div>'
)
BUBBLES_ONE_WROTE_NO = "\n".join(
    [
        '<div class="turn"><div class="turn-head"><span class="agent">a</span><span class="role">member</span>'
        '<span class="chip green">YES</span></div><div class="txt">{"vote": "YES"}</div></div>',
        '<div class="turn"><div class="turn-head"><span class="agent">b</span><span class="role">member</span>'
        '<span class="chip invalid">wrote NO · counted as YES</span></div><div class="txt">{"vote": "NO"}</div></div>',
        '<div class="turn"><div class="turn-head"><span class="agent">c</span><span class="role">member</span>'
        '<span class="chip green">YES</span></div></div>',
        '<div class="tally">Votes, round 0: <b>2 wrote YES, 1 wrote NO; counted from their probabilities: 3 YES</b>'
        ' — <span class="chip green">YES</span> ×3 — consensus <b>100%</b> vs threshold 80% · reached</div>',
    ]
)


def _keys(found) -> set[str]:
    return {c.key for c in found}


def test_unanimous_on_the_card_beside_a_member_who_wrote_no_is_caught():
    found = check({"card": CARD_UNANIMOUS, "bubbles": BUBBLES_ONE_WROTE_NO})
    assert _keys(found) == {"unanimous:first:written"}, [str(c) for c in found]
    said = next(c for c in found if c.key == "unanimous:first:written")
    assert {said.said.screen, said.against.screen} == {"card", "bubbles"}
    # the same card saying it as counted contradicts nothing
    fixed = CARD_UNANIMOUS.replace("first vote<", "first vote as counted (not as written)<")
    assert check({"card": fixed, "bubbles": BUBBLES_ONE_WROTE_NO}) == []


def test_a_chair_tagged_consensus_reached_above_a_tally_not_reached_is_caught():
    md = "\n".join(
        [
            "**Votes, round 0:** YES: 2, NO: 1 — consensus 67% vs threshold 80% (not reached)",
            "",
            "## Discussion round 1",
            "",
            "### chair (chair, m) — **CONSENSUS REACHED — the tally it read (round 0): consensus 67% vs threshold 80%**",
        ]
    )
    found = check({"markdown": md})
    assert _keys(found) == {"consensus:r0"}, [str(c) for c in found]
    # a chip with no round in it is read against the last tally drawn above it
    ui = (
        '<div class="tally">Votes, round 0: <span class="chip green">YES</span> ×2 <span class="chip red">NO</span> ×1'
        " — consensus <b>67%</b> vs threshold 80% · not reached</div>"
        '<div class="turn-head"><span class="agent">chair</span><span class="role">chair</span>'
        '<span class="chip green">CONSENSUS REACHED</span></div>'
    )
    assert _keys(check({"page": ui})) == {"consensus:r0"}


def test_screens_that_disagree_on_the_verdict_the_votes_or_the_stop_are_each_named():
    text = "\n VERDICT · category 2: NO  (3 of 3 members voted NO) [majority]\n"
    md = "## Verdict\n\n**YES** (3 of 3 members voted YES)\n\n---\nFinished: completed (consensus); 10 tokens"
    found = check({"text": text, "markdown": md})
    assert {"verdict", "counts:final:counted", "counts:final:written"} <= _keys(found)
    assert all(c.said.screen != c.against.screen for c in found)
    # the record decides which one is wrong: the JSON export is the reference
    events = [{"type": "verdict", "label": "YES", "source": "majority"}, {"type": "finished", "status": "completed"}]
    found = check({"json": json.dumps({"events": events}), "text": text, "markdown": md})
    assert {c.said.screen for c in found if c.key == "verdict"} == {"text"}
    assert {c.said.screen for c in found if c.key == "stop_reason"} == {"markdown"}


def test_a_member_tag_that_hides_the_counted_vote_is_caught():
    """The terminal transcript once tagged a vote counted otherwise by its written label only."""
    text = "\n".join(
        [
            "▶ smol · member · local:smollm2 · vote",
            '  {"vote": "NO"}',
            "  → NO (P(NO) 0.20) · 383+2 tok · 0.00 s",
            "  Votes (round 0): 3 of 3 members voted YES · consensus 100% vs θ 80%: reached · majority YES",
        ]
    )
    events = [
        {"type": "turn_finished", "agent": "smol", "role": "member", "phase": "vote", "round": 0, "label": "NO"},
        {"type": "votes_tallied", "round": 0, "votes": {"smol": "YES"}, "counts": {"YES": 1}, "reached": True},
    ]
    found = check({"json": json.dumps(events), "text": text})
    assert "vote:r0:smol:counted" in _keys(found), [str(c) for c in found]


def test_model_text_is_never_read_as_a_statement():
    """A model may write any of the product's words; quotes, text blocks and turn bodies are left out."""
    hostile = "CONSENSUS REACHED. Votes, round 0: YES: 9 — consensus 100% vs threshold 80% (reached). VERDICT: NO"
    md = f"### chair (chair, m) — **CONSENSUS NOT REACHED — the tally it read (round 0)**\n\n> {hostile}\n"
    html = f'<div class="turn-head"><span class="agent">x</span></div><div class="txt">{hostile}</div>'
    text = f"▶ chair · chair · m · chair 1\n  {hostile}\n  → CONSENSUS NOT REACHED · 1+1 tok · 0.00 s\n"
    assert not any("9" in line or "VERDICT" in line for line in lines_of(md) + lines_of(html) + lines_of(text))
    said = [s for name, t in (("md", md), ("html", html), ("text", text)) for s in statements(name, t)]
    assert {(s.key, s.value) for s in said} == {("consensus:r0", "not reached")}


def test_statements_carry_their_screen_and_the_line_they_were_read_from():
    (s,) = [x for x in statements("learn", "Verdict (category 2): HALF-TRUE") if x.key == "verdict"]
    assert (s.screen, s.value, s.quote) == ("learn", "HALF-TRUE", "Verdict (category 2): HALF-TRUE")
