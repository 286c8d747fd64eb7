"""Parsing of model answers: strict formats first, lenient fallbacks, never a label from prose."""

import pytest

from debate.protocols.parsing import (
    parse_chair,
    parse_citations,
    parse_domain,
    parse_label,
    parse_stop,
    parse_verdict,
    split_think,
)

YN = ("YES", "NO")
HT = ("TRUE", "FALSE", "HALF-TRUE")
HT4 = HT + ("NEI",)


@pytest.mark.parametrize(
    "text,label",
    [
        ('{"vote": "YES", "explanation": "x"}', "YES"),
        ('Some analysis.\n```json\n{"vote": "no", "explanation": "x"}\n```\nThanks!', "NO"),
        ('I think... {"vote": "Yes", "explanation": "has a study"} and that is all', "YES"),
        ('{"category": 1, "explanation": "x"}', "YES"),
        ('{"category": 0, "explanation": "x"}', "NO"),
        ('{"category": "1"}', "YES"),
        ('{"vote": "YES", "explanation": "cut off mid-sent', "YES"),  # json_repair
        ("{'vote': 'NO', 'explanation': 'single quotes'}", "NO"),  # json_repair
        ("Arguments here.\nVOTE: YES", "YES"),
        ("vote: no", "NO"),
        ("**VOTE:** [NO]", "NO"),
        ("VOTE - YES.", "YES"),
        ("Yes", "YES"),
        ("NO.", "NO"),
    ],
)
def test_yes_no_formats(text, label):
    r = parse_label(text, YN)
    assert r.ok and r.label == label


@pytest.mark.parametrize(
    "text",
    [
        "The tweet could be yes or no depending on context.",  # labels in prose are not answers
        "Conclude with your vote: VOTE: [YES/NO].",  # an echoed format line is not a vote
        "",
        '{"explanation": "forgot the vote"}',
        '{"vote": "MAYBE"}',
    ],
)
def test_unreadable_is_not_a_label(text):
    assert not parse_label(text, YN).ok


def test_json_beats_line_and_last_json_wins():
    assert parse_label('VOTE: YES\n{"vote": "NO"}', YN).label == "NO"
    assert parse_label('{"vote": "YES"} then revised {"vote": "NO", "explanation": "e"}', YN).label == "NO"
    r = parse_label('{"vote": "YES", "explanation": "because"}', YN)
    assert r.method == "json" and r.data["explanation"] == "because"


@pytest.mark.parametrize(
    "text,label",
    [
        ("[REASON]: omits 2012 [E3].\n[VERDICT]: HALF-TRUE", "HALF-TRUE"),
        ("[REASON]: ok\n[VERDICT]: half true", "HALF-TRUE"),
        ("[VERDICT]: Half-True", "HALF-TRUE"),
        ("**[VERDICT]:** FALSE", "FALSE"),
        ("VERDICT: TRUE", "TRUE"),
        ('{"verdict": "HALF_TRUE"}', "HALF-TRUE"),
        ("[VERDICT]: TRUE / FALSE / HALF-TRUE\n[VERDICT]: FALSE", "FALSE"),  # echoed options skipped
    ],
)
def test_radar_verdicts(text, label):
    r = parse_verdict(text, HT)
    assert r.label == label


def test_verdict_reason_and_nei():
    r = parse_verdict("[REASON]: Evidence [E1] is silent.\n[VERDICT]: NEI", HT4)
    assert r.label == "NEI" and r.data["explanation"] == "Evidence [E1] is silent."
    assert parse_verdict("[VERDICT]: not enough evidence", HT4).label == "NEI"
    assert not parse_verdict("[VERDICT]: NEI", HT).ok  # NEI only exists for AVeriTeC


def test_think_is_split_off_and_never_parsed():
    text = '<think>The answer is VOTE: YES, surely.</think>\n{"vote": "NO"}'
    answer, reasoning = split_think(text)
    assert answer == '{"vote": "NO"}' and "surely" in reasoning
    assert parse_label(text, YN).label == "NO"
    # only reasoning, no answer (cut off while thinking): not a vote
    assert not parse_label("<think>VOTE: YES maybe", YN).ok
    # Qwen3 chat templates may drop the opening tag
    assert split_think("thinking VOTE: YES</think>VOTE: NO") == ("VOTE: NO", "thinking VOTE: YES")


def test_stop_domain_chair_citations():
    assert parse_stop("DECISION: STOP").label == "STOP"
    assert parse_stop("I would say\nDECISION: continue").label == "CONTINUE"
    assert not parse_stop("Maybe we should stop or continue.").ok
    assert parse_domain("DOMAIN: Economy") == "Economy"
    assert parse_domain("**DOMAIN:** Public health\nbecause...") == "Public health"
    assert parse_domain("Health") == "Health"
    assert parse_domain("I am not sure about this one") is None
    assert parse_chair('{"status": "CONSENSUS NOT REACHED", "summary": "Focus on the URL."}') == {
        "status": "CONSENSUS NOT REACHED",
        "summary": "Focus on the URL.",
    }
    assert parse_chair("no json here") is None
    assert parse_citations("As [E3] and [E1, E12] show, and [E3] again; [e2]. <think>[E9]</think>") == [
        "E3",
        "E1",
        "E12",
        "E2",
    ]
    assert parse_citations("<think>[E9]</think> no cites") == []


def test_an_explanation_written_as_a_list_reads_as_sentences():
    """The single debate's 0.5B judge wrote `"explanation": ["…"]`: the card showed `["The tweet …`."""
    from debate.protocols.parsing import parse_label

    r = parse_label('{"category": 0, "explanation": ["It names no study.", "Only a link."]}', ("YES", "NO"))
    assert r.label == "NO" and r.data["explanation"] == "It names no study. Only a link."
    r = parse_label('{"category": 1, "explanation": {"a": "A study.", "b": ["In Nature."]}}', ("YES", "NO"))
    assert r.data["explanation"] == "A study. In Nature."
    # cut inside the list (the answer ran out of tokens): the repaired JSON still reads as words
    r = parse_label('{"category": 0, "explanation": ["It names no study. It is a direct', ("YES", "NO"))
    assert r.label == "NO" and not r.data["explanation"].startswith("["), r.data


def test_a_stored_reason_that_is_a_cut_list_shows_its_words():
    """Debates stored before the parser joined lists hold `["The tweet … studies.` (a list cut short): every
    view shows the words, without the bracket and the quote."""
    from debate.view import prose

    assert prose('["The tweet names no study. It is a direct') == "The tweet names no study. It is a direct"
    assert prose('["A.", "B."]') == "A. B."
    assert prose("It cites [E1] twice.") == "It cites [E1] twice."  # a bracket inside the words stays


def test_a_line_break_inside_a_json_string_does_not_lose_the_label():
    """The 0.5B judge, decoded under its schema, wrote its reason over lines (raw line breaks inside the JSON
    string, which strict JSON refuses): the category it wrote after it is still read."""
    from debate.protocols.parsing import parse_label

    text = '{"explanation": "The tweet names entities, including:\n\n  1. " ,"category": 0}'
    r = parse_label(text, ("YES", "NO"))
    assert r.label == "NO" and r.data["explanation"].startswith("The tweet names entities, including:")
