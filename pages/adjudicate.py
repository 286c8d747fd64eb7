"""Adjudicate: work through a queue of hard cases, label them (keys work), see agreement, export."""

import json
import os

import streamlit as st

from debate import agreement, config, live
from debate.annotations import AnnotationStore
from debate.errors import DebateError
from debate.evaluation.browse import item_events, list_runs
from debate.hardcases import REASONS, from_runs, from_upload
from debate.runner import DebateConfig
from ui import catalog, resources
from ui.live_view import show_live
from ui.render import label_chip, render_evidence, render_sections
from ui.safe import escape, text_html
from ui.transcript import build_view
from ui.entry import through_app

through_app()

st.markdown("## :material/gavel: Adjudicate")


@st.cache_resource(show_spinner=False)
def _annotation_store(path: str) -> AnnotationStore:
    return AnnotationStore(path)


store = _annotation_store(str(config.store_db()))
qp = st.query_params

# -- who, which queue, where: restored from the address so a reload loses nothing ------------------
st.session_state.update(st.session_state.pop("adj_pending", {}))  # set by a callback before the widgets exist
if "adj_annotator" not in st.session_state:
    st.session_state["adj_annotator"] = qp.get("who", "")
queues = store.queues()
qids = [q["id"] for q in queues]
if st.session_state.get("adj_queue") not in qids:
    st.session_state["adj_queue"] = qp.get("q") if qp.get("q") in qids else (qids[0] if qids else None)

with st.sidebar:
    st.markdown("### Annotator")
    annotator = st.text_input("Your name", key="adj_annotator", placeholder="e.g. alice",
                              help="Labels are saved under this name; several people can label the same queue.")
    if qids:
        qid = st.selectbox("Queue", qids, key="adj_queue", format_func=lambda i: next(
            f"{q['name']} ({q['n_items']})" for q in queues if q["id"] == i))
    else:
        qid = None
    advance = st.toggle("Next case after labelling", value=True, key="adj_advance")
qp["who"] = annotator.strip()
if qid:
    qp["q"] = qid

VIEWS = ["Label", "Agreement", "Disagreements", "Export", "New queue"]
view = st.segmented_control("View", VIEWS, key="adj_view", default="Label" if qid else "New queue",
                            label_visibility="collapsed") or "Label"


# -- building a queue ------------------------------------------------------------------------------
def _new_queue() -> None:
    source = st.radio("From", ["Evaluation runs", "Uploaded file"], horizontal=True, key="adj_src")
    name = st.text_input("Queue name (optional)", key="adj_qname")
    try:
        if source == "Evaluation runs":
            root = st.text_input("Runs folder", value=os.environ.get("DEBATE_RUNS_DIR", "runs"), key="adj_root")
            runs = [r for r in list_runs(root) if not r.get("error")]
            if not runs:
                st.info(f"No evaluation runs in `{root}`. Run one with `python -m debate eval --out {root}/NAME`, "
                        "or upload a file of cases.")
                return
            by_path = {r["path"]: r for r in runs}
            chosen = st.multiselect("Runs (several runs of one dataset let protocols disagree)", list(by_path),
                                    key="adj_runs", format_func=lambda p: f"{by_path[p]['name']} · {by_path[p]['dataset']}"
                                    f" · {by_path[p]['protocol']} · {by_path[p]['items']} items")
            crit = st.pills("Hard when", list(REASONS), selection_mode="multi", default=list(REASONS), key="adj_crit")
            c1, c2, c3 = st.columns(3)
            cons = c1.slider("Consensus below", 0.0, 1.0, 0.8, 0.05, key="adj_cons")
            conf = c2.slider("Confidence below", 0.0, 1.0, 0.6, 0.05, key="adj_conf")
            limit = c3.number_input("At most (0 = all)", 0, 10000, 0, key="adj_limit")
            if st.button("Build the queue", key="adj_build", type="primary"):
                spec = from_runs(chosen, consensus_below=cons, confidence_below=conf, criteria=crit or [],
                                 limit=int(limit) or None, name=name)
                _created(store.create_queue(spec), len(spec.cases))
        else:
            up = st.file_uploader("Cases (.csv, .tsv or .jsonl): a text|claim column; optional id, category, "
                                  "label, verdict, confidence, debate_id", type=["csv", "tsv", "jsonl"], key="adj_up")
            task = st.selectbox("Task (its labels are offered)", list(catalog.TASKS), key="adj_up_task",
                                format_func=catalog.TASKS.get)
            if st.button("Build the queue", key="adj_build_up", type="primary", disabled=up is None):
                spec = from_upload(up.name, up.getvalue(), task=task, name=name)
                _created(store.create_queue(spec), len(spec.cases))
    except DebateError as e:
        st.error(f"**{e.message}**  \n{e.hint}", icon=":material/error:")


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


# -- agreement, disagreements, export --------------------------------------------------------------
def _fmt(x) -> str:
    return "—" if x is None else f"{x:.3f}"


