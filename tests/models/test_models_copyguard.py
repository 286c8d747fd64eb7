"""No copying at decode time and a budget kept kindly: the n-word guard over scripted answers, the
end-of-budget rules over scripted text, the protocols passing whose words are whose, and one short run of
the embedded model showing a copy refused while an answer with nothing to copy is unchanged."""

from __future__ import annotations

import time

import pytest

from debate.models.base import GenOptions
from debate.models.copyguard import CopyGuard, OpeningGuard, WordIndex, Written, copied_run, phrase_guards, words
from debate.models.stopping import JSON_RESERVE, KindEnd
from tests.support.engine import lineup, radar_lineup, run

OTHER = " ".join(f"w{i}" for i in range(100, 130))  # another speaker's turn: 30 words
CLAIM = " ".join(f"w{i}" for i in range(110, 122))  # a quotable text: words 110..121 of it are the claim


def said(*ws: str) -> Written:
    out = Written()
    out.feed(" ".join(ws) + " ")
    return out


def greedy(prefers, guard: CopyGuard | None, steps: int) -> str:
    """A scripted greedy decoder writing a word a step: `prefers(words so far)` ranks the next words, the
    first one the guard does not ban wins (a word is banned when its token would begin a banned word)."""
    out = Written()
    for _ in range(steps):
        ban = guard.banned(out)[1] if guard is not None else set()
        out.feed(next(w for w in prefers(out.words) if not any(b.startswith(w) for b in ban)) + " ")
    return " ".join(out.words)


def copier(source: str):
    """A model that writes `source` out again, word for word, and after a refused word goes on with its own
    words (x0, x1, ...) before picking the copy up again where the source goes on."""
    src = source.split()

    def prefers(answer: list[str]) -> list[str]:
        i = len(answer)
        return [src[i] if i < len(src) else "x", f"x{i}"]

    return prefers


def test_the_guard_refuses_the_word_that_would_complete_a_copied_run():
    guard = CopyGuard([OTHER], n=10)
    o = OTHER.split()
    assert guard.banned(said(*o[:8])) == (set(), set())  # 8 words in a row: no run of 10 can end next
    assert guard.banned(said(*o[:9])) == ({o[9]}, {o[9]})  # the 10th would complete one
    assert guard.banned(said("x7", *o[3:12]))[1] == {o[12]}  # anywhere in the answer, any offset
    out = greedy(copier(OTHER), guard, 30)
    assert not copied_run(out, [OTHER], 10) and copied_run(out, [OTHER], 9)  # at most n-1 in a row
    assert copied_run(greedy(copier(OTHER), None, 30), [OTHER], 30)  # unguarded it copies all of it


def test_the_claim_and_the_evidence_may_be_quoted_at_any_length():
    guard = CopyGuard([OTHER], [CLAIM], n=10)
    assert greedy(copier(CLAIM), guard, 12) == CLAIM  # the other speaker quoted it too: not copying them
    o = OTHER.split()
    assert guard.banned(said(*o[10:19])) == (set(), set())  # 110..119 stands in the claim: free
    # a run that goes on past the claim into the other speaker's own words is refused where it leaves it
    assert guard.banned(said(*o[13:22]))[1] == {o[22]}
    assert guard.banned(said(*o[3:12]))[1] == {o[12]}  # and one that runs into the claim from their words


def test_words_are_compared_not_their_case_punctuation_or_joins():
    """The near-copies a small debater wrote once exact copies were banned: another case, words joined by
    "_", a space dropped before a capital, marks put in. A word is its letters and digits, lower-cased."""
    theirs = "The unemployment rate fell to six years low, within a margin of error of the survey"
    guard = CopyGuard([theirs], n=10)
    near = "The Unemployment rate fell to six_years low — within a margin of"
    assert copied_run(near, [theirs], 10)  # the check the benchmark makes sees through it
    w = Written()
    w.feed(near + " ")
    assert w.words[5:7] == ["six", "years"] and guard.banned(w)[1] == {"error"}
    w = Written()
    w.feed(near)  # "of" still being written: a token going on with it may not glue "error" on ("ofError")
    assert guard.banned(w) == ({"error"}, {"error"})  # nor may one that starts the next word
    assert words("margin ofError") == ["margin", "oferror"]  # glued, it would be one word: no copy to see


