"""Every number on screen means one thing: votes as votes, probabilities named with their basis.

Why: a council of three whose members' P(YES) were 0.52, 0.52 and 0.67 read "YES · confidence 1.00 ·
by majority", and a RADAR verdict whose judge wrote HALF-TRUE read "FALSE · confidence 1.00" after class
weights. The formatting is tested on hand-built events (including events stored before the basis was
recorded), the protocols on scripted models, and the verdict card through Streamlit's AppTest with the
app's own rendering code.
"""

from __future__ import annotations

import pytest

from debate.events import StopCheck, Verdict
from debate.tasks import stop_confidence_words, turn_number, verdict_number
from tests.support.engine import by_type, run, scripted


@pytest.mark.parametrize(
    "fields,words",
    [
        (
            dict(label="YES", confidence=1.0, source="majority", basis="votes", votes_for=3, voters=3),
            "3 of 3 members voted YES",
        ),
        (
            dict(label="NO", confidence=2 / 3, source="majority", basis="votes", votes_for=2, voters=3),
            "2 of 3 members voted NO",
        ),
        (dict(label="YES", confidence=1.0, source="majority"), "every member voted YES"),  # stored before `basis`
        (dict(label="YES", confidence=0.6, source="majority"), "60% of the members voted YES"),
        (
            dict(
                label="FALSE",
                confidence=0.92,
                source="judge",
                basis="calibrated",
                basis_note="class weights fitted on LIAR train",
            ),
            "P(FALSE) 0.92 after class weights fitted on LIAR train",
        ),
        (dict(label="YES", confidence=0.67, source="judge", basis="probability"), "P(YES) 0.67, the judge's own"),
        (dict(label="TRUE", confidence=0.8, source="judge"), "P(TRUE) 0.80, the judge's own"),  # old, uncalibrated
        (
            dict(
                label="FALSE",
                confidence=0.62,
                source="judge",
                written_label="HALF-TRUE",
                aid="class weights fitted on LIAR train: FALSE ×12",
            ),
            "P(FALSE) 0.62 after class weights fitted on LIAR train",
        ),  # old, overruled
        (
            dict(label="FALSE", confidence=2 / 3, source="round-judge", basis="samples", votes_for=2, voters=3),
            "2 of 3 sampled answers of the round judge gave FALSE",
        ),
        (dict(label="YES", confidence=None, source="majority"), ""),
    ],
)
def test_the_verdict_number_says_what_it_is(fields, words):
    v = Verdict(**fields)
    assert verdict_number(v) == words
    assert verdict_number(v.to_dict()) == words  # the exports read stored dicts
    assert "confidence" not in words


def test_turn_and_stop_check_numbers_are_named_probabilities_or_shares():
    assert turn_number({"label": "YES", "confidence": 0.523}) == "P(YES) 0.52"
    assert turn_number({"label": None, "confidence": 0.5}) == ""
    check = StopCheck(
        round=1,
        stop_margin=0.4,
        verdict_confidence=0.83,
        tau_s=0.5,
        tau_c=0.8,
        decision="stop",
        preliminary_verdict="FALSE",
        method="logprobs",
    )
    assert stop_confidence_words(check) == "P(FALSE) 0.83"
    assert stop_confidence_words({**check.to_dict(), "method": "samples"}) == "sample share of FALSE 0.83"


def test_a_council_verdict_counts_members_not_confidence():
    client, _ = scripted(
        {"vote": '{"vote": "YES", "explanation": "e"}'}, label_probs=lambda t, o: {"YES": 0.52, "NO": 0.48}
    )
    v = by_type(run(client, protocol="council", n=3, params={"rounds": 0}), "verdict")[-1]
    assert (v.basis, v.votes_for, v.voters, v.confidence) == ("votes", 3, 3, 1.0)
    assert verdict_number(v) == "3 of 3 members voted YES"


