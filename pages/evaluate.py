"""Evaluate: batch-evaluation runs — their scores beside the papers', charts, paired comparison, and a
drill-down from a confusion-matrix cell to its items and from an item to its full stored debate.

Everything is read through debate.evaluation.browse (which never writes); results are cached on the
run folder's file signatures, so a run that is still writing is re-read as it grows.
"""

from pathlib import Path

import streamlit as st

from debate.errors import DebateError
from debate.evaluation import browse, summary
from debate.evaluation.checkpoint import DB_NAME
from debate.evaluation.metrics import INVALID, repair_share
from ui.entry import through_app
from ui.render import render_debate
from ui.safe import escape
from ui.transcript import build_view

through_app()

EVAL_CMD = (
    "python -m debate eval --dataset checkthat-dev --protocol council --lineup embedded "
    "--category 2 --limit 20 --out runs/ct-dev-council-cat2"
)
DEBATE_KEYS = [
    ("rounds_mean", "rounds used (mean)"),
    ("early_stop_rate", "early-stop rate"),
    ("first_vote_consensus_rate", "consensus at first vote"),
    ("vote_changes_mean", "vote changes (mean)"),
    ("tokens_mean", "tokens per item"),
    ("tokens_total", "tokens in all"),
    ("wall_s_mean", "seconds per item"),
    ("model_calls_mean", "model calls per item"),
    ("cache_hit_rate", "cache hit rate"),
    ("invalid_turns_total", "invalid answers"),
]


def _default_root() -> Path:
    """runs_dir() is relative to where the app was started; fall back to the repo's runs/ folder."""
    root = browse.runs_dir()
    alt = Path(__file__).resolve().parent.parent / root
    return alt if not root.is_absolute() and not root.exists() and alt.exists() else root


def _sig(run_dir: str) -> tuple:
    """Changes whenever the run (or its metrics.json) is written: the cache key of everything below."""
    files = [DB_NAME, DB_NAME + "-wal", "metrics.json"]
    return tuple(
        (p.stat().st_mtime_ns, p.stat().st_size) if p.exists() else None for p in (Path(run_dir) / f for f in files)
    )


@st.cache_data(show_spinner=False, max_entries=64)
def _metrics(run_dir: str, sig: tuple, done: int) -> dict:
    m = browse.load_metrics(run_dir)
    if (m.get("coverage") or {}).get("done") != done:  # metrics.json written before the run moved on
        m = browse.load_metrics(run_dir, fresh=True)
    return m


@st.cache_data(show_spinner=False, max_entries=16)
def _figures(run_dir: str, sig: tuple) -> list:
    return browse.figures(run_dir)


@st.cache_data(show_spinner=False, max_entries=16)
def _items(run_dir: str, sig: tuple) -> list[dict]:
    return browse.load_items(run_dir)


@st.cache_data(show_spinner=False, max_entries=32)
def _compare(a: str, b: str, sig_a: tuple, sig_b: tuple) -> dict:
    return browse.compare(a, b)


def _lineup(x) -> str:
    if isinstance(x, dict):
        return x.get("name") or "+".join(str(m.get("name", "?")) for m in x.get("members", [])) or "custom"
    return Path(str(x)).stem if str(x).endswith(".json") else str(x)