def test_a_word_split_into_other_tokens_is_the_same_word():
    """Comparing tokens let "well-documented" through as "-d" + "ocumented" where the other speaker's tokens
    were "-", "documented": words are read from the text, however tokens split them."""
    theirs = "The effect is well-documented in the literature on coffee and health outcomes"
    guard = CopyGuard([theirs], n=4)
    w = Written()
    for piece in ("The", " effect", " is", " well", "-d"):
        w.feed(piece)
    assert w.words == ["the", "effect", "is", "well"] and w.partial == "d"
    assert guard.banned(w) == ({"ocumented"}, set())  # the rest of "documented" may not follow "d"
    w = Written()
    for piece in ("The", " effect", " is", " well"):
        w.feed(piece)
    assert guard.banned(w) == ({"documented"}, {"documented"})  # no token may start it after "well", nor glue it
    w.feed("-documented")
    assert copied_run(" ".join(w.words + [w.partial]), [theirs], 4)


def test_a_banned_word_may_not_be_glued_on_without_a_space():
    """Once "military" was banned after "...published in the Journal of", a small debater wrote "Journal
    ofMilitary Science" (and "firingstatistics", "versusthose"): the banned word, glued to the current one.
    A token that goes on with the current word may not begin it either; the same word written whole as a
    new word is still refused, and words that merely start like the current one are left alone."""
    theirs = "a recent study published in the Journal of Military Science found a gap"
    guard = CopyGuard([theirs], n=4)
    w = Written()
    w.feed("It was published in the Journal of")
    go_on, start = guard.banned(w)
    assert "military" in start and "military" in go_on  # " Military" and "Military" (glued) both refused
    w = Written()
    w.feed("It was published in the Journal of ")
    assert guard.banned(w) == ({"military"}, {"military"})
    w = Written()
    w.feed("It was published in the Journal o")  # "of" not complete: only its rest, not the next word
    assert guard.banned(w) == ({"f"}, set())
    opened = OpeningGuard(["I cannot provide"])
    w = Written()
    w.feed("I cannot")
    assert opened.banned(w) == ({"provide"}, {"provide"})  # not "I cannotprovide" either


def test_a_banned_word_bans_its_beginnings_and_its_longer_forms_not_other_words():
    """The tokens a banned word turns into: the word, any beginning of it, and (from four letters) the word
    made longer — a small debater went on copying "a false narratives of fabricated information" once
    "narrative" was banned. Short words are not extended ("the" would ban "there")."""
    vocab = [" narrative", " narratives", " narr", "ative", " Narrative", "_narr", " nar", " the", " there", " thesis"]
    vocab += ["atives", "ated", ",", " ", " data", "-d", "ocumented", "ocumentedly", " documented"]
    idx = WordIndex(vocab)
    got = {vocab[i] for i in idx.ids(set(), {"narrative"})}
    assert got == {" narrative", " narratives", " narr", " Narrative", "_narr", " nar"}
    assert {vocab[i] for i in idx.ids(set(), {"the"})} == {" the"}  # not " there", " thesis"
    assert {vocab[i] for i in idx.ids({"ocumented"}, set())} == {"ocumented", "ocumentedly"}  # the rest of a word
    assert {vocab[i] for i in idx.ids({"atives"}, set())} == {"atives", "ative"}


def test_greedy_output_is_unchanged_where_nothing_would_be_copied():
    guard = CopyGuard([OTHER], n=10)
    own = lambda answer: [f"y{len(answer) % 7}", "z"]
    assert greedy(own, guard, 200) == greedy(own, None, 200)
    # shares of up to 9 words with the other turn, again and again, are left alone
    o = OTHER.split()
    near = lambda answer: [o[len(answer) % 9]]
    assert greedy(near, guard, 40) == greedy(near, None, 40)


