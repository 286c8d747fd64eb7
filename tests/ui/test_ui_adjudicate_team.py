"""AppTest of a labelling team on the Adjudicate page: a blind queue (nothing of the debate's decision or of
other labels before labelling), a reviewer's final label with a reason, alpha and the judge-vs-gold charts,
versioned guidelines, the export of every label. Real SQLite store and real evaluation checkpoints whose
items carry council event streams from the real runner (scripted members)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from streamlit.testing.v1 import AppTest

from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import from_runs
from tests.support.scripted_runs import make_run

T = 90


def _errors(at: AppTest) -> list:
    return [e.value for e in at.exception] + [e.value for e in at.error]


def _page_text(at: AppTest) -> str:
    """Everything the page shows as text: markdown, captions, tables (as CSV), metrics, buttons."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]
    parts += [d.value.to_csv() for d in at.dataframe] + [f"{m.label} {m.value}" for m in at.metric]
    return "\n".join(parts)


@pytest.mark.timeout(240)
def test_blind_queue_two_annotators_and_a_reviewer(tmp_path):
    a = make_run(tmp_path, "council-a", "council", {"1": "TRUE", "2": "FALSE"})
    b = make_run(tmp_path, "radar-b", "radar", {"1": "TRUE", "2": "TRUE"})
    store = AnnotationStore()
    qid = store.create_queue(from_runs([a, b], name="blind queue"), {"blind": True}, guideline="Read the claim twice.")
    keys = [c.key for c in store.cases(qid)]
    store.set_label(qid, keys[0], "bob", "FALSE")  # bob labelled first; alice must not see it
    store.set_note(qid, keys[0], "bob", "the numbers are made up")

    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    at.query_params.update({"who": "alice", "q": qid})
    at.run()
    assert not _errors(at)
    text = _page_text(at)
    assert "Blind queue" in text and "Hidden until you label this case" in text
    for leak in ("bob", "made up", "council-a", "radar-b", "protocols disagree", "consensus"):
        assert leak not in text, leak
    assert not at.dataframe and not any("verdict-card" in m.value for m in at.markdown)
    assert "adj_show_gold" not in [t.key for t in at.toggle]
    assert any("Guidelines · version 1" in e.label for e in at.expander)
    # alice labels case 1, comes back: now the verdicts, votes and bob's label are shown
    at.button(key="adj_lab_0").click().run()
    at.button(key="adj_prev").click().run()
    text = _page_text(at)
    assert "Others: bob: FALSE" in text and "revealed because you labelled" in text
    assert at.dataframe and "council-a" in at.dataframe[0].value.to_csv()
    assert store.mine(qid, "alice")[keys[0]]["guideline_version"] == 1

    # the reviewer: every label with its rationale, the debate's verdicts, a final label with a reason
    at.sidebar.text_input(key="adj_annotator").input("rita").run()
    at.segmented_control(key="adj_view").set_value("Review").run()
    assert any("This queue is blind" in i.value for i in at.info) and not at.expander  # not by accident
    at.sidebar.toggle(key="adj_reviewer").set_value(True).run()
    assert not _errors(at)
    text = _page_text(at)
    assert "the numbers are made up" in text and "annotators disagree" in " ".join(e.label for e in at.expander)
    at.selectbox(key=f"adj_rev_lab:{qid}:{keys[0]}").select("FALSE").run()
    at.button(key=f"adj_rev_save:{qid}:{keys[0]}").click().run()
    assert any("needs a reason" in e.value for e in at.error)  # no reason, no final label
    at.text_input(key=f"adj_rev_why:{qid}:{keys[0]}").input("No source supports the figure.").run()
    at.button(key=f"adj_rev_save:{qid}:{keys[0]}").click().run()
    assert not _errors(at)
    res = store.resolutions(qid)[keys[0]]
    assert (res["label"], res["reviewer"], res["reason"]) == ("FALSE", "rita", "No source supports the figure.")

    # agreement: alpha beside kappa, the judge against the final labels, a calibration curve
    store.set_label(qid, keys[1], "alice", "TRUE")
    store.set_label(qid, keys[1], "bob", "TRUE")
    at.segmented_control(key="adj_view").set_value("Agreement").run()
    assert not _errors(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Krippendorff's α (nominal)"] != "" and "Krippendorff's α (ordinal)" in metrics
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    titles = [c["layout"]["title"]["text"] for c in charts]
    assert "Judge vs adjudicated gold" in titles and "Calibration of the judge's confidence" in titles

    # guidelines: a new version; labels made from now on record it
    at.segmented_control(key="adj_view").set_value("Queue settings").run()
    at.text_area(key=f"adj_guide:{qid}:1").input("Read the claim twice. Numbers need a source.").run()
    at.button(key="adj_guide_save").click().run()
    assert not _errors(at) and store.guideline(qid)["version"] == 2
    store.set_label(qid, keys[1], "bob", "FALSE")
    assert store.mine(qid, "bob")[keys[1]]["guideline_version"] == 2

    at.segmented_control(key="adj_view").set_value("Export").run()
    assert "Download all labels (CSV)" in [b.label for b in at.get("download_button")]
    rows = {r["key"]: r for r in csv.DictReader(io.StringIO(store.export(qid, "cases")))}
    assert rows[keys[0]]["final"] == "FALSE" and rows[keys[0]]["final_source"] == "reviewer"
    assert rows[keys[0]]["label:alice"] and rows[keys[0]]["rationale:bob"] == "the numbers are made up"
    assert rows[keys[0]]["judge"] == store.cases(qid)[0].verdicts[0]["label"] and rows[keys[0]]["judge"]


@pytest.mark.timeout(180)
def test_upload_own_checkthat_file_one_case_per_tweet_and_category(tmp_path):
    from tests.review.test_adjudication_team import checkthat_file

    f = checkthat_file(tmp_path / "our_tweets.tsv")
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    at.query_params.update({"who": "ann"})
    at.run()
    at.segmented_control(key="adj_view").set_value("New queue").run()
    at.radio(key="adj_src").set_value("Uploaded file").run()
    at.toggle(key="adj_new_blind").set_value(False).run()
    at.text_area(key="adj_new_guide").input("Count only peer-reviewed studies as references.").run()
    at.file_uploader(key="adj_up").upload("our_tweets.tsv", f.read_bytes(), "text/tab-separated-values").run()
    at.button(key="adj_build_up").click().run()
    assert not _errors(at)
    q = next(q for q in AnnotationStore().queues() if q["source"].get("file") == "our_tweets.tsv")
    assert q["n_items"] == 12 and q["settings"]["format"] == "checkthat" and not q["settings"]["blind"]
    text = _page_text(at)
    assert "Case 1 of 12" in text and "category 2" in text
    assert "annotators split" not in text  # the badge would tell the gold (0.5) while it is hidden
    guide = next(e for e in at.expander if e.label.startswith("Guidelines"))
    guide_text = " ".join(m.value for m in guide.markdown) + " ".join(t.value for t in guide.text)
    from debate.tasks import resolve_task

    for cat in (1, 2, 3):  # the task's own category definitions
        assert f"Category {cat}" in guide_text and resolve_task("checkthat", cat).description[:60] in guide_text
    assert "peer-reviewed" in guide_text
    at.toggle(key="adj_show_gold").set_value(True).run()
    assert any("annotators split" in m.value for m in at.markdown if "Gold label" in m.value)
    assert any('chip orange">annotators split' in m.value for m in at.markdown)  # now the badge may say it
    at.button(key="adj_lab_0").click().run()  # YES on the split category
    at.segmented_control(key="adj_view").set_value("Export").run()
    assert "Download as checkthat file" in [b.label for b in at.get("download_button")]
    assert not _errors(at)
