"""What a turn argues (debate.content.substance): copying, sides, refusals, topic, named sources, rebuttals and
judges, on the bad and good sentences the packaged models wrote; and a named source no claim or evidence gave,
recorded on its turn, named to the judge and underlined on the page like an unsupported figure."""

from __future__ import annotations

import time

from debate.content.substance import (
    answers_point,
    copied,
    copied_loosely,
    loose_grams,
    named_sources,
    off_topic,
    reason_ends,
    refuses,
    same_label,
    score_substance,
    side_trouble,
    unsourced_names,
)
from tests.engine.test_content_turns import JUDGE, _client, _single_lineup
from tests.support.engine import FakeRetriever, by_type, run

TEXAS = "Says Texas has created more jobs than all the other states combined over the past decade."
AMAZON = "The Amazon rainforest produces 20 percent of the oxygen in the world's atmosphere."
INVENTED = "The Texas State Statistical Association has recently published a study that proves the claim is true."
OPENING = (
    "Texas has seen remarkable job growth thanks to low taxes and a friendly business climate, and "
    "families across the state have felt the benefits in their paychecks every single year."
)


def test_a_run_of_twelve_words_from_the_other_speaker_is_a_copy_quoting_the_claim_is_not():
    assert copied("As my opponent said, " + OPENING, [OPENING]).copied  # the issue's word-for-word rebuttal
    assert not copied(OPENING, [], [TEXAS]).copied  # nobody spoke before
    quote = "The claim says Texas has created more jobs than all the other states combined over the past decade."
    assert not copied(quote, [TEXAS + " I agree."], [TEXAS]).copied  # both quote the claim: allowed
    own = "Job numbers from the evidence show growth, but population growth explains much of it."
    assert not copied(own, [OPENING]).copied


def test_a_high_share_of_five_word_runs_is_a_copy_too():
    other = "low taxes bring jobs to the state and the state keeps growing fast every year"
    mixed = "low taxes bring jobs to the state and yes the state keeps growing fast every year"
    c = copied(mixed, [other])
    assert not c.longest_run and c.share >= 0.5 and c.copied


def test_a_copy_with_a_word_swapped_every_few_words_is_a_copy_loosely():
    """The 8-word guard's way round: one word in every few swapped. No 12-word run and under half its 5-grams
    stand in the other turn, and still most of its words sit in 4-word runs of it; quoting the claim is not
    a copy, nor is a short turn, nor a turn of its own words."""
    swapped = (
        "Texas has seen remarkable job gains thanks to low taxes and a friendly trade climate, and "
        "families across the state have felt the gains in their paychecks every single month."
    )
    strict = copied(swapped, [OPENING])
    assert not strict.copied and strict.share < 0.5
    assert copied_loosely(swapped, [OPENING])
    assert not copied_loosely("Jobs grew in Texas, the evidence says, but so did its population.", [OPENING])
    assert not copied_loosely("Texas has seen remarkable job gains", [OPENING])  # too short to judge
    quote = "Says Texas has created more jobs than all the other states combined over the past decade, it says."
    assert not copied_loosely(quote, [TEXAS + " I doubt it."], loose_grams([TEXAS]))


def test_both_sides_in_one_turn_and_a_side_argued_by_the_wrong_speaker():
    both = "**Support position:** Texas led the nation in jobs. **Oppose position:** other states grew too."
    assert side_trouble(both, "politician") == "both"
    assert side_trouble("The claim is true. The claim is false.", "journalist") == "both"
    assert side_trouble("The claim is misleading: population grew as fast.", "politician") == "other"
    assert side_trouble("The claim is accurate, the data agree.", "scientist") == "other"
    assert side_trouble("The claim is also debunked by scientific evidence.", "scientist") == ""  # its own side
    assert side_trouble("Texas added jobs, the claim is true.", "politician") == ""
    assert side_trouble("The claim is false.", "member") == ""  # a voter takes no side


