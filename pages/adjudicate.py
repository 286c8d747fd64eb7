"""Adjudicate: work through a queue of hard cases, label them (keys work, blind if the queue says so),
review disagreements to a final label, see agreement, export in the dataset's own format."""

import json
import os

import streamlit as st

from debate import config, live
from debate.adjudication import agreement
from debate.adjudication.accounts import MAX_NAME, AccountStore
from debate.adjudication.annotations import AnnotationStore, blind_events, visibility
from debate.adjudication.hardcases import REASONS, from_runs, from_upload, shown_reasons
from debate.datasets import SPLIT_TEXT
from debate.errors import DebateError
from debate.evaluation.browse import item_events, list_runs
from debate.runner import DebateConfig
from debate.tasks import CHECKTHAT_CATEGORIES, resolve_task
from ui import catalog, charts, resources, signin
from ui.entry import through_app
from ui.live_view import show_live
from ui.render import label_chip, render_evidence, render_sections
from ui.safe import error_md, escape, text_html
from ui.transcript import build_view

through_app()

st.markdown("## :material/gavel: Adjudicate")


@st.cache_resource(show_spinner=False)
def _annotation_store(path: str) -> AnnotationStore:
    return AnnotationStore(path)


@st.cache_resource(show_spinner=False)
def _account_store(path: str) -> AccountStore:
    return AccountStore(path)


store = _annotation_store(str(config.store_db()))
qp = st.query_params
team, ident = signin.identity(_account_store(str(config.store_db())))
if team and ident is None:
    signin.sign_in_panel(_account_store(str(config.store_db())))
    st.stop()

# -- who, which queue, where: restored from the address so a reload loses nothing ------------------
st.session_state.update(st.session_state.pop("adj_pending", {}))  # set by a callback before the widgets exist
if "adj_annotator" not in st.session_state and not team:
    st.session_state["adj_annotator"] = qp.get("who", "")
queues = store.queues()
qids = [q["id"] for q in queues]
if st.session_state.get("adj_queue") not in qids:
    st.session_state["adj_queue"] = qp.get("q") if qp.get("q") in qids else (qids[0] if qids else None)

with st.sidebar:
    st.markdown("### Annotator")
    if team:
        signin.signed_in_box(ident)
        annotator = ident.name
    else:
        annotator = st.text_input(
            "Your name",
            key="adj_annotator",
            placeholder="e.g. alice",
            max_chars=MAX_NAME,
            help="Labels are saved under this name (capitals and spaces do not matter); "
            "several people can label the same queue.",
        )
    if qids:
        qid = st.selectbox(
            "Queue",
            qids,
            key="adj_queue",
            format_func=lambda i: next(f"{q['name']} ({q['n_items']})" for q in queues if q["id"] == i),
        )
    else:
        qid = None
    advance = st.toggle("Next case after labelling", value=True, key="adj_advance")
    reviewing = (
        ident.reviewer
        if team
        else st.toggle(
            "I review this queue",
            key="adj_reviewer",
            help="Blind queues show everyone's labels (Review, Agreement, Disagreements, Export) only "
            "to a reviewer, so an annotator does not see them by accident.",
        )
    )
if team:
    qp.pop("who", None)  # the identity is the signed-in one, never one from the address
else:
    qp["who"] = annotator.strip()
if qid:
    qp["q"] = qid

VIEWS = ["Label", "Review", "Agreement", "Disagreements", "Export", "Queue settings", "New queue"]
if team and not reviewing:  # a team's annotator labels; a reviewer reviews, sets queues up and sees every label
    _blind = next((q["settings"].get("blind") for q in queues if q["id"] == qid), False)
    VIEWS = ["Label"] if _blind or not qid else ["Label", "Agreement", "Disagreements", "Export"]
    if st.session_state.get("adj_view") not in VIEWS:
        st.session_state["adj_view"] = "Label"
# the first view set here, not as the widget's default: a widget given both a default and a value through
# the Session State API (set above) makes Streamlit log a warning with a stack trace on every such run
st.session_state.setdefault("adj_view", "Label" if qid else VIEWS[-1])
view = st.segmented_control("View", VIEWS, key="adj_view", label_visibility="collapsed") or "Label"
if view not in VIEWS:
    st.warning(f"Only a reviewer can open {view}.", icon=":material/lock:")
    st.stop()
if team and not reviewing and not qid:
    st.info("No queue to label yet: a reviewer of the team builds one.", icon=":material/inbox:")
    st.stop()


