"""No copying at decode time and a budget kept kindly: the n-gram guard over scripted token streams, the
end-of-budget rules over scripted text, the protocols passing whose words are whose, and one short run of
the embedded model showing a copy refused while an answer with nothing to copy is unchanged."""

from __future__ import annotations

import time

import pytest

from debate.models.base import GenOptions
from debate.models.copyguard import CopyGuard, copied_run, spelling
from debate.models.stopping import JSON_RESERVE, KindEnd
from tests.support.engine import lineup, run

OTHER = list(range(100, 130))  # another speaker's turn, as token ids
CLAIM = list(range(110, 122))  # a quotable text: tokens 110..121 of it are the claim


def greedy(prefers, guard: CopyGuard | None, steps: int) -> list[int]:
    """A scripted greedy decoder: `prefers(answer)` ranks the next tokens, the first one not banned wins."""
    out: list[int] = []
    for _ in range(steps):
        ban = guard.banned(out) if guard is not None else set()
        out.append(next(t for t in prefers(out) if t not in ban))
    return out


def copier(source: list[int]):
    """A model that writes `source` out again, token by token, and after a refused token goes on with its
    own words (ids 1, 2, 3, ...) before picking the copy up again where the source goes on."""

    def prefers(answer: list[int]) -> list[int]:
        i = len(answer)
        want = source[i] if i < len(source) else 0
        return [want, 1000 + i]

    return prefers


def test_the_guard_refuses_the_token_that_would_complete_a_copied_run():
    guard = CopyGuard([OTHER], n=10)
    assert guard.banned(OTHER[:8]) == set()  # 8 tokens in a row: no run of 10 can end next
    assert guard.banned(OTHER[:9]) == {OTHER[9]}  # the 10th would complete one
    assert guard.banned([7, *OTHER[3:12]]) == {OTHER[12]}  # anywhere in the answer, any offset
    out = greedy(copier(OTHER), guard, 30)
    assert not copied_run(out, [OTHER], 10) and copied_run(out, [OTHER], 9)  # at most n-1 in a row
    assert copied_run(greedy(copier(OTHER), None, 30), [OTHER], 30)  # unguarded it copies all of it


def test_the_claim_and_the_evidence_may_be_quoted_at_any_length():
    guard = CopyGuard([OTHER], [CLAIM], n=10)
    quote = greedy(copier(CLAIM), guard, len(CLAIM))
    assert quote == CLAIM  # the other speaker quoted the claim too: quoting it is not copying them
    assert guard.banned(OTHER[10:19]) == set()  # 110..119 stands in the claim: free
    # a run that goes on past the claim into the other speaker's own words is refused where it leaves it
    assert guard.banned(OTHER[13:22]) == {OTHER[22]}
    assert guard.banned(OTHER[3:12]) == {OTHER[12]}  # and one that runs into the claim from their words


def test_the_guard_compares_what_tokens_say_not_their_case():
    """The embedded backend feeds tokens as their lower-cased text: "Matter" for "matter" goes on no copy."""
    theirs = [
        "of",
        "supporting",
        "the",
        "black",
        "lives",
        "matter",
        "movement",
        ".",
        "this",
        "was",
        "backed",
        "by",
        "a",
        "report",
    ]
    words = [w.lower() for w in ["of", "supporting", "the", "Black", "Lives", "Matter", "movement", ".", "This", "was"]]
    guard = CopyGuard([[f" {w}" for w in theirs]], n=10)
    assert guard.banned([f" {w}" for w in words[:9]]) == {" was"}


def test_near_copies_spell_the_same_words_and_are_refused():
    """The near-copies a small debater wrote once exact copies were banned: words joined by "_", a space
    dropped before a capital, punctuation put in. Each token counts by the word it spells; tokens that
    spell nothing are passed over."""
    theirs = "The unemployment rate fell to six years low, within a margin of error of the survey"
    protected = [spelling(f" {w}") for w in theirs.split()]
    guard = CopyGuard([protected], n=10)
    near = [" The", " unemployment", " rate", " fell", " to", " six", "_", "years", " low", " —", " within"]
    near += [" a", " margin", " of", "Error"]
    said = [spelling(t) for t in near]
    assert "" in said  # "_" and " —" spell nothing
    assert copied_run(said, [protected], 10)  # the check the benchmark makes sees through it
    # decoding it: after nine spoken words in a row, the tenth is banned whatever joins them
    assert guard.banned(said[:10]) == set()  # "the … six _ years low —": eight words
    assert guard.banned(said[:11]) == {"a"}  # nine, "_" and "—" passed over: the tenth is banned
    assert guard.banned([*said[:11], "", ""]) == {"a"}  # punctuation between does not reset the run
    assert guard.banned(said[:14]) == {"error"}  # "…a margin of": "Error" (or " error") may not follow
    assert spelling(" ofError") == "oferror" and spelling("Error") == spelling(" error") == "error"


