"""Present: one column in large type for a room — the claim, who speaks now, the votes, the verdict.

Follows a running debate live; when the backend is slow or offline, plays a stored debate turn by
turn in the same layout, labelled "recorded", with pause and step controls; full screen hides the sidebar.
"""

import streamlit as st

from debate import live
from debate.store import row_title
from ui import people_view, resources, seat_view, share_view
from ui.entry import through_app
from ui.keep import relabel

through_app()

store = resources.get_store()
st.html(f"<style>{share_view.PRESENT_CSS}</style>")
rows = store.list(limit=200)
if not rows:
    st.info("No debates yet. Run one on the Debate page, then present it here (live or recorded).")
    st.stop()
by_id = {r["id"]: r for r in rows}
linked = st.query_params.get("debate")
if linked and linked not in by_id and store.get(linked) is not None:
    by_id = {linked: store.get(linked), **by_id}
ids = list(by_id)
if linked in by_id and st.session_state.get("pres_link") != linked:
    st.session_state["pres_link"] = linked
    st.session_state["pres_pick"] = linked
full = st.session_state.setdefault("pres_full", st.query_params.get("full") == "1")
if full:  # for a room: no sidebar, no header, the whole window
    st.html(f"<style>{share_view.FULLSCREEN_CSS}</style>")
c1, c2, c3, c4 = st.columns([4, 2, 1, 1.3], vertical_alignment="bottom")
c4.toggle("Full screen", key="pres_full", help="Hide the sidebar and the header (a link with &full=1 opens so).")


def _title(i: str) -> str:
    return f"{'⏳ ' if live.is_running(i) else ''}{row_title(by_id[i], 70)}"


relabel("pres_pick", _title)
did = c1.selectbox("Debate", ids, key="pres_pick", format_func=_title)
running = live.is_running(did)
mode = (
    c2.segmented_control(
        "Show",
        ["live", "recorded"],
        key="pres_mode",
        default="live" if running else "recorded",
        help="recorded: the stored debate turn by turn, each shown long enough to read (long "
        "waits for the model shortened) — the fallback when the backend is slow or offline",
    )
    or "recorded"
)
speed = c3.selectbox(
    "Speed", [1.0, 2.0, 5.0], key="pres_speed", format_func=lambda x: f"{x:g}×", disabled=mode == "live"
)
if st.query_params.get("debate") != did:
    st.query_params["debate"] = did
st.session_state["pres_link"] = did  # the address now names the pick: read back, it must not reset the pick
if (st.query_params.get("full") == "1") != full:
    if full:
        st.query_params["full"] = "1"
    else:
        st.query_params.pop("full", None)
with st.expander("Audience poll", icon=":material/how_to_vote:"):
    people_view.poll_controls_for(did, "pres")
people_view.poll_results(did)  # the audience poll: before, after and the swing, live
people_view.poll_qr_open(did)  # while the poll is open: its link as a QR code for the room's phones
if mode == "live":
    if not running and by_id[did]["status"] == "running":
        st.warning("This debate is not running in this app any more; play it recorded.", icon=":material/warning:")
    seat_view.seat_box(did, "pres_seat")
    share_view.follow_live(did)
else:
    share_view.play_recorded(did, float(speed), "pres")
