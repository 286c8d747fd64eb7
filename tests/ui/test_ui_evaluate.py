"""The Evaluate page through AppTest, on run folders made here by the real evaluation runner.

The runs go through the real engine (debate.runner.run_debate), the real ModelClient and SQLite
checkpoint; only the models are scripted (deterministic JSON votes), so the whole module takes
seconds. The page is reached through app.py's navigation, as a user reaches it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from debate.errors import ServerError
from debate.evaluation import browse
from debate.evaluation.runner import EvalOptions, run_eval
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from tests.conftest import data_path
from tests.evaluation.test_eval_runner import engine_or_fake, scripted_answer, scripted_client
from ui.safe import text_html

APP = "../../app.py"
LINEUP = {
    "name": "scripted-pair",
    "members": [{"name": "a", "model": "scripted:a"}, {"name": "b", "model": "scripted:b"}],
}


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory) -> Path:
    """Two runs on the same CheckThat items (council, baseline), a LIAR RADAR run, a custom-file run
    with one failing item, and one broken folder."""
    data_path("liar/valid.tsv")  # the RADAR run reads LIAR: skipped where it is not fetched
    root = tmp_path_factory.mktemp("runs")
    engine = engine_or_fake()
    specs = {
        "council": dict(protocol="council", params={"rounds": 1}, category=2),
        "baseline": dict(protocol="baseline", category=2),
        "liar-radar": dict(dataset="liar-valid", protocol="radar"),
    }
    for name, kw in specs.items():
        client, _ = scripted_client()
        opts = dict(
            dataset="checkthat-dev",
            out=str(root / name),
            lineup=LINEUP,
            limit=8,
            concurrency=4,
            max_tokens=32,
            evidence=False,
            progress=False,
        )
        run_eval(EvalOptions(**{**opts, **kw}), client=client, debate_fn=engine)
    data = root / "claims.jsonl"
    data.write_text(
        "\n".join(
            json.dumps({"id": f"c{i}", "text": f"claim number {i}" + (" FAIL" if i == 2 else ""), "label": "TRUE"})
            for i in range(5)
        )
    )

    def answer(messages, options):
        if any("FAIL" in m["content"] for m in messages):
            raise ServerError("scripted server failure", "try later")
        return scripted_answer(messages, options)

    run_eval(
        EvalOptions(
            dataset=str(data),
            task="halftruth",
            out=str(root / "custom"),
            protocol="baseline",
            lineup={"members": [{"name": "a", "model": "scripted:a"}]},
            retries=0,
            evidence=False,
            max_tokens=32,
            progress=False,
        ),
        client=ModelClient({"scripted": ScriptedBackend(default=answer)}),
        debate_fn=engine,
    )
    (root / "broken").mkdir()
    (root / "broken" / "checkpoint.sqlite").write_bytes(b"this is not a database" * 100)
    return root


def _open(root: Path) -> AppTest:
    os.environ["DEBATE_RUNS_DIR"] = str(root)
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/evaluate.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.fixture(autouse=True)
def _restore_env():
    old = os.environ.get("DEBATE_RUNS_DIR")
    yield
    if old is None:
        os.environ.pop("DEBATE_RUNS_DIR", None)
    else:
        os.environ["DEBATE_RUNS_DIR"] = old


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _frame(at: AppTest, column: str):
    """The first table with this column (AppTest does not expose a dataframe's key)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _html(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


@pytest.mark.timeout(120)
def test_runs_table_metrics_papers_charts_and_report(runs_root):
    at = _open(runs_root)
    table = at.dataframe[0].value
    assert sorted(table["run"]) == ["baseline", "council", "custom", "liar-radar"]
    assert list(table[table["run"] != "custom"]["done"]) == ["8/8"] * 3
    council = browse.load_metrics(runs_root / "council")
    row = table[table["run"] == "council"].iloc[0]
    assert row["protocol"] == "council" and row["lineup"] == "scripted-pair" and row["category"] == "2"
    assert row["macro-F1"] == pytest.approx(council["macro_f1"])
    assert row["tokens"] == council["debate"]["tokens_total"] > 0
    assert any("broken" in w.value and "cannot be read" in w.value for w in at.warning)  # and no stack trace
    md = next(c.value for c in at.code if c.value.startswith("| run |"))
    assert "| `council` |" in md and f"| {council['categories']['2']['macro_f1']:.3f} |" in md
    assert "Council Debate 0.8634" in md  # beside TurQUaz Table 2's category-2 column

    at.selectbox(key="ev_run").set_value(str(runs_root / "council")).run()
    assert not at.exception, [e.message for e in at.exception]
    assert _metric(at, "macro-F1") == f"{council['macro_f1']:.3f}"
    assert _metric(at, "items done") == "8/8"
    scores = _frame(at, "F1 YES")
    assert scores.iloc[0]["macro-F1"] == pytest.approx(council["categories"]["2"]["macro_f1"])
    stats = _frame(at, "measure")
    consensus = stats[stats["measure"] == "consensus at first vote"].iloc[0]["value"]
    answered = stats[stats["measure"] == "labels as answered"].iloc[0]["value"]
    direct = council["debate"]["labels_direct"]
    assert answered == ", ".join(f"{k} {v}" for k, v in direct.items()) and sum(direct.values()) > 0
    assert consensus == f"{council['debate']['first_vote_consensus_rate']:.1%}"
    papers = _frame(at, "cat 2")
    assert papers.iloc[0]["method"] == "▶ this run" and "Council Debate" in set(papers["method"])
    assert papers.iloc[0]["cat 2"] == pytest.approx(council["categories"]["2"]["macro_f1"])
    assert len(at.get("plotly_chart")) >= 4  # confusion, F1 per class, tokens, rounds
    report = at.get("download_button")
    assert any(b.proto.label == "report.html" for b in report)


@pytest.mark.timeout(120)
def test_confusion_cell_to_items_to_full_debate(runs_root):
    at = _open(runs_root)
    run = str(runs_root / "council")
    at.selectbox(key="ev_run").set_value(run).run()
    cm = browse.load_metrics(run)["categories"]["2"]["confusion"]
    cells = [
        (g, p, cm["matrix"][i][j])
        for i, g in enumerate(cm["gold_labels"])
        for j, p in enumerate(cm["pred_labels"])
        if cm["matrix"][i][j]
    ]
    gold, pred, n = cells[-1]
    at.selectbox(key=f"ev_cell:{run}:2").set_value((gold, pred, n)).run()
    assert not at.exception, [e.message for e in at.exception]
    expected = browse.confusion_items(run, gold, pred, category=2)
    shown = _frame(at, "rounds")
    assert list(shown["item"]) == [r["item_id"] for r in expected] and len(expected) == n

    item = expected[-1]
    at.selectbox(key=f"ev_item:{run}:2:{gold}:{pred}").set_value(item["item_id"]).run()
    assert not at.exception, [e.message for e in at.exception]
    html = _html(at)
    assert text_html(item["text"], css="claim-text") in html  # the item's claim, escaped as text
    events = browse.item_events(run, item["item_id"])
    turns = [e for e in events if e.type == "turn_finished"]
    assert turns and len(at.chat_message) == len(turns)  # every stored turn drawn by the shared renderer
    assert "Votes, round" in html and 'class="verdict-card"' in html and f">{pred}<" in html


@pytest.mark.timeout(120)
def test_compare_two_runs_and_refuse_different_datasets(runs_root):
    at = _open(runs_root)
    a, b = str(runs_root / "council"), str(runs_root / "baseline")
    at.selectbox(key="ev_cmp_a").set_value(a).run()
    at.selectbox(key="ev_cmp_b").set_value(b).run()
    assert not at.exception, [e.message for e in at.exception]
    res = browse.compare(a, b)
    assert _metric(at, "shared items") == "8"
    assert _metric(at, "macro-F1 A − B") == f"{res['macro_f1_diff']:+.3f}"
    assert _metric(at, "95% CI (bootstrap)") == f"[{res['ci'][0]:+.3f}, {res['ci'][1]:+.3f}]"
    assert _metric(at, "McNemar p") == f"{res['mcnemar']['p_value']:.3g}"
    per_cat = _frame(at, "only A right")
    assert per_cat.iloc[0]["A − B"] == pytest.approx(res["per_category"]["2"]["diff"])

    at.selectbox(key="ev_cmp_b").set_value(str(runs_root / "liar-radar")).run()
    assert not at.exception
    assert any("different datasets" in w.value for w in at.warning)


@pytest.mark.timeout(120)
def test_failed_items_and_unparsed_answers_are_visible(runs_root):
    at = _open(runs_root)
    run = str(runs_root / "custom")
    at.selectbox(key="ev_run").set_value(run).run()
    assert not at.exception, [e.message for e in at.exception]
    failed = _frame(at, "attempts")
    assert list(failed["item"]) == ["c2"] and "scripted server failure" in failed.iloc[0]["error"]
    assert _metric(at, "items done") == "4/5"
    assert not any("cat 2" in d.value.columns or "▶ this run" in set(d.value.iloc[:, 0]) for d in at.dataframe)
    cm = browse.load_metrics(run)["confusion"]
    for i, g in enumerate(cm["gold_labels"]):
        for j, p in enumerate(cm["pred_labels"]):
            if cm["matrix"][i][j]:
                at.selectbox(key=f"ev_cell:{run}:").set_value((g, p, cm["matrix"][i][j])).run()
                assert len(_frame(at, "rounds")) == cm["matrix"][i][j]
                assert not at.exception


@pytest.mark.timeout(60)
def test_empty_or_missing_folder_says_what_to_do(tmp_path):
    (tmp_path / "empty").mkdir()
    for root in (tmp_path / "empty", tmp_path / "missing"):
        at = _open(root)
        assert at.info and "python -m debate eval" in at.info[0].value
        assert not at.dataframe and not at.metric
