"""Library: every saved debate; search, filter, reopen (instantly or at recorded pace), delete, export."""

from functools import partial

import streamlit as st

from debate import live
from debate.sharing import exports
from debate.store import compact_verdict, row_title, started_at
from ui import people_view, resources, seat_view, share_view
from ui.entry import through_app
from ui.keep import relabel
from ui.live_view import show_live, show_stored

through_app()

store = resources.get_store()
st.markdown("## :material/library_books: Library")

if st.session_state.pop("lib_replay_done", False):
    st.session_state["lib_pace"] = "instant"
link_id, link_round = share_view.deep_link()  # a shared link: ?debate=ID&round=N
if link_id and st.session_state.get("lib_link") != (link_id, link_round):
    st.session_state["lib_link"] = (link_id, link_round)
    st.session_state["lib_open"] = link_id
    st.session_state["lib_at_round"] = link_round

f1, f2, f3, f4, f5 = st.columns([3, 1.3, 1.3, 1.3, 2])
search = f1.text_input("Search claims", key="lib_search", placeholder="words from the claim or the id")
task = f2.selectbox("Task", ["any"] + store.distinct("task"), key="lib_task")
protocol = f3.selectbox("Protocol", ["any"] + store.distinct("protocol"), key="lib_protocol")
verdict = f4.selectbox("Verdict", ["any"] + store.distinct("verdict"), key="lib_verdict")
dates = f5.date_input("Date range", value=(), key="lib_dates", format="YYYY-MM-DD")
d_from = dates[0].isoformat() if len(dates) >= 1 else None
d_to = dates[1].isoformat() if len(dates) == 2 else d_from
changed_only = st.checkbox(
    "Discussion changed the outcome",
    key="lib_vote_changed",
    help="Only debates whose verdict differs from a plain majority of the first answers.",
)
contested_only = st.checkbox(
    "Contested verdicts",
    key="lib_contested",
    help="Only debates whose verdict turns on one suspicious passage: flagged, in another language than the "
    "claim, or far less relevant than the others (the verdict card shows both verdicts and why).",
)
rows = store.list(
    contested=True if contested_only else None,
    search=search,
    task=None if task == "any" else task,
    protocol=None if protocol == "any" else protocol,
    verdict=None if verdict == "any" else verdict,
    date_from=d_from,
    date_to=d_to,
    vote_outcome="changed" if changed_only else None,
)
if st.toggle(
    "Only where a person overruled the judge",
    key="lib_disagree",
    help="Debates whose latest person's verdict differs from the judge's (Adjudicate can queue them).",
):
    overruled = people_view.disagreement_ids()
    rows = [r for r in rows if r["id"] in overruled]

if not rows:
    st.info(
        "No debates match."
        if store.list(limit=1)
        else "No debates yet. Run one on the Debate page; it is saved here as it streams."
    )
    st.stop()


STATUS_ICON = {"completed": "✅", "running": "⏳", "stopped": "⏹️", "error": "❌", "interrupted": "⏸️"}
# the verdict and its check come before the long claim, which is last but one and the only column that
# may be cut: a verdict pushed past the table's right edge reads as no verdict
st.dataframe(
    [
        {
            "when": started_at(r),
            "status": f"{STATUS_ICON.get(r['status'], '')} {r['status']}",
            "verdict": compact_verdict(r["verdict"]),
            "gold": compact_verdict(r["gold"]),
            "right": "" if r["correct"] is None else ("✔" if r["correct"] else "✘"),
            "protocol": r["protocol"],
            "task": r["task"] + (f" c{r['category']}" if r.get("category") else ""),
            "claim": r["claim"][:120],
            "tokens": r["tokens"],
            "seconds": round(r["wall_s"] or 0.0, 1),
        }
        for r in rows
    ],
    hide_index=True,
    width="stretch",
    height=min(38 + 35 * len(rows), 300),
    column_config={
        "verdict": st.column_config.TextColumn(width="medium"),
        "claim": st.column_config.TextColumn(width="large"),
    },
)
# made on the click: the aids' overrules it carries are read from every listed debate's events
st.download_button(
    "Export this list as CSV",
    partial(exports.library_csv, store, list(rows)),
    file_name="debates.csv",
    mime="text/csv",
    on_click="ignore",
    key="lib_export_list",
    icon=":material/download:",
)

if link_id and link_id not in {r["id"] for r in rows}:
    linked = store.get(link_id)
    if linked is None:
        st.error(
            f"**No debate {link_id!r} in this Library.**  \nThe link points to a debate stored on another "
            "machine, or it was deleted. Share the HTML export to show it anywhere.",
            icon=":material/error:",
        )
    else:
        rows = [linked] + rows
