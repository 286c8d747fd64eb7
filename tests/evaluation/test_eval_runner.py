"""Batch runner on real SQLite, a real ModelClient and a ScriptedBackend (the model is the only fake).

`fake_run_debate` stands in for the engine only while debate.runner.run_debate is not built: it
follows the run_debate contract (DebateStarted first, DebateFinished last, ErrorEvent on failure)
and makes its model calls through the ModelClient, so concurrency bounds and the cache are real.
Once the engine exists, `engine_or_fake()` returns the real one and these tests drive it.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from debate.errors import DebateError, InvalidInput
from debate.evaluation.browse import confusion_items, item_events, list_runs, load_metrics
from debate.evaluation.runner import EvalOptions, run_eval, should_abort
from debate.events import DebateFinished, DebateStarted, ErrorEvent, StopCheck, TurnFinished, Verdict, VotesTallied
from debate.models.base import GenOptions
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from tests.conftest import data_path

LABELS = {
    "checkthat": ("YES", "NO"),
    "halftruth": ("TRUE", "HALF-TRUE", "FALSE"),
    "averitec": ("TRUE", "HALF-TRUE", "FALSE", "NEI"),
}


def scripted_answer(messages, options) -> str:
    """Deterministic per prompt: a JSON vote the engine's parser and the fake both read."""
    text = messages[-1]["content"]
    h = int(hashlib.sha256((text + str(options.seed)).encode()).hexdigest(), 16)
    if "DECISION: CONTINUE or STOP" in text:  # RADAR's stop agent
        return "DECISION: " + ("STOP", "CONTINUE")[h % 2]
    labels = LABELS["halftruth"] if "HALF-TRUE" in text else LABELS["checkthat"]
    return json.dumps({"label": labels[h % len(labels)], "explanation": "scripted"})


def fake_run_debate(config, client, retriever=None, cancel=None):
    """A minimal contract-following debate: one model call per category (or one for a label task)."""
    t0 = time.perf_counter()
    seq = iter(range(10_000))
    model = "scripted:bot"
    if isinstance(config.lineup, dict):
        model = config.lineup["members"][0]["model"]
    yield DebateStarted(
        seq=next(seq),
        debate_id=config.debate_id or "",
        protocol=config.protocol,
        task=config.task,
        category=config.category,
        claim=config.claim,
        gold=config.gold,
    )
    if "FAIL" in config.claim:
        yield ErrorEvent(seq=next(seq), error="ServerError", message="scripted failure", fatal=True)
        yield DebateFinished(seq=next(seq), status="error")
        return
    cats = [config.category] if config.category else ([1, 2, 3] if config.task == "checkthat" else [None])
    labels = LABELS.get(config.task, ("YES", "NO"))
    ptok = ctok = 0
    out = {}
    for cat in cats:
        q = f"{config.claim}\ncategory {cat}\nAnswer one of {', '.join(labels)}"
        res = client.chat(model, [{"role": "user", "content": q}], GenOptions(max_tokens=config.max_tokens)).result()
        lab = json.loads(res.text)["label"]
        ptok, ctok = ptok + res.prompt_tokens, ctok + res.completion_tokens
        yield TurnFinished(
            seq=next(seq),
            agent="bot",
            text=res.text,
            label=lab,
            prompt_tokens=res.prompt_tokens,
            completion_tokens=res.completion_tokens,
            cached=res.cached,
        )
        yield VotesTallied(seq=next(seq), round=1, votes={"bot": lab}, reached=True)
        if config.task != "checkthat":
            for r in (1, 2, 3):
                yield StopCheck(
                    seq=next(seq),
                    round=r,
                    stop_margin=r / 3,
                    verdict_confidence=0.5,
                    preliminary_verdict=lab,
                    decision="continue",
                )
        out[str(cat)] = lab
        yield Verdict(seq=next(seq), label=lab, category=cat, source="scripted")
    if config.task == "checkthat" and config.category is None:
        yield Verdict(seq=next(seq), label=None, labels=out, source="rule")
    yield DebateFinished(
        seq=next(seq),
        status="completed",
        rounds=1,
        prompt_tokens=ptok,
        completion_tokens=ctok,
        model_calls=len(cats),
        wall_s=time.perf_counter() - t0,
    )


