"""A turn that copies its answer format's placeholder: found on the models' own words, recorded by the
engine, said on every sink instead of being shown as the member's reason."""

from __future__ import annotations

import time

from debate import prompts
from debate.content.echo import echoed_format, placeholders
from debate.content.score import score_debate, summarise
from debate.sharing.html import to_html
from debate.transcript import render_text
from tests.support.engine import by_type, run, scripted

MEMBER_FORMAT = prompts.get("turquaz.council.member").text
PLACEHOLDER = "Brief explanation of your decision, including which arguments you found most compelling"

# SmolLM2-135M's discussion votes in the content benchmark's council runs (bench/results), word for word
SMOL_ECHOES = (
    '{ "vote": "YES","explanation": "Brief explanation of your decision, including which arguments you found most'
    ' compelling }} }} } } } } } } } } } } } } }}."}',
    '{"vote": "YES","explanation": "Brief explanation of your decision, including which arguments you found most '
    "compelling}  #POPP9553913669720192129271734579466259290788164948473703136769916774819398729824486083899917190724675",
    '{ "vote": "YES", "explanation": "Brief explanation of your decision, including which arguments you found most'
    ' compelling." }',
)
# answers of the same runs that give a reason of their own
OWN_REASONS = (
    '{"vote": "NO", "explanation": "The tweet does not mention any scientific entities, and it does not include '
    'any links to academic publications."}',
    '{"category": "NO","explanation":"u have been adding new things to u already."}',
    '{"status": "CONSENSUS REACHED", "summary": "Brief summary of the discussion: the members agree the tweet '
    'links a Nature study and quotes its authors."}',
)


def test_the_papers_formats_hold_placeholders_and_template_variables_are_not_ones():
    assert placeholders(MEMBER_FORMAT) == [PLACEHOLDER]
    assert "<your reason in one short sentence>" not in placeholders('"explanation": "{reason}"')
    assert placeholders('{"explanation": "<your reason in one short sentence>"}') == [
        "your reason in one short sentence"
    ]
    # the evidence fence's delimiters are not placeholders
    assert placeholders("<data 5f0c2a> quoted </data 5f0c2a>") == []


def test_copies_of_the_placeholder_are_found_and_answers_of_their_own_are_not():
    every_format = "\n".join(t.text for t in prompts.templates().values())
    for text in SMOL_ECHOES:
        assert echoed_format(text, MEMBER_FORMAT) == PLACEHOLDER, text
        assert echoed_format(text, every_format) == PLACEHOLDER, text
    for text in OWN_REASONS:
        assert echoed_format(text, every_format) == "", text


def test_echo_detection_is_bounded_on_hostile_text():
    hostile = "brief explanation of your decision, " * 50_000
    t0 = time.perf_counter()
    assert echoed_format(hostile, MEMBER_FORMAT) == ""  # far more than a placeholder: not a copy of one
    assert time.perf_counter() - t0 < 2.0


def test_the_engine_records_the_copy_and_every_sink_says_no_reason_was_given():
    echo = '{"vote": "YES", "explanation": "' + PLACEHOLDER + '"}'
    client, _ = scripted({"vote": echo})
    events = run(client, "council", params={"rounds": 1})
    votes = [e for e in by_type(events, "turn_finished") if e.role == "member"]
    assert votes and all(e.echoed_format == PLACEHOLDER for e in votes)
    rows = score_debate([e.to_dict() for e in events])
    assert summarise(rows)["echoed_format"] == (len(votes), len(rows))
    text = render_text(events)
    assert "copied the answer format's placeholder" in text
    html = to_html(events)
    assert "copied the answer format" in html and "placeholder" in html


def test_a_reason_of_its_own_is_not_marked():
    client, _ = scripted()
    events = run(client, "council", params={"rounds": 1})
    assert all(not e.echoed_format for e in by_type(events, "turn_finished"))
