"""What a person reads about a verdict and about the settings that ran, page by page (AppTest; real store,
real engine, scripted models whose label probabilities are chosen so an aid overrules the written label).

- the verdict card, the Library, Present, Learn: the label the judge wrote, its sentence in the task's
  terms, and the class weights' label as a second opinion named as such ("Calibrated reading: FALSE
  (class weights fitted on liar-train, 90) — a second opinion; …") where the label is;
- finished bubbles: the answer in words with the JSON on demand, "cut off at N tokens", no 0.00 badge
  drawn as the answer;
- Debate and Compare: the same set-up widgets (pace, aids), RADAR switching the task, the parameter
  widgets showing what the aids will run, and "Ran with: …" under every debate.
"""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from debate import config, live  # noqa: F401 (the package, before pages/ is on the path)
from debate.aids import calibration as cal
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.store import DebateStore
from tests.services.test_verdict_words import CLAIM, RADAR_LINEUP, _radar_client, budget_client
from tests.support.engine import DEFAULTS, kind
from tests.support.fitted import fitted  # noqa: F401 (a fixture)

T = 120
VOTE = '{"vote": "YES", "explanation": "It cites a study."}'
SECOND = "Calibrated reading: FALSE (class weights fitted on liar-train, 90) — a second opinion; the verdict is the"
SECOND_HTML = SECOND.replace(":", "&#58;")  # as ui.safe.escape writes it


@pytest.fixture()
def fitted_judge(fitted, monkeypatch):
    """Class weights for the scripted judge in a fitted-values file of the test's own."""
    fitted(
        cal.judge_key("scripted:judge", "halftruth", "radar", "constrained"),
        {"weights": {"TRUE": 1.0, "FALSE": 12.18, "HALF-TRUE": 2.1}, "fitted_on": "liar-train, 90"},
    )
    monkeypatch.setenv("DEBATE_WARM_AHEAD", "0")


def _store() -> DebateStore:
    return DebateStore(config.store_db())


def _page(path: str, **state) -> AppTest:
    at = AppTest.from_file(path, default_timeout=T)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _wait(debate_ids: list[str], at: AppTest) -> None:
    store = _store()
    deadline = time.time() + 90
    while any(store.get(d)["status"] == "running" for d in debate_ids) and time.time() < deadline:
        time.sleep(0.3)
        at.run()
    at.run()
    assert not at.exception, [e.message for e in at.exception]