# -- building a queue ------------------------------------------------------------------------------
def _new_queue() -> None:
    source = st.radio("From", ["Evaluation runs", "Uploaded file", "Overruled debates"], horizontal=True, key="adj_src")
    name = st.text_input("Queue name (optional)", key="adj_qname")
    b1, b2 = st.columns(2)
    blind = b1.toggle(
        "Blind labelling",
        value=True,
        key="adj_new_blind",
        help="Annotators see neither other labels nor the debate's verdict until they have labelled.",
    )
    show_tr = b2.toggle(
        "Show the debate transcript while blind",
        value=False,
        key="adj_new_tr",
        disabled=not blind,
        help="The arguments without votes and verdict.",
    )
    guideline = st.text_area(
        "Guideline for annotators (optional; versioned, each label records its version)", key="adj_new_guide", height=80
    )
    settings = {"blind": blind, "show_transcript": show_tr and blind}
    try:
        if source == "Evaluation runs":
            root = st.text_input("Runs folder", value=os.environ.get("DEBATE_RUNS_DIR", "runs"), key="adj_root")
            runs = [r for r in list_runs(root) if not r.get("error")]
            if not runs:
                st.info(
                    f"No evaluation runs in `{root}`. Run one with `python -m debate eval --out {root}/NAME`, "
                    "or upload a file of cases."
                )
                return
            by_path = {r["path"]: r for r in runs}
            chosen = st.multiselect(
                "Runs (several runs of one dataset let protocols disagree)",
                list(by_path),
                key="adj_runs",
                format_func=lambda p: (
                    f"{by_path[p]['name']} · {by_path[p]['dataset']}"
                    f" · {by_path[p]['protocol']} · {by_path[p]['items']} items"
                ),
            )
            crit = st.pills("Hard when", list(REASONS), selection_mode="multi", default=list(REASONS), key="adj_crit")
            c1, c2, c3 = st.columns(3)
            cons = c1.slider("Consensus below", 0.0, 1.0, 0.8, 0.05, key="adj_cons")
            conf = c2.slider("Confidence below", 0.0, 1.0, 0.6, 0.05, key="adj_conf")
            limit = c3.number_input("At most (0 = all)", 0, 10000, 0, key="adj_limit")
            if st.button("Build the queue", key="adj_build", type="primary"):
                spec = from_runs(
                    chosen,
                    consensus_below=cons,
                    confidence_below=conf,
                    criteria=crit or [],
                    limit=int(limit) or None,
                    name=name,
                )
                _created(store.create_queue(spec, settings, guideline), len(spec.cases))
        elif source == "Overruled debates":  # a person's verdict differs from the judge's (Library)
            task = st.selectbox("Task", list(catalog.TASKS), key="adj_ov_task", format_func=catalog.TASKS.get)
            if st.button("Build the queue", key="adj_build_ov", type="primary"):
                from debate.adjudication.overruled import overruled_queue
                from debate.store import people

                spec = overruled_queue(
                    resources.get_store(), people.store_at(resources.get_store().path), task, name=name
                )
                _created(store.create_queue(spec, settings, guideline), len(spec.cases))
        else:
            up = st.file_uploader(
                "Cases: a dataset's own file (CheckThat 4a TSV: one case per tweet and category; "
                "AVeriTeC JSON; LIAR TSV), or a .csv/.tsv/.jsonl with a text|claim column and "
                "optional id, category, label, verdict, confidence, debate_id",
                type=["csv", "tsv", "jsonl", "json"],
                key="adj_up",
            )
            task = st.selectbox(
                "Task (its labels are offered; a dataset's own file brings its task)",
                list(catalog.TASKS),
                key="adj_up_task",
                format_func=catalog.TASKS.get,
            )
            if st.button("Build the queue", key="adj_build_up", type="primary", disabled=up is None):
                spec = from_upload(up.name, up.getvalue(), task=task, name=name)
                _created(store.create_queue(spec, settings, guideline), len(spec.cases))
    except DebateError as e:
        st.error(error_md(e), icon=":material/error:")


def _created(new_qid: str, n: int) -> None:
    st.session_state["adj_pending"] = {"adj_queue": new_qid, "adj_pos": 0, "adj_view": "Label"}
    st.toast(f"Queue ready: {n} cases.")
    st.rerun()


if view == "New queue" or not qid:
    _new_queue()
    st.stop()