def test_a_refusal_and_a_turn_off_the_claim():
    assert refuses("I cannot provide an answer to this question as it involves a sensitive political issue.")
    assert refuses("I'm sorry, but I can't help with that.")
    assert not refuses("I cannot agree: the evidence shows growth was shared with other states.")
    assert off_topic("The weather in Paris is lovely this time of year for tourists and long walks.", TEXAS)
    assert not off_topic("Oxygen from the rainforest is mostly consumed by its own plants and microbes.", AMAZON)
    assert not off_topic("I disagree.", TEXAS)  # too short to judge


def test_named_sources_the_issue_found_and_the_ones_the_sources_give():
    assert [n.text for n in named_sources(INVENTED)] == ["Texas State Statistical Association"]
    text = "According to Dr. Jane Smith and a survey by Gallup, the U.S. Census Bureau and data from the CDC agree."
    assert [n.text for n in named_sources(text)] == ["Dr. Jane Smith", "Gallup", "U.S. Census Bureau", "CDC"]
    evidence = "The Census Bureau counted jobs. The Centers for Disease Control (CDC) reported."
    assert [n.text for n in unsourced_names(text, [TEXAS, evidence])] == ["Dr. Jane Smith", "Gallup"]
    assert [n.text for n in unsourced_names(INVENTED, [TEXAS, evidence])] == ["Texas State Statistical Association"]
    # names that are not sources: the claim's subject, sentence openers, the protocol's own words
    assert named_sources("Moreover, Texas has jobs. Support position: yes. The Politician argued well.") == []
    assert named_sources("The Amazon rainforest produces oxygen, as the scientist said.") == []
    # a name in quotes that ends a sentence (`"White Office".`, a 0.5B proponent's invented institution: the
    # page did not mark it while the quote stuck to "Office"); an abbreviation's full stop still belongs to it
    quoted = 'It mentions "Patriots fans working" and "White Office". He cited the U.S. Census Bureau.'
    assert [n.text for n in named_sources(quoted)] == ["White Office", "U.S. Census Bureau"]
    # news outlets by their one-word names (a default RADAR politician's carrot claim, no evidence): each one
    # unsourced unless the evidence names it
    outlets = (
        "This is supported by evidence from various sources, including the BBC, The Guardian, and various figures."
    )
    assert [n.text for n in named_sources(outlets)] == ["BBC", "Guardian"]
    assert [n.text for n in unsourced_names(outlets, ["Carrots help.", "The BBC reported it in 1941."])] == ["Guardian"]
    assert named_sources("The guardian of the park said the lancet was sterile.") == []  # not names


def test_a_rebuttal_answers_the_other_sides_point_a_copy_does_not():
    opp = "Population growth in Texas, not policy, explains the job numbers; California added more jobs."
    answer = "California's job numbers ignore that Texas population growth came because of the policy."
    assert answers_point(answer, opp, TEXAS)
    assert not answers_point("Texas created more jobs, as the claim says.", opp, TEXAS)


def test_a_judges_reason_ends_and_its_label_is_the_verdict_shown():
    assert not reason_ends("The evidence is a mix")  # the issue's judges stopped there
    assert reason_ends("The evidence is a mix of support and doubt.")
    assert not reason_ends("")
    assert same_label("half-true", "HALF-TRUE") and not same_label("HALF-TRUE", "FALSE")
    assert not same_label(None, "FALSE")


def test_the_measures_stay_linear_on_hostile_input():
    huge = "The Aa Bb Cc Association of " * 20_000 + "a" * 100_000 + " " + "," * 30_000 + "a"
    t0 = time.perf_counter()
    copied(huge, [huge], [huge])
    copied_loosely(huge, [huge], loose_grams([huge]))
    named_sources(huge)
    unsourced_names(huge, [huge])
    side_trouble(huge, "politician")
    refuses(huge)
    assert time.perf_counter() - t0 < 2.0


def _events(turns: list[dict], verdict: dict | None = None) -> list[dict]:
    ev = [{"type": "debate_started", "claim": TEXAS}]
    ev += [{"type": "turn_finished", "valid": True, **t} for t in turns]
    return ev + ([{"type": "verdict", **verdict}] if verdict else [])


