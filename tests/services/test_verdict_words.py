"""What a verdict says, in the engine: one sentence per label in the task's terms, the aid that overruled
a written label carried in the verdict event and read by every export, the token budget's cut on a turn,
and the settings a debate ran with. Scripted models for the protocol logic; the embedded models for the
same fields on real answers (tests marked real_model)."""

from __future__ import annotations

import pytest

from debate.aids import calibration as cal
from debate.events import Verdict
from debate.live.pace import settings_line
from debate.models.base import Delta, Final
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.runner import DebateConfig, run_debate
from debate.sharing.html import to_html
from debate.store import to_markdown
from debate.tasks import CHECKTHAT_CATEGORIES, override_note, verdict_sentence, verdict_sentences
from debate.teaching.steps import steps
from debate.transcript import render_text
from tests.support.engine import DEFAULTS, kind
from tests.support.fitted import fitted  # noqa: F401 (a fixture)

CLAIM = "Joe Biden said unemployment fell to 3.4 percent, the lowest since 1969."
JUDGE_TRUE = '{"reason": "The figure matches the jobs report.", "verdict": "TRUE"}'


# -- the sentence ------------------------------------------------------------------------------------
def test_checkthat_verdicts_read_in_the_categorys_own_words_never_as_true_or_false():
    assert verdict_sentence("checkthat", 1, "YES") == "YES — this tweet contains a scientific claim"
    assert verdict_sentence("checkthat", 1, "NO") == "NO — this tweet contains no scientific claim"
    assert verdict_sentence("checkthat", 2, "YES") == "YES — this tweet refers to a scientific study or publication"
    assert verdict_sentence("checkthat", 3, "NO") == "NO — this tweet mentions no scientific entity"
    for c in CHECKTHAT_CATEGORIES:
        for lab in ("YES", "NO"):
            s = verdict_sentence("checkthat", c, lab).lower()
            assert "true" not in s and "false" not in s and s.startswith(lab.lower() + " — this tweet")


def test_true_false_tasks_and_custom_questions_read_in_their_terms():
    assert verdict_sentence("halftruth", None, "FALSE") == "FALSE — the claim is false"
    assert verdict_sentence("halftruth", None, "TRUE") == "TRUE — the claim is true"
    assert verdict_sentence("halftruth", None, "HALF-TRUE").startswith("HALF-TRUE — the claim is half-true")
    assert verdict_sentence("averitec", None, "NEI") == "NEI — there is not enough evidence to decide"
    assert (
        verdict_sentence("custom", None, "YES", "make a health claim")
        == "YES — to “does the text make a health claim?” the answer is yes"
    )
    assert verdict_sentence("halftruth", None, None) == "No verdict — no readable answer"


def test_an_all_categories_verdict_reads_one_sentence_per_category():
    v = Verdict(label=None, labels={"1": "YES", "2": "NO", "3": "YES"}, source="categories")
    assert verdict_sentences(v, {"task": "checkthat"}) == [
        "Category 1: YES — this tweet contains a scientific claim",
        "Category 2: NO — this tweet refers to no scientific study or publication",
        "Category 3: YES — this tweet mentions scientific entities",
    ]


# -- an aid overruling the written label ---------------------------------------------------------------
def _radar_client(probs: dict) -> ModelClient:
    def reply(messages, options):
        return JUDGE_TRUE if kind(messages) == "verdict" else DEFAULTS[kind(messages)]

    return ModelClient(
        {
            "scripted": ScriptedBackend(
                dict.fromkeys(("a", "b", "judge"), reply),
                label_probs=lambda text, o: dict(probs) if o.labels and "TRUE" in o.labels else None,
            )
        }
    )


RADAR_LINEUP = {
    "name": "s",
    "members": [{"name": "a", "model": "scripted:a"}, {"name": "b", "model": "scripted:b"}],
    "judge": {"name": "judge", "model": "scripted:judge"},
}


def _radar_events(probs: dict, **params) -> list[dict]:
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="radar",
        task="halftruth",
        category=None,
        lineup=RADAR_LINEUP,
        params={"rounds": 0, "early_stop": False, **params},
        max_tokens=64,
        aids=True,
    )
    return [e.to_dict() for e in run_debate(cfg, _radar_client(probs)) if e.type != "token"]


WEIGHTS = {"weights": {"TRUE": 1.0, "FALSE": 12.18, "HALF-TRUE": 2.1}, "fitted_on": "liar-train, 90"}
SECOND = "Calibrated reading: FALSE (class weights fitted on liar-train, 90) — a second opinion; the verdict is"


