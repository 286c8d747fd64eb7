"""The content measures (debate/content): sentence ends, loops, script, unsupported figures, scoring."""

from __future__ import annotations

import time

from debate.content.figures import figures, unsupported
from debate.content.score import label_not_argmax, score_debate, summarise, unexplained
from debate.content.script import off_script, token_allowed
from debate.content.sentences import LoopWatch, ends_mid_sentence, find_loop, last_full_sentence


def test_last_full_sentence_keeps_decimals_initials_and_quotes():
    text = 'Unemployment fell to 3.4 percent in the U.S. economy. J. Smith said "it works." The study was'
    assert last_full_sentence(text) == 'Unemployment fell to 3.4 percent in the U.S. economy. J. Smith said "it works."'
    assert ends_mid_sentence(text)
    assert not ends_mid_sentence(last_full_sentence(text))
    assert last_full_sentence("no full stop at all") == "no full stop at all"


def test_json_answers_and_blank_lines_count_as_ended():
    assert not ends_mid_sentence('{"vote": "YES", "explanation": "It cites a study."}')
    assert ends_mid_sentence('{"vote": "YES", "explanation": "It cites')
    assert last_full_sentence("Point one\n\nPoint two is") == "Point one"


def test_loop_watch_cuts_at_the_repeated_sentence():
    text = "I will not present your logic. This is the final position. This is the final position. More"
    cut, why = find_loop(text)
    assert text[:cut].rstrip() == "I will not present your logic. This is the final position."
    assert "sentence" in why
    assert find_loop("The claim is false. The evidence says otherwise. Therefore it is false.") is None


def test_loop_watch_finds_a_repeated_long_word_run_without_full_stops():
    run = "the rate of sea level rise is one foot per ten years according to the data we have seen so far and "
    text = "Opening words here, " + run + run
    cut, why = find_loop(text)
    assert "words" in why and text[:cut] == "Opening words here, " + run


def test_loop_watch_finds_hyphen_joined_runs():
    text = (
        '{"category": "NO", "explanation": "how-in-the-world/' + "excessive-medical-and-nonprofits-and-health-"
        "defenses-" * 4 + '"}'
    )
    assert find_loop(text) is not None


def test_loop_watch_streams_in_pieces_and_is_linear():
    w = LoopWatch()
    pieces = ["This sentence is long enough ", "to count. ", "This sentence is long enough to", " count. x"]
    assert [w.feed(p) for p in pieces][-1]
    big = "word " * 200_000  # a one-word loop far longer than any answer: still one pass
    t = time.perf_counter()
    assert find_loop(big) is not None
    assert time.perf_counter() - t < 5
    t = time.perf_counter()
    assert find_loop("x" * 1_000_000) is None  # no word end, no sentence end: bounded buffers
    assert time.perf_counter() - t < 5


def test_off_script_characters():
    assert off_script("presented in a neutral,客观") == ["客", "观"]
    assert off_script("Привет world") == list("Привет")
    assert off_script("Café, naïve — 25 % of €3… “quoted” ✓ 😀") == []
    assert token_allowed(" the") and token_allowed("\ufffd") and not token_allowed("客观")


def test_figures_and_their_sources():
    text = (
        "Unemployment fell from 3.4 percent to 3.0 percent since 1969, costing $5 million; "
        "two studies [E1] on COVID-19 with Qwen2.5 and 3 reasons."
    )
    assert [f.value for f in figures(text)] == ["3.4", "3", "1969", "5"]
    assert [f.text for f in unsupported(text, ["Unemployment was 3.0% in 1969."])] == ["3.4 percent", "$5"]
    assert [f.value for f in figures("3,000 people and 25% and 1,5 litres")] == ["3000", "25", "1.5"]
    assert unsupported("225,000 people dead", ["More than 225000 people"]) == []


