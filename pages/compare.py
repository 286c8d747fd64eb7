"""Compare: two or more protocols or lineups on one claim, side by side, each streaming in its own column."""

from datetime import UTC, datetime

import streamlit as st

from debate import live
from debate.errors import DebateError
from debate.lineups import load_lineup
from debate.runner import MAX_CLAIM_CHARS
from debate.store import row_title
from debate.tasks import is_truth
from ui import catalog, charts, landing, resources, server_box, setup, share_view, widgets
from ui.entry import through_app
from ui.keep import relabel
from ui.render import (
    STATUS_BADGE,
    evidence_title,
    render_evidence,
    render_ran,
    render_sections,
    render_stop_checks,
    render_verdict,
)
from ui.safe import escape, text_html
from ui.transcript import DebateView

through_app()

TICK_S = 0.4
store = resources.get_store()
st.markdown("## :material/compare_arrows: Compare")
fork_id = st.query_params.get("fork") or st.session_state.get("cmp_fork")
if fork_id:  # a fork beside its parent, aligned by round (opened from the Library's family panel)
    if st.button("Close the fork comparison", key="cmp_fork_close", icon=":material/close:"):
        st.session_state.pop("cmp_fork", None)
        st.query_params.pop("fork", None)
        st.rerun()
    share_view.fork_comparison(fork_id)
    st.stop()
mode = (
    st.segmented_control(
        "Mode",
        ["Run side by side", "Open saved debates"],
        key="cmp_mode",
        default="Run side by side",
        label_visibility="collapsed",
    )
    or "Run side by side"
)


def _view(debate_id: str) -> DebateView:
    views = st.session_state.setdefault("views:compare", {})
    view = views.setdefault(debate_id, DebateView())
    view.extend(store.events(debate_id, after_seq=view.last_seq))
    return view


def _elapsed(row: dict, view: DebateView) -> float:
    if view.finished is not None or row.get("status") != "running":
        return float(view.counters()["elapsed"] or 0.0)
    try:
        return (datetime.now(UTC) - datetime.fromisoformat(row["created_at"])).total_seconds()
    except (KeyError, ValueError):
        return float(view.last_t)


def _column(debate_id: str, n_cols: int) -> None:
    row = store.get(debate_id)
    if row is None:
        st.info("This debate is no longer in the store.")
        return
    view = _view(debate_id)
    info = catalog.protocols().get(row["protocol"])
    lineup = (row.get("config") or {}).get("lineup")
    lineup_name = lineup if isinstance(lineup, str) else (lineup or {}).get("name", "custom")
    st.markdown(
        f"**{escape(info.title if info else row['protocol'])}**  \n"
        f"<span class='meta'>lineup {escape(catalog.preset_title(str(lineup_name)))}</span>",
        unsafe_allow_html=True,
    )
    status = row["status"] if view.finished is None else view.status
    text, color, icon = STATUS_BADGE.get(status, STATUS_BADGE["waiting"])
    st.badge(text, color=color, icon=icon)
    c = view.counters()
    verdict = view.verdict
    vlabel = (
        verdict.label or (verdict.labels and ", ".join(f"{k}:{v}" for k, v in verdict.labels.items()))
        if verdict
        else None
    )
    m1, m2 = st.columns(2)
    m1.metric("Verdict", vlabel or "—")
    m2.metric("Time", f"{_elapsed(row, view):.1f} s")
    m3, m4 = st.columns(2)
    m3.metric("Tokens", f"{int(c['tokens']):,}")
    m4.metric("Model calls", int(c["model_calls"]))
    render_ran(view.started)
    render_verdict(view)
    if view.tallies or row["protocol"] == "council":
        st.plotly_chart(
            charts.tally_figure(view.tallies), key=f"cmp-tally-{debate_id}", config={"displayModeBar": False}
        )
    if view.stop_checks or row["protocol"].startswith("radar"):
        render_stop_checks(view, f"cmp-stop-{debate_id}")
    with st.container(height=620 if n_cols > 1 else None):
        render_sections(view, debate_id)
    if view.evidence or view.evidence_event:
        with st.expander(evidence_title(view)):
            render_evidence(view, debate_id)