def engine_or_fake():
    """The real engine once it is built, else the contract-following fake."""
    from debate.runner import DebateConfig, run_debate

    try:
        run_debate(DebateConfig(claim="probe"), ModelClient())
    except NotImplementedError:
        return fake_run_debate
    except Exception:  # noqa: BLE001 - the engine exists (it may reject the bare probe)
        pass
    return run_debate


def scripted_client(delay_s: float = 0.0, max_parallel: int = 64) -> tuple[ModelClient, ScriptedBackend]:
    backend = ScriptedBackend(default=scripted_answer, delay_s=delay_s, max_parallel=max_parallel)
    return ModelClient({"scripted": backend}), backend


LINEUP = {"name": "scripted", "members": [{"name": "bot", "model": "scripted:bot"}]}


def _opts(tmp_path: Path, **kw) -> EvalOptions:
    base = dict(
        dataset="checkthat-dev",
        out=str(tmp_path / "run"),
        protocol="baseline",
        lineup=LINEUP,
        limit=12,
        concurrency=3,
        progress=False,
    )
    base.update(kw)
    return EvalOptions(**base)


def test_run_scores_every_item_and_resume_is_a_no_op(tmp_path):
    client, backend = scripted_client()
    s = run_eval(_opts(tmp_path), client=client, debate_fn=fake_run_debate)
    assert (s.total, s.done, s.failed, s.ran) == (12, 12, 0, 12)
    m = load_metrics(tmp_path / "run")
    assert set(m["categories"]) == {"1", "2", "3"} and 0 <= m["macro_f1"] <= 1
    assert m["debate"]["items"] == 12 and m["debate"]["tokens_total"] > 0
    assert (tmp_path / "run" / "report.html").stat().st_size > 100_000  # plotly.js inlined
    header = (tmp_path / "run" / "predictions.csv").read_text().splitlines()[0]
    assert header == "index,cat1_pred,cat2_pred,cat3_pred"
    calls = len(backend.calls)
    s2 = run_eval(_opts(tmp_path), client=client, debate_fn=fake_run_debate)
    assert (s2.ran, s2.skipped, len(backend.calls)) == (0, 12, calls)
    # growing --limit resumes and only runs the new items
    s3 = run_eval(_opts(tmp_path, limit=15), client=client, debate_fn=fake_run_debate)
    assert (s3.ran, s3.skipped, s3.done) == (3, 12, 15)


def test_items_run_concurrently(tmp_path):
    def timed(concurrency: int) -> float:
        client, _ = scripted_client(delay_s=0.1)  # >= 0.4 s per item (4+ words)
        t = time.perf_counter()
        run_eval(
            _opts(tmp_path, concurrency=concurrency, limit=4, out=str(tmp_path / f"c{concurrency}"), category=1),
            client=client,
            debate_fn=fake_run_debate,
        )
        return time.perf_counter() - t

    serial, parallel = timed(1), timed(4)
    assert serial > 1.5 and parallel < serial * 0.6, (serial, parallel)  # 4 items x >=0.4 s serially


def test_failing_item_is_retried_recorded_and_does_not_abort(tmp_path):
    data = tmp_path / "claims.jsonl"
    rows = [{"id": f"c{i}", "text": f"claim {i}" + (" FAIL" if i == 2 else ""), "label": "TRUE"} for i in range(5)]
    data.write_text("\n".join(json.dumps(r) for r in rows))
    client, _ = scripted_client()
    s = run_eval(
        _opts(tmp_path, dataset=str(data), task="halftruth", limit=None, retries=2),
        client=client,
        debate_fn=fake_run_debate,
    )
    assert (s.done, s.failed) == (4, 1)
    items = {r["item_id"]: r for r in load_metrics_rows(tmp_path / "run")}
    assert items["c2"]["status"] == "failed" and items["c2"]["attempts"] == 3
    assert "scripted failure" in items["c2"]["error"]
    m = load_metrics(tmp_path / "run")
    assert m["coverage"] == {"items": 5, "done": 4, "failed": 1, "pending": 0}


def load_metrics_rows(run_dir):
    from debate.evaluation.browse import load_items

    return load_items(run_dir)