def test_greedy_output_is_unchanged_where_nothing_would_be_copied():
    guard = CopyGuard([OTHER], n=10)
    own = lambda answer: [len(answer) % 7, 50]
    assert greedy(own, guard, 200) == greedy(own, None, 200)
    # shares of up to 9 tokens with the other turn, again and again, are left alone
    near = lambda answer: [OTHER[len(answer) % 9]]
    assert greedy(near, guard, 40) == greedy(near, None, 40)


def test_the_guard_is_linear_in_the_text_it_protects():
    big = [i % 5000 for i in range(200_000)]
    t0 = time.perf_counter()
    guard = CopyGuard([big], [big[:1000]], n=10)
    answer = big[2000:2009]
    for _ in range(10_000):
        guard.banned(answer)
    assert time.perf_counter() - t0 < 5.0  # ~0.5 s here: one pass to build, one lookup per step
    assert guard.banned(answer) == {big[2009]}
    with pytest.raises(ValueError):
        CopyGuard([OTHER], n=1)


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


def test_the_protocols_say_whose_words_an_argument_may_not_copy():
    """RADAR: each debater's rebuttal and closing are guarded against the other's earlier turns (not its
    own), may quote the claim and the evidence, and the judge's turn is not guarded (it reports them)."""
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
    assert by["pol"][0].no_copy == () and by["sci"][0].no_copy == ()  # openings: nothing said before
    for me, other in (("pol", "sci"), ("sci", "pol")):
        later = by[me][1:]
        assert later and all(o.no_copy == (said[other],) for o in later)
        assert all(claim in o.quotable and o.grace_tokens == 40 for o in later)
    assert all(o.no_copy == () for o in by["judge"])
    off = ScriptedBackend({"pol": said["pol"], "sci": said["sci"], "judge": verdict})
    run(
        ModelClient({"scripted": off}),
        "radar",
        params={"rounds": 1, "early_stop": False, "no_copy": False, "budget_grace": 0},
        lineup=lu,
        claim=claim,
    )
    assert all(c["options"].no_copy == () and c["options"].grace_tokens == 0 for c in off.calls)


@pytest.mark.real_model
def test_the_embedded_model_is_refused_a_copy_and_otherwise_unchanged():
    """SmolLM2 asked to repeat another speaker's sentence does, word for word; guarded it cannot write a run
    of 10 of its tokens; asked something the protected text does not hold, it writes the same tokens."""
    from debate.models.local import LocalBackend, load_llama

    be = LocalBackend()
    model = "smollm2-135m"
    other = (
        "The Texas Workforce Commission reported that the state added four hundred thousand jobs last year, "
        "more than any other state in the country."
    )
    ask = [{"role": "user", "content": f"Repeat this sentence exactly, word for word:\n\n{other}"}]

    def say(msgs, **kw) -> str:
        return "".join(c.text for c in be.stream(model, msgs, GenOptions(max_tokens=40, **kw)) if hasattr(c, "text"))

    path, chat_format = be.resolve(model)
    llm, _ = load_llama(path, be.n_ctx, be.n_threads, chat_format)  # the instance the backend generates with
    # by the words the tokens spell, as the guard compares: a near-copy ("six_years") counts too
    toks = lambda s: [
        spelling(llm.detokenize([t]).decode("utf-8", "ignore"))
        for t in llm.tokenize(s.encode(), add_bos=False, special=False)
    ]
    free = say(ask)
    guarded = say(ask, no_copy=(other,))
    assert copied_run(toks(free), [toks(other)], 10), free  # the model copies when let
    assert guarded.strip() and not copied_run(toks(guarded), [toks(other)], 10), guarded
    plain = [{"role": "user", "content": "Name three colours."}]
    assert say(plain, no_copy=(other,)) == say(plain)  # nothing to copy: greedy output unchanged