def test_the_verdict_is_the_judges_written_label_and_the_class_weights_a_named_second_opinion(fitted):
    fitted(cal.judge_key("scripted:judge", "halftruth", "radar", "constrained"), WEIGHTS)
    events = _radar_events({"TRUE": 0.55, "FALSE": 0.08, "HALF-TRUE": 0.37})
    v = next(e for e in events if e["type"] == "verdict")
    judge = [e for e in events if e["type"] == "turn_finished" and e["role"] == "judge"][-1]
    assert judge["label"] == "TRUE"  # what the judge wrote is the verdict: no silent swap
    assert (v["label"], v["reading"], v["calibrated_label"], v["written_label"]) == ("TRUE", "written", "FALSE", None)
    assert v["basis"] == "probability" and v["correct"] is None  # its own probability, not the weighted one
    assert "class weights fitted on liar-train" in v["aid"] and "FALSE ×12.18" in v["aid"]
    assert override_note(v).startswith(SECOND + " the label the judge wrote")
    row = {
        "id": "d1",
        "protocol": "radar",
        "task": "halftruth",
        "status": "completed",
        "created_at": "",
        "claim": CLAIM,
    }
    md = to_markdown(row, events)
    assert "## Verdict\n\n**TRUE**" in md and "TRUE — the claim is true." in md and SECOND in md
    assert "Ran with: radar · answers of at most 64 tokens" in md and "Ran with: radar" in to_html(events)
    page = to_html(events)
    assert "TRUE — the claim is true" in page and SECOND in page
    from debate.events import event_from_dict

    text = render_text([event_from_dict(e) for e in events])
    assert "VERDICT: TRUE" in text and SECOND in text
    last = steps(events)[-2] if steps(events)[-1].kind == "finished" else steps(events)[-1]
    assert last.title == "Verdict: TRUE" and SECOND in last.detail  # the fitting's words behind the expander
    assert "would have said FALSE; that is shown only as a second opinion" in last.note


def test_the_calibrated_reading_when_chosen_is_the_verdict_and_says_what_the_judge_wrote(fitted):
    fitted(cal.judge_key("scripted:judge", "halftruth", "radar", "constrained"), WEIGHTS)
    events = _radar_events({"TRUE": 0.55, "FALSE": 0.08, "HALF-TRUE": 0.37}, calibrated_reading=True)
    v = next(e for e in events if e["type"] == "verdict")
    assert (v["label"], v["reading"], v["written_label"], v["basis"]) == ("FALSE", "calibrated", "TRUE", "calibrated")
    assert override_note(v).startswith("Calibrated reading (class weights fitted on liar-train, 90: FALSE ×12.18")
    assert override_note(v).endswith(
        "the calibrated reading was chosen for this debate: the judge wrote TRUE; the calibration gives FALSE."
    )


def test_a_verdict_stored_before_the_reading_was_a_choice_loads_as_the_calibrated_reading_it_was():
    """A stored verdict event of the older form: `label` the weighted label, `written_label` the judge's."""
    old = {
        "type": "verdict",
        "seq": 9,
        "t": 1.0,
        "label": "FALSE",
        "source": "judge",
        "written_label": "HALF-TRUE",
        "aid": "class weights fitted on liar-train: FALSE ×12.18",
        "confidence": 0.7,
        "probs": {"TRUE": 0.1, "FALSE": 0.7, "HALF-TRUE": 0.2},
    }
    from debate.events import event_from_dict
    from debate.outcome import prediction_of, reading

    for v in (old, event_from_dict(old)):
        r = reading(v)
        assert (r.shown, r.written, r.calibrated, r.reading, r.recorded_before) == (
            "FALSE",
            "HALF-TRUE",
            "FALSE",
            "calibrated",
            True,
        )
        assert "recorded before the written label became the verdict: the judge wrote HALF-TRUE" in override_note(v)
        assert (prediction_of(v), prediction_of(v, "written"), prediction_of(v, "calibrated")) == (
            "FALSE",
            "HALF-TRUE",
            "FALSE",
        )


