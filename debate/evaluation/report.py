"""Files a run leaves in its folder: metrics.json, predictions, and a self-contained HTML report.

Everything is recomputed from the checkpoint, so a report can be rewritten at any time
(`python -m debate eval-report runs/NAME`) without a model call. The HTML embeds plotly.js once, so
it opens offline and can be mailed as one file.
"""

from __future__ import annotations

import csv
import html
import json
from pathlib import Path

from debate.evaluation.calibrate import calibrate, jsonable
from debate.evaluation.checkpoint import read_meta, read_rows
from debate.evaluation.extract import debate_stats, extract_prediction, vote_prediction
from debate.evaluation.metrics import compute_metrics
from debate.evaluation.papers import comparable
from debate.sanitize import csv_cell


def _rows(run_dir: str | Path) -> list[dict]:
    """The run's items, their statistics recomputed from the stored events: metrics follow the current
    definitions (e.g. what counts as an early exit), also for runs recorded before a definition changed."""
    rows = read_rows(run_dir, with_events=True)
    cats = tuple((read_meta(run_dir, "dataset") or {}).get("categories") or ())
    cat = (read_meta(run_dir, "options") or {}).get("category")
    for r in rows:
        events = r.pop("events", None)
        if r["status"] == "done" and events:
            r["stats"] = {
                **(r.get("stats") or {}),
                **debate_stats(events),
                "vote_prediction": vote_prediction(events, r.get("prediction")),
                # both readings of the verdict (debate.outcome), scored apart in metrics["readings"]
                **{f"{w}_prediction": extract_prediction(events, cats, cat, w) for w in READINGS},
            }
    return rows


READINGS = ("written", "calibrated")


def reading_metrics(rows: list[dict], dataset: dict) -> dict | None:
    """The scores of each reading of the verdicts, on the items a calibration gave a label for: "written"
    (the label the judge or the model wrote) and "calibrated" (the class weights' or threshold's label).
    The run's own scores are of the answer each debate gave (`prediction`: the written label unless the
    calibrated reading was chosen; debates recorded before that choice gave the calibrated one). None
    when no item carries a calibrated label (no calibration ran)."""
    scored = [
        r for r in rows if r.get("status") == "done" and (r.get("stats") or {}).get("calibrated_prediction") is not None
    ]
    if not scored:
        return None
    out: dict = {"items": len(scored)}
    for w in READINGS:
        as_read = [{**r, "prediction": r["stats"].get(f"{w}_prediction")} for r in scored]
        m = compute_metrics(as_read, dataset, with_vote=False)
        out[w] = {"macro_f1": m.get("macro_f1"), "accuracy": m.get("accuracy")}
    out["differ"] = sum(
        1 for r in scored if r["stats"].get("written_prediction") != r["stats"].get("calibrated_prediction")
    )
    return out


def run_metrics(run_dir: str | Path, rows: list[dict] | None = None) -> dict:
    """Metrics of a run, computed from its checkpoint (also used when metrics.json is stale)."""
    rows = _rows(run_dir) if rows is None else rows
    dataset = read_meta(run_dir, "dataset") or {}
    opts = read_meta(run_dir, "options") or {}
    m = compute_metrics(rows, dataset)
    readings = reading_metrics(rows, dataset)
    if readings is not None:
        m["readings"] = readings
    m["run"] = {
        "name": Path(run_dir).name,
        "protocol": opts.get("protocol"),
        "lineup": opts.get("lineup"),
        "category": opts.get("category"),
        "limit": opts.get("limit"),
        "sample": opts.get("sample"),
        "sample_seed": opts.get("sample_seed"),
        "params": opts.get("params"),
        "max_tokens": opts.get("max_tokens"),
        "seed": opts.get("seed"),
    }
    if any((r.get("stats") or {}).get("stop_checks") for r in rows):
        m["calibration"] = jsonable(calibrate(rows, list(dataset.get("labels") or [])))
    m["papers"] = comparable(dataset.get("name", ""), opts.get("protocol", ""), opts.get("category"))
    return m