def test_the_guard_is_linear_in_the_text_it_protects():
    big = " ".join(f"w{i % 5000}" for i in range(200_000))
    t0 = time.perf_counter()
    guard = CopyGuard([big], [" ".join(big.split()[:1000])], n=10)
    answer = said(*big.split()[2000:2009])
    for _ in range(10_000):
        guard.banned(answer)
    assert time.perf_counter() - t0 < 5.0  # ~1 s here: one pass to build, two lookups per step
    assert guard.banned(answer)[1] == {"w2009"}
    with pytest.raises(ValueError):
        CopyGuard([OTHER], n=1)


def test_a_refusal_cannot_be_written_and_disagreement_can():
    """The phrases a debater may never complete (a refusal's opening): the last word is refused where the
    words before it stand, in any case and however joined; "I cannot agree" stays a debater's to write."""
    from debate.content.substance import REFUSAL_OPENINGS, REFUSAL_PHRASES, refuses

    guards = phrase_guards(REFUSAL_PHRASES)

    def banned(text: str) -> set[str]:
        w = Written()
        w.feed(text)
        return set().union(*(g.banned(w)[1] for g in guards))

    assert "provide" in banned("Thank you. I cannot ") and "agree" not in banned("Thank you. I cannot ")
    assert "provide" in banned("I CAN'T ") and "ai" in banned("Well, as an ")
    assert "inform" in banned("I regret to ") and banned("The claim cannot be ") == set()
    # every phrase is a refusal the substance benchmark counts (the openers, with the words that follow them)
    natural = lambda p: p.replace("i m ", "I'm ").replace("i can t", "I can't").replace("i won t", "I won't")
    openers = {"i m sorry but", "i am sorry but", "i m afraid but", "i regret to inform", "as an ai"}
    assert all(refuses(natural(p) + " that.") for p in REFUSAL_PHRASES if p not in openers)
    assert all(refuses(natural(p) + ", I cannot help you.") for p in openers)
    # and the openings: the models' ways round the phrases ("I am not able to provide", "As an intelligent AI")
    opened = OpeningGuard(REFUSAL_OPENINGS)
    w = Written()
    w.feed("I am not ")
    assert opened.banned(w)[1] == {"able"} and opened.banned(said("I", "cannot", "agree"))[1] == set()
    w = Written()
    w.feed("The politician says I cannot ")  # not an opening: a debater may write it later on
    assert opened.banned(w) == (set(), set())
    assert refuses("I am not able to provide an answer.") and refuses("As an intelligent AI, I cannot take sides.")


def test_a_budget_is_kept_kindly_for_free_text():
    kind = KindEnd(budget=5, grace=10)
    kind.feed("It fell in 2019.")
    assert kind.step(4, lambda: True) == ""  # within the budget: nothing changes
    assert kind.step(5, lambda: True) == "end"  # past it, at a sentence end before a new word
    assert kind.step(5, lambda: False) == ""  # "3." before "5": the sentence has not ended
    kind.feed(" And then")
    assert kind.step(6, lambda: True) == ""  # mid-sentence: the grace goes on
    kind.feed(" more:\n")
    assert kind.step(7, lambda: False) == "end"  # the end of a paragraph or a list item


def test_a_json_reason_closes_at_a_sentence_and_leaves_room_for_the_label():
    kind = KindEnd(budget=128, grace=40, json_answer=True, text_chars=160, text_keys=("reason",))
    kind.feed('{"reason": "The evidence is mixed')
    assert kind.step(10, lambda: True) == ""
    kind.feed(".")
    assert kind.step(20, lambda: True) == ""  # a sentence end, but short of a quarter of the reason's room
    kind.feed(" The politician cites no source, and the scientist cites two")
    assert kind.step(30, lambda: True) == ""  # mid-sentence
    kind.feed(".")
    assert kind.step(31, lambda: True) == "close"  # the reason closes at its sentence end
    late = KindEnd(budget=128, grace=40, json_answer=True, text_keys=("reason",))
    late.feed('{"reason": "On and on without an end')
    assert late.step(100, lambda: True) == ""
    assert late.step(128 + 40 - JSON_RESERVE, lambda: True) == "close"  # room kept for the label
    late.feed('", "verdict": "FA')
    assert late.step(160, lambda: True) == ""  # the label itself is never cut by this rule