def test_no_second_opinion_is_claimed_when_the_aid_agrees_with_the_judge(fitted):
    fitted(
        cal.judge_key("scripted:judge", "halftruth", "radar", "constrained"),
        {"weights": {"TRUE": 1.0, "FALSE": 1.5, "HALF-TRUE": 1.0}, "fitted_on": "liar-train"},
    )
    v = next(e for e in _radar_events({"TRUE": 0.8, "FALSE": 0.1, "HALF-TRUE": 0.1}) if e["type"] == "verdict")
    assert v["label"] == v["calibrated_label"] == "TRUE" and v["written_label"] is None and override_note(v) == ""


def test_a_baseline_threshold_that_disagrees_with_the_written_label_is_a_second_opinion(fitted):
    fitted(
        cal.setting_key("scripted:m1", "checkthat", 1, "label-first", "dialogue", 8),
        {"threshold": 0.2, "fitted_on": "checkthat-train"},
    )
    client = ModelClient(
        {
            "scripted": ScriptedBackend(
                default='{"category": "NO"}', label_probs=lambda t, o: {"YES": 0.3, "NO": 0.7} if o.labels else None
            )
        }
    )

    def run(**params):
        cfg = DebateConfig(
            claim="A study in Nature finds sleep loss raises risk by 12%.",
            protocol="baseline",
            task="checkthat",
            category=1,
            max_tokens=16,
            aids=True,
            lineup={
                "name": "s",
                "members": [{"name": "m1", "model": "scripted:m1"}],
                "judge": {"name": "j", "model": "scripted:m1"},
            },
            params={"explain": "none", **params},
        )
        return next(e for e in run_debate(cfg, client) if e.type == "verdict")

    v = run()
    assert (v.label, v.calibrated_label, v.reading, v.written_label) == ("NO", "YES", "written", None)
    assert override_note(v).startswith(
        "Calibrated reading: YES (P(YES) 0.30 against the threshold 0.2 fitted on checkthat-train"
    ) and override_note(v).endswith("a second opinion; the verdict is the label the model wrote.")
    assert verdict_sentences(v, {"task": "checkthat"}) == ["NO — this tweet contains no scientific claim"]
    chosen = run(calibrated_reading=True)
    assert (chosen.label, chosen.written_label, chosen.reading) == ("YES", "NO", "calibrated")
    assert "the model wrote NO; the calibration gives YES." in override_note(chosen)


def test_council_votes_counted_from_probabilities_against_the_written_majority():
    client = ModelClient(
        {
            "scripted": ScriptedBackend(
                default='{"vote": "YES", "explanation": "It cites one."}',
                label_probs=lambda t, o: {"YES": 0.1, "NO": 0.9} if o.labels else None,
            )
        }
    )
    lineup = {
        "name": "s",
        "members": [{"name": n, "model": f"scripted:{n}"} for n in ("a", "b", "c")],
        "chair": {"name": "chair", "model": "scripted:chair"},
        "judge": {"name": "j", "model": "scripted:a"},
    }
    cfg = DebateConfig(
        claim="Coffee cures colds.",
        protocol="council",
        task="checkthat",
        category=1,
        lineup=lineup,
        params={"vote_from": "probs", "rounds": 1},
        max_tokens=32,
    )
    v = next(e for e in run_debate(cfg, client) if e.type == "verdict")
    assert (v.label, v.written_label) == ("NO", "YES")
    assert override_note(v) == (
        "The members wrote a majority of YES; counted by their label probabilities "
        "(each member's vote read from its label probabilities), the majority is NO."
    )


# -- the token budget's cut ------------------------------------------------------------------------------
class _Budgeted(ScriptedBackend):
    """Honours max_tokens as a server does: past it the answer ends with finish_reason "length"."""

    def stream(self, model, messages, options):
        words = self._next(model, messages, options).split(" ")
        for w in words[: options.max_tokens]:
            yield Delta(" " + w)
        yield Final(
            completion_tokens=min(len(words), options.max_tokens),
            finish_reason="length" if len(words) > options.max_tokens else "stop",
        )


def budget_client() -> ModelClient:
    """Scripted debaters whose arguments run past any small answer budget."""

    def reply(m, o):
        return ("An argument that goes on " + "and on " * 30) if kind(m) == "argue" else DEFAULTS[kind(m)]

    return ModelClient({"scripted": _Budgeted(dict.fromkeys(("a", "b", "judge"), reply))})