def write_reports(run_dir: str | Path) -> dict:
    run_dir = Path(run_dir)
    rows = _rows(run_dir)
    m = run_metrics(run_dir, rows)
    (run_dir / "metrics.json").write_text(json.dumps(m, indent=2), encoding="utf-8")
    dataset = read_meta(run_dir, "dataset") or {}
    _write_predictions(run_dir, rows, dataset)
    (run_dir / "report.html").write_text(render_html(m, rows), encoding="utf-8")
    return m


def _write_predictions(run_dir: Path, rows: list[dict], dataset: dict) -> None:
    """predictions.jsonl (data: written as is) and, for CheckThat, predictions.csv in the task's submission
    columns. The CSV is also what people open in a spreadsheet, so an id that starts like a formula gets a
    leading `'`; the dataset's own ids are integers, which never do, so the scorer reads the same file."""
    with open(run_dir / "predictions.jsonl", "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(
                json.dumps(
                    {
                        "id": r["item_id"],
                        "status": r["status"],
                        "gold": r["gold"],
                        "prediction": r["prediction"],
                        "error": r["error"],
                    }
                )
                + "\n"
            )
    cats = dataset.get("categories") or []
    if cats:  # the CheckThat 4a submission format; missing decisions are written as 0
        with open(run_dir / "predictions.csv", "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["index"] + [f"cat{c}_pred" for c in cats])
            for r in rows:
                if r["status"] != "done":
                    continue
                pred = r["prediction"] if isinstance(r["prediction"], dict) else {}
                # ids come from the dataset file, which may be anyone's: a spreadsheet must not run them
                w.writerow([csv_cell(r["item_id"])] + [1 if pred.get(c) == "YES" else 0 for c in cats])


# -- HTML ------------------------------------------------------------------------------------------
def _table(headers: list[str], rows: list[list], highlight: set[int] | None = None) -> str:
    def cell(v: object) -> str:
        if isinstance(v, float):
            return f"{v:.4f}"
        return html.escape("" if v is None else str(v))

    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        f"<tr{' class=hl' if highlight and i in highlight else ''}>"
        + "".join(f"<td>{cell(v)}</td>" for v in r)
        + "</tr>"
        for i, r in enumerate(rows)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figures(m: dict, rows: list[dict]) -> list:
    import plotly.graph_objects as go

    figs = []
    blocks = m.get("categories") or ({"": m} if m.get("confusion") else {})
    for cat, s in blocks.items():
        cm = s["confusion"]
        figs.append(
            go.Figure(
                go.Heatmap(
                    z=cm["matrix"],
                    x=cm["pred_labels"],
                    y=cm["gold_labels"],
                    text=cm["matrix"],
                    texttemplate="%{text}",
                    colorscale="Blues",
                ),
                layout={
                    "title": f"Confusion matrix{' - category ' + cat if cat else ''}",
                    "xaxis_title": "predicted",
                    "yaxis_title": "gold",
                    "height": 360,
                    "yaxis": {"autorange": "reversed"},
                },
            )
        )  # gold rows top-down, as in tables
    if blocks:
        fig = go.Figure(layout={"title": "F1 per class", "barmode": "group", "height": 360})
        for cat, s in blocks.items():
            fig.add_bar(name=f"cat {cat}" if cat else "F1", x=list(s["f1"]), y=list(s["f1"].values()))
        figs.append(fig)
    st = [r.get("stats") or {} for r in rows if r.get("status") == "done"]
    if st:
        figs.append(
            go.Figure(
                go.Histogram(x=[s.get("tokens", 0) for s in st]), layout={"title": "Tokens per item", "height": 320}
            )
        )
        figs.append(
            go.Figure(go.Histogram(x=[s.get("rounds", 0) for s in st]), layout={"title": "Rounds used", "height": 320})
        )
    cal = m.get("calibration") or {}
    if cal.get("points"):
        pts = cal["points"]
        fig = go.Figure(
            layout={
                "title": "Early stop: accuracy vs tokens per item (each dot a τs, τc pair)",
                "xaxis_title": "tokens per item",
                "yaxis_title": "accuracy",
                "height": 400,
            }
        )
        fig.add_scatter(
            x=[p["tokens_mean"] for p in pts],
            y=[p["accuracy"] for p in pts],
            mode="markers",
            name="grid",
            text=[f"τs={p['tau_s']} τc={p['tau_c']}" for p in pts],
        )
        fr = cal.get("frontier") or []
        fig.add_scatter(
            x=[p["tokens_mean"] for p in fr],
            y=[p["accuracy"] for p in fr],
            mode="lines+markers",
            name="trade-off curve",
        )
        if cal.get("chosen"):
            c = cal["chosen"]
            fig.add_scatter(
                x=[c["tokens_mean"]],
                y=[c["accuracy"]],
                mode="markers",
                name="chosen",
                marker={"size": 14, "symbol": "star"},
            )
        figs.append(fig)
    return figs


def render_html(m: dict, rows: list[dict]) -> str:
    import plotly.io as pio

    run = m.get("run", {})
    parts = [
        f"<h1>Evaluation: {html.escape(str(run.get('name')))}</h1>",
        "<p>"
        + html.escape(
            f"dataset {m.get('dataset')} · protocol {run.get('protocol')} · lineup "
            f"{json.dumps(run.get('lineup'))} · "
            f"{'category ' + str(run.get('category') or 'all') + ' · ' if m.get('categories') else ''}"
            f"max_tokens {run.get('max_tokens')} · seed {run.get('seed')}"
        )
        + "</p>",
    ]
    cov = m.get("coverage", {})
    parts.append("<h2>Scores</h2>")
    if m.get("categories"):
        hdr = ["category", "n", "macro-F1", "F1 (YES)", "accuracy", "invalid"]
        body = [
            [c, s["n"], s["macro_f1"], s["f1_positive"], s["accuracy"], s["invalid"]]
            for c, s in m["categories"].items()
        ]
        body.append(["mean", "", m.get("macro_f1"), "", m.get("accuracy"), ""])
        parts.append(_table(hdr, body))
    elif m.get("f1"):
        hdr = ["n", "accuracy", "macro-F1"] + [f"F1 {k}" for k in m["f1"]] + ["invalid"]
        parts.append(_table(hdr, [[m["n"], m["accuracy"], m["macro_f1"], *m["f1"].values(), m["invalid"]]]))
    parts.append(
        "<p>"
        + html.escape(
            f"items {cov.get('items')} · done {cov.get('done')} · failed "
            f"{cov.get('failed')} · pending {cov.get('pending')}"
        )
        + "</p>"
    )
    if m.get("split_excluded"):
        parts.append(
            "<p>"
            + html.escape(
                f"{m['split_excluded']} decisions whose gold label is soft (annotators split) "
                "are left out of the scores."
            )
            + "</p>"
        )
    d = m.get("debate") or {}
    if d.get("items"):
        keys = [
            "rounds_mean",
            "early_stop_rate",
            "first_vote_consensus_rate",
            "vote_changes_mean",
            "tokens_mean",
            "tokens_total",
            "wall_s_mean",
            "model_calls_mean",
            "cache_hit_rate",
            "invalid_turns_total",
        ]
        parts.append("<h2>Debate statistics</h2>" + _table(["measure", "value"], [[k, d.get(k)] for k in keys]))
    if m.get("vote"):
        parts.append("<h2>Debate vs. vote</h2>" + "".join(f"<p>{html.escape(x)}</p>" for x in vote_lines(m["vote"])))
    if m.get("readings"):
        parts.append(
            "<h2>Written label vs. calibrated reading</h2>"
            + "".join(f"<p>{html.escape(x)}</p>" for x in reading_lines(m["readings"]))
        )
    parts.append(_papers_html(m))
    cal = m.get("calibration") or {}
    if cal.get("chosen"):
        c = cal["chosen"]
        parts.append(
            "<h2>Early-stop calibration</h2><p>"
            + html.escape(
                f"chosen τs={c['tau_s']}, τc={c['tau_c']}: accuracy {c['accuracy']:.4f}, macro-F1 {c['macro_f1']:.4f}, "
                f"{c['tokens_mean']:.0f} tokens/item, stop rate {c['stop_rate']:.2f} ({c['approx']} items approximate)"
            )
            + "</p>"
        )
    for n, fig in enumerate(_figures(m, rows)):
        parts.append(pio.to_html(fig, full_html=False, include_plotlyjs=(n == 0)))
    style = (
        "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;"
        "text-align:right}th{background:#f3f3f3}tr.hl td{background:#fff6d6;font-weight:600}"
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(str(run.get('name')))}</title>"
        f"<style>{style}</style></head><body>{''.join(parts)}</body></html>"
    )