def test_first_attempts_failing_the_same_way_stop_the_batch(tmp_path):
    client = ModelClient({"scripted": ScriptedBackend()})  # no replies: ModelNotFound for every call
    with pytest.raises(DebateError) as e:
        run_eval(_opts(tmp_path, retries=0, concurrency=1), client=client, debate_fn=fake_run_debate)
    assert "ModelNotFound" in e.value.message
    rows = load_metrics_rows(tmp_path / "run")
    assert sum(r["status"] == "failed" for r in rows) == 3 and sum(r["status"] == "pending" for r in rows) == 9
    assert should_abort([("ModelNotFound", "x")] * 3, 0, 10)
    assert not should_abort([("ModelNotFound", "x")] * 3, 1, 10)
    assert not should_abort([("ServerError", "x")] * 3, 0, 10)
    assert not should_abort([("ModelNotFound", "x"), ("ModelNotFound", "y"), ("ModelNotFound", "x")], 0, 10)


def test_resume_with_other_settings_is_refused(tmp_path):
    client, _ = scripted_client()
    run_eval(_opts(tmp_path, limit=2), client=client, debate_fn=fake_run_debate)
    with pytest.raises(InvalidInput) as e:
        run_eval(_opts(tmp_path, limit=2, protocol="council"), client=client, debate_fn=fake_run_debate)
    assert "protocol" in e.value.message and "new --out" in e.value.hint
    with pytest.raises(InvalidInput):
        run_eval(_opts(tmp_path, limit=2, max_tokens=99), client=client, debate_fn=fake_run_debate)


def test_bad_options_are_clear_errors(tmp_path):
    data_path("liar/valid.tsv")  # the first check is made on LIAR's options
    with pytest.raises(InvalidInput) as e:
        run_eval(_opts(tmp_path, dataset="liar-valid", category=2))
    assert "category" in e.value.message
    with pytest.raises(InvalidInput) as e:
        run_eval(_opts(tmp_path, dataset="no-such-set"))
    assert "checkthat-dev" in e.value.hint


def test_browse_drill_down(tmp_path):
    client, _ = scripted_client()
    run_eval(_opts(tmp_path, category=2), client=client, debate_fn=fake_run_debate)
    runs = list_runs(tmp_path)
    assert runs[0]["name"] == "run" and runs[0]["counts"] == {"done": 12} and runs[0]["selection"] == "first 12"
    m = load_metrics(tmp_path / "run")
    cm = m["categories"]["2"]["confusion"]
    total = 0
    for gi, g in enumerate(cm["gold_labels"]):
        for pi, p in enumerate(cm["pred_labels"]):
            cell = confusion_items(tmp_path / "run", g, p, category=2)
            assert len(cell) == cm["matrix"][gi][pi]
            total += len(cell)
    assert total == 12
    evs = item_events(tmp_path / "run", "11")
    assert evs[0].type == "debate_started" and evs[-1].type == "finished"


@pytest.mark.parametrize(
    "model", [["scripted:bot@http://a", "scripted:bot@http://b"], "scripted:bot@http://a|scripted:bot@http://b"]
)
def test_a_seat_naming_several_servers_is_sent_to_a_router(tmp_path, model):
    """One seat, one URL: the lineup an older version read as a home-made fleet is refused before a run
    folder exists, and the refusal says what does the job (a router in front of the servers)."""
    with pytest.raises(InvalidInput) as e:
        run_eval(_opts(tmp_path, lineup={"members": [{"name": "bot", "model": model}]}))
    assert "several servers" in e.value.message and "LiteLLM" in e.value.hint
    assert "docs/several-servers.md" in e.value.hint and not (tmp_path / "run").exists()


def test_bad_lineup_fails_before_a_run_folder_exists(tmp_path):
    with pytest.raises(InvalidInput) as e:
        run_eval(_opts(tmp_path, lineup={"members": [{"model": "nobackend"}]}))
    assert "backend" in e.value.message and not (tmp_path / "run").exists()


def test_cancel_leaves_unfinished_items_for_the_resume(tmp_path):
    import threading

    cancel = threading.Event()
    seen = []

    def progress(p):
        seen.append(p)
        if p["done"] >= 3:
            cancel.set()

    client, _ = scripted_client(delay_s=0.01)
    s = run_eval(
        _opts(tmp_path, limit=20, concurrency=2, category=1),
        client=client,
        debate_fn=fake_run_debate,
        cancel=cancel,
        on_progress=progress,
    )
    assert 3 <= s.done < 20 and s.failed == 0 and seen[0]["total"] == 20
    s2 = run_eval(_opts(tmp_path, limit=20, concurrency=2, category=1), client=client, debate_fn=fake_run_debate)
    assert s2.done == 20 and s2.skipped == s.done