queue = store.queue(qid)
cases = store.cases(qid)
labels = queue["labels"]
settings = queue["settings"]
guide = store.guideline(qid)


def _guidelines_panel(expanded: bool = False) -> None:
    """The task's category definitions and the queue's free-text guideline, with its version."""
    with st.expander(f"Guidelines · version {guide['version']}", expanded=expanded, icon=":material/menu_book:"):
        if queue["task"] in ("checkthat", "halftruth", "averitec"):
            cats = {c.category for c in cases} if queue["task"] == "checkthat" else {None}
            if queue["task"] == "checkthat" and not cats - {None}:  # an upload without a category column:
                st.caption("These cases name no category: the three categories' definitions follow.")
                cats = set(CHECKTHAT_CATEGORIES)  # (resolve_task has no category-less CheckThat view)
            for cat in sorted(cats - {None}) or [None]:
                tv = resolve_task(queue["task"], cat if queue["task"] == "checkthat" else None)
                title = f"Category {cat}: {tv.extra.get('title', '')}" if cat else f"Labels: {', '.join(tv.labels)}"
                st.markdown(
                    f"**{escape(title)}**  \n{escape(tv.description)}"
                    + (f"  \n*{escape(tv.guidelines)}*" if tv.guidelines else "")
                )
        if guide["text"]:
            st.markdown("**Queue guideline**")
            st.text(guide["text"])


# -- agreement, disagreements, export --------------------------------------------------------------
if settings.get("blind") and view in ("Review", "Agreement", "Disagreements", "Export") and not reviewing:
    st.info(
        "This queue is blind: this view shows every annotator's labels. Turn on **I review this queue** in the "
        "sidebar if you are reviewing, not labelling.",
        icon=":material/visibility_off:",
    )
    st.stop()


def _fmt(x) -> str:
    return "—" if x is None else f"{x:.3f}"


@st.cache_data(show_spinner=False, max_entries=20)
def _vs_file(ratings_json: str, gold_json: str) -> list[dict]:
    """Agreement with the file's own labels; cached: its bootstrap takes about a second per annotator."""
    return agreement.human_vs_file(json.loads(ratings_json), json.loads(gold_json))