def _papers_html(m: dict) -> str:
    pap = m.get("papers") or {}
    if not pap.get("rows"):
        return ""
    run = m.get("run", {})
    out = [f"<h2>Beside the papers</h2><p>{html.escape(pap.get('note', ''))}</p>"]
    if "cat1" in pap["rows"][0]:
        cats = m.get("categories") or {}
        ours = [
            "this run",
            run.get("protocol"),
            m.get("macro_f1"),
            *[cats.get(c, {}).get("macro_f1") for c in ("1", "2", "3")],
        ]
        rows = [ours] + [
            [r["method"], r["protocol"], r["macro_f1"], r["cat1"], r["cat2"], r["cat3"]] for r in pap["rows"]
        ]
        hl = {0} | {i + 1 for i, r in enumerate(pap["rows"]) if r.get("same_protocol")}
        out.append(_table(["method", "protocol", "macro-F1", "cat 1", "cat 2", "cat 3"], rows, hl))
    else:
        ours = ["this run", run.get("protocol"), m.get("accuracy"), m.get("macro_f1"), ""]
        rows = [ours] + [
            [f"{r['method']} — {r['source']}", r["protocol"], r["accuracy"], r["macro_f1"], r["note"]]
            for r in pap["rows"]
        ]
        hl = {0} | {i + 1 for i, r in enumerate(pap["rows"]) if r.get("same_protocol")}
        out.append(_table(["method", "protocol", "accuracy", "macro-F1", "note"], rows, hl))
    return "".join(out)


