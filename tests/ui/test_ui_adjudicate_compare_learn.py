"""AppTest of the Adjudicate, Compare and Learn pages (real store, real runner on a scripted backend)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from streamlit.testing.v1 import AppTest

from debate import live
from debate.adjudication.annotations import AnnotationStore
from debate.runner import run_debate
from debate.store import DebateStore
from tests.support.scripted_runs import SCRIPTED_LINEUP, make_run, scripted_client, stored_council_debate

T = 90


def _errors(at: AppTest) -> list:
    return [e.value for e in at.exception] + [e.value for e in at.error]


@pytest.fixture()
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_RUNS_DIR", str(tmp_path))
    make_run(tmp_path, "council-a", "council", {"1": "TRUE", "2": "FALSE", "3": "TRUE"})
    make_run(tmp_path, "council-b", "radar", {"1": "TRUE", "2": "TRUE", "3": "HALF-TRUE"})
    return tmp_path


@pytest.mark.timeout(240)
def test_adjudicate_queue_from_runs_label_reload_export(runs_dir):
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T).run()
    assert not _errors(at)
    at.segmented_control(key="adj_view").set_value("New queue").run()
    at.multiselect(key="adj_runs").set_value([str(runs_dir / "council-a"), str(runs_dir / "council-b")]).run()
    at.toggle(key="adj_new_blind").set_value(False).run()  # blind by default: the judge must not anchor annotators
    at.button(key="adj_build").click().run()
    assert not _errors(at)
    store = AnnotationStore()
    q = store.queues()[0]
    keys = [c.key for c in store.cases(q["id"])]
    assert set(keys) == {"1", "2", "3"}  # split council votes: consensus 2/3 < 0.8 everywhere
    assert at.segmented_control(key="adj_view").value == "Label"
    assert any("Type your name" in i.value for i in at.info)
    at.sidebar.text_input(key="adj_annotator").input("alice").run()
    labels = q["labels"]
    assert [at.button(key=f"adj_lab_{i}").label for i in range(3)] == labels
    at.button(key="adj_lab_0").click().run()  # case 1 -> labels[0], moves on
    assert at.session_state["adj_pos"] == 1
    at.button(key="adj_skip").click().run()  # case 2 skipped
    at.button(key="adj_flag").click().run()  # case 3 flagged
    at.text_area(key=f"adj_note:{q['id']}:{keys[2]}:alice").input("hard one").run()
    at.button(key="adj_lab_2").click().run()
    assert not _errors(at)
    mine = store.mine(q["id"], "alice")
    assert mine[keys[0]]["label"] == labels[0] and mine[keys[1]]["skipped"]
    assert mine[keys[2]]["label"] == labels[2] and mine[keys[2]]["flagged"] and mine[keys[2]]["note"] == "hard one"
    assert any("3 of 3 done" in p.proto.text for p in at.get("progress"))
    # a reload: a fresh session with only the address keeps who, which queue and where
    params = dict(at.query_params)
    assert params["who"] == ["alice"] or params["who"] == "alice"
    again = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    for k, v in params.items():
        again.query_params[k] = v[0] if isinstance(v, list) else v
    again.run()
    assert again.sidebar.text_input(key="adj_annotator").value == "alice"
    assert again.button(key=f"adj_lab_{labels.index(mine[keys[2]]['label'])}").proto.type == "primary"
    assert again.button(key="adj_flag").label == "Unflag"
    # a second annotator, then agreement and disagreements
    store.set_label(q["id"], keys[0], "bob", labels[1])
    store.set_label(q["id"], keys[2], "bob", labels[2])
    again.segmented_control(key="adj_view").set_value("Agreement").run()
    metrics = {m.label: m.value for m in again.metric}
    assert metrics["Annotators"] == "2" and metrics["Fleiss' kappa"] != ""
    again.segmented_control(key="adj_view").set_value("Disagreements").run()
    table = again.dataframe[0].value
    assert "annotators disagree" in " ".join(table["why"])
    again.segmented_control(key="adj_view").set_value("Export").run()
    assert [b.label for b in again.get("download_button")][:2] == ["Download CSV", "Download JSONL"]
    rows = list(csv.DictReader(io.StringIO(store.export(q["id"], "csv", "alice"))))
    assert {r["id"]: r["label"] for r in rows}[keys[0]] == labels[0].lower()
    assert not _errors(again)


@pytest.mark.timeout(120)
def test_adjudicate_upload_errors_are_inline(tmp_path):
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T).run()
    at.segmented_control(key="adj_view").set_value("New queue").run()
    at.radio(key="adj_src").set_value("Uploaded file").run()
    assert at.button(key="adj_build_up").disabled  # nothing uploaded yet
    assert not at.exception


@pytest.mark.timeout(180)
def test_compare_two_protocols_side_by_side():
    DebateStore().save_lineup("scripted", SCRIPTED_LINEUP)
    at = AppTest.from_file("../../pages/compare.py", default_timeout=T)
    at.session_state["_client"] = scripted_client("flip")
    at.session_state["_run"] = run_debate
    at.run()
    at.button(key="cmp_run").click().run()
    assert any("claim is empty" in e.value for e in at.error)
    at.text_area(key="cmp_claim").input("A new study shows coffee cures colds.").run()
    at.selectbox(key="cmp_proto_0").select("council").run()
    at.selectbox(key="cmp_proto_1").select("baseline").run()
    for i in (0, 1):
        at.selectbox(key=f"cmp_lineup_{i}").select("saved:scripted").run()
    at.toggle(key="cfg_aids").set_value(False).run()  # the shared set-up: the papers' settings, 2 rounds at most
    at.number_input(key="p_council_rounds").set_value(2).run()
    at.button(key="cmp_run").click().run()
    ids = at.session_state["cmp_ids"]
    assert len(ids) == 2 and not at.session_state["cmp_problems"]
    for d in ids:
        assert live.wait(d, 30)
    at.run()
    assert not _errors(at)
    verdicts = [m.value for m in at.metric if m.label == "Verdict"]
    assert len(verdicts) == 2 and all(v in ("YES", "NO") for v in verdicts)
    calls = [int(m.value) for m in at.metric if m.label == "Model calls"]
    assert calls[1] == 1 and calls[0] >= 4  # baseline: one call; council: 3 votes + chair at least
    rows = [DebateStore().get(d) for d in ids]
    assert [r["protocol"] for r in rows] == ["council", "baseline"] and all(r["status"] == "completed" for r in rows)
    # the same two, opened as saved debates
    at.segmented_control(key="cmp_mode").set_value("Open saved debates").run()
    at.multiselect(key="cmp_saved").set_value(ids).run()
    assert len([m for m in at.metric if m.label == "Verdict"]) == 2


@pytest.mark.timeout(180)
def test_learn_step_through_dynamics_and_flow():
    did = stored_council_debate()
    at = AppTest.from_file("../../pages/learn.py", default_timeout=T).run()
    assert not _errors(at)
    at.selectbox(key="learn_debate").select(did).run()
    assert "Step 1 of" in at.get("progress")[0].proto.text
    assert any("council debate starts" in m.value.lower() for m in at.markdown)
    for _ in range(6):
        at.button(key="learn_next").click().run()
    assert at.session_state["learn_step"] == 6
    texts = " ".join(m.value for m in at.markdown)
    assert "votes" in texts or "Votes" in texts
    # jump to the first tally: its note explains what happens next
    steps_seen = []
    for _ in range(40):
        cards = [m.value for m in at.markdown if "claim-card" in m.value and "step " in m.value]
        steps_seen.append(cards[0])
        if "consensus" in cards[0]:
            break
        at.button(key="learn_next").click().run()
    assert "consensus" in steps_seen[-1] and ("chairperson summarises" in steps_seen[-1] or "≥" in steps_seen[-1])
    at.button(key="learn_prev").click().run()
    assert not _errors(at)
    at.segmented_control(key="learn_view").set_value("Vote dynamics").run()
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert figs[0]["data"][0]["type"] == "sankey" and sum(figs[0]["data"][0]["link"]["value"]) >= 3
    at.segmented_control(key="learn_view").set_value("Protocol flow").run()
    at.selectbox(key="learn_proto").select("radar").run()
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "stop_check" in dot and '[label="continue, rounds left"]' in dot and "evidence" in dot
    assert not _errors(at)