def show_side_by_side(ids: list[str]) -> None:
    ticking = any(live.is_running(d) for d in ids)

    @st.fragment(run_every=TICK_S if ticking else None)
    def _frame() -> None:
        rows = [store.get(d) for d in ids]
        claim = next((r["claim"] for r in rows if r), "")
        if len({r["claim"] for r in rows if r}) == 1:
            st.markdown(f'<div class="claim-card">{text_html(claim, css="claim-text")}</div>', unsafe_allow_html=True)
        cols = st.columns(len(ids), gap="medium")
        for col, d in zip(cols, ids):
            with col:
                _column(d, len(ids))
        if ticking and not any(live.is_running(d) for d in ids):
            st.rerun()

    _frame()


if mode == "Open saved debates":
    rows = store.list(limit=300)
    if not rows:
        st.info("No saved debates yet. Run some on the Debate page, or side by side here.")
        st.stop()
    by_id = {r["id"]: r for r in rows}
    relabel("cmp_saved", lambda i: row_title(by_id[i], 70))
    chosen = st.multiselect(
        "Debates (two to four)",
        list(by_id),
        key="cmp_saved",
        max_selections=4,
        format_func=lambda i: row_title(by_id[i], 70),
    )
    if chosen:
        show_side_by_side(chosen)
    st.stop()

# -- run side by side ------------------------------------------------------------------------------
# The same set-up widgets as the Debate page (ui.setup / ui.widgets, same keys): task, pace, aids, each
# protocol's parameters and the answer budget, so a claim run here and there runs with the same settings.
infos = catalog.protocols()
names = list(infos)
presets = list(catalog.presets())
saved = [f"saved:{n}" for n in store.lineups()]
with st.sidebar:
    st.markdown("### Set-up")
    task = widgets.task_picker()
    setup.switch_note()
widgets.keep("cmp_claim", st.session_state.get("keep:claim", ""))
claim = st.text_area(
    "Tweet or claim",
    key="cmp_claim",
    height=90,
    placeholder="One claim, debated by each column.",
    help=f"At most {MAX_CLAIM_CHARS:,} characters.",
)
widgets.remember("cmp_claim")
widgets.too_long_note(claim, "cmp_claim")
n = int(st.number_input("Columns", 2, 4, 2, key="cmp_n"))
# RADAR decides TRUE / FALSE / HALF-TRUE: on a yes/no task the default columns are yes/no protocols
defaults = (
    ["radar", "radar-single", "council", "single"]
    if is_truth(task["task"])
    else ["council", "baseline", "single", "team"]
)


def _follow_columns() -> None:
    setup.follow_protocols([st.session_state.get(f"cmp_proto_{i}", "") for i in range(n)])


server = server_box.server_choice()  # the Debate page's box (same keys): every column's seats on one server
setup_cols = st.columns(n)
picks = []
for i, col in enumerate(setup_cols):
    with col:
        if f"cmp_proto_{i}" not in st.session_state:
            st.session_state[f"cmp_proto_{i}"] = defaults[i] if defaults[i] in names else names[0]
        proto = st.selectbox(
            f"Protocol {i + 1}",
            names,
            key=f"cmp_proto_{i}",
            format_func=lambda k: infos[k].title,
            on_change=_follow_columns,
        )
        lu = st.selectbox(f"Lineup {i + 1}", presets + saved, key=f"cmp_lineup_{i}", format_func=catalog.preset_title)
        picks.append((proto, lu))
lineups = store.lineups()


def _lineup(lu: str):
    return lineups[lu.split(":", 1)[1]] if lu.startswith("saved:") else lu