def _fmt(v, pct: bool = False) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.1%}" if pct else f"{v:.3f}" if abs(v) < 10 else f"{v:,.0f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def _problem(what: str, e: Exception) -> None:
    msg = (
        f"{escape(e.message)}  \n{escape(e.hint)}" if isinstance(e, DebateError) else escape(f"{type(e).__name__}: {e}")
    )  # a run folder's files may be anyone's
    st.info(
        f"{what}: {msg}  \nIf the folder is an evaluation run, rebuild its report with "
        f"`python -m debate eval-report RUN_FOLDER`, or re-run its eval command to finish it.",
        icon=":material/info:",
    )


def _cell_items(run: str, gold: str, pred: str, cat: str, pred_labels: list[str]) -> list[dict]:
    """browse.confusion_items, plus (for the INVALID column) predictions outside the run's label set,
    which the metrics count as INVALID but confusion_items matches literally."""
    items = browse.confusion_items(run, gold, pred, category=cat or None)
    if pred != INVALID:
        return items
    known = {x for x in pred_labels if x != INVALID}
    for r in _items(run, _sig(run)):
        g, p = r["gold"], r["prediction"]
        if cat and isinstance(g, dict) and isinstance(p, dict) and cat in p:
            g, p = g.get(cat), p.get(cat)
        if r["status"] == "done" and g == gold and isinstance(p, str) and p and p not in known:
            items.append(r)
    return items


def _drill_down(run: str, info: dict, blocks: dict, by_category: bool) -> None:
    """Confusion-matrix cell -> its items -> one item's full debate, rendered from its stored events."""
    st.markdown("#### Drill down")
    if not blocks:
        st.caption("No confusion matrix (no gold labels, or no finished item yet).")
        return
    cat = st.selectbox("Category", list(blocks), key=f"ev_cat:{run}") if by_category else ""
    cm = blocks[cat]["confusion"]
    cells = [
        (g, p, cm["matrix"][i][j]) for i, g in enumerate(cm["gold_labels"]) for j, p in enumerate(cm["pred_labels"])
    ]
    cells.sort(key=lambda x: (x[2] == 0, x[0] == x[1]))  # mistakes first, empty cells last
    cell = st.selectbox(
        "Confusion-matrix cell",
        cells,
        key=f"ev_cell:{run}:{cat}",
        format_func=lambda x: f"gold {x[0]} → predicted {x[1]} ({x[2]} items)",
    )
    try:
        cell_items = _cell_items(run, cell[0], cell[1], cat, cm["pred_labels"])
    except Exception as e:  # noqa: BLE001
        _problem("The items of this cell cannot be read", e)
        return
    if not cell_items:
        st.caption("No items in this cell.")
        return
    st.dataframe(
        [
            {
                "item": r["item_id"],
                "text": r["text"][:160],
                "rounds": (r["stats"] or {}).get("rounds"),
                "tokens": (r["stats"] or {}).get("tokens"),
                "seconds": round(r["wall_s"] or 0.0, 1),
            }
            for r in cell_items
        ],
        hide_index=True,
        width="stretch",
        key="ev_cell_items",
        height=min(38 + 35 * len(cell_items), 300),
    )
    by_id = {r["item_id"]: r for r in cell_items}
    item_id = st.selectbox(
        "Open an item's debate",
        list(by_id),
        key=f"ev_item:{run}:{cat}:{cell[0]}:{cell[1]}",
        format_func=lambda i: f"{i} · {by_id[i]['text'][:100]}",
    )
    try:
        events = browse.item_events(run, item_id)
    except Exception as e:  # noqa: BLE001
        _problem(f"The debate of item {item_id} cannot be read", e)
        return
    if not events:
        st.info("This item's debate events were not stored.")
    else:
        render_debate(
            build_view(events),
            f"{info['name']}-{item_id}",
            gold=by_id[item_id]["gold"],
            chart_key=f"ev-{info['name']}-{item_id}",
        )


st.markdown("## :material/analytics: Evaluate")
root = Path(
    st.text_input(
        "Runs folder",
        value=str(_default_root()),
        key="ev_root",
        help="Folder holding run folders written by `python -m debate eval --out ...` "
        "(default: DEBATE_RUNS_DIR or runs/).",
    )
)
if not root.is_dir():
    st.info(
        f"The folder `{root}` does not exist yet. Run an evaluation first, e.g.  \n`{EVAL_CMD}`  \n"
        "or type the folder that holds your runs above.",
        icon=":material/info:",
    )
    st.stop()
try:
    all_runs = browse.list_runs(root)
except (DebateError, OSError) as e:
    _problem(f"Cannot list the runs in {root}", e)
    st.stop()
broken = [r for r in all_runs if r.get("error")]
runs = {r["path"]: r for r in all_runs if not r.get("error")}
for r in broken:
    st.warning(f"Run `{r['name']}` cannot be read: {escape(str(r['error']))}", icon=":material/warning:")
if not runs:
    st.info(
        f"No evaluation runs in `{root}`. Start one with  \n`{EVAL_CMD}`  \n(runs appear here while they "
        "are still running; see debate/evaluation/README.md for datasets and options).",
        icon=":material/info:",
    )
    st.stop()

metrics: dict[str, dict] = {}
table = []
for path, r in runs.items():
    try:
        metrics[path] = m = _metrics(path, _sig(path), r["counts"].get("done", 0))
    except Exception as e:  # noqa: BLE001 - one unreadable run must not hide the others
        st.warning(f"Run `{r['name']}`: metrics unavailable ({escape(str(e))}).", icon=":material/warning:")
        m = {}
    d, c = m.get("debate") or {}, r["counts"]
    table.append(
        {
            "run": r["name"],
            "dataset": r["dataset"],
            "protocol": r["protocol"],
            "lineup": _lineup(r["lineup"]),
            "category": str(r["category"] or ""),
            "items": r.get("selection", ""),
            "done": f"{c.get('done', 0)}/{r['items']}",
            "failed": c.get("failed", 0),
            "macro-F1": m.get("macro_f1"),
            "accuracy": m.get("accuracy"),
            "tokens": d.get("tokens_total"),
            "time (s)": d.get("wall_s_total"),
            "state": "running/unfinished" if c.get("running") or c.get("pending") else "finished",
        }
    )
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    height=min(38 + 35 * len(table), 320),
    column_config={
        "macro-F1": st.column_config.NumberColumn(format="%.3f"),
        "accuracy": st.column_config.NumberColumn(format="%.3f"),
        "time (s)": st.column_config.NumberColumn(format="%.0f", help="summed over items"),
    },
)
with st.expander("These runs as Markdown tables (for a README or a report)", icon=":material/content_copy:"):
    done_metrics = [metrics[p] for p in runs if metrics.get(p)]
    st.code(summary.runs_table(done_metrics) + "\n\n" + summary.beside_papers(done_metrics), language="markdown")
    st.caption(
        "The same as `python -m debate eval-table RUN ...`; *const. label* is the macro-F1 of always "
        "answering the best single label on the run's items, the floor to clear."
    )