def test_cli_eval_report_compare_and_calibrate(tmp_path, monkeypatch, capsys):
    """The command line end to end on the real engine (scripted models through the hook)."""
    from debate.__main__ import main

    data_path("liar/valid.tsv")  # its RADAR run reads LIAR valid

    monkeypatch.setenv("DEBATE_EVAL_HOOK", "tests.evaluation.test_eval_resume:hook")
    monkeypatch.setenv("EVAL_TEST_START_LOG", str(tmp_path / "starts.log"))
    monkeypatch.setenv("EVAL_TEST_DELAY", "0")
    lineup = tmp_path / "lineup.json"
    lineup.write_text(
        json.dumps({"members": [{"name": "a", "model": "scripted:a"}, {"name": "b", "model": "scripted:b"}]})
    )
    common = [
        "eval",
        "--dataset",
        "liar-valid",
        "--lineup",
        str(lineup),
        "--limit",
        "6",
        "--no-evidence",
        "--no-progress",
        "--max-tokens",
        "32",
    ]
    assert main(common + ["--protocol", "radar", "--param", "tau_s=2", "--out", str(tmp_path / "rec")]) == 0
    out = capsys.readouterr().out
    assert "6/6 done" in out and "macro-F1" in out
    assert main(common + ["--protocol", "radar-single", "--out", str(tmp_path / "single")]) == 0
    assert main(["eval-calibrate", str(tmp_path / "rec")]) == 0
    out = capsys.readouterr().out
    assert "chosen: τs=" in out
    cal = json.loads((tmp_path / "rec" / "calibration.json").read_text())
    assert cal["n_items"] == 6 and cal["chosen"] and cal["frontier"]
    assert main(["eval-compare", str(tmp_path / "rec"), str(tmp_path / "single"), "--n-boot", "200"]) == 0
    assert "McNemar" in capsys.readouterr().out
    # runs of one dataset pool, each item once (first run's row): a replication reported alone and together
    more = common[: common.index("--limit")] + ["--limit", "9"] + common[common.index("--limit") + 2 :]
    assert main(more + ["--protocol", "radar-single", "--out", str(tmp_path / "single9")]) == 0
    pooled = f"{tmp_path / 'rec'},{tmp_path / 'single9'}"
    capsys.readouterr()
    assert main(["eval-compare", pooled, "constant", "--n-boot", "200"]) == 0
    assert "on 9 shared items" in capsys.readouterr().out
    from debate.evaluation.browse import pooled as pool
    from debate.evaluation.checkpoint import read_rows

    rows, ds = pool(pooled)
    rec = {r["item_id"]: r["prediction"] for r in read_rows(tmp_path / "rec")}
    assert ds["name"] == "liar-valid" and len(rows) == 9 and len({r["item_id"] for r in rows}) == 9
    assert all(r["prediction"] == rec[r["item_id"]] for r in rows if r["item_id"] in rec) and len(rec) == 6
    assert main(["eval-compare", pooled, str(tmp_path / "single9"), "--n-boot", "200"]) == 0
    assert "on 9 shared items" in capsys.readouterr().out
    assert main(["eval-report", str(tmp_path / "single")]) == 0
    m = json.loads((tmp_path / "single" / "metrics.json").read_text())
    assert m["n"] == 6 and m["papers"]["comparable"] is False and m["papers"]["rows"]
    # a resume with other settings is refused with exit code 2 and a hint, not a stack trace
    assert main(common + ["--protocol", "radar", "--out", str(tmp_path / "rec")]) == 2
    err = capsys.readouterr().err
    assert "different settings" in err and "hint:" in err