def test_a_radar_verdict_is_the_judges_own_probability():
    client, _ = scripted(
        label_probs=lambda t, o: {"TRUE": 0.1, "FALSE": 0.7, "HALF-TRUE": 0.2} if "TRUE" in o.labels else None
    )
    events = run(client, protocol="radar", task="halftruth", category=None, params={"rounds": 0, "early_stop": False})
    v = by_type(events, "verdict")[-1]
    assert v.basis == "probability"
    assert verdict_number(v).startswith(f"P({v.label}) ") and verdict_number(v).endswith("the judge's own")


def _card_script():
    import streamlit as st

    from debate.events import Verdict
    from ui.render import render_verdict
    from ui.transcript import build_view

    render_verdict(build_view([Verdict(seq=1, **st.session_state["fields"])]))


@pytest.mark.parametrize(
    "fields,shown",
    [
        (
            dict(
                label="YES",
                confidence=1.0,
                source="majority",
                basis="votes",
                votes_for=3,
                voters=3,
                explanation="consensus at the first vote; YES: 3, NO: 0; majority vote.",
            ),
            "3 of 3 members voted YES",
        ),
        (dict(label="YES", confidence=1.0, source="majority", explanation="stored before"), "every member voted YES"),
        (
            dict(
                label="FALSE",
                confidence=0.92,
                source="judge",
                basis="calibrated",
                basis_note="class weights fitted on LIAR train",
                written_label="HALF-TRUE",
                aid="class weights fitted on LIAR train: FALSE ×12",
                probs={"TRUE": 0.03, "FALSE": 0.92, "HALF-TRUE": 0.05},
                explanation="r",
            ),
            "P(FALSE) 0.92 after class weights fitted on LIAR train",
        ),
    ],
)
def test_the_verdict_card_shows_votes_for_a_council_and_a_named_probability_for_radar(fields, shown):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_card_script, default_timeout=30)
    at.session_state["fields"] = fields
    at.run()
    assert not at.exception
    html = "\n".join(m.value for m in at.markdown)
    assert "verdict-card" in html and shown in html
    assert "confidence" not in html.lower()
    if fields.get("written_label"):  # stored before the reading was a choice: what the judge wrote is said beside it
        assert "the judge wrote HALF-TRUE; the calibration gives FALSE" in html


def test_the_markdown_and_html_exports_say_the_same():
    from debate.sharing.html import to_html
    from debate.store.debates import to_markdown

    ev = [
        {
            "type": "debate_started",
            "seq": 0,
            "debate_id": "d",
            "claim": "c",
            "protocol": "council",
            "task": "checkthat",
            "category": 1,
        },
        {
            "type": "verdict",
            "seq": 1,
            "label": "YES",
            "confidence": 1.0,
            "source": "majority",
            "basis": "votes",
            "votes_for": 2,
            "voters": 3,
            "explanation": "x",
        },
    ]
    md = to_markdown({"id": "d", "claim": "c", "protocol": "council"}, ev)
    assert "2 of 3 members voted YES" in md and "confidence" not in md.lower()
    page = to_html(ev)
    assert "2 of 3 members voted YES" in page and "confidence 1.00" not in page


def test_a_council_won_by_two_of_five_is_not_flagged_as_an_improbable_label():
    """2 of 5 members (a tie broken by the tie rule) is a vote share of 0.40, not a probability below 1/2."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_card_script, default_timeout=30)
    at.session_state["fields"] = dict(
        label="NO",
        confidence=0.4,
        source="majority",
        basis="votes",
        votes_for=2,
        voters=5,
        explanation="tie broken by the default label NO.",
    )
    at.run()
    html = "\n".join(m.value for m in at.markdown)
    assert "2 of 5 members voted NO" in html and "more probable" not in html


def test_hard_cases_carry_what_the_verdicts_number_is():
    from debate.adjudication.hardcases import decision_signals

    sig = decision_signals(
        [
            {
                "type": "verdict",
                "label": "YES",
                "confidence": 1.0,
                "source": "majority",
                "basis": "votes",
                "votes_for": 3,
                "voters": 3,
            }
        ]
    )
    assert sig["confidence"] == 1.0 and sig["number"] == "3 of 3 members voted YES"