tab_run, tab_cmp = st.tabs(["Run", "Compare two runs"])
paths = list(runs)
name = {p: runs[p]["name"] for p in paths}

with tab_cmp:
    if len(paths) < 2:
        st.info("Comparing needs two runs on the same dataset (e.g. the council and a baseline on the same items).")
    else:
        c1, c2 = st.columns(2)
        a = c1.selectbox("Run A", paths, key="ev_cmp_a", format_func=lambda p: f"{name[p]} · {runs[p]['protocol']}")
        same = [p for p in paths if p != a and runs[p]["dataset"] == runs[a]["dataset"]]
        b = c2.selectbox(
            "Run B",
            paths,
            index=paths.index(same[0]) if same else int(a == paths[0]),
            key="ev_cmp_b",
            format_func=lambda p: f"{name[p]} · {runs[p]['protocol']}",
        )
        if a == b:
            st.info("Pick two different runs.")
        else:
            try:
                res = _compare(a, b, _sig(a), _sig(b))
            except DebateError as e:
                res = None
                st.warning(f"{escape(e.message)}  \n{escape(e.hint)}", icon=":material/warning:")
            if res is not None and not res.get("n_items"):
                st.info(f"Nothing to compare: {res.get('note', 'no common finished items')}.")
            elif res is not None:
                mc = res["mcnemar"]
                k = st.columns(4)
                k[0].metric("shared items", res["n_items"])
                k[1].metric("macro-F1 A − B", f"{res['macro_f1_diff']:+.3f}")
                k[2].metric(
                    f"{res['ci_level']:.0%} CI (bootstrap)",
                    f"[{res['ci'][0]:+.3f}, {res['ci'][1]:+.3f}]",
                    help=f"paired bootstrap over items, {res['n_boot']} resamples",
                )
                k[3].metric("McNemar p", f"{mc['p_value']:.3g}", help=mc["test"])
                st.caption(
                    f"Decisions only A got right: {mc['a_only_correct']} · only B: {mc['b_only_correct']}. "
                    + (
                        "The CI excludes 0: the difference is unlikely to be chance."
                        if res["ci"][0] > 0 or res["ci"][1] < 0
                        else "The CI includes 0: no significant difference on these items."
                    )
                )
                if res.get("per_category"):
                    st.dataframe(
                        [
                            {
                                "category": c,
                                "macro-F1 A": v["macro_f1_a"],
                                "macro-F1 B": v["macro_f1_b"],
                                "A − B": v["diff"],
                                "only A right": v["a_only_correct"],
                                "only B right": v["b_only_correct"],
                            }
                            for c, v in res["per_category"].items()
                        ],
                        hide_index=True,
                        key="ev_cmp_cats",
                    )