def test_the_options_keep_old_cache_keys():
    d = GenOptions().key_dict()
    assert not {"no_copy", "quotable", "no_copy_n", "grace_tokens"} & set(d)
    d = GenOptions(no_copy=("a b",), quotable=("c",), grace_tokens=40).key_dict()
    assert d["no_copy"] == ["a b"] and d["quotable"] == ["c"] and d["grace_tokens"] == 40
    assert d["no_copy_unit"] == "word, not glued, figures whole"  # answers of older guards are not replayed
    assert "figures" not in d and GenOptions(temperature=0.7).key_dict()["figures"] == "greedy"  # sampled ones


def test_the_protocols_say_whose_words_an_argument_may_not_copy():
    """RADAR: each debater's rebuttal and closing are guarded against every earlier turn, the other's and its
    own (a small debater's rebuttal was its opening again), may quote the claim and the evidence, and the
    judge's turn is not guarded (it reports them)."""
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend

    said = {"pol": "The politician says jobs grew fast.", "sci": "The scientist says the data disagree."}
    verdict = "[REASON]: Both made points. [VERDICT]: HALF-TRUE"
    b = ScriptedBackend({"pol": said["pol"], "sci": said["sci"], "judge": verdict})
    lu = lineup(2)
    lu["roles"] = {
        "politician": {"name": "pol", "model": "scripted:pol"},
        "scientist": {"name": "sci", "model": "scripted:sci"},
    }
    lu["judge"] = {"name": "judge", "model": "scripted:judge"}
    claim = "Texas has created more jobs than all the other states combined."
    run(ModelClient({"scripted": b}), "radar", params={"rounds": 1, "early_stop": False}, lineup=lu, claim=claim)
    by = {m: [c["options"] for c in b.calls if c["model"] == m] for m in ("pol", "sci", "judge")}
    # openings: nobody has spoken; what each was told (its system text) may not be recited
    assert not set(said.values()) & set(by["pol"][0].no_copy + by["sci"][0].no_copy)
    assert any("You are a politician in a political debate" in t for t in by["pol"][0].no_copy)
    assert not any("politician" in t for t in by["sci"][0].no_copy)  # each its own instructions
    for me, other in (("pol", "sci"), ("sci", "pol")):
        later = by[me][1:]
        assert later and all(said[other] in o.no_copy and said[me] in o.no_copy for o in later)
        assert all(claim in o.quotable and o.grace_tokens == 40 for o in later)
    assert all(o.no_copy == () and o.no_phrases == () for o in by["judge"])
    assert all(o.no_phrases and "i cannot provide" in o.no_phrases for o in by["pol"] + by["sci"])
    off = ScriptedBackend({"pol": said["pol"], "sci": said["sci"], "judge": verdict})
    run(
        ModelClient({"scripted": off}),
        "radar",
        params={"rounds": 1, "early_stop": False, "no_copy": False, "budget_grace": 0},
        lineup=lu,
        claim=claim,
    )
    assert all(c["options"].no_copy == () and c["options"].grace_tokens == 0 for c in off.calls)


VERDICT = "[REASON]: Both made points. [VERDICT]: HALF-TRUE"


def _radar_lineup() -> dict:
    """A RADAR lineup of scripted seats: pol (politician), sci (scientist), judge."""
    return radar_lineup()


def test_the_aids_tell_each_radar_debater_its_side():
    """With state_side (on with the small-model aids for RADAR) the politician's prompts end with the line
    that it argues for the claim, the scientist's that it argues against; the judge's carry neither."""
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend
    from debate.prompts import render

    verdict, lu = VERDICT, _radar_lineup()
    for on in (True, False):
        b = ScriptedBackend({"pol": "Jobs grew.", "sci": "The data disagree.", "judge": verdict})
        params = {"rounds": 1, "early_stop": False, "state_side": on}
        run(
            ModelClient({"scripted": b}),
            "radar",
            task="halftruth",
            category=None,
            params=params,
            lineup=lu,
            claim="Texas created most jobs.",
        )
        last = {m: [c["messages"][-1]["content"] for c in b.calls if c["model"] == m] for m in ("pol", "sci", "judge")}
        assert len(last["pol"]) == 3 and len(last["sci"]) == 3  # opening, rebuttal, closing
        assert all(t.endswith(render("engine.side_for")) == on for t in last["pol"])
        assert all(t.endswith(render("engine.side_against")) == on for t in last["sci"])
        # and the side line is among what the debater may not recite (a 135M scientist wrote it back as its turn)
        told = [c["options"].no_copy for c in b.calls if c["model"] == "sci"]
        assert all((render("engine.side_against") in t) == on for t in told)
        assert not any("Your side in this debate" in t for t in last["judge"])