def test_label_not_argmax():
    assert label_not_argmax("HALF-TRUE", {"FALSE": 0.999, "HALF-TRUE": 0.000005, "TRUE": 0.0})
    # the same disagreement is explained when the label was sampled or read away from where it was written
    contra = ("HALF-TRUE", {"FALSE": 0.999, "HALF-TRUE": 0.000005, "TRUE": 0.0})
    assert unexplained(*contra, "written") is True and unexplained(*contra, None) is True
    assert unexplained(*contra, "sampled") is False and unexplained(*contra, "most-mass") is False
    assert unexplained("FALSE", {"FALSE": 0.9, "TRUE": 0.1}, "written") is False
    assert unexplained(None, {"FALSE": 1.0}, "written") is None
    # a vote its fitted threshold decided: P(YES) 0.40 against a threshold of 0.37; the page shows the
    # threshold-calibrated P(YES) 0.52, which leads, and the aids line names the threshold
    assert unexplained("YES", {"YES": 0.397, "NO": 0.603}, "first", 0.52) is False
    assert unexplained("YES", {"YES": 0.397, "NO": 0.603}, "first", 0.397) is True  # the raw number: a contradiction
    assert label_not_argmax("FALSE", {"FALSE": 0.9, "TRUE": 0.1}) is False
    assert label_not_argmax(None, {"FALSE": 1.0}) is None and label_not_argmax("YES", None) is None


def test_score_debate_reads_sources_from_events():
    events = [
        {"type": "debate_started", "claim": "Crime fell 12 percent in New York."},
        {"type": "evidence", "in_prompts": True, "passages": [{"text": "Murders fell to 292 in 2018."}]},
        {
            "type": "turn_finished",
            "role": "politician",
            "text": "Crime fell 12 percent and murders were 292.",
            "cut_off_at": None,
        },
        {
            "type": "turn_finished",
            "role": "scientist",
            "text": "Only 292 murders, but 40 percent of",
            "cut_off_at": 128,
        },
        {
            "type": "turn_finished",
            "role": "judge",
            "text": '{"verdict": "TRUE"}',
            "label": "TRUE",
            "label_probs": {"TRUE": 0.2, "FALSE": 0.8},
        },
    ]
    rows = score_debate(events)
    assert [r["unsupported_figure"] for r in rows] == [False, True, False]
    assert [r["cut"] for r in rows] == [False, True, False]
    assert rows[2]["label_not_argmax"] is True and rows[0]["label_not_argmax"] is None
    sm = summarise(rows)
    assert sm["cut"] == (1, 3) and sm["label_not_argmax"] == (1, 1) and sm["turns"] == 3


def test_a_chair_stating_the_tally_or_the_threshold_states_no_invented_figure():
    """The council's own numbers are in front of the chair: the vote shares and the 80% threshold. Chair
    summaries of the content benchmark wrote "a clear consensus of 67% of the participants"."""
    from debate.content.figures import tally_figures

    summary = (
        '{"status": "CONSENSUS REACHED", "summary": "A consensus of 67% of the members, short of 80%; 3.4% of x."}'
    )
    events = [
        {"type": "debate_started", "claim": "Crows remember faces."},
        {"type": "votes_tallied", "counts": {"YES": 2, "NO": 1}, "threshold": 0.8},
        {"type": "turn_finished", "role": "chair", "text": summary},
    ]
    assert score_debate(events)[0]["unsupported_figure"] is True  # 3.4% is still nobody's
    events[2]["text"] = summary.replace("; 3.4% of x", "")
    assert score_debate(events)[0]["unsupported_figure"] is False
    assert "66.7%" in tally_figures({"YES": 2, "NO": 1}) and "80%" in tally_figures({}, 0.8)


def test_the_engine_reads_a_chairs_tally_figures_as_given():
    from tests.support.engine import by_type, run, scripted

    chair = '{"status": "CONSENSUS NOT REACHED", "summary": "Only 60% agree, short of the 80% needed; 40% disagree."}'
    votes = iter(['{"vote": "YES", "explanation": "a"}'] * 3 + ['{"vote": "NO", "explanation": "b"}'] * 2)
    client, _ = scripted({"chair": chair, "vote": lambda m, o: next(votes, '{"vote": "YES", "explanation": "c"}')})
    events = run(client, "council", params={"rounds": 1})
    chair_turns = [e for e in by_type(events, "turn_finished") if e.role == "chair"]
    assert chair_turns and chair_turns[0].unsupported_figures == []
