"""Learn: step through a stored debate with a note per step, watch how the votes moved, see each protocol's flow."""

import os

import streamlit as st

from debate.errors import DebateError
from debate.evaluation.browse import list_runs
from debate.evaluation.checkpoint import read_rows
from debate.events import event_from_dict
from debate.store import row_title
from debate.teaching import steps as teaching
from debate.teaching.flow import protocol_dot
from ui import catalog, resources, share_view
from ui.entry import through_app
from ui.render import render_evidence, render_sections, render_verdict
from ui.safe import error_md, escape, text_html
from ui.step_follow import follow_step
from ui.transcript import build_view

through_app()

store = resources.get_store()
st.markdown("## :material/school: Learn")
VIEWS = ["Step through", "Vote dynamics", "Protocol flow", "Across a run"]
view = (
    st.segmented_control("View", VIEWS, key="learn_view", default="Step through", label_visibility="collapsed")
    or "Step through"
)


def _runs_root() -> str:
    return os.environ.get("DEBATE_RUNS_DIR", "runs")


def _pick_debate() -> tuple[str, list[dict]] | None:
    """(id, event dicts) of a saved debate or of one item of an evaluation run."""
    src = st.radio("Debate from", ["Library", "Evaluation run"], horizontal=True, key="learn_src")
    if src == "Library":
        rows = [r for r in store.list(limit=300) if r["status"] != "running"]
        if not rows:
            st.info("No finished debate in the Library yet: run one on the Debate page.")
            return None
        by_id = {r["id"]: r for r in rows}
        did = st.selectbox(
            "Debate",
            list(by_id),
            key="learn_debate",
            format_func=lambda i: row_title(by_id[i]),
        )
        return did, store.event_dicts(did)
    runs = [r for r in list_runs(_runs_root()) if not r.get("error")]
    if not runs:
        st.info(f"No evaluation runs in `{_runs_root()}`.")
        return None
    by_path = {r["path"]: r for r in runs}
    run = st.selectbox(
        "Run",
        list(by_path),
        key="learn_run",
        format_func=lambda p: f"{by_path[p]['name']} · {by_path[p]['protocol']} · {by_path[p]['dataset']}",
    )
    items = [r for r in read_rows(run) if r["status"] == "done"]
    if not items:
        st.info("This run has no finished item yet.")
        return None
    by_item = {r["item_id"]: r for r in items}
    iid = st.selectbox(
        "Item", list(by_item), key="learn_item", format_func=lambda i: f"{i} · {by_item[i]['text'][:90]}"
    )
    return f"{run}:{iid}", read_rows(run, [iid], with_events=True)[0]["events"] or []


def _move(step: int, n: int) -> None:
    st.session_state["learn_step"] = min(max(int(st.session_state.get("learn_step", 0)) + step, 0), n - 1)
    st.session_state["learn_follow"] = True  # the rerun scrolls to what the step adds


if view == "Protocol flow":
    infos = catalog.protocols()
    proto = st.selectbox("Protocol", list(infos), key="learn_proto", format_func=lambda k: infos[k].title)
    info = infos[proto]
    st.markdown(f"**{escape(info.title)}** — {escape(info.one_line)}", unsafe_allow_html=True)
    try:
        st.graphviz_chart(protocol_dot(proto), width="content")
    except DebateError as e:
        st.error(error_md(e), icon=":material/error:")
    st.caption(
        "Drawn from the protocol itself: it is run on a scripted backend in three scenarios (all agree; "
        "members split and hold; votes flip every round) and every phase, decision and outcome it goes "
        "through becomes a box, a diamond and an edge. Boxes list who speaks (∥ = at the same time)."
    )
    st.markdown("#### Parameters")
    st.markdown(  # a table that wraps its text: every meaning is read whole
        '<table class="learn-params"><tr><th>parameter</th><th>default</th><th>meaning</th></tr>'
        + "".join(
            f"<tr><td><code>{escape(k)}</code></td><td>{escape(str(v[0]))}</td><td>{escape(v[1])}</td></tr>"
            for k, v in info.params.items()
        )
        + "</table>",
        unsafe_allow_html=True,
    )
    st.stop()

if view == "Across a run":
    runs = [r for r in list_runs(_runs_root()) if not r.get("error")]
    if not runs:
        st.info(f"No evaluation runs in `{_runs_root()}`. Run one with `python -m debate eval`.")
        st.stop()
    by_path = {r["path"]: r for r in runs}
    run = st.selectbox(
        "Run",
        list(by_path),
        key="learn_agg_run",
        format_func=lambda p: f"{by_path[p]['name']} · {by_path[p]['protocol']} · {by_path[p]['dataset']}",
    )
    agg = teaching.run_dynamics(run)
    st.caption(f"{agg['debates']} finished debates · {agg['decisions']} decisions with per-round votes")
    st.plotly_chart(
        teaching.sankey_figure(agg["sankey"], "Votes from round to round (all debates)"), key="learn_agg_sankey"
    )
    a1, a2 = st.columns(2)
    with a1:
        st.markdown("#### Mean agreement per round")
        st.plotly_chart(teaching.agreement_figure(agg["agreement"], key="mean_share"), key="learn_agg_agree")
    with a2:
        st.markdown("#### Vote changes per round")
        st.bar_chart({f"R{r}": n for r, n in agg["changes_per_round"].items()} or {"none": 0})
    st.markdown("#### Who persuaded whom (summed credit)")
    st.dataframe(agg["persuasion"][:30], hide_index=True, width="stretch")
    st.stop()