if view == "Agreement":
    s = agreement.summary(store.independent_labels(qid), store.judge_labels(qid), labels)
    judged = any(v is not None for v in store.judge_labels(qid).values())
    c1, c2, c3, c4, c5 = st.columns(5)
    c1.metric("Cases labelled", f"{s['items_labelled']} / {len(cases)}")
    c2.metric("Annotators", len(s["annotators"]))
    c3.metric("Fleiss' kappa", _fmt(s["fleiss"]), help="All annotators, cases with at least two labels.")
    c4.metric(
        "Krippendorff's α (nominal)",
        _fmt(s["alpha_nominal"]),
        help="All annotators; missing labels allowed. From the krippendorff package.",
    )
    c5.metric(
        "Krippendorff's α (ordinal)",
        _fmt(s["alpha_ordinal"]),
        help="FALSE < HALF-TRUE < TRUE (NO < YES): near misses count less. — when NEI was used.",
    )
    st.markdown("#### Between annotators (pairs)")
    if s["cohen"]:
        st.dataframe(
            [
                {
                    "annotator A": r["a"],
                    "annotator B": r["b"],
                    "cases both labelled": r["n"],
                    "Cohen's kappa": _fmt(r["kappa"]),
                    "α nominal": _fmt(r["alpha_nominal"]),
                    "α ordinal": _fmt(r["alpha_ordinal"]),
                    "raw agreement": _fmt(r["agreement"]),
                }
                for r in s["cohen"]
            ],
            hide_index=True,
            width="stretch",
        )
    else:
        st.caption("Needs two annotators on the same cases.")
    st.markdown("#### Against the file's own labels")
    vs_file = _vs_file(json.dumps(agreement.by_item(store.independent_labels(qid))), json.dumps(store.gold_labels(qid)))
    if any(r["n"] for r in vs_file):
        st.dataframe(
            [
                {
                    "annotator": r["annotator"],
                    "cases": r["n"],
                    "Cohen's kappa": _fmt(r["kappa"]),
                    "95% interval": "—" if r["ci"] is None else f"{r['ci'][0]:.3f} to {r['ci'][1]:.3f}",
                    "raw agreement": _fmt(r["agreement"]),
                }
                for r in vs_file
            ],
            hide_index=True,
            width="stretch",
        )
        st.caption(
            "The label each case came with (in the uploaded file, or the dataset's gold), against each "
            "annotator's first label. Cases whose own label is split (its annotators disagreed) are left out. "
            "The interval is a bootstrap over the cases (1,000 resamples); — with fewer than 5 cases."
        )
    else:
        st.caption("No case labelled here has a label of its own in the file (or they are all split).")
    st.markdown("#### Per label (this label or not, cases with two or more labels)")
    st.dataframe(
        [
            {
                "label": r["label"],
                "times used": r["used"],
                "Fleiss' kappa": _fmt(r["fleiss"]),
                "α nominal": _fmt(r["alpha"]),
            }
            for r in s["per_label"]
        ],
        hide_index=True,
        width="stretch",
    )
    st.markdown("#### Human against the judge")
    if not judged:
        st.caption("No judge verdicts: the cases of this queue came without a judge's verdict.")
    else:
        st.dataframe(
            [
                {
                    "annotator": r["annotator"],
                    "cases": r["n"],
                    "Cohen's kappa": _fmt(r["kappa"]),
                    "raw agreement": _fmt(r["agreement"]),
                }
                for r in s["vs_judge"]
            ],
            hide_index=True,
            width="stretch",
        )
    st.markdown("#### The judge against the adjudicated gold")
    jv = agreement.judge_vs_gold(store.judge_pairs(qid), labels)
    if not jv["n"]:
        st.caption(
            "Nothing adjudicated yet: no case has a final label (a reviewer's, or a strict majority of its annotators)."
        )
    elif not jv["n_judged"]:
        st.caption(f"No judge verdicts: none of the {jv['n']} adjudicated cases came with a judge's verdict.")
    else:
        j1, j2 = st.columns(2)
        with j1:
            st.plotly_chart(charts.confusion_figure(jv), key="adj_cm")
        with j2:
            if jv["calibration"]["bins"]:
                st.plotly_chart(charts.calibration_figure(jv["calibration"]), key="adj_cal")
            else:
                st.caption("No judge confidence recorded: no calibration curve.")
        cal = jv["calibration"]
        st.caption(
            f"{jv['n']} adjudicated cases, {jv['n_judged']} with a judge verdict; judge accuracy "
            f"{_fmt(jv['accuracy'])} over those; Brier {_fmt(cal['brier'])}; "
            f"expected calibration error {_fmt(cal['ece'])} over {cal['n']} cases with a confidence."
        )
    st.caption(
        "A kappa or alpha is shown as — when it is undefined (everyone used one label). The (majority) row "
        "uses each case's strict majority label; ties are left out."
    )
    changed = [r for r in store.revisions(qid) if r["kind"] != "merged spelling"]
    if changed:
        st.caption(
            f"{len(changed)} label change(s) after the annotator had seen the others' labels: agreement "
            "uses the label each annotator gave first; final labels and exports use the current one."
        )
    st.stop()

if view == "Disagreements":
    text_of = {c.key: c.text for c in cases}
    rows = agreement.disagreements(store.annotations(qid), store.judge_labels(qid), store.gold_labels(qid))
    if not rows:
        st.info("No disagreements: annotators agree with each other, the judge and the gold label so far.")
    else:
        st.dataframe(
            [
                {
                    "case": r["item"],
                    "claim": text_of.get(r["item"], "")[:140],
                    "labels": ", ".join(f"{a}: {lab}" for a, lab in r["labels"].items()),
                    "majority": r["majority"] or "tie",
                    "judge": r["judge"] or "",
                    "gold": r["gold"] or "",
                    "why": "; ".join(r["reasons"]),
                }
                for r in rows
            ],
            hide_index=True,
            width="stretch",
        )
    st.stop()

