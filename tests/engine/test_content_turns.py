"""Turns that end well and figures from the sources, in the engine: a turn the budget ended mid-sentence
ends at its last full sentence, a looping turn keeps what came before the loop (both recorded with the full
text), arguments are asked for a length at the demo pace, a figure no source gave is recorded and named to
the judge, and English tasks are decoded in the Latin script (real model)."""

from __future__ import annotations

import pytest

from debate.content.figures import figures
from debate.content.script import off_script, script_of, token_bytes_allowed
from debate.models.base import Final, GenOptions
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.protocols.base import ends_well, told_words
from tests.support.engine import by_type, kind, lineup, run

CUT = (
    "Crime in New York fell sharply over the decade. The police counted 292 murders in 2018 and that "
    "figure is the lowest on record because"
)
LOOP = "I will not present your logic. This is the final position. This is the final position. This is the"
JUDGE = '{"category": 1, "explanation": "The proponent was convincing."}'


def _client(replies: dict[str, str]) -> tuple[ModelClient, ScriptedBackend]:
    class Backend(ScriptedBackend):
        def stream(self, model, messages, options):
            for chunk in super().stream(model, messages, options):
                if isinstance(chunk, Final) and model in ("cut", "proponent-cut"):
                    chunk.finish_reason = "length"
                yield chunk

    b = Backend(replies)
    return ModelClient({"scripted": b}), b


def _single_lineup(pro: str, opp: str) -> dict:
    lu = lineup(2)
    lu["roles"] = {
        "proponent": {"name": "pro", "model": f"scripted:{pro}"},
        "opponent": {"name": "opp", "model": f"scripted:{opp}"},
    }
    return lu


def test_ends_well_is_pure():
    assert ends_well(CUT, True) == ("Crime in New York fell sharply over the decade.", "sentence")
    assert ends_well(CUT, False) == (CUT, "")  # not cut by the budget: a natural end is left alone
    text, how = ends_well(LOOP, False)
    assert (text, how) == ("I will not present your logic. This is the final position.", "loop")
    assert ends_well("no sentence end at all and cut", True) == ("no sentence end at all and cut", "")


def test_a_debate_records_shortened_turns_and_later_turns_read_the_kept_text():
    client, backend = _client({"cut": CUT, "loop": LOOP, "judge": JUDGE})
    ev = run(
        client,
        "single",
        params={"rounds": 1, "answer_sentences": 3},
        lineup=_single_lineup("cut", "loop"),
        claim="New York is safer than ever, the mayor said.",
    )
    turns = [e for e in by_type(ev, "turn_finished") if e.role in ("proponent", "opponent")]
    pro = [t for t in turns if t.role == "proponent"]
    opp = [t for t in turns if t.role == "opponent"]
    assert all(t.shortened == "sentence" and t.full_text == CUT and t.cut_off_at for t in pro)
    assert all(t.text == "Crime in New York fell sharply over the decade." for t in pro)
    assert all(t.shortened == "loop" and t.full_text == LOOP and "final position." in t.text for t in opp)
    later = [c for c in backend.calls if "Crime in New York" in str(c["messages"])]
    assert later and not any("lowest on record" in str(c["messages"]) for c in backend.calls)  # never the cut part
    # the demo pace's length line reaches the arguments, never the judge's formatted answer
    argue = [c for c in backend.calls if kind(c["messages"]) == "argue"]
    words = told_words(64)  # the length the token budget (the test runs at 64 tokens) holds, told in words
    line = f"Answer in at most 3 complete sentences (about {words} words)."
    assert argue and all(line in c["messages"][-1]["content"] for c in argue)
    judge = [c for c in backend.calls if c["model"] == "judge"]
    assert judge and "complete sentences" not in judge[-1]["messages"][-1]["content"]


def test_every_sink_says_a_turn_was_shortened():
    from debate.transcript import render_text

    client, _ = _client({"cut": CUT, "loop": LOOP, "judge": JUDGE})
    text = render_text(run(client, "single", params={"rounds": 0}, lineup=_single_lineup("cut", "loop")))
    assert "shortened to its last full sentence" in text and "stopped where it began to repeat itself" in text


