"""Debate (home): pick a claim, a protocol and a lineup; watch the debate stream; it is saved as it goes."""

from dataclasses import replace

import streamlit as st

from debate import live
from debate.errors import DebateError
from debate.runner import MAX_CLAIM_CHARS
from debate.store import seconds_since
from ui import catalog, landing, people_view, resources, seat_view, setup, share_view, widgets
from ui.entry import through_app
from ui.live_view import follow_debate, show_live
from ui.safe import error_md, escape

through_app()
_linked = st.query_params.get("debate")
_own = _linked and not st.query_params.get("poll") and not st.query_params.get("round")  # (those: the Library's)
if _own and _linked == st.session_state.get("debate_id"):
    pass  # the address this page wrote for its own debate
elif _own and live.is_running(_linked):
    # this page's address while its debate runs, opened afresh (a reload, a second tab): follow it here
    _row = resources.get_store().get(_linked) or {}
    st.session_state["debate_id"] = _linked
    st.session_state["debate_gold"] = _row.get("gold")
    st.session_state["debate_follow"] = True  # scrolled to, as after Run
    if _row.get("claim"):  # the box shows the claim being debated, not an empty one
        landing.set_value("claim", _row["claim"])
elif _linked:  # a shared link to the app's root opens the stored debate in the Library
    st.switch_page(
        "pages/poll.py" if st.query_params.get("poll") else "pages/library.py", query_params=dict(st.query_params)
    )  # ?debate=ID&poll=1: the audience votes
resources.get_retriever()  # starts loading the evidence index in the background, long before Run

with st.sidebar:
    st.markdown("### Set-up")
    task = widgets.task_picker()
    setup.switch_note()
    protocol, info = setup.protocol_picker()
    pace = widgets.pace_toggle(protocol, info)
    aids_on = widgets.aids_toggle()
    st.markdown("**Parameters**")
    params = setup.protocol_params(protocol, info, pace)
    gen = widgets.generation_settings(info, pace)

st.markdown("## :material/forum: Debate")
claim, gold = widgets.claim_box(task["task"], task["category"])

with st.expander("Lineup · who plays which part", expanded=False, icon=":material/groups:"):
    lineup, agents, status = widgets.lineup_editor(protocol, params)
humans, human_timeout = seat_view.seat_picker(agents)  # a person takes a seat (none by default)
st.caption(escape(catalog.run_summary(agents, params, gen["max_tokens"])))  # seat and model names: anyone's text
if aids_on:
    st.caption(widgets.aids_line(protocol, task, agents, info))
landing.sentinel()  # after the widgets the app sets values in: tells when the browser had not drawn them
if setup.settle_aids(protocol, info, task, agents, aids_on):
    st.rerun()  # once: the parameter widgets then show the values that will run
unavailable = {
    m: r
    for m, r in status.items()
    if not r.get("ok")  # a model only people's seats had is not needed
    and not set(r.get("agents") or []) <= set(humans)
}
if unavailable:  # one line per cause: six seats on one unreachable server are one problem, said once
    causes: dict[str, list[str]] = {}
    for m, r in unavailable.items():
        causes.setdefault(str(r.get("detail") or r.get("status")), []).append(f"`{m}`")
    st.warning(
        "Not available: "
        + "; ".join(f"{', '.join(ms)} — {cause}" for cause, ms in causes.items())
        + "  \nPick another model in the lineup, or start the backend (Models page).",
        icon=":material/warning:",
    )

debate_id = st.session_state.get("debate_id")
running = bool(debate_id) and live.is_running(debate_id)
c_run, c_stop, c_msg = st.columns([1, 1, 5], vertical_alignment="center")
run_clicked = c_run.button(
    "Run", key="run", type="primary", icon=":material/play_arrow:", disabled=running, width="stretch"
)
if c_stop.button("Stop", key="stop", icon=":material/stop:", disabled=not running, width="stretch"):
    live.stop(debate_id)
    c_msg.caption("Stopping after the current token…")


def _problem() -> tuple[str, str] | None:
    if not claim.strip():
        return "The claim is empty.", "Paste a tweet or a claim, or click one of the examples."
    if len(claim) > MAX_CLAIM_CHARS:
        return (
            f"The claim is {len(claim):,} characters long; a claim may have at most {MAX_CLAIM_CHARS:,}.",
            "Shorten it (or keep its first characters with the button under the box): every agent reads it "
            "in every prompt.",
        )
    if task["task"] == "custom" and not task["custom_title"].strip():
        return "The custom question has no title.", "Say what the text should be checked for (sidebar)."
    if unavailable:
        first = next(iter(unavailable.values()))
        return (
            f"{len(unavailable)} model(s) of the lineup are not available: {', '.join(unavailable)}.",
            first.get("detail") or "Choose available models in the lineup, or start the backend.",
        )
    return None