def test_the_aids_tell_each_single_debater_its_side_in_the_papers_words():
    """With state_side (on with the aids for the single and team debates) a debate about a tweet's category
    ends each debater's prompt with its side as the paper's role line says it (the proponent: why the tweet
    belongs to the category; the opponent: why it does NOT), never "the claim"; the judge's carries neither."""
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend
    from debate.prompts import render
    from debate.tasks import resolve_task

    phrase = resolve_task("checkthat", 1).phrase
    for protocol in ("single", "team"):
        b = ScriptedBackend(default=lambda m, o: '{"category": 1, "explanation": "It names a study."}')
        run(ModelClient({"scripted": b}), protocol, category=1, n=2, params={"rounds": 0, "state_side": True})
        for c in b.calls:
            last = c["messages"][-1]["content"]
            if c["model"] == "judge":
                assert "Your side in this debate" not in last
            else:
                pro = render("engine.side_for_category", category_title=phrase)
                con = render("engine.side_against_category", category_title=phrase)
                assert last.endswith((pro, con)), last[-300:]
                assert "the claim" not in last[-200:]


REFUSAL = "I cannot provide an answer to this question because it is political."


@pytest.mark.real_model
def test_the_embedded_model_is_refused_a_copy_and_otherwise_unchanged():
    """SmolLM2 asked to repeat another speaker's sentence does, word for word; guarded it cannot write a run
    of 8 of its words; asked something the protected text does not hold, it writes the same tokens."""
    from debate.content.substance import REFUSAL_OPENINGS, REFUSAL_PHRASES, refuses
    from debate.models.local import LocalBackend

    be = LocalBackend()
    model = "smollm2-135m"
    other = (
        "The Texas Workforce Commission reported that the state added four hundred thousand jobs last year, "
        "more than any other state in the country."
    )
    ask = [{"role": "user", "content": f"Repeat this sentence exactly, word for word:\n\n{other}"}]

    def say(msgs, **kw) -> str:
        return "".join(c.text for c in be.stream(model, msgs, GenOptions(max_tokens=40, **kw)) if hasattr(c, "text"))

    free = say(ask)
    guarded = say(ask, no_copy=(other,))
    assert copied_run(free, [other]), free  # the model copies when let
    assert guarded.strip() and not copied_run(guarded, [other]), guarded  # by words, however tokens split them
    refuse = [{"role": "user", "content": f"Repeat this sentence exactly, word for word:\n\n{REFUSAL}"}]
    assert refuses(say(refuse))  # the model refuses when let
    kept = say(refuse, no_phrases=REFUSAL_PHRASES, no_openings=REFUSAL_OPENINGS)
    assert kept.strip() and not refuses(kept), kept
    plain = [{"role": "user", "content": "Name three colours."}]
    assert say(plain, no_copy=(other,)) == say(plain)  # nothing to copy: greedy output unchanged