def test_a_turn_cut_by_the_budget_records_where_and_the_exports_say_so():
    client = budget_client()
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="single",
        task="halftruth",
        category=None,
        lineup=RADAR_LINEUP,
        params={"rounds": 0},
        max_tokens=12,
    )
    events = [e.to_dict() for e in run_debate(cfg, client) if e.type != "token"]
    args = [e for e in events if e["type"] == "turn_finished" and e["phase"] == "opening"]
    assert args and all(e["cut_off_at"] == 12 for e in args)
    assert all(e["cut_off_at"] is None for e in events if e["type"] == "turn_finished" and e["role"] == "judge")
    md = to_markdown(
        {"id": "d", "protocol": "single", "task": "halftruth", "status": "completed", "created_at": "", "claim": CLAIM},
        events,
    )
    assert "cut off at 12 tokens" in md and "cut off at 12 tokens" in to_html(events)


def test_a_judge_whose_reason_argues_the_other_label_is_said_so_by_every_view(tmp_path):
    """A single debate whose judge reasons "The tweet contains a scientific claim …" and writes 0 (NO): the card,
    the terminal, Markdown, HTML and the per-turn CSV say "The judge's reason argues YES; the label it wrote is
    NO." beside the verdict, which stays the label the judge wrote; a judge whose label is its reason's, none."""
    from debate.events import event_from_dict
    from debate.sharing.exports import export_csv
    from debate.store import DebateStore
    from tests.support.engine import run, scripted
    from ui.verdicts import verdict_words_html

    apart = "The judge's reason argues YES; the label it wrote is NO."
    for category, said in ((0, True), (1, False)):
        judge = '{"explanation": "The tweet contains a scientific claim about coffee.", "category": ' + f"{category}}}"
        client, _ = scripted({"judge": judge})
        events = [e.to_dict() for e in run(client, "single", category=1, n=2, params={"rounds": 0})]
        (verdict,) = [e for e in events if e["type"] == "verdict"]
        assert verdict["label"] == ("NO" if category == 0 else "YES")  # the written label stays the verdict
        row = {
            "id": "d",
            "protocol": "single",
            "task": "checkthat",
            "status": "completed",
            "created_at": "",
            "claim": "x",
        }
        store = DebateStore(tmp_path / f"d{category}.sqlite")
        did = store.create_debate({"claim": events[0]["claim"], "protocol": "single"}, f"d{category}")
        store.append_events(did, events)
        sinks = {
            "card": verdict_words_html(verdict, events[0]).replace("&#39;", "'"),
            "terminal": render_text([event_from_dict(e) for e in events]),
            "markdown": to_markdown(row, events),
            "html": to_html(events).replace("&#x27;", "'"),
            "csv": export_csv(store, did),
        }
        assert {k: apart in v for k, v in sinks.items()} == dict.fromkeys(sinks, said), sinks["card"]
        store.close()


# -- the settings a debate ran with -------------------------------------------------------------------------
def test_settings_line_names_the_pace_the_aids_and_every_changed_parameter():
    started = {
        "protocol": "council",
        "settings": {
            "params": {
                **__import__("debate.protocols", fromlist=["PROTOCOLS"]).PROTOCOLS["council"].defaults(),
                "rounds": 2,
                "demos": "dialogue",
                "vote_from": "probs",
            },
            "max_tokens": 128,
            "aids": True,
            "evidence_on": False,
        },
    }
    line = settings_line(started)
    assert line.startswith("Ran with: council · live-demo pace · answers of at most 128 tokens (paper: 256)")
    assert "rounds 2 (paper: 5)" in line
    assert "small-model aids on: vote_from probs (paper: written), demos dialogue (paper: paper)" in line
    assert "evidence shown, not given to the agents" in line
    paper = settings_line({"protocol": "council", "settings": {"params": {}, "max_tokens": 256, "aids": False}})
    assert "live-demo pace" not in paper and "small-model aids off" in paper


def test_a_fork_that_kept_its_parents_aid_values_never_says_aids_off():
    """A fork keeps the parameters of the debate it continues, the aids' values among them, while its own
    switch reads off: its line names the values that ran, never "small-model aids off" beside them."""
    from debate.protocols import PROTOCOLS

    params = {**PROTOCOLS["radar"].defaults(), "judge_answer": "constrained", "judge_calibration": "fitted"}
    fork = {
        "protocol": "radar",
        "forked_from": {"debate_id": "p", "round": 1},
        "settings": {"params": params, "max_tokens": 256, "aids": False},
    }
    line = settings_line(fork)
    assert "small-model aids off" not in line
    assert "small-model aids' values in effect (kept from the debate it continues): judge_answer constrained" in line
    assert "judge_calibration fitted (paper: none)" in line