def test_a_debate_scored_from_its_events():
    reb = "As my opponent said, " + OPENING
    ev = _events(
        [
            {"agent": "pol", "role": "politician", "phase": "opening", "text": OPENING},
            {"agent": "sci", "role": "scientist", "phase": "opening", "text": INVENTED, "cut_off_at": 128},
            {"agent": "sci", "role": "scientist", "phase": "rebuttal", "text": reb},
            {"agent": "pol", "role": "politician", "phase": "rebuttal", "text": "Jobs matter to voters everywhere."},
            {"agent": "j", "role": "judge", "phase": "round-judge", "text": "[VERDICT]: TRUE"},
            {
                "agent": "j",
                "role": "judge",
                "phase": "judge",
                "text": "[REASON]: The evidence is a mix [VERDICT]: HALF-TRUE",
                "label": "HALF-TRUE",
                "parsed": {"explanation": "The evidence is a mix"},
            },
        ],
        {"label": "FALSE", "written_label": "HALF-TRUE"},
    )
    s = score_substance(ev)
    assert [t["role"] for t in s["turns"]] == ["politician", "scientist", "scientist", "politician"]
    assert [t["copied"] for t in s["turns"]] == [False, False, True, False]
    assert [t["copied_loosely"] for t in s["turns"]] == [False, False, True, False]
    assert [t["repeats_own"] for t in s["turns"]] == [False, False, False, False]
    assert [t["hit_budget"] for t in s["turns"]] == [False, True, False, False]
    assert s["turns"][1]["names"] == ["Texas State Statistical Association"] and s["turns"][1]["unmarked_name"]
    assert [r["answers_point"] for r in s["rebuttals"]] == [False, False]  # a copy; no shared point
    assert s["judges"] == [
        {
            "agent": "j",
            "model": "",
            "reason_ends": False,
            "label_is_verdict": False,
            "written": "HALF-TRUE",
            "shown": "FALSE",
        }
    ]


def test_a_category_debate_is_read_in_its_categorys_words_phase_by_phase():
    """A single debate on CheckThat category 3 argues category 2 first (the cat2 => cat3 rule): an opponent who
    says the tweet cites a study is on the other side there, and the same words in the category-3 phase
    (scientific entities) are not; a proponent who says the tweet mentions no scientific entity is."""
    tweet = "New Stanford study: coffee lowers heart risk."
    cites = "The tweet cites a study from Stanford, so it is about coffee."
    no_entity = "The tweet does not mention any scientific entity, only coffee."
    ev = [{"type": "debate_started", "claim": tweet, "task": "checkthat", "category": 3}]
    for cat in (2, 3):
        ev.append({"type": "phase_started", "phase": "category", "category": cat})
        for agent, text in (("pro", no_entity), ("opp", cites)):
            role = "proponent" if agent == "pro" else "opponent"
            ev.append({"type": "turn_finished", "valid": True, "agent": agent, "role": role, "phase": "opening",
                       "round": cat, "text": text})  # fmt: skip
    rows = score_substance(ev)["turns"]
    assert [(r["role"], r["side_trouble"]) for r in rows] == [
        ("proponent", False),  # category 2: entities are not its question
        ("opponent", True),  # category 2: "cites a study" is the YES side's
        ("proponent", True),  # category 3: "does not mention any scientific entity" is the NO side's
        ("opponent", False),  # category 3: citing a study is not mentioning an entity by this reading
    ]
    assert not any(r["side_trouble"] for r in score_substance([{**ev[0], "task": "custom"}, *ev[1:]])["turns"])


def test_a_rebuttal_that_is_the_speakers_own_opening_again_repeats_its_own():
    ev = _events(
        [
            {"agent": "pol", "role": "politician", "phase": "opening", "text": OPENING},
            {"agent": "sci", "role": "scientist", "phase": "opening", "text": "The data disagree with that."},
            {"agent": "pol", "role": "politician", "phase": "rebuttal", "text": OPENING},
            {"agent": "sci", "role": "scientist", "phase": "rebuttal", "text": "Population grew as fast as jobs."},
        ]
    )
    s = score_substance(ev)
    assert [t["repeats_own"] for t in s["turns"]] == [False, False, True, False]
    assert [t["copied"] for t in s["turns"]] == [False, False, False, False]  # its own words, not the other's