DOUBLE_CLICK_S = 5.0  # a Run click this soon after a start of the same id is the same click, said twice


def _start_id() -> tuple[str, bool]:
    """(the id this Run starts, True when a click before this one already started it).

    Why: every read or write of st.session_state lets a pending rerun stop the script. A second click on
    Run while start_debate waited for the first words stopped the first click's run right after the start,
    before it had recorded the debate's id; the second run then started the same id again ("UNIQUE
    constraint failed: debates.id") and lost the running debate. The id is chosen before the start (kept in
    `next_debate_id`, which a poll opened before Run also uses) and dropped only once the start is
    recorded, so a start cut short is found again here by its id: still running, or stored moments ago,
    it is the debate this click meant. An id stored longer ago (its run ended without recording it) is
    not reused."""
    nid = st.session_state.get("next_debate_id")
    row = resources.get_store().get(nid) if nid else None
    if nid and row is None:
        return nid, False
    if row is not None and (live.is_running(nid) or seconds_since(row) < DOUBLE_CLICK_S):
        return nid, True
    nid = st.session_state["next_debate_id"] = live.new_debate_id()
    return nid, False


config = replace(
    setup.config(claim, protocol, task, lineup, setup.run_params(protocol, info, params), gen, aids_on, gold),
    humans=humans or None,
    human_timeout_s=human_timeout,
)
if not running:  # (a model still being checked is warmed too: a missing one is skipped quietly)
    resources.warm_ahead(config)  # the models read this set-up's first prompts while the person decides
    # after a run of this very set-up the models re-read it for a re-run: a "Preparing…" line under Run
    # would read as if the debate shown below were still starting
    if st.session_state.get("debate_config") != config:
        widgets.warm_status(config, agents)

if run_clicked and running:
    pass  # a second click on Run while the first one's debate starts: the first one is kept, nothing else
elif run_clicked:
    problem = _problem()
    if problem:
        # model specs people typed and servers' own error text: shown as text, never Markdown (links, images)
        st.error(f"**{escape(problem[0])}**  \n{escape(problem[1])}", icon=":material/error:")
    else:
        try:
            retriever = resources.retriever_for(config)  # always shown; the toggle decides the prompts
            new_id, started = _start_id()
            st.session_state["debate_id"] = (
                new_id
                if started
                else live.start_debate(
                    config,
                    resources.get_client(),
                    retriever,
                    resources.get_store(),
                    run=resources.get_run(),
                    debate_id=new_id,
                    wait_words_s=live.WAIT_WORDS_S,
                )
            )
            st.session_state.pop("next_debate_id", None)  # a poll opened before Run belongs to this debate
            st.session_state["debate_gold"] = gold
            st.session_state["debate_config"] = config
            st.session_state["debate_follow"] = True  # the next run scrolls the page to the debate
            st.query_params["debate"] = st.session_state["debate_id"]  # a reload comes back to it
            st.rerun()
        except DebateError as e:
            st.error(error_md(e), icon=":material/error:")

if not running:
    with st.expander("Audience poll · ask the room before Run", icon=":material/how_to_vote:"):
        people_view.poll_before_run(task, claim)

if st.session_state.get("debate_id"):
    st.divider()
    if running:
        share_view.moderator_box(debate_id)
        seat_view.seat_box(debate_id)
        seat_view.seat_links(debate_id)  # each person's seat on their own phone (not on Present: a secret)
    show_live(st.session_state["debate_id"], gold=st.session_state.get("debate_gold"))
    if st.session_state.pop("debate_follow", False):
        follow_debate()
    if not running:
        with st.expander("Fork from a round", icon=":material/call_split:"):
            new_id = share_view.fork_form(st.session_state["debate_id"], "deb")
            if new_id:  # the fork streams in the Library, at its own link
                share_view.open_debate(new_id)
        with st.expander("Your verdict · overrule the judge", icon=":material/gavel:"):
            people_view.overrule_form(st.session_state["debate_id"], "deb")
        with st.expander("Audience poll · ask the room again", icon=":material/how_to_vote:"):
            people_view.poll_controls_for(st.session_state["debate_id"], "deb")
else:
    st.caption(
        "Each agent's words stream into its own bubble; votes, stop checks, evidence and the verdict "
        "appear as they happen. Every debate is saved to the Library."
    )