if view == "Agreement":
    s = agreement.summary(store.annotations(qid), store.judge_labels(qid))
    c1, c2, c3 = st.columns(3)
    c1.metric("Cases labelled", f"{s['items_labelled']} / {len(cases)}")
    c2.metric("Annotators", len(s["annotators"]))
    c3.metric("Fleiss' kappa", _fmt(s["fleiss"]), help="All annotators, cases with at least two labels.")
    st.markdown("#### Between annotators (Cohen's kappa)")
    if s["cohen"]:
        st.dataframe([{"annotator A": r["a"], "annotator B": r["b"], "cases both labelled": r["n"],
                       "Cohen's kappa": _fmt(r["kappa"]), "raw agreement": _fmt(r["agreement"])} for r in s["cohen"]],
                     hide_index=True, width="stretch")
    else:
        st.caption("Needs two annotators on the same cases.")
    st.markdown("#### Human against the judge")
    st.dataframe([{"annotator": r["annotator"], "cases": r["n"], "Cohen's kappa": _fmt(r["kappa"]),
                   "raw agreement": _fmt(r["agreement"])} for r in s["vs_judge"]], hide_index=True,
                 width="stretch")
    st.caption("A kappa is shown as — when it is undefined (everyone used one label). The (majority) row uses each "
               "case's strict majority label; ties are left out.")
    st.stop()

if view == "Disagreements":
    text_of = {c.key: c.text for c in cases}
    rows = agreement.disagreements(store.annotations(qid), store.judge_labels(qid), store.gold_labels(qid))
    if not rows:
        st.info("No disagreements: annotators agree with each other, the judge and the gold label so far.")
    else:
        st.dataframe([{"case": r["item"], "claim": text_of.get(r["item"], "")[:140],
                       "labels": ", ".join(f"{a}: {lab}" for a, lab in r["labels"].items()),
                       "majority": r["majority"] or "tie", "judge": r["judge"] or "", "gold": r["gold"] or "",
                       "why": "; ".join(r["reasons"])} for r in rows], hide_index=True, width="stretch")
    st.stop()

if view == "Export":
    who = st.radio("Labels", ["majority of annotators"] + store.progress(qid)["annotators"], key="adj_exp_who",
                   horizontal=True)
    ann = None if who == "majority of annotators" else who
    csv_text, jsonl_text = store.export(qid, "csv", ann), store.export(qid, "jsonl", ann)
    c1, c2 = st.columns(2)
    c1.download_button("Download CSV", csv_text, file_name=f"adjudicated-{qid}.csv", mime="text/csv",
                       on_click="ignore", key="adj_dl_csv", icon=":material/table:")
    c2.download_button("Download JSONL", jsonl_text, file_name=f"adjudicated-{qid}.jsonl",
                       mime="application/jsonl", on_click="ignore", key="adj_dl_jsonl", icon=":material/data_object:")
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
        st.session_state["adj_msg"] = f"**{e.message}**  \n{e.hint}"
        return
    if kind in ("label", "skip") and st.session_state.get("adj_advance", True):
        _move(+1)


mine = store.mine(qid, annotator)
p = store.progress(qid, annotator.strip() or None)
st.progress(p["done"] / max(p["total"], 1), text=f"{p['done']} of {p['total']} done"
            f"{' by ' + annotator.strip() if annotator.strip() else ''} · {p['labelled']} labelled · "
            f"{p['skipped']} skipped · {p['flagged']} flagged")
if msg := st.session_state.pop("adj_msg", None):
    st.error(msg, icon=":material/error:")

nav = st.columns([1, 3, 1], vertical_alignment="center")
nav[0].button("◀ Previous", key="adj_prev", on_click=_move, args=(-1,), disabled=pos == 0, width="stretch")
nav[1].markdown(f"<div style='text-align:center'><b>Case {pos + 1} of {n}</b> · <code>{escape(case.key)}</code></div>",
                unsafe_allow_html=True)
nav[2].button("Next ▶", key="adj_next", on_click=_move, args=(+1,), disabled=pos >= n - 1, width="stretch")

left, right = st.columns([3, 2], gap="large")
with left:
    reasons = " ".join(f'<span class="chip orange">{escape(r)}</span>' for r in case.reasons)
    cat = f" · category {case.category}" if case.category else ""
    st.markdown(f'<div class="claim-card"><div class="meta">{escape(queue["task"] + cat)}</div>'
                f'{text_html(case.text, css="claim-text")}<div style="margin-top:.4rem">{reasons}</div></div>',
                unsafe_allow_html=True)
    if st.toggle("Show the gold label", key="adj_show_gold", help="Hidden by default so it does not sway you."):
        st.markdown(f"Gold label: {label_chip(case.gold) or 'none'}", unsafe_allow_html=True)
    st.markdown("#### What the models said")
    if case.verdicts:
        st.dataframe([{"run": v.get("run"), "protocol": v.get("protocol"), "verdict": v.get("label") or "no verdict",
                       "confidence": v.get("confidence"), "consensus": v.get("consensus")} for v in case.verdicts],
                     hide_index=True, width="stretch")
    if case.votes:
        st.dataframe([{"run": v.get("run"), "agent": v.get("agent"), "role": v.get("role"), "model": v.get("model"),
                       "last vote": v.get("label") if v.get("valid", True) else "invalid",
                       "confidence": v.get("confidence")} for v in case.votes], hide_index=True, width="stretch")
    if not case.verdicts and not case.votes:
        st.caption("No model verdict came with this case.")