def test_an_invented_source_is_recorded_named_to_the_judge_and_marked_on_the_page():
    """Through the engine's own path (the one unsupported figures take): the turn records the name, the
    judge's prompt names it with who said it, and the bubble underlines it, escaped."""
    from ui.transcript import DebateView
    from ui.verdicts import answer_body_html

    class Census(FakeRetriever):
        def search(self, query: str, k: int = 20) -> list[dict]:
            passage = "The Census Bureau counts jobs in every state."
            return [{"id": "E1", "text": passage, "score": 0.9, "source": "src", "title": "Jobs"}]

    pro = INVENTED + " <b>Jobs</b> grew."
    opp = "The Census Bureau shows other states grew too."
    client, backend = _client({"p": pro, "o": opp, "judge": JUDGE})
    lu = _single_lineup("p", "o")
    ev = run(client, "single", params={"rounds": 0}, lineup=lu, claim=TEXAS, evidence=True, retriever=Census())
    said: dict = {}
    for e in by_type(ev, "turn_finished"):
        said.setdefault(e.role, e)
    assert said["proponent"].unsourced_names == ["Texas State Statistical Association"]
    assert said["opponent"].unsourced_names == []  # the evidence names the Census Bureau
    note = backend.calls[-1]["messages"][-1]["content"]
    assert "named sources" in note and "Texas State Statistical Association (proponent)" in note
    view = DebateView().extend(ev)
    turn = next(t for t in view.turns.values() if t.role == "proponent")
    html = answer_body_html(turn, "", debate_id="d", known=set())
    assert (
        'class="unsupported-source" title="not in the claim or the evidence">Texas State Statistical Association'
        in html
    )
    assert "<b>" not in html


def test_a_turn_copies_only_what_it_could_read():
    """Two openings written side by side cannot copy each other; a turn started after another finished can."""
    side_by_side = _events(
        [
            {"agent": "a", "role": "politician", "phase": "opening", "round": 0, "text": OPENING},
            {"agent": "b", "role": "scientist", "phase": "opening", "round": 0, "text": OPENING},
        ]
    )
    assert [t["copied"] for t in score_substance(side_by_side)["turns"]] == [False, False]
    one_after = [
        side_by_side[0],
        {"type": "turn_started", "turn_id": "1"},
        {**side_by_side[1], "turn_id": "1"},
        {"type": "turn_started", "turn_id": "2"},
        {**side_by_side[2], "turn_id": "2"},
    ]
    assert [t["copied"] for t in score_substance(one_after)["turns"]] == [False, True]
    # the task's own words may be repeated by every member: quoting the prompt is not copying
    prompt = "Brief explanation: the tweet contains scientific claims, research findings, or scientific phenomena."
    members = _events(
        [
            {"agent": f"m{i}", "role": "member", "phase": "vote", "round": r, "text": prompt}
            for r in (1, 2)
            for i in (1, 2)
        ]
    )
    assert not any(t["copied"] for t in score_substance(members, [prompt])["turns"])
    assert any(t["copied"] for t in score_substance(members)["turns"])


def test_a_copy_that_changes_an_ending_is_still_a_copy():
    """Seen in a RADAR rebuttal once the decode-time guard banned the exact words: the other speaker's
    sentence with "narratives" for "narrative" and "the" dropped."""
    from debate.content.substance import copied

    theirs = "The claim is based on a false narrative of fabricated information in the context of the Chemical Weapons Convention."
    mine = "Opponent: The claim is based on a false narratives of fabricated information in the context of chemical weapons convention."
    assert copied(mine, [theirs]).copied
    assert not copied("The claim rests on invented reports about weapons inspections.", [theirs]).copied