def test_no_label_leak_reaches_a_model(tmp_path):
    """Through the real engine: LIAR's speaker/credit columns and 6-way label, and AVeriTeC's
    justification, never appear in any prompt."""
    import json as _json

    from debate.datasets import load_dataset

    data_path("liar/valid.tsv")  # both sets' leak traps are read
    data_path("averitec/dev.json")
    client, backend = scripted_client()
    engine = engine_or_fake()
    run_eval(
        _opts(
            tmp_path, dataset="liar-valid", protocol="radar-single", limit=3, evidence=False, out=str(tmp_path / "liar")
        ),
        client=client,
        debate_fn=engine,
    )
    run_eval(
        _opts(
            tmp_path,
            dataset="averitec-dev",
            protocol="radar-single",
            limit=3,
            evidence=False,
            out=str(tmp_path / "avt"),
        ),
        client=client,
        debate_fn=engine,
    )
    prompts = "\n".join(m["content"] for call in backend.calls for m in call["messages"])
    assert len(backend.calls) >= 6
    for it in load_dataset("liar-valid").items[:3]:
        assert it.text in prompts
        assert it.meta["label6"] not in prompts.lower() or it.meta["label6"] in ("true", "false", "half-true")
        assert it.meta.get("speaker", "@@") not in prompts
    raw = _json.loads(data_path("averitec/dev.json").read_text())[:3]
    for rec in raw:
        assert rec["claim"].strip() in prompts
        if rec["justification"] not in rec["claim"]:
            assert rec["justification"] not in prompts


def test_unknown_protocol_or_param_fails_before_a_run_folder_exists(tmp_path):
    with pytest.raises(InvalidInput) as e:
        run_eval(_opts(tmp_path, protocol="parliament"))
    assert "protocol" in e.value.message.lower()
    with pytest.raises(InvalidInput) as e:
        run_eval(_opts(tmp_path, protocol="council", params={"no_such_param": 1}))
    assert "no_such_param" in e.value.message and not (tmp_path / "run").exists()


def test_smaller_limit_on_resume_narrows_the_report(tmp_path):
    client, _ = scripted_client()
    run_eval(_opts(tmp_path, limit=6, category=1), client=client, debate_fn=fake_run_debate)
    s = run_eval(_opts(tmp_path, limit=4, category=1), client=client, debate_fn=fake_run_debate)
    assert (s.total, s.done, s.ran) == (4, 4, 0)
    m = load_metrics(tmp_path / "run")
    assert m["categories"]["1"]["n"] == 4 and m["coverage"]["items"] == 4


def test_unlabelled_test_split_writes_the_submission_file(tmp_path):
    client, _ = scripted_client()
    s = run_eval(_opts(tmp_path, dataset="checkthat-test", limit=5), client=client, debate_fn=fake_run_debate)
    assert s.done == 5 and s.metrics["macro_f1"] is None
    lines = (tmp_path / "run" / "predictions.csv").read_text().splitlines()
    assert lines[0] == "index,cat1_pred,cat2_pred,cat3_pred" and len(lines) == 6
    idx, *vals = lines[1].split(",")
    assert idx == "t_0" and all(v in ("0", "1") for v in vals)


def test_sample_selects_the_same_items_for_every_protocol_and_grows_in_place(tmp_path):
    client, _ = scripted_client()
    a = run_eval(
        _opts(tmp_path, out=str(tmp_path / "a"), limit=None, sample=20, category=2),
        client=client,
        debate_fn=fake_run_debate,
    )
    b = run_eval(
        _opts(
            tmp_path, out=str(tmp_path / "b"), limit=10, sample=20, category=2, protocol="council", params={"rounds": 1}
        ),
        client=client,
        debate_fn=fake_run_debate,
    )
    ids_a = [r["item_id"] for r in load_metrics_rows(tmp_path / "a")]
    ids_b = [r["item_id"] for r in load_metrics_rows(tmp_path / "b")]
    assert (a.total, b.total) == (20, 10) and ids_b == ids_a[:10]
    assert sum(r["gold"]["2"] == "YES" for r in load_metrics_rows(tmp_path / "a")) == 4  # 26/137 of 20
    grown = run_eval(
        _opts(
            tmp_path,
            out=str(tmp_path / "b"),
            limit=None,
            sample=20,
            category=2,
            protocol="council",
            params={"rounds": 1},
        ),
        client=client,
        debate_fn=fake_run_debate,
    )
    assert (grown.ran, grown.skipped, grown.total) == (10, 10, 20)
    assert {r["name"]: r["selection"] for r in list_runs(tmp_path)}["b"] == "stratified sample of 20 (seed 0)"
    with pytest.raises(InvalidInput):  # another sample is another experiment: a new folder, not a resume
        run_eval(
            _opts(tmp_path, out=str(tmp_path / "a"), limit=None, sample=20, sample_seed=1, category=2),
            client=client,
            debate_fn=fake_run_debate,
        )
    with pytest.raises(InvalidInput):
        run_eval(_opts(tmp_path, out=str(tmp_path / "c"), sample=0))