def vote_lines(v: dict | None) -> list[str]:
    """The debate against its first vote, as plain lines for the CLI summary and report.html."""
    if not v:
        return []
    return [
        f"debate vs. vote (the vote: a plain majority of the first answers, no discussion), {v['items']} items: "
        f"the discussion changed {v['changed']} decisions",
        f"flipped wrong -> right {v['flipped_wrong_to_right']}, right -> wrong {v['flipped_right_to_wrong']} "
        f"(McNemar exact p = {v['mcnemar_p']:.3g})",
        f"macro-F1 debate {_num(v['macro_f1_debate'])} vs vote only {_num(v['macro_f1_vote'])} "
        f"(difference {v['macro_f1_diff']:+.4f}, 95% CI {v['ci'][0]:+.4f} to {v['ci'][1]:+.4f})",
    ]


def reading_lines(r: dict | None) -> list[str]:
    """Both readings of the verdicts (metrics["readings"]), as plain lines for the CLI summary and report.html."""
    if not r:
        return []
    w, c = r.get("written") or {}, r.get("calibrated") or {}
    return [
        f"written label vs. calibrated reading, {r['items']} items with a calibrated label ({r['differ']} differ): "
        f"macro-F1 written {_num(w.get('macro_f1'))}, calibrated {_num(c.get('macro_f1'))}; "
        f"accuracy written {_num(w.get('accuracy'))}, calibrated {_num(c.get('accuracy'))}",
    ]


def _num(v: float | None) -> str:
    return "–" if v is None else f"{v:.4f}"