def test_a_figure_is_one_word_and_the_guard_never_refuses_a_figure_or_its_unit():
    """Were "1.8" two words, a ban could fall between them: a rebuttal whose words before "$1." stood in
    the speaker's opening was refused the "8" and wrote "$1.  9 million"; refused a whole figure or its unit,
    a speaker writes another ("$1.8 billion", "$2."). Figures are one word, and neither a figure nor the
    word after it is refused: the copy is refused at the next word."""
    assert words("A raise to $1.8 million, in 2021. The 10,000 jobs") == [
        "a", "raise", "to", "1.8", "million", "in", "2021", "the", "10,000", "jobs"
    ]  # fmt: skip
    w = Written()
    w.feed("in 2021. The 10,000")
    assert w.words == ["in", "2021", "the"] and w.partial == "10,000"
    theirs = "the tweet discusses a raise to 1.8 million in the SEC today"
    guard = CopyGuard([theirs], n=7)
    for before in ("The tweet discusses a raise to $", "The tweet discusses a raise to $1.8"):
        w = Written()
        w.feed(before)
        assert guard.banned(w) == (set(), set()), before  # the figure, then its unit: never refused
    w = Written()
    w.feed("The tweet discusses a raise to $1.8 million")
    assert guard.banned(w) == ({"in"}, {"in"})  # the next word is
    w = Written()
    w.feed("we saw cases of covid19.")  # a mark after a digit: a figure's, or the word's end
    assert w.partial == "covid19." and CopyGuard(["cases of covid19. The study"], n=3).banned(w) == (set(), {"the"})


@pytest.mark.real_model
def test_a_sampled_debater_writes_the_claims_figure_whole():
    """The request of a debater's opening that, sampled at temperature 0.7, wrote the claim's "$1.8
    million" as "$1. 8 million" (a space drawn after "1."; the speaker and its opponent then quoted it so).
    Inside a figure the most probable token is taken: the same request writes the figure whole."""
    import json
    import re
    from pathlib import Path

    from debate.models.base import GenOptions
    from debate.models.local import LocalBackend

    req = json.loads((Path(__file__).parents[1] / "fixtures" / "figure-split-request.json").read_text())
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in req["options"].items()}
    options = GenOptions(**{**fields, "cache": False})
    text = "".join(getattr(c, "text", "") for c in LocalBackend().stream(req["model"], req["messages"], options))
    assert "$1.8 million" in text, text
    assert not re.search(r"\d[.,] +\d", text), text


def test_figures_are_taken_greedily_in_free_text_only():
    """Under a grammar the one token kept could be one the grammar refuses, and llama.cpp then aborts the
    process ("Unexpected empty grammar stack after accepting piece: ."): seen in a sampled baseline's JSON
    answer. A JSON answer under a schema is sampled as before; greedy answers need no rule."""
    from debate.models.local import _recorder

    schema = {"type": "object", "properties": {"category": {"enum": ["YES", "NO"]}}}
    assert _recorder(object(), "k", GenOptions(temperature=0.7)).figures
    assert not _recorder(object(), "k", GenOptions(temperature=0.7, json_schema=schema)).figures
    assert not _recorder(object(), "k", GenOptions(temperature=0.0)).figures
    assert "figures" not in GenOptions(temperature=0.7, json_schema=schema).key_dict()


def test_a_debater_holding_its_side_cannot_call_the_claim_what_the_other_side_says():
    """hold_side: the side for the claim may not complete "the claim is false" (nor "I oppose the claim"), the
    side against it not "the claim is true"; each goes on in its own direction ("the claim is misleading",
    "the claim is partly true"). Every phrase that calls the claim something is one the substance benchmark
    counts as the other side's, so the ban and the measure read the same words."""
    from debate.content.substance import OTHER_SIDE_PHRASES, side_trouble

    def banned(side: str, text: str) -> set[str]:
        w = Written()
        w.feed(text)
        return set().union(*(g.banned(w)[1] for g in phrase_guards(OTHER_SIDE_PHRASES[side])))

    assert {"false", "misleading", "wrong"} <= banned("for", "So THE CLAIM is ")
    assert "true" in banned("for", "Therefore this statement is not ") and "true" not in banned("for", "The claim is ")
    assert {"true", "accurate", "supported"} <= banned("against", "This claim is clearly ")
    assert "misleading" not in banned("against", "The claim is ") and banned("against", "The claim is partly ") == set()
    assert "claim" in banned("for", "I strongly oppose the ") and "claim" in banned("against", "I support the ")
    assert "statement" in banned("against", "I will support the ")  # a scientist's way round "the claim"
    assert banned("for", "I oppose my opponent's ") == set()  # a debater may still oppose the other side
    for side, role in (("for", "politician"), ("against", "scientist")):
        called = [p for p in OTHER_SIDE_PHRASES[side] if not p.startswith("i ")]
        assert called and all(side_trouble(p.capitalize() + ".", role) == "other" for p in called)