if view == "Review":
    reviewer = annotator.strip()
    show_all = st.toggle("Also cases everyone agrees on", key="adj_rev_all")
    todo = store.review(qid, include_agreed=show_all)
    done = sum(1 for r in todo if r["resolution"])
    st.caption(
        f"{len(todo)} cases to review ({done} resolved): annotators disagree, annotators differ from the "
        "judge, or the dataset's own annotators split. Cases nobody labelled yet are not listed."
    )
    if not reviewer:
        st.info(
            "Type your name in the sidebar: final labels are saved under the reviewer's name.", icon=":material/badge:"
        )
    for r in todo:
        c, res = r["case"], r["resolution"]
        title = (
            f"{'✅' if res else '⚖️'} {escape(c.key)} · {', '.join(r['why']) or 'agreed'}"
            f"{' · final ' + res['label'] if res else ''}"
        )
        with st.expander(title, expanded=not res):
            cat = f" · category {c.category}" if c.category else ""
            st.markdown(
                f'<div class="claim-card"><div class="meta">{escape(queue["task"] + cat)}</div>'
                f"{text_html(c.text, css='claim-text')}</div>",
                unsafe_allow_html=True,
            )
            st.dataframe(
                [
                    {
                        "annotator": a["annotator"],
                        "label": a["label"],
                        "rationale": a["note"],
                        "guidelines": a.get("guideline_version"),
                        "flagged": a["flagged"],
                        "changed after seeing others": a.get("revised", ""),
                    }
                    for a in r["annotations"]
                ],
                hide_index=True,
                width="stretch",
            )
            if c.verdicts:
                st.dataframe(
                    [
                        {
                            "run": v.get("run"),
                            "protocol": v.get("protocol"),
                            "verdict": v.get("label") or "no verdict",
                            "verdict's number": v.get("number") or _fmt(v.get("confidence")),
                            "consensus": v.get("consensus"),
                        }
                        for v in c.verdicts
                    ],
                    hide_index=True,
                    width="stretch",
                )
            if c.votes:
                st.dataframe(
                    [
                        {
                            "agent": v.get("agent"),
                            "model": v.get("model"),
                            "last vote": v.get("label") if v.get("valid", True) else "invalid",
                            "P(its vote)": v.get("confidence"),
                        }
                        for v in c.votes
                    ],
                    hide_index=True,
                    width="stretch",
                )
            gold = SPLIT_TEXT if c.gold_split else (c.gold or "none")
            st.caption(
                f"Majority: {r['majority'] or 'tie'} · judge: {r['judge'] or 'no verdict'} · dataset: {gold}"
                + (f" · resolved by {escape(res['reviewer'])}: {escape(res['reason'])}" if res else "")
            )
            k = c.key
            f1, f2, f3 = st.columns([1, 3, 1], vertical_alignment="bottom")
            pick = f1.selectbox(
                "Final label",
                labels,
                key=f"adj_rev_lab:{qid}:{k}",
                index=labels.index(res["label"])
                if res
                else (labels.index(r["majority"]) if r["majority"] in labels else 0),
            )
            reason = f2.text_input(
                "Reason",
                key=f"adj_rev_why:{qid}:{k}",
                value=res["reason"] if res else "",
                placeholder="Why this is the right label",
            )
            if f3.button("Save final", key=f"adj_rev_save:{qid}:{k}", disabled=not reviewer, width="stretch"):
                try:
                    store.resolve(qid, k, reviewer, pick, reason)
                    st.rerun()
                except DebateError as e:
                    st.error(error_md(e), icon=":material/error:")
    st.stop()

if view == "Queue settings":
    st.markdown(f"#### {escape(queue['name'])}")
    s1, s2 = st.columns(2)
    blind = s1.toggle("Blind labelling", value=bool(settings.get("blind")), key=f"adj_set_blind:{qid}")
    show_tr = s2.toggle(
        "Show the debate transcript while blind",
        value=bool(settings.get("show_transcript")),
        key=f"adj_set_tr:{qid}",
        disabled=not blind,
    )
    if (blind, show_tr) != (bool(settings.get("blind")), bool(settings.get("show_transcript"))):
        store.update_settings(qid, blind=blind, show_transcript=show_tr and blind)
        st.rerun()
    _guidelines_panel(expanded=True)
    text = st.text_area(
        "Guideline (saving makes a new version; labels record the version they were made under)",
        value=guide["text"],
        key=f"adj_guide:{qid}:{guide['version']}",
        height=160,
    )
    if st.button("Save as a new version", key="adj_guide_save", disabled=text.strip() == guide["text"]):
        v = store.set_guideline(qid, text, annotator)
        st.toast(f"Guidelines version {v} saved.")
        st.rerun()
    hist = store.guidelines(qid)
    if len(hist) > 1:
        st.dataframe(
            [
                {"version": g["version"], "by": g["author"], "saved": g["created_at"], "text": g["text"][:200]}
                for g in hist
            ],
            hide_index=True,
            width="stretch",
        )
    st.stop()