ids = [r["id"] for r in rows]
by_id = {r["id"]: r for r in rows}
if st.session_state.get("lib_open") not in ids:
    st.session_state["lib_open"] = ids[0]
relabel("lib_open", lambda i: row_title(by_id[i]))
chosen = st.selectbox(
    "Open a debate",
    ids,
    key="lib_open",
    format_func=lambda i: row_title(by_id[i]),
)
row = by_id[chosen]
if st.query_params.get("debate") != chosen:  # the address bar always holds a link to what is shown
    st.query_params["debate"] = chosen
    st.query_params.pop("round", None)
    st.session_state["lib_link"] = (chosen, None)
    st.session_state["lib_at_round"] = None

a1, a2, a_rest = st.columns([2.2, 1.2, 5], vertical_alignment="bottom")
st.session_state.setdefault(
    "lib_pace", "instant"
)  # (set here, not as the widget's default: a replay's end sets it too)
pace = a1.segmented_control("Show", ["instant", "recorded pace"], key="lib_pace") or "instant"
speed = a2.selectbox(
    "Speed", [1.0, 2.0, 5.0, 10.0], key="lib_speed", format_func=lambda x: f"{x:g}×", disabled=pace == "instant"
)
# the buttons in a row that wraps, each as wide as its label (fixed columns cut "Markdown" to "Ma…")
a3 = a4 = a5 = a6 = a7 = a_rest.container(horizontal=True, gap="small")
a3.download_button(
    "JSON",
    exports.export_json(store, chosen),
    file_name=f"debate-{chosen}.json",
    mime="application/json",
    on_click="ignore",
    key="lib_json",
    icon=":material/data_object:",
)
a4.download_button(
    "Markdown",
    exports.export_markdown(store, chosen),
    file_name=f"debate-{chosen}.md",
    mime="text/markdown",
    on_click="ignore",
    key="lib_md",
    icon=":material/description:",
)
a5.download_button(
    "CSV",
    exports.export_csv(store, chosen),
    file_name=f"debate-{chosen}.csv",
    mime="text/csv",
    on_click="ignore",
    key="lib_csv",
    icon=":material/table:",
)
share_view.html_download(chosen, "lib_html", a7)
if a6.button("Delete", key="lib_delete", icon=":material/delete:"):
    st.session_state["lib_confirm"] = chosen
if st.session_state.get("lib_confirm") == chosen:
    c1, c2, _ = st.columns([3, 1, 1])
    c1.warning("Delete this debate and all its events? This cannot be undone.")
    if c2.button("Yes, delete", key="lib_delete_yes", type="primary"):
        live.stop(chosen)
        store.delete(chosen)
        st.session_state.pop("lib_confirm", None)
        st.session_state.get("views:library", {}).pop(chosen, None)
        st.toast("Debate deleted.")
        st.rerun()

with st.expander("Fork, check, present", icon=":material/call_split:"):
    st.caption(
        f"Link to this debate: `?debate={chosen}` (add `&round=N` to open it at a round) on the Library "
        f"page; Present: `present?debate={chosen}`."
    )
    t1, t2 = st.tabs(["Fork from a round", "Robustness check"])
    with t1:
        new_id = share_view.fork_form(chosen, "lib")
        if new_id:  # open the fork (it streams here), through the same path as a shared link
            st.query_params.pop("round", None)
            st.query_params.update(debate=new_id)
            st.rerun()
    with t2:
        share_view.robustness_panel(chosen, "lib")
    if st.button("Present this debate", key="lib_present", icon=":material/slideshow:"):
        st.switch_page("pages/present.py", query_params={"debate": chosen})
with st.expander("Your verdict · overrule the judge", icon=":material/gavel:"):
    people_view.overrule_form(chosen, "lib")
share_view.family_panel(chosen, "lib")

st.divider()
at_round = st.session_state.get("lib_at_round")
if row["status"] == "running" and live.is_running(chosen):
    share_view.moderator_box(chosen)
    seat_view.seat_box(chosen, "lib_seat")  # a seat a person plays, reopened here
    show_live(chosen)
elif at_round is not None:
    if st.button("Show the whole debate", key="lib_all_rounds"):
        st.session_state["lib_at_round"] = None
        st.query_params.pop("round", None)
        st.rerun()
    share_view.show_at_round(chosen, int(at_round))
else:
    show_stored(chosen, pace="recorded" if pace == "recorded pace" else "instant", speed=float(speed))