def test_the_papers_setting_asks_no_length():
    client, backend = _client({"cut": CUT, "loop": LOOP, "judge": JUDGE})
    run(client, "single", params={"rounds": 0}, lineup=_single_lineup("cut", "loop"))
    assert not any("complete sentence" in str(c["messages"]) for c in backend.calls)


def test_unsupported_figures_are_recorded_and_named_to_the_judge():
    pro = "Crime fell 12 percent in 2018. Murders dropped to 292 that year."
    opp = "Only 40 percent of people feel safer, and crime fell 12 percent at most."
    client, backend = _client({"p": pro, "o": opp, "judge": JUDGE})
    ev = run(
        client,
        "single",
        params={"rounds": 0},
        lineup=_single_lineup("p", "o"),
        claim="Crime fell 12 percent in New York, the mayor said.",
    )
    said: dict = {}
    for e in by_type(ev, "turn_finished"):
        said.setdefault(e.role, e)  # the openings (the closings repeat them: then their figures have a source)
    assert said["proponent"].unsupported_figures == ["2018", "292"]
    assert said["opponent"].unsupported_figures == ["40 percent"]  # 12 percent: the claim has it
    note = backend.calls[-1]["messages"][-1]["content"]
    assert backend.calls[-1]["model"] == "judge"
    assert "appear in none of the claim, the evidence and the earlier turns" in note
    assert "2018 (proponent)" in note and "40 percent (opponent)" in note


def test_script_checks():
    assert script_of("Crime fell in New York") == "LATIN" and script_of("犯罪率下降") is None
    assert token_bytes_allowed(b" the") and token_bytes_allowed("é".encode())
    assert not token_bytes_allowed("客".encode()) and not token_bytes_allowed("客".encode()[:2])
    assert not token_bytes_allowed("Жизнь".encode()) and token_bytes_allowed("—".encode()[:1])
    assert "script" not in GenOptions().key_dict()  # earlier cache keys stay as they were


@pytest.mark.real_model
def test_the_embedded_model_answers_an_english_task_in_latin_script():
    """Qwen2.5 asked for Chinese writes Chinese; with the Latin script kept it cannot, and still answers."""
    from debate.models.local import LocalBackend

    be = LocalBackend()
    msgs = [{"role": "user", "content": "Translate into Chinese characters: 'The economy is growing fast.'"}]
    free = "".join(
        c.text for c in be.stream("qwen2.5-coder-0.5b", msgs, GenOptions(max_tokens=24)) if hasattr(c, "text")
    )
    kept = "".join(
        c.text
        for c in be.stream("qwen2.5-coder-0.5b", msgs, GenOptions(max_tokens=24, script="LATIN"))
        if hasattr(c, "text")
    )
    assert off_script(free), free  # the model does write another script when let
    assert kept.strip() and not off_script(kept), kept


@pytest.mark.real_model
def test_real_model_turns_end_well_and_their_figures_are_checked():
    """A RADAR-style argument from the embedded model at the demo pace: the recorded turn ends at a full
    sentence or was marked, and every figure it records as unsupported is in its text and in no source."""
    from debate.content.sentences import ends_mid_sentence
    from debate.models.registry import default_client

    client = default_client(cache=False)
    claim = "Unemployment in the United States fell to 3.5 percent in 2019, the lowest in 50 years."
    lu = {
        "name": "real",
        "members": [{"name": "m", "model": "local:qwen2.5-coder-0.5b"}],
        "judge": {"name": "judge", "model": "local:qwen2.5-coder-0.5b"},
        "roles": {
            "proponent": {"name": "pro", "model": "local:qwen2.5-coder-0.5b", "temperature": 0.7, "seed": 3},
            "opponent": {"name": "opp", "model": "local:smollm2-135m", "temperature": 0.7, "seed": 4},
        },
    }
    ev = run(client, "single", params={"rounds": 0, "answer_sentences": 3}, lineup=lu, claim=claim, max_tokens=48)
    turns = [e for e in by_type(ev, "turn_finished") if e.role in ("proponent", "opponent")]
    assert len(turns) == 4
    sources = [claim]
    for t in turns:
        assert t.shortened or not t.cut_off_at or not ends_mid_sentence(t.text), t.text
        assert not off_script(t.text)
        # a figure, not a substring: "20" ("the lowest in 20 years") is not the claim's "2019"
        given = {f.text for f in figures(claim)}
        for f in t.unsupported_figures:
            assert f in t.text and f not in given
        assert set(t.unsupported_figures) <= {f.text for f in figures(t.text)}
        sources.append(t.text)