picked = _pick_debate()
if picked is None:
    st.stop()
debate_key, events = picked
if not events:
    st.info("This debate has no stored events.")
    st.stop()
if st.session_state.get("learn_for") != debate_key:
    st.session_state.update(learn_for=debate_key, learn_step=0)

if view == "Vote dynamics":
    d = teaching.debate_dynamics(events)
    if not d["series"]:
        st.info(
            "Nobody voted round by round in this debate (its protocol has a judge, not a vote): "
            "step through it instead, or pick a council debate."
        )
        st.stop()
    st.plotly_chart(
        teaching.sankey_figure(d["sankey"], "Who voted what, round by round (as the tally counted)"), key="learn_sankey"
    )
    if d["counted_otherwise"]:  # the same statement as the verdict card's headline and the bubbles' tags
        st.markdown("#### Votes counted otherwise than written")
        st.caption(
            "Under the small-model aids a member's vote is the label its own probabilities favour against a "
            "threshold fitted on train, which can differ from the label it wrote. The chart and the tables "
            "count what the tally counted."
        )
        st.dataframe(d["counted_otherwise"], hide_index=True, width="stretch")
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("#### Agreement over rounds")
        st.plotly_chart(teaching.agreement_figure(d["agreement"]), key="learn_agree")
    with c2:
        st.markdown("#### Who changed their vote")
        st.dataframe(
            d["changes"] or [{"agent": "nobody", "round": "", "from": "", "to": ""}], hide_index=True, width="stretch"
        )
        st.markdown("#### Who persuaded whom")
        st.dataframe(d["persuasion"] or [{"persuader": "nobody changed their vote"}], hide_index=True, width="stretch")
        st.caption(
            "A switch to label b is credited, in equal parts, to the members who already voted b and gave a "
            "reason for it; a bare vote argued nothing, so a switch no such member explains is credited to "
            f"“{teaching.NO_REASON}”."
        )
    st.stop()

# -- step through ------------------------------------------------------------------------------------
# The controls and the step's note stay at the top of the page while it scrolls (a sticky container,
# assets/style.css), beside whatever the step adds; after a click the page is scrolled to that, just under
# them (ui/step_follow.py), so Next never has to be looked for again.
steps = teaching.steps(events)
n = len(steps)
i = min(int(st.session_state.get("learn_step", 0)), n - 1)
step = steps[i]
with st.container(key="learn_controls"):
    b1, b2, b3 = st.columns([1, 4, 1], vertical_alignment="center")
    b1.button("◀ Previous", key="learn_prev", on_click=_move, args=(-1, n), disabled=i == 0, width="stretch")
    b2.progress((i + 1) / n, text=f"Step {i + 1} of {n}")
    b3.button("Next ▶", key="learn_next", on_click=_move, args=(+1, n), disabled=i >= n - 1, width="stretch")
    st.markdown(
        f'<div class="claim-card learn-note"><div class="meta">step {i + 1} · {escape(step.kind_words)}'
        f"{' · round ' + str(step.round) if step.round else ''}</div><b>{escape(step.title)}</b>"
        f"{text_html(step.note)}</div>",
        unsafe_allow_html=True,
    )
    if step.detail:
        with st.expander("How is this computed?", icon=":material/calculate:"):
            st.markdown(text_html(step.detail), unsafe_allow_html=True)
with st.sidebar, st.expander("All steps"):
    st.markdown(
        "<br>".join(
            f"{'<b>▶ ' if k == i else ''}{k + 1}. {escape(sx.title)}{'</b>' if k == i else ''}"
            for k, sx in enumerate(steps)
        ),
        unsafe_allow_html=True,
    )
shown = build_view([event_from_dict(e) for e in teaching.events_until(events, step)])
left, right = st.columns([3, 2], gap="large")
with left:
    s = shown.started
    if s:
        st.markdown(
            f'<div class="claim-card"><div class="meta">{escape(s.protocol)} · {escape(s.task)}</div>'
            f"{text_html(s.claim, css='claim-text')}</div>",
            unsafe_allow_html=True,
        )
    render_verdict(shown)
    render_sections(shown, f"learn-{i}", replay=teaching.rounds_note(events, step, steps))
with right:
    render_evidence(shown, f"learn-{i}", running=False, replay=teaching.evidence_note(events, step, steps))
    if store.get(debate_key) is not None:  # a Library debate (evaluation items are not stored there)
        with st.expander(f"Fork from round {step.round}", icon=":material/call_split:"):
            new_id = share_view.fork_form(debate_key, f"learn{step.round}", default_round=step.round)
            if new_id:  # the fork streams in the Library, at its own link
                share_view.open_debate(new_id)
if st.session_state.pop("learn_follow", False):
    follow_step(step.kind, i)