lineup_of = [_lineup(lu) for _, lu in picks]
not_there: dict[int, DebateError] = {}  # column -> why its lineup cannot run on the chosen server
for i in range(n if server else 0):
    with setup_cols[i]:
        try:
            lineup_of[i], problem = server_box.put_on_server(load_lineup(lineup_of[i]), *server)
        except DebateError as e:  # a broken saved lineup
            server_box.show(e)
            problem = e
        if problem is not None:
            not_there[i] = problem


with st.sidebar:
    pace = widgets.pace_toggle([p for p, _ in picks])
    aids_on = widgets.aids_toggle()
    params_of, evidence_of = {}, {}
    for proto in dict.fromkeys(p for p, _ in picks):
        with st.container(border=True):
            st.markdown(f"**{infos[proto].title}**")
            params_of[proto] = setup.protocol_params(proto, infos[proto], pace)
            evidence_of[proto] = widgets.evidence_toggle(infos[proto])
    budget = widgets.answer_budget(pace)
    budget.update(sources=widgets.evidence_sources(), questions=widgets.evidence_questions())  # as on Debate
agents_of = []
for i, (proto, _lineup) in enumerate(picks):
    try:
        agents_of.append(catalog.resolve(lineup_of[i], proto, params_of[proto]))
    except Exception:  # noqa: BLE001 - a broken saved lineup is reported when the column runs
        agents_of.append([])
    if aids_on:
        setup_cols[i].caption(widgets.aids_line(proto, task, agents_of[i], infos[proto]))
landing.sentinel()  # after the widgets the app sets values in: tells when the browser had not drawn them
settled = False
for proto in dict.fromkeys(p for p, _ in picks):  # once per protocol: its first column's lineup
    first = next(i for i, (p, _) in enumerate(picks) if p == proto)
    settled |= setup.settle_aids(proto, infos[proto], task, agents_of[first], aids_on)
if settled:
    st.rerun()  # once: the parameter widgets then show the values that will run

ids: list[str] = st.session_state.get("cmp_ids", [])
running = any(live.is_running(d) for d in ids)
b1, b2, _ = st.columns([1, 1, 4])
if b1.button("Run side by side", key="cmp_run", type="primary", icon=":material/play_arrow:", disabled=running):
    if not claim.strip():
        st.error(
            "**The claim is empty.**  \nPaste a tweet or a claim: every column debates the same one.",
            icon=":material/error:",
        )
    else:
        started, problems = [], []
        for i, (proto, _lineup) in enumerate(picks):
            cfg = setup.config(
                claim,
                proto,
                task,
                lineup_of[i],
                setup.run_params(proto, infos[proto], params_of[proto]),
                {**budget, "evidence": evidence_of[proto]},
                aids_on,
            )
            if i in not_there:  # refused before any model is called, as the command line does
                problems.append(
                    f"Column {i + 1} ({proto}): **{escape(not_there[i].message)}** {escape(not_there[i].hint)}"
                )  # the server's names: its text, not Markdown
                continue
            try:
                retriever = resources.retriever_for(cfg)  # the Debate page's: same sources, same floor
                started.append(
                    live.start_debate(cfg, resources.get_client(), retriever, store, run=resources.get_run())
                )
            except DebateError as e:
                problems.append(f"Column {i + 1} ({proto}): **{e.message}** {e.hint}")
        st.session_state["cmp_ids"] = started
        st.session_state["cmp_problems"] = problems
        st.rerun()
if b2.button("Stop all", key="cmp_stop", icon=":material/stop:", disabled=not running):
    for d in ids:
        live.stop(d)
for p in st.session_state.get("cmp_problems", []):
    st.error(p, icon=":material/error:")
if ids:
    st.divider()
    show_side_by_side(ids)
else:
    st.caption(
        "Each column runs its own debate at the same time; tokens, votes and verdicts stream in as they "
        "arrive, with each one's tokens, model calls and time."
    )