if view == "Export":
    who = st.radio(
        "Labels", ["majority of annotators"] + store.progress(qid)["annotators"], key="adj_exp_who", horizontal=True
    )
    ann = None if who == "majority of annotators" else who
    csv_text, jsonl_text = store.export(qid, "csv", ann), store.export(qid, "jsonl", ann)
    c1, c2, c3, c4 = st.columns(4)
    c1.download_button(
        "Download CSV",
        csv_text,
        file_name=f"adjudicated-{qid}.csv",
        mime="text/csv",
        on_click="ignore",
        key="adj_dl_csv",
        icon=":material/table:",
    )
    c2.download_button(
        "Download JSONL",
        jsonl_text,
        file_name=f"adjudicated-{qid}.jsonl",
        mime="application/jsonl",
        on_click="ignore",
        key="adj_dl_jsonl",
        icon=":material/data_object:",
    )
    c3.download_button(
        "Download all labels (CSV)",
        store.export(qid, "cases", ann),
        file_name=f"labels-{qid}.csv",
        mime="text/csv",
        on_click="ignore",
        key="adj_dl_cases",
        icon=":material/groups:",
        help="Final label, its source and reason, judge, gold, each annotator's label and rationale.",
    )
    fmt = settings.get("format")
    if fmt:
        native = store.export(qid, "native", ann)
        ext = {"checkthat": "tsv", "averitec": "json", "liar": "tsv"}[fmt]
        c4.download_button(
            f"Download as {fmt} file",
            native,
            file_name=f"{queue['dataset'] or qid}-adjudicated.{ext}",
            on_click="ignore",
            key="adj_dl_native",
            icon=":material/description:",
            help="The same file format the cases came in: the file's own labels kept as they were, the final "
            "labels added in a last column (JSON: a key) named `adjudicated`.",
        )
        st.caption(
            f"Download as {fmt} file: the file as it came, its own labels kept, with the adjudicated labels "
            "added beside them (a last column, or a key, named adjudicated; empty where a case has no final label)."
        )
    st.caption(f"Format for {queue['dataset'] or queue['task']}: unlabelled cases (and ties) are left empty.")
    st.code("\n".join(csv_text.splitlines()[:12]), language="text")
    st.stop()

# -- labelling ------------------------------------------------------------------------------------
if not annotator.strip():
    st.info("Type your name in the sidebar to start labelling: labels are saved under it.", icon=":material/badge:")
n = len(cases)
if "adj_pos" not in st.session_state:
    try:
        st.session_state["adj_pos"] = min(max(int(qp.get("i", 0)), 0), n - 1)
    except ValueError:
        st.session_state["adj_pos"] = 0
pos = min(max(int(st.session_state["adj_pos"]), 0), n - 1)
case = cases[pos]
qp["i"] = str(pos)


def _move(step: int) -> None:
    st.session_state["adj_pos"] = min(max(int(st.session_state.get("adj_pos", 0)) + step, 0), n - 1)


def _act(kind: str, value=None) -> None:
    try:
        if kind == "label":
            store.set_label(qid, case.key, annotator, value)
        elif kind == "skip":
            store.skip(qid, case.key, annotator)
        elif kind == "flag":
            store.set_flag(qid, case.key, annotator, value)
        elif kind == "note":
            store.set_note(qid, case.key, annotator, st.session_state.get(value, ""))
    except DebateError as e:
        st.session_state["adj_msg"] = error_md(e)
        return
    if kind in ("label", "skip") and st.session_state.get("adj_advance", True):
        _move(+1)


mine = store.mine(qid, annotator)
p = store.progress(qid, annotator.strip() or None)
st.progress(
    p["done"] / max(p["total"], 1),
    text=f"{p['done']} of {p['total']} done"
    f"{' by ' + annotator.strip() if annotator.strip() else ''} · {p['labelled']} labelled · "
    f"{p['skipped']} skipped · {p['flagged']} flagged",
)
if msg := st.session_state.pop("adj_msg", None):
    st.error(msg, icon=":material/error:")

nav = st.columns([1, 3, 1], vertical_alignment="center")
nav[0].button("◀ Previous", key="adj_prev", on_click=_move, args=(-1,), disabled=pos == 0, width="stretch")
nav[1].markdown(
    f"<div style='text-align:center'><b>Case {pos + 1} of {n}</b> · <code>{escape(case.key)}</code></div>",
    unsafe_allow_html=True,
)
nav[2].button("Next ▶", key="adj_next", on_click=_move, args=(+1,), disabled=pos >= n - 1, width="stretch")