def test_radar_debaters_holding_their_side_are_given_the_other_sides_phrases():
    """With hold_side and state_side (RADAR's aids) the politician's turns may not write the phrases of the side
    against the claim and the scientist's not those for it; the judge's turns carry neither; off, none do."""
    from debate.content.substance import OTHER_SIDE_PHRASES
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend

    verdict, lu = VERDICT, _radar_lineup()
    claim = "Texas has created more jobs than all the other states combined."
    for hold in (True, False):
        b = ScriptedBackend({"pol": "Jobs grew.", "sci": "The data disagree.", "judge": verdict})
        params = {"rounds": 1, "early_stop": False, "state_side": True, "hold_side": hold}
        run(ModelClient({"scripted": b}), "radar", params=params, lineup=lu, claim=claim, task="halftruth")
        by = {m: [c["options"] for c in b.calls if c["model"] == m] for m in ("pol", "sci", "judge")}
        assert len(by["pol"]) == 3 and len(by["sci"]) == 3
        pol, sci = set(by["pol"][0].no_phrases), set(by["sci"][-1].no_phrases)
        assert ("the claim is false" in pol and "the claim is true" in sci) is hold
        assert "the claim is true" not in pol and "the claim is false" not in sci
        assert all(set(OTHER_SIDE_PHRASES["for"]) <= set(o.no_phrases) for o in by["pol"]) is hold
        assert all(o.no_phrases == () for o in by["judge"])
    # refusals allowed (no_refusal off): the side is still held, and only the side's phrases are banned
    b = ScriptedBackend({"pol": "Jobs grew.", "sci": "The data disagree.", "judge": verdict})
    params = {"rounds": 1, "early_stop": False, "state_side": True, "hold_side": True, "no_refusal": False}
    run(ModelClient({"scripted": b}), "radar", params=params, lineup=lu, claim=claim, task="halftruth")
    pol = [c["options"] for c in b.calls if c["model"] == "pol"]
    assert all(o.no_phrases == OTHER_SIDE_PHRASES["for"] and o.no_openings == () for o in pol)


def test_a_category_debater_holding_its_side_cannot_say_the_tweet_is_the_other_sides():
    """hold_side in a debate about a tweet's category: the opponent (NO) may not complete "contains
    scientific" nor "does contain scientific" (so it writes "does not contain scientific"), whatever stands
    before the verb (`The tweet "…" directly references a study`); the proponent (YES) may not negate the
    category's verb ("does not contain", "contains no", "lacks"). Every banned phrase is one the substance
    benchmark reads as the other side's, in every category's verbs and objects; a custom question has none."""
    from debate.content.substance import CATEGORY_OBJECTS, CATEGORY_VERBS, category_other_side, side_trouble

    def banned(category: int, side: str, text: str) -> set[str]:
        w = Written()
        w.feed(text)
        return set().union(*(g.banned(w)[1] for g in phrase_guards(category_other_side(category)[side])))

    assert "scientific" in banned(1, "against", "So THE TWEET does contain ")
    assert "scientific" in banned(1, "against", "The tweet contains ")
    assert "study" in banned(2, "against", 'The tweet "Coffee!" directly references a ')
    assert banned(1, "against", "The tweet does not contain ") == set()  # its own side, in its own words
    assert banned(1, "against", "The tweet contains no ") == set() and banned(3, "against", "It mentions ") == {
        "scientific",
        "science",
        "scientist",
        "scientists",
        "researcher",
        "researchers",
        "university",
    }  # a name it may mention, not a scientific one
    assert "contain" in banned(1, "for", "This tweet does not ") and "no" in banned(1, "for", "The tweet contains ")
    assert "mention" in banned(3, "for", "The tweet doesn't ") and "reference" in banned(2, "for", "does not directly ")
    assert banned(1, "for", "The tweet does ") == set() and banned(1, "for", "The tweet contains a ") == set()
    for category in CATEGORY_VERBS:
        for side, role in (("for", "proponent"), ("against", "opponent")):
            phrases = category_other_side(category)[side]
            obj = CATEGORY_OBJECTS[category][0]
            for p in phrases:
                text = p.replace(" t ", "'t ").capitalize() + ("" if p.endswith(obj) else f" {obj}") + " claims."
                assert side_trouble(text, role, category) == "other", (category, text)
    assert category_other_side(None) == {}