# -- the same fields on a real model ----------------------------------------------------------------------
@pytest.mark.real_model
@pytest.mark.timeout(1800)  # ~1 min on an idle 2-core machine; the embedded models share the cores
def test_real_judge_with_the_aids_gives_its_written_label_and_the_weights_as_a_second_opinion():
    pytest.importorskip("llama_cpp")
    from debate.models.registry import default_client

    # the cheapest full RADAR: openings, then the judge (class weights are fitted for RADAR's judge)
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="radar",
        task="halftruth",
        category=None,
        lineup="embedded",
        params={"rounds": 0, "early_stop": False},
        max_tokens=48,
        aids=True,
        evidence=False,
    )
    events = [e for e in run_debate(cfg, default_client()) if e.type != "token"]
    v = next(e for e in events if e.type == "verdict")
    judge = [e for e in events if e.type == "turn_finished" and e.role == "judge"][-1]
    assert v.label in ("TRUE", "FALSE", "HALF-TRUE") and v.label == judge.label  # the written label is the verdict
    assert v.reading == "written" and v.calibrated_label in ("TRUE", "FALSE", "HALF-TRUE")  # the aid applied
    if v.calibrated_label != v.label:  # the weights disagree: a second opinion, named as such
        assert override_note(v).startswith(f"Calibrated reading: {v.calibrated_label} (class weights fitted on")
    else:
        assert v.written_label is None and override_note(v) == ""


@pytest.mark.real_model
@pytest.mark.timeout(1200)
def test_real_model_answer_cut_by_the_budget_is_marked():
    pytest.importorskip("llama_cpp")
    from debate.models.registry import default_client

    cfg = DebateConfig(
        claim="A study in Nature finds that sleeping less than six hours raises the risk of early death by 12 percent.",
        protocol="baseline",
        task="checkthat",
        category=1,
        lineup="embedded",
        params={"examples": False},
        max_tokens=8,
    )
    events = [e for e in run_debate(cfg, default_client()) if e.type != "token"]
    turn = next(e for e in events if e.type == "turn_finished")
    assert turn.completion_tokens >= 8 and turn.cut_off_at == 8  # llama.cpp ended it on the budget ("length")
    assert "cut off at 8 tokens" in render_text(events)


def test_the_aids_and_the_pace_say_in_words_what_they_change():
    from debate.aids import settings as aids
    from debate.live import pace
    from debate.protocols import PROTOCOLS

    members = [
        {"role": "member", "model": "local:qwen2.5-coder-0.5b"},
        {"role": "member", "model": "local:smollm2-135m"},
    ]
    line = aids.describe("council", "checkthat", [1], members, PROTOCOLS["council"].defaults())
    assert "Each member first reads the 8 most similar CheckThat train tweets" in line
    assert "votes are counted from the members' label probabilities, not from the label they wrote" in line
    assert "counts a member's vote as that decision even where it wrote the other label" in line
    assert "(the verdict's headline then gives both counts)" in line
    assert "vote_from = probs (paper: written)" in line
    judge = [{"role": "judge", "model": "local:qwen2.5-coder-0.5b"}]
    radar = aids.describe("radar", "halftruth", [None], judge, PROTOCOLS["radar"].defaults())
    assert "weighted by class weights fitted on LIAR train, a calibrated reading shown beside the verdict it " in radar
    assert "wrote as a second opinion where they differ" in radar
    unfitted = aids.describe(
        "radar", "halftruth", [None], [{"role": "judge", "model": "scripted:x"}], PROTOCOLS["radar"].defaults()
    )
    assert "No class weights are fitted for this judge's model, so its verdict counts as written." in unfitted
    # the engine's opening words, in each protocol's own sides
    assert 'begins with its side\'s words, written by the engine and marked so ("I oppose the claim.")' in radar
    single = aids.describe("single", "checkthat", [1], judge, PROTOCOLS["single"].defaults())
    assert '("The tweet contains no scientific claim." from the opponent)' in single
    assert "I oppose the claim" not in single
    demo = pace.describe("demo", "council", dict(PROTOCOLS["council"].params), aids=True)
    assert "the small-model aids (below) change how votes and the judge's verdict are read" in demo
    assert "votes, thresholds and the judge are the papers'" not in demo
    assert "Prompts, votes, thresholds and the judge are the papers'" in pace.describe(
        "demo", "council", dict(PROTOCOLS["council"].params), aids=False
    )