# last: the run tab may stop the script early (a run without metrics)
with tab_run:
    if st.session_state.get("ev_run") not in paths:
        st.session_state["ev_run"] = paths[0]
    run = st.selectbox(
        "Run", paths, key="ev_run", format_func=lambda p: f"{name[p]} · {runs[p]['protocol']} · {runs[p]['dataset']}"
    )
    info, m = runs[run], metrics.get(run) or {}
    sig = _sig(run)
    head, dl = st.columns([5, 1], vertical_alignment="bottom")
    head.caption(
        " · ".join(
            str(x)
            for x in [
                info["dataset"],
                info["protocol"],
                f"lineup {_lineup(info['lineup'])}",
                f"category {info['category']}" if info["category"] else "",
                f"max_tokens {(m.get('run') or {}).get('max_tokens')}",
            ]
            if x
        )
    )
    if info["report"]:
        dl.download_button(
            "report.html",
            lambda p=info["report"]: Path(p).read_bytes(),
            on_click="ignore",
            file_name=f"{info['name']}-report.html",
            mime="text/html",
            key="ev_report",
            icon=":material/download:",
        )
    cov = m.get("coverage") or {}
    if cov.get("pending") or info["counts"].get("running"):
        st.caption(
            f"Unfinished: {cov.get('done', 0)} of {cov.get('items', info['items'])} items done — scores so far. "
            "Re-run the same eval command to resume it."
        )
    if info["counts"].get("failed"):
        with st.expander(f"{info['counts']['failed']} failed items (left out of the scores)", icon=":material/error:"):
            st.dataframe(
                [
                    {"item": r["item_id"], "attempts": r["attempts"], "error": r["error"]}
                    for r in _items(run, sig)
                    if r["status"] == "failed"
                ],
                hide_index=True,
                width="stretch",
            )
    if not m:
        st.stop()
    k = st.columns(4)
    k[0].metric("macro-F1", _fmt(m.get("macro_f1")))
    k[1].metric("accuracy", _fmt(m.get("accuracy")))
    k[2].metric("items done", f"{cov.get('done', 0)}/{cov.get('items', 0)}", help=f"{cov.get('failed', 0)} failed")
    k[3].metric("tokens", _fmt((m.get("debate") or {}).get("tokens_total")))

    if m.get("split_excluded"):
        st.caption(
            f"{m['split_excluded']} decisions have a soft gold label (annotators split): left out of the scores."
        )
    blocks = m.get("categories") or ({"": m} if m.get("confusion") else {})
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown("#### Scores")
        if m.get("categories"):
            st.dataframe(
                [
                    {
                        "category": c,
                        "n": s["n"],
                        "macro-F1": s["macro_f1"],
                        "F1 YES": s["f1"].get("YES"),
                        "F1 NO": s["f1"].get("NO"),
                        "accuracy": s["accuracy"],
                        "invalid": s["invalid"],
                    }
                    for c, s in blocks.items()
                ],
                hide_index=True,
                key="ev_scores",
            )
        elif m.get("f1"):
            st.dataframe(
                [
                    {
                        "n": m["n"],
                        "accuracy": m["accuracy"],
                        "macro-F1": m["macro_f1"],
                        **{f"F1 {k}": v for k, v in m["f1"].items()},
                        "invalid": m["invalid"],
                    }
                ],
                hide_index=True,
                key="ev_scores",
            )
        elif not cov.get("done"):
            st.caption("No finished item yet.")
        else:
            st.caption("No gold labels in this dataset: predictions only (see predictions.csv in the run folder).")
    with right:
        st.markdown("#### Debate statistics")
        d = m.get("debate") or {}
        rows = [{"measure": label, "value": _fmt(d.get(key), pct=key.endswith("rate"))} for key, label in DEBATE_KEYS]
        for key, label in (("labels_direct", "labels as answered"), ("labels_repaired", "labels from a repair")):
            if d.get(key) is not None:
                rows.append({"measure": label, "value": ", ".join(f"{k} {v}" for k, v in d[key].items()) or "none"})
        st.dataframe(rows, hide_index=True, key="ev_debate_stats", height=38 + 35 * len(rows))  # every row shown
        n_repaired, n_labels = repair_share(d)
        if n_repaired > n_labels - n_repaired:
            st.warning(
                "Most labels came from the repair prompt (the first answer could not be read, often cut "
                "by max tokens): they say more about the repair format than about the model. Raise "
                "--max-tokens or look at the items.",
                icon=":material/warning:",
            )

    pap = m.get("papers") or {}
    if pap.get("rows"):
        st.markdown("#### Beside the papers")
        st.caption(pap.get("note", ""))
        cats = m.get("categories") or {}
        if "cat1" in pap["rows"][0]:
            ours = {
                "method": "▶ this run",
                "protocol": info["protocol"],
                "macro-F1": m.get("macro_f1"),
                **{f"cat {c}": (cats.get(c) or {}).get("macro_f1") for c in "123"},
            }
            rows = [
                {
                    "method": r["method"],
                    "protocol": r["protocol"],
                    "macro-F1": r["macro_f1"],
                    **{f"cat {c}": r[f"cat{c}"] for c in "123"},
                }
                for r in pap["rows"]
            ]
        else:
            ours = {
                "method": "▶ this run",
                "protocol": info["protocol"],
                "accuracy": m.get("accuracy"),
                "macro-F1": m.get("macro_f1"),
                "note": "",
            }
            rows = [
                {
                    "method": f"{r['method']} — {r['source']}",
                    "protocol": r["protocol"],
                    "accuracy": r["accuracy"],
                    "macro-F1": r["macro_f1"],
                    "note": r.get("note", ""),
                }
                for r in pap["rows"]
            ]
        st.dataframe([ours] + rows, hide_index=True, key="ev_papers")
    if m.get("readings"):  # the written label and the calibrated reading, scored apart (debate/outcome.py)
        from debate.evaluation.report import reading_lines

        st.caption(" ".join(reading_lines(m["readings"])).capitalize() + ".")
    chosen = (m.get("calibration") or {}).get("chosen")
    if chosen:
        st.caption(
            f"Early-stop calibration: chosen τs={chosen['tau_s']}, τc={chosen['tau_c']} → accuracy "
            f"{chosen['accuracy']:.3f}, {chosen['tokens_mean']:.0f} tokens/item, stop rate "
            f"{chosen['stop_rate']:.0%}."
        )

    with st.expander("Charts", expanded=True, icon=":material/bar_chart:"):
        try:
            figs = _figures(run, sig)
        except Exception as e:  # noqa: BLE001
            figs = []
            _problem("The charts cannot be drawn", e)
        cols = st.columns(2)
        for i, fig in enumerate(figs):
            cols[i % 2].plotly_chart(fig, key=f"ev_fig_{i}", config={"displayModeBar": False})

    _drill_down(run, info, blocks, bool(m.get("categories")))