current = mine.get(case.key, {})
vis = visibility(settings, bool(current.get("label") or current.get("first_label")))
if settings.get("blind"):
    st.caption(
        ":material/visibility_off: Blind queue: other labels and the debate's verdict appear once you have "
        "labelled this case."
        if not vis["verdict"]
        else ":material/visibility: Blind queue: revealed because you labelled this case."
    )
_guidelines_panel()
left, right = st.columns([3, 2], gap="large")
with left:
    # why a case is hard tells about the debate's decision, and some reasons about the gold label
    gold_on = bool(vis["gold"] and st.session_state.get("adj_show_gold"))
    reasons = " ".join(
        f'<span class="chip orange">{escape(r)}</span>' for r in shown_reasons(case.reasons, gold_on) if vis["verdict"]
    )
    cat = f" · category {case.category}" if case.category else ""
    st.markdown(
        f'<div class="claim-card"><div class="meta">{escape(queue["task"] + cat)}</div>'
        f'{text_html(case.text, css="claim-text")}<div style="margin-top:.4rem">{reasons}</div></div>',
        unsafe_allow_html=True,
    )
    if vis["gold"] and st.toggle(
        "Show the gold label", key="adj_show_gold", help="Hidden by default so it does not sway you."
    ):
        st.markdown(
            f"Gold label: {label_chip(case.gold) or ('**' + SPLIT_TEXT + '**' if case.gold_split else 'none')}",
            unsafe_allow_html=True,
        )
    st.markdown("#### What the models said")
    if not vis["verdict"]:
        st.caption("Hidden until you label this case (blind queue).")
    elif case.verdicts:
        st.dataframe(
            [
                {
                    "run": v.get("run"),
                    "protocol": v.get("protocol"),
                    "verdict": v.get("label") or "no verdict",
                    "verdict's number": v.get("number") or _fmt(v.get("confidence")),
                    "consensus": v.get("consensus"),
                }
                for v in case.verdicts
            ],
            hide_index=True,
            width="stretch",
        )
    if vis["verdict"] and case.votes:
        st.dataframe(
            [
                {
                    "run": v.get("run"),
                    "agent": v.get("agent"),
                    "role": v.get("role"),
                    "model": v.get("model"),
                    "last vote": v.get("label") if v.get("valid", True) else "invalid",
                    "P(its vote)": v.get("confidence"),
                }
                for v in case.votes
            ],
            hide_index=True,
            width="stretch",
        )
    if vis["verdict"] and not case.verdicts and not case.votes:
        st.caption("No model verdict came with this case.")

with right:
    st.markdown("#### Your label")
    cols = st.columns(len(labels))
    for i, (col, lab) in enumerate(zip(cols, labels)):
        col.button(
            lab,
            key=f"adj_lab_{i}",
            on_click=_act,
            args=("label", lab),
            width="stretch",
            type="primary" if current.get("label") == lab else "secondary",
            disabled=not annotator.strip(),
        )
    c1, c2 = st.columns(2)
    c1.button("Skip", key="adj_skip", on_click=_act, args=("skip",), width="stretch", disabled=not annotator.strip())
    flagged = bool(current.get("flagged"))
    c2.button(
        "Unflag" if flagged else "Flag",
        key="adj_flag",
        on_click=_act,
        args=("flag", not flagged),
        width="stretch",
        disabled=not annotator.strip(),
    )
    note_key = f"adj_note:{qid}:{case.key}:{annotator.strip()}"
    if note_key not in st.session_state:
        st.session_state[note_key] = current.get("note", "")
    st.text_area(
        "Rationale",
        key=note_key,
        height=90,
        on_change=_act,
        args=("note", note_key),
        disabled=not annotator.strip(),
        placeholder="Why this label? (saved when you leave the box; the reviewer reads it)",
    )
    state = (
        "skipped"
        if current.get("skipped")
        else f"labelled {current['label']}"
        if current.get("label")
        else "not labelled yet"
    )
    if current.get("label") and current.get("guideline_version") is not None:
        state += f" under guidelines v{current['guideline_version']}"
    if current.get("first_label") and current.get("first_label") != current.get("label"):
        state += f" (changed; your first label, {current['first_label']}, is the one agreement counts)"
    st.caption(
        f"This case: {state}{' · flagged' if flagged else ''}. Keys: "
        + " · ".join(f"**{i + 1}** {lab}" for i, lab in enumerate(labels))
        + " · **s** skip · **f** flag · **←/→** previous/next"
    )
    others = store.others_for(qid, case.key, annotator)
    if others:
        st.caption("Others: " + ", ".join(f"{escape(a)}: {lab}" for a, lab in others.items()))