# the chair's answer in one content-benchmark council (CheckThat tweet 1327, category 3; Qwen2.5-Coder-0.5B),
# word for word: a summary that repeats itself until the 128-token budget, its JSON never closed
CHAIR_LOOP = (
    '{"status": "CONSENSUS REACHED", "summary": "The discussion has reached a consensus on the topic of the '
    "research analysis. The tweet mentions a research analysis, which is a clear example of a scientific entity. "
    "The discussion has also addressed the issue of the link to a research analysis, which can be interpreted as "
    "an academic publication. The discussion has also addressed the issue of the journal name and the link to a "
    "research analysis, which can be interpreted as an academic publication. The discussion has also addressed "
    "the issue of the link to a research analysis, which can be interpreted as an academic publication. The "
    "discussion has also addressed the issue"
)


def test_a_json_summary_that_loops_keeps_its_words_before_the_loop():
    from debate.content.sentences import find_loop
    from debate.protocols.base import prose_ends_well
    from debate.protocols.parsing import parse_chair

    parsed = parse_chair(CHAIR_LOOP)
    assert parsed and parsed["status"] == "CONSENSUS REACHED" and find_loop(parsed["summary"])
    kept, how, full = prose_ends_well(parsed, budget_ended=True)
    assert how == "loop" and full == parsed["summary"] and kept["status"] == "CONSENSUS REACHED"
    assert find_loop(kept["summary"]) is None and kept["summary"].endswith("an academic publication.")
    assert full.startswith(kept["summary"])
    # a vote's explanation is ended alike; a vote without words and a summary that ends well are left alone
    assert prose_ends_well({"label": "YES"}, True) == ({"label": "YES"}, "", "")
    fine = {"status": "CONSENSUS NOT REACHED", "summary": "Look at the URL again."}
    assert prose_ends_well(fine, False) == (fine, "", "")


def test_a_chair_that_loops_is_shortened_where_members_read_it_and_every_sink_says_so():
    from debate.content.score import score_debate, summarise
    from debate.transcript import render_text

    yes, no = '{"vote": "YES", "explanation": "It links a study."}', '{"vote": "NO", "explanation": "No paper."}'
    client, backend = _client({"cut": CHAIR_LOOP, "m1": yes, "m2": yes, "m3": no})
    lu = lineup(3)
    lu["chair"]["model"] = "scripted:cut"  # the budget ends the chair's answer
    ev = run(client, "council", params={"rounds": 1}, lineup=lu)
    chair = [e for e in by_type(ev, "turn_finished") if e.role == "chair"]
    assert len(chair) == 1
    ch = chair[0]
    assert ch.valid and ch.label == "CONSENSUS REACHED" and ch.shortened == "loop" and ch.text == CHAIR_LOOP
    kept = ch.parsed["summary"]
    assert kept.endswith("an academic publication.") and "discussion has also addressed the issue" in ch.full_text
    assert [s.summary for s in by_type(ev, "chair_summary")] == [kept]
    # members of the next round read the kept summary, never the repeat
    after = [c for c in backend.calls if c["model"] in ("m1", "m2", "m3") and "consensus on the topic" in str(c)]
    assert after and all(str(c["messages"]).count("The discussion has also addressed") == 1 for c in after)
    rows = [r for r in score_debate([e.to_dict() for e in ev]) if r["role"] == "chair"]
    assert summarise(rows)["repeats"] == (0, 1) and summarise(rows)["cut"] == (0, 1)
    assert "stopped where it began to repeat itself" in render_text(ev)