with right:
    st.markdown("#### Your label")
    current = mine.get(case.key, {})
    cols = st.columns(len(labels))
    for i, (col, lab) in enumerate(zip(cols, labels)):
        col.button(lab, key=f"adj_lab_{i}", on_click=_act, args=("label", lab), width="stretch",
                   type="primary" if current.get("label") == lab else "secondary", disabled=not annotator.strip())
    c1, c2 = st.columns(2)
    c1.button("Skip", key="adj_skip", on_click=_act, args=("skip",), width="stretch",
              disabled=not annotator.strip())
    flagged = bool(current.get("flagged"))
    c2.button("Unflag" if flagged else "Flag", key="adj_flag", on_click=_act, args=("flag", not flagged),
              width="stretch", disabled=not annotator.strip())
    note_key = f"adj_note:{qid}:{case.key}:{annotator.strip()}"
    if note_key not in st.session_state:
        st.session_state[note_key] = current.get("note", "")
    st.text_area("Note", key=note_key, height=90, on_change=_act, args=("note", note_key),
                 disabled=not annotator.strip(), placeholder="Why this label? (saved when you leave the box)")
    state = ("skipped" if current.get("skipped") else f"labelled {current['label']}" if current.get("label")
             else "not labelled yet")
    st.caption(f"This case: {state}{' · flagged' if flagged else ''}. Keys: "
               + " · ".join(f"**{i + 1}** {lab}" for i, lab in enumerate(labels))
               + " · **s** skip · **f** flag · **←/→** previous/next")
    others = {a["annotator"]: a["label"] for a in store.annotations(qid) if a["key"] == case.key and a["label"]
              and a["annotator"] != annotator.strip()}
    if others:
        st.caption("Others: " + ", ".join(f"{a}: {lab}" for a, lab in others.items()))

# keyboard shortcuts: a listener in the page clicks the button whose key is mapped (buttons carry st-key-<key>)
keymap = {str(i + 1): f"adj_lab_{i}" for i in range(min(len(labels), 9))}
keymap.update({"s": "adj_skip", "f": "adj_flag", "ArrowRight": "adj_next", "ArrowLeft": "adj_prev",
               "j": "adj_next", "k": "adj_prev"})
st.markdown('<span class="adj-keys-on"></span>', unsafe_allow_html=True)
st.html("""<script>
const w = window; w.__adjKeys = %s;
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
</script>""" % json.dumps(keymap), unsafe_allow_javascript=True)

# -- the debate behind the case ---------------------------------------------------------------------
st.divider()
st.markdown("#### The debate")
refs = case.debates
if refs:
    names = [f"{r.get('protocol') or 'debate'} · {os.path.basename(r['run'])}" if r.get("run")
             else f"debate {r['debate_id']}" for r in refs]
    which = st.radio("Debate", range(len(refs)), format_func=names.__getitem__, horizontal=True,
                     key=f"adj_deb:{qid}:{case.key}", label_visibility="collapsed") if len(refs) > 1 else 0
    ref = refs[which]
    if ref.get("debate_id"):
        show_live(ref["debate_id"])
    else:
        try:
            dview = build_view(item_events(ref["run"], ref["item_id"]))
        except DebateError as e:
            st.warning(f"{e.message} {e.hint}")
        else:
            d1, d2 = st.columns([3, 2], gap="large")
            with d1, st.container(height=700):
                render_sections(dview, f"{qid}-{case.key}")
            with d2:
                render_evidence(dview, f"{qid}-{case.key}")
else:
    st.caption("No stored debate for this case. Run one on demand (saved to the Library, kept with the case):")
    infos = catalog.protocols()
    r1, r2 = st.columns([2, 1], vertical_alignment="bottom")
    proto = r1.selectbox("Protocol", list(infos), key="adj_run_proto", format_func=lambda k: infos[k].title)
    if r2.button("Run a debate", key="adj_run", icon=":material/play_arrow:", width="stretch"):
        task = queue["task"] if queue["task"] in catalog.TASKS and queue["task"] != "custom" else "halftruth"
        cfg = DebateConfig(claim=case.text, protocol=proto, task=task,
                           category=case.category or (1 if task == "checkthat" else None), lineup="embedded")
        try:
            retriever = resources.get_retriever() if infos[proto].uses_evidence else None
            did = live.start_debate(cfg, resources.get_client(), retriever, resources.get_store(),
                                    run=resources.get_run())
            store.attach_debate(qid, case.key, did)
            st.rerun()
        except DebateError as e:
            st.error(f"**{e.message}**  \n{e.hint}", icon=":material/error:")