# keyboard shortcuts: a listener in the page clicks the button whose key is mapped (buttons carry st-key-<key>)
keymap = {str(i + 1): f"adj_lab_{i}" for i in range(min(len(labels), 9))}
keymap.update(
    {
        "s": "adj_skip",
        "f": "adj_flag",
        "ArrowRight": "adj_next",
        "ArrowLeft": "adj_prev",
        "j": "adj_next",
        "k": "adj_prev",
    }
)
st.markdown('<span class="adj-keys-on"></span>', unsafe_allow_html=True)
st.html(
    """<script>
const w = window; w.__adjKeys = __KEYMAP__;
if (!w.__adjKeyListener) {
  w.__adjKeyListener = true;
  w.document.addEventListener("keydown", (ev) => {
    const t = ev.target, tag = ((t && t.tagName) || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || (t && t.isContentEditable)) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || !w.document.querySelector(".adj-keys-on")) return;
    const key = (w.__adjKeys || {})[ev.key];
    if (!key) return;
    const btn = [...w.document.querySelectorAll(".st-key-" + key + " button")].find(
      (b) => !b.disabled && !b.closest('[data-stale="true"]'));
    if (btn) { ev.preventDefault(); btn.click(); }
  });
}
w.document.body.dataset.adjKeys = "on";
</script>""".replace("__KEYMAP__", json.dumps(keymap)),
    unsafe_allow_javascript=True,
)

# -- the debate behind the case ---------------------------------------------------------------------
st.divider()
st.markdown("#### The debate")
refs = case.debates
if not vis["transcript"]:
    st.caption("Hidden until you label this case (blind queue).")
elif refs and not vis["verdict"]:  # blind, transcript shown: the arguments without votes and verdict
    ref = refs[0]
    try:
        evs = (
            resources.get_store().events(ref["debate_id"])
            if ref.get("debate_id")
            else item_events(ref["run"], ref["item_id"])
        )
        with st.container(height=700):
            render_sections(build_view(blind_events(evs)), f"{qid}-{case.key}-blind")
    except DebateError as e:
        st.warning(f"{escape(e.message)} {escape(e.hint)}")
elif refs:
    names = [
        f"{r.get('protocol') or 'debate'} · {os.path.basename(r['run'])}"
        if r.get("run")
        else f"debate {r['debate_id']}"
        for r in refs
    ]
    which = (
        st.radio(
            "Debate",
            range(len(refs)),
            format_func=names.__getitem__,
            horizontal=True,
            key=f"adj_deb:{qid}:{case.key}",
            label_visibility="collapsed",
        )
        if len(refs) > 1
        else 0
    )
    ref = refs[which]
    if ref.get("debate_id"):
        show_live(ref["debate_id"])
    else:
        try:
            dview = build_view(item_events(ref["run"], ref["item_id"]))
        except DebateError as e:
            st.warning(f"{escape(e.message)} {escape(e.hint)}")
        else:
            d1, d2 = st.columns([3, 2], gap="large")
            with d1, st.container(height=700):
                render_sections(dview, f"{qid}-{case.key}")
            with d2:
                render_evidence(dview, f"{qid}-{case.key}")
elif not vis["verdict"]:
    st.caption("No stored debate for this case; one can be run once you have labelled it.")
else:
    st.caption("No stored debate for this case. Run one on demand (saved to the Library, kept with the case):")
    infos = catalog.protocols()
    r1, r2 = st.columns([2, 1], vertical_alignment="bottom")
    proto = r1.selectbox("Protocol", list(infos), key="adj_run_proto", format_func=lambda k: infos[k].title)
    if r2.button("Run a debate", key="adj_run", icon=":material/play_arrow:", width="stretch"):
        task = queue["task"] if queue["task"] in catalog.TASKS and queue["task"] != "custom" else "halftruth"
        cfg = DebateConfig(
            claim=case.text,
            protocol=proto,
            task=task,
            category=case.category or (1 if task == "checkthat" else None),
            lineup="embedded",
        )
        try:
            retriever = resources.retriever_for(cfg) if infos[proto].uses_evidence else None
            did = live.start_debate(
                cfg, resources.get_client(), retriever, resources.get_store(), run=resources.get_run()
            )
            store.attach_debate(qid, case.key, did)
            st.rerun()
        except DebateError as e:
            st.error(error_md(e), icon=":material/error:")
