"""Fixes from a demanding-user review of the app's three journeys (demonstration, adjudication,
teaching), each checked the way a person meets it: the real store and the real page (AppTest)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import HardCase, QueueSpec, from_upload
from debate.errors import InvalidInput

T = 90


def test_checkthat_upload_without_category_is_refused_naming_the_line():
    """A flat CSV uploaded as CheckThat cases with no `category` column used to become a queue whose Label
    view crashed and whose CSV export had empty cat1..cat3 cells for every label given. It is refused at
    upload, naming the row and what to add."""
    data = b"id,text\nc1,New study shows coffee cuts heart disease risk.\nc2,Nice weather today.\n"
    with pytest.raises(InvalidInput) as e:
        from_upload("cases.csv", data, task="checkthat")
    assert "cases.csv, line 2: no category" in e.value.message
    assert "column “category” with 1 (scientific claim)" in e.value.hint
    with pytest.raises(InvalidInput, match="line 3: category 7"):
        from_upload("cases.csv", b"id,text,category\nc1,a,1\nc2,b,7\n", task="checkthat")
    spec = from_upload("cases.csv", b"id,text,category\nc1,a,1\nc2,b,3\n", task="checkthat")
    assert [(c.item_id, c.category) for c in spec.cases] == [("c1", 1), ("c2", 3)]
    other = from_upload("cases.csv", data, task="halftruth")  # another task needs no category
    assert len(other.cases) == 2


@pytest.mark.timeout(120)
def test_adjudicate_opens_a_checkthat_queue_whose_cases_name_no_category():
    """A CheckThat debate run on all three categories at once has no category; overruled, it becomes such a
    case (as did uploads before the check above). The Label view raised "CheckThat has no category None"
    into the page; it now shows the three categories' definitions."""
    store = AnnotationStore()
    qid = store.create_queue(
        QueueSpec(
            name="no categories",
            task="checkthat",
            labels=["YES", "NO"],
            cases=[HardCase(item_id="d1", text="A study in Nature shows X.")],
        ),
        {"blind": False},
    )
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    at.query_params["q"] = qid
    at.query_params["who"] = "alice"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "These cases name no category" in text
    for n in (1, 2, 3):  # escape() writes the colon as an entity
        assert f"**Category {n}&#58; " in text
    assert [at.button(key=f"adj_lab_{i}").label for i in range(2)] == ["YES", "NO"]


def test_a_label_chip_with_a_number_says_what_the_number_is():
    """The badge beside every vote read "YES · 0.84" with nothing to tell a viewer what 0.84 measures."""
    from ui.verdicts import chip

    html = chip("YES", 0.84)
    assert 'class="chip green">YES · P 0.84</span>' in html  # a probability, named as one
    assert (
        'title="P(YES) 0.84: the probability the model itself gave the label it wrote, on a scale from 0 to 1' in html
    )
    assert "title" not in chip("YES")  # no number, nothing to explain
    hostile = chip("<img src=x onerror=alert(1)>", 0.5)
    assert "<img" not in hostile  # the label is escaped inside the title too


def _round_without_turns(finished: bool, live: bool = True) -> None:
    from debate.events import DebateFinished, DebateStarted, PhaseStarted
    from ui.render import render_sections
    from ui.transcript import build_view

    events = [
        DebateStarted(debate_id="d", protocol="council", task="checkthat", category=1, claim="A claim."),
        PhaseStarted(phase="vote", round=0, title="Initial votes", note="every member votes"),
    ]
    render_sections(build_view(events + ([DebateFinished(status="stopped")] if finished else [])), "d", live=live)


def test_a_started_round_with_no_turn_yet_says_what_is_happening():
    """Between a round's title and its first turn (prompts being assembled; with the aids, similar train
    tweets looked up) the live page showed a title over nothing, for over two minutes on a busy machine."""
    live = AppTest.from_function(_round_without_turns, args=(False,), default_timeout=T).run()
    assert not live.exception
    assert any("Preparing this round's prompts" in c.value for c in live.caption)
    ended = AppTest.from_function(_round_without_turns, args=(True,), default_timeout=T).run()
    assert not ended.exception  # a debate that ended there is not "preparing" anything
    assert not any("Preparing" in c.value for c in ended.caption)
    stored = AppTest.from_function(_round_without_turns, args=(False, False), default_timeout=T).run()
    assert not any("Preparing" in c.value for c in stored.caption)  # Learn's step-through, a blind copy


def test_a_fitted_threshold_reads_with_three_decimals_on_the_verdict(monkeypatch):
    """The baseline's verdict read "P(YES) = 0.83 against a threshold 0.482472 ... (train macro-F1 0.765625)":
    six decimals beside two, a precision the fit does not have."""
    from debate.aids import calibration as cal
    from tests.support.engine import by_type, run, scripted

    monkeypatch.setattr(
        cal,
        "fitted_threshold",
        lambda key: {"threshold": 0.482472, "train_macro_f1": 0.765625, "fitted_on": "checkthat-train"},
    )
    client, _ = scripted({"judge": '{"category": "YES"}'}, label_probs=lambda t, o: {"YES": 0.7, "NO": 0.3})
    v = by_type(
        run(client, protocol="baseline", params={"answer": "label-first", "calibration": "threshold"}), "verdict"
    )[-1]
    assert v.label == "YES"
    assert "threshold 0.482 fitted on checkthat-train (train macro-F1 0.766)" in v.explanation
    assert "0.482472" not in v.explanation and "0.765625" not in v.explanation