def test_single_and_team_debaters_holding_their_side_are_given_their_categorys_phrases():
    """With hold_side and state_side in a single or team debate about CheckThat category 2, the proponents'
    turns may not say the tweet cites no study and the opponents' may not say it cites one; the judge's carry
    neither; a custom question (no category verbs) and hold_side off give none."""
    from debate.content.substance import category_other_side
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend
    from debate.prompts import render
    from debate.tasks import resolve_task

    phrase = resolve_task("checkthat", 2).phrase
    pro_line = render("engine.side_for_category", category_title=phrase)
    banned = category_other_side(2)
    for protocol in ("single", "team"):
        for hold, task in ((True, "checkthat"), (False, "checkthat"), (True, "custom")):
            b = ScriptedBackend(default=lambda m, o: '{"category": 1, "explanation": "It names a study."}')
            params = {"rounds": 0, "state_side": True, "hold_side": hold}
            kw = {"custom_title": "Is satire", "custom_description": "Satire."} if task == "custom" else {}
            run(ModelClient({"scripted": b}), protocol, task=task, category=2, n=2, params=params, **kw)
            sides = {"for": 0, "against": 0}
            for c in b.calls:
                got = c["options"].no_phrases
                if c["model"] == "judge":
                    assert got == (), protocol
                    continue
                side = "for" if c["messages"][-1]["content"].endswith(pro_line) else "against"
                sides[side] += 1
                held = hold and task == "checkthat"
                assert set(banned[side]) <= set(got) if held else not set(banned[side]) & set(got), (protocol, hold)
                assert not set(banned["against" if side == "for" else "for"]) & set(got)
            assert sides["for"] and sides["against"] or task == "custom", (protocol, sides)


@pytest.mark.real_model
def test_the_embedded_model_held_to_its_side_does_not_write_the_other_sides_words():
    """SmolLM2 asked to write the other side's sentence does; held to the side for the claim (hold_side's
    phrases) it cannot call the claim false, and says something else."""
    from debate.content.substance import OTHER_SIDE_PHRASES, side_trouble
    from debate.models.local import LocalBackend

    be = LocalBackend()
    ask = [{"role": "user", "content": "Repeat this sentence exactly:\n\nThe claim is false because jobs fell."}]

    def say(**kw) -> str:
        out = be.stream("smollm2-135m", ask, GenOptions(max_tokens=24, **kw))
        return "".join(c.text for c in out if hasattr(c, "text"))

    assert side_trouble(say(), "politician") == "other"  # the model writes it when let
    held = say(no_phrases=OTHER_SIDE_PHRASES["for"])
    assert held.strip() and side_trouble(held, "politician") == "", held


@pytest.mark.real_model
def test_the_embedded_model_held_to_its_side_in_a_category_debate_does_not_concede_the_category():
    """The single debate's opponent, as the held-out debates showed it: asked to write that the tweet "directly
    references a scientific study" SmolLM2 does; held to the NO side (category 2's phrases) it cannot, and
    says something else."""
    from debate.content.substance import category_other_side, side_trouble
    from debate.models.local import LocalBackend

    be = LocalBackend()
    line = 'The tweet "Coffee lowers heart risk" directly references a scientific study.'
    ask = [{"role": "user", "content": f"Repeat this sentence exactly:\n\n{line}"}]

    def say(**kw) -> str:
        out = be.stream("smollm2-135m", ask, GenOptions(max_tokens=24, **kw))
        return "".join(c.text for c in out if hasattr(c, "text"))

    assert side_trouble(say(), "opponent", 2) == "other"  # the model writes it when let
    held = say(no_phrases=category_other_side(2)["against"])
    assert held.strip() and side_trouble(held, "opponent", 2) == "", held