def _html(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def _captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


def _saved(name: str, lineup: dict) -> str:
    _store().save_lineup(name, {**lineup, "name": name})
    return f"saved:{name}"


def test_the_judges_written_label_is_the_verdict_and_the_weights_a_second_opinion_on_every_page(fitted_judge):
    client = _radar_client({"TRUE": 0.55, "FALSE": 0.08, "HALF-TRUE": 0.37})
    preset = _saved("radar-verdicts", RADAR_LINEUP)
    at = _page("../../app.py", _client=client, _retriever=None)
    at.radio(key="cfg_protocol").set_value("radar").run()
    assert at.selectbox(key="cfg_task").value == "halftruth"  # RADAR decides TRUE / FALSE / HALF-TRUE
    assert "so the task switched to Half-truth" in " ".join(i.value for i in at.info)
    at.selectbox(key="cfg_preset").set_value(preset).run()
    at.number_input(key="p_radar_rounds").set_value(0)
    at.toggle(key="p_radar_early_stop").set_value(False)
    at.text_area(key="claim").input(CLAIM).run()
    at.button(key="run").click().run()
    assert "debate_id" in at.session_state, [e.value for e in at.error] + [e.message for e in at.exception]
    did = at.session_state["debate_id"]
    _wait([did], at)
    html = _html(at)
    card = next(m.value for m in at.markdown if "verdict-card" in m.value)
    assert 'class="chip green">TRUE' in card and "TRUE — the claim is true" in card and SECOND_HTML in card
    assert 'class="chip red">FALSE' not in card and "v-second" in card  # one answer; the other named, not shown as it
    judge = next(m.value for m in at.markdown if 'class="turn"' in m.value and ">judge<" in m.value)
    assert "TRUE — the claim is true" in judge and "counted as" not in judge  # the judge's own bubble
    assert "The figure matches the jobs report." in judge and "Raw answer (JSON)" in judge  # words, JSON on demand
    assert "Ran with: radar" in _captions(at) and "small-model aids on: judge_answer constrained" in _captions(at)
    assert "<script" not in html

    at.switch_page("pages/library.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="lib_open").value == did
    assert SECOND_HTML in _html(at) and "TRUE — the claim is true" in _html(at)

    at.switch_page("pages/present.py").run()
    at.segmented_control(key="pres_mode").set_value("live").run()
    assert not at.exception, [e.message for e in at.exception]
    present = next(m.value for m in at.markdown if "p-verdict" in m.value)
    assert "<b>TRUE</b>" in present and "TRUE — the claim is true" in present and SECOND_HTML in present

    at.switch_page("pages/learn.py").run()
    at.selectbox(key="learn_debate").set_value(did).run()
    from debate.teaching.steps import steps

    at.session_state["learn_step"] = [x.kind for x in steps(_store().event_dicts(did))].index("verdict")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    step = next(m.value for m in at.markdown if "step " in m.value and "claim-card" in m.value)
    assert "Verdict&#58; TRUE" in step and "TRUE — the claim is true." in step
    assert "would have said FALSE" in step  # in plain words on the card; the fitting's own words in the expander:
    how = next(x for x in at.expander if x.label == "How is this computed?")
    assert any(SECOND_HTML in m.value for m in how.markdown)


def test_bubbles_say_the_cut_and_never_draw_a_zero_probability_label_as_the_answer(monkeypatch):
    monkeypatch.setenv("DEBATE_WARM_AHEAD", "0")
    # a council whose members write YES with P(YES) 0.00: counted as NO from their probabilities
    said = {"ana": VOTE, "ben": VOTE, "cy": VOTE, "chair": DEFAULTS["chair"]}
    zero = ModelClient(
        {
            "scripted": ScriptedBackend(
                said, label_probs=lambda t, o: {"YES": 0.0, "NO": 1.0} if o.labels and "YES" in o.labels else None
            )
        }
    )
    lineup = {
        "members": [{"name": n, "model": f"scripted:{n}"} for n in ("ana", "ben", "cy")],
        "chair": {"name": "chair", "model": "scripted:chair"},
        "judge": {"name": "j", "model": "scripted:ana"},
    }
    zero_preset, budget_preset = _saved("zero-probs", lineup), _saved("budget", RADAR_LINEUP)
    at = _page("../../app.py", _client=zero, _retriever=None)
    at.toggle(key="cfg_aids").set_value(False).run()
    at.selectbox(key="cfg_preset").set_value(zero_preset).run()
    at.selectbox(key="p_council_vote_from").set_value("probs")
    at.text_area(key="claim").input("A study in Nature says coffee cures colds.").run()
    at.button(key="run").click().run()
    _wait([at.session_state["debate_id"]], at)
    votes = [m.value for m in at.markdown if 'class="turn"' in m.value and "It cites a study." in m.value]
    assert votes and all("wrote YES · P 0.00 · counted as NO" in v for v in votes)
    assert not any('class="chip green">YES' in v for v in votes)  # YES is never drawn as the answer
    assert "NO — this tweet contains no scientific claim" in _html(at)
    assert "The members wrote a majority of YES; counted by their label probabilities" in _html(at)
    card = next(m.value for m in at.markdown if "verdict-card" in m.value)  # the headline says both counts
    assert '<span class="v-headline">3 wrote YES; counted from their probabilities&#58; 3 NO</span>' in card

    # a single debate whose openings run past the answer budget
    at.session_state["_client"] = budget_client()
    at.radio(key="cfg_protocol").set_value("single").run()
    at.selectbox(key="cfg_preset").set_value(budget_preset).run()
    at.number_input(key="p_single_rounds").set_value(0)
    at.number_input(key="cfg_max_tokens").set_value(12).run()
    at.button(key="run").click().run()
    _wait([at.session_state["debate_id"]], at)
    cut = [m.value for m in at.markdown if 'class="turn"' in m.value and "and on" in m.value]
    assert len(cut) == 4 and all("cut off at 12 tokens (the answer budget)" in v for v in cut)  # openings, closings
    assert "Ran with: single · answers of at most 12 tokens" in _captions(at)


def test_with_the_aids_on_the_parameters_show_what_will_run_and_the_captions_say_what_they_change(monkeypatch):
    monkeypatch.setenv("DEBATE_WARM_AHEAD", "0")
    at = _page("../../app.py", _retriever=None)
    assert at.toggle(key="cfg_aids").value and at.radio(key="cfg_protocol").value == "council"
    more = {k: at.selectbox(key=f"p_council_{k}").value for k in ("vote_from", "demos", "calibration", "explain")}
    assert more == {"vote_from": "probs", "demos": "dialogue", "calibration": "threshold", "explain": "after"}
    caps = _captions(at)
    assert (
        "The small-model aids set vote_from, demos, explain, chair_status, keep_first_vote, calibration: the values "
        "below are the ones that will run." in caps
    )
    assert at.text_input(key="p_council_keep_first_vote").value == "local:smollm2-135m"  # the SmolLM2 member votes once
    assert "the small-model aids (below) change how votes and the judge's verdict are read" in caps
    assert "Prompts, votes, thresholds and the judge are the papers'" not in caps
    assert "votes are counted from the members' label probabilities, not from the label they wrote" in caps
    assert "counts a member's vote as that decision even where it wrote the other label" in caps
    assert "shown beside it as a second opinion" in at.toggle(key="cfg_aids").help
    assert at.number_input(key="p_council_members").label == "members (0 = every lineup member)"  # not "members 0"
    at.selectbox(key="cfg_task").set_value("halftruth").run()  # no aid applies to a council here: no claim it does
    assert "No small-model aid applies" in _captions(at) and "the small-model aids (below)" not in _captions(at)
    assert at.selectbox(key="p_council_vote_from").value == "written"
    at.selectbox(key="cfg_task").set_value("checkthat").run()
    at.toggle(key="cfg_aids").set_value(False).run()
    more = {k: at.selectbox(key=f"p_council_{k}").value for k in ("vote_from", "demos", "calibration", "explain")}
    assert more == {"vote_from": "written", "demos": "paper", "calibration": "none", "explain": "none"}
    assert "Prompts, votes, thresholds and the judge are the papers'" in _captions(at)
    assert at.text_input(key="p_council_keep_first_vote").value == "none"  # the paper: every member in every round
    at.toggle(key="cfg_aids").set_value(True).run()
    at.number_input(key="p_council_k_demos").set_value(3).run()  # the person's own value stays theirs
    assert at.number_input(key="p_council_k_demos").value == 3
    assert at.selectbox(key="p_council_vote_from").value == "probs"


def test_compare_uses_the_same_set_up_and_says_what_each_column_ran(monkeypatch):
    monkeypatch.setenv("DEBATE_WARM_AHEAD", "0")

    def reply(m, o):
        return (
            VOTE
            if kind(m) == "vote"
            else (
                '{"category": "YES", "explanation": "It cites a study."}'
                if kind(m) in ("judge", "repair")
                else DEFAULTS[kind(m)]
            )
        )

    client = ModelClient({"scripted": ScriptedBackend(dict.fromkeys(("ana", "ben", "cy", "chair", "judge"), reply))})
    lineup = _saved(
        "cmp-verdicts",
        {
            "members": [{"name": n, "model": f"scripted:{n}"} for n in ("ana", "ben", "cy")],
            "chair": {"name": "chair", "model": "scripted:chair"},
            "judge": {"name": "judge", "model": "scripted:judge"},
        },
    )
    at = _page("../../pages/compare.py", _client=client, _retriever=None)
    assert at.selectbox(key="cfg_task").value == "checkthat"
    protos = [at.selectbox(key=f"cmp_proto_{i}").value for i in (0, 1)]
    assert "radar" not in protos and "radar-single" not in protos  # the default pair on a CheckThat category
    assert at.toggle(key="cfg_pace").value and at.toggle(key="cfg_aids").value  # the Debate page's switches
    at.selectbox(key="cmp_proto_1").set_value("radar").run()
    assert at.selectbox(key="cfg_task").value == "halftruth"
    assert "so the task switched to Half-truth" in " ".join(i.value for i in at.info)
    at.selectbox(key="cmp_proto_1").set_value("single").run()
    assert at.selectbox(key="cfg_task").value == "checkthat"  # and back
    at.selectbox(key="cmp_proto_1").set_value("radar").run()
    at.selectbox(key="cfg_task").set_value("averitec").run()  # the person's own choice of task ...
    at.selectbox(key="cmp_proto_1").set_value("single").run()
    assert at.selectbox(key="cfg_task").value == "averitec"  # ... is not switched back over
    at.selectbox(key="cfg_task").set_value("checkthat").run()
    for i in (0, 1):
        at.selectbox(key=f"cmp_lineup_{i}").set_value(lineup)
    at.number_input(key="p_single_rounds").set_value(0)
    at.text_area(key="cmp_claim").input("A new study in Nature shows coffee cures colds.").run()
    at.button(key="cmp_run").click().run()
    ids = at.session_state["cmp_ids"]
    assert len(ids) == 2 and not at.session_state["cmp_problems"]
    _wait(ids, at)
    ran = [c.value for c in at.caption if c.value.startswith(":material/tune: Ran with:")]
    assert len(ran) == 2
    assert any("council · live-demo pace" in r and "small-model aids on" in r for r in ran)
    assert any(r.startswith(":material/tune: Ran with: single") for r in ran)
    assert _html(at).count("YES — this tweet contains a scientific claim") >= 2
    started = [_store().events(d)[0] for d in ids]
    assert all(s.settings["aids"] and s.settings["max_tokens"] == 128 for s in started)
    # the aids switch on Compare: every protocol's widgets show what will run, on and off
    at.selectbox(key="cmp_proto_1").set_value("baseline").run()
    assert (at.selectbox(key="p_council_vote_from").value, at.selectbox(key="p_baseline_answer").value) == (
        "probs",
        "label-first",
    )
    at.toggle(key="cfg_aids").set_value(False).run()
    assert (at.selectbox(key="p_council_vote_from").value, at.selectbox(key="p_baseline_answer").value) == (
        "written",
        "paper",
    )


def test_the_same_claim_and_lineup_run_with_the_same_settings_on_debate_and_compare(monkeypatch):
    monkeypatch.setenv("DEBATE_WARM_AHEAD", "0")

    def reply(m, o):
        return VOTE if kind(m) == "vote" else DEFAULTS[kind(m)]

    client = ModelClient({"scripted": ScriptedBackend(dict.fromkeys(("ana", "ben", "cy", "chair", "judge"), reply))})
    lineup = _saved(
        "parity",
        {
            "members": [{"name": n, "model": f"scripted:{n}"} for n in ("ana", "ben", "cy")],
            "chair": {"name": "chair", "model": "scripted:chair"},
            "judge": {"name": "judge", "model": "scripted:judge"},
        },
    )
    claim = "A new study in Nature shows coffee cures colds."
    at = _page("../../app.py", _client=client, _retriever=None)
    at.selectbox(key="cfg_preset").set_value(lineup).run()
    at.number_input(key="p_council_rounds").set_value(1)
    at.text_area(key="claim").input(claim).run()
    at.button(key="run").click().run()
    debate_id = at.session_state["debate_id"]
    _wait([debate_id], at)
    at.switch_page("pages/compare.py").run()
    assert at.text_area(key="cmp_claim").value == claim  # the Debate page's claim, set-up and switches
    assert at.number_input(key="p_council_rounds").value == 1
    at.selectbox(key="cmp_proto_0").set_value("council")
    at.selectbox(key="cmp_proto_1").set_value("single")
    at.selectbox(key="cmp_lineup_0").set_value(lineup).run()
    at.button(key="cmp_run").click().run()
    ids = at.session_state["cmp_ids"]
    _wait(ids, at)
    here, there = (_store().events(d)[0].settings for d in (debate_id, ids[0]))
    same = ("params", "max_tokens", "aids", "evidence_on", "top_k", "task", "category", "lineup_name")
    assert {k: here[k] for k in same} == {k: there[k] for k in same}
