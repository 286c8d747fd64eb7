"""A person in the debate, page parts: take a seat before Run, answer when the debate asks.

Pages stay thin: the seat picker returns what DebateConfig needs (`humans`, `human_timeout_s`); the seat
box lists the debate's open seats (debate.seats) and hands the typed answer to `seats.answer`, which
checks it with the turn's own parser; a refusal is shown with its reason and the box stays open until
the countdown ends. Closing the tab leaves the seat unanswered: the engine passes the turn.
"""

from __future__ import annotations

import streamlit as st

from debate import live, seats
from debate.audience import address, links, qr, views
from debate.errors import DebateError, InvalidInput
from ui import resources
from ui.safe import escape, text_html

SEAT_TICK_S = 1.0  # the countdown and a newly opened seat appear within this


def seat_picker(agents: list[dict], key: str = "seat") -> tuple[list[str], float]:
    """Before Run: which seats a person plays (none by default) and their time per turn."""
    names = [a["agent"] for a in agents]
    roles = {a["agent"]: a["role"] for a in agents}
    if st.session_state.get(f"{key}_who") and not set(st.session_state[f"{key}_who"]) <= set(names):
        st.session_state[f"{key}_who"] = [n for n in st.session_state[f"{key}_who"] if n in names]
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    who = c1.multiselect(
        "A person plays",
        names,
        key=f"{key}_who",
        format_func=lambda n: n if roles.get(n) in (n, None) else f"{n} ({roles[n]})",
        placeholder="no seat: the models play every part",
        help="When the debate reaches that seat's turn, this page (and Present) shows a box with "
        "what the role's prompt shows; the person's words become the turn.",
    )
    timeout = c2.number_input(
        "Seconds per turn",
        min_value=5,
        max_value=3600,
        value=int(seats.DEFAULT_TIMEOUT_S),
        step=15,
        key=f"{key}_timeout",
        disabled=not who,
        help="Then the turn passes and the debate goes on.",
    )
    if who:
        st.caption(
            f"Played by a person (the model chosen for {'it' if len(who) == 1 else 'them'} above is not "
            f"used): {', '.join(who)}."
        )
    return list(who), float(timeout)


def _seat_form(debate_id: str, seat: seats.Seat, key: str) -> None:
    where = f"{seat.phase}" + (f" {seat.round}" if seat.round else "")
    st.markdown(
        f'<div class="tally"><span class="chip person">your turn</span> <b>{escape(seat.agent)}</b> '
        f'<span class="meta">({escape(seat.role)}, {escape(where)}) · {seat.remaining_s():.0f} s left</span>'
        f"</div>",
        unsafe_allow_html=True,
    )
    with st.expander(f"What the {seat.role}'s prompt shows", expanded=True):
        st.markdown(text_html(seat.prompt, css="txt seat-prompt"), unsafe_allow_html=True)
    st.markdown(f'<div class="meta">Answer format: {escape(seat.answer_format)}</div>', unsafe_allow_html=True)
    with st.form(key=f"{key}_form_{seat.turn_id}", border=False):
        text = st.text_area(
            "Your answer",
            key=f"{key}_text_{seat.turn_id}",
            max_chars=seats.MAX_ANSWER_CHARS,
            label_visibility="collapsed",
            placeholder=f"Your turn as the {seat.role}",
        )
        sent = st.form_submit_button("Send", icon=":material/send:", type="primary")
    if sent:
        try:
            seats.answer(debate_id, seat.turn_id, text)
            st.session_state[f"{key}_sent"] = f"Sent: your {seat.phase} turn as {seat.agent} is in the debate."
        except InvalidInput as e:
            st.session_state[f"{key}_refused_{seat.turn_id}"] = f"**{e.message}**  \n{e.hint}"
    refused = st.session_state.get(f"{key}_refused_{seat.turn_id}")
    if refused and seat.open:
        st.error(refused, icon=":material/block:")


def seat_box(debate_id: str, key: str = "seat") -> None:
    """While the debate runs: a box for each seat that waits for this person's answer, with its countdown."""

    @st.fragment(run_every=SEAT_TICK_S if live.is_running(debate_id) else None)
    def _box() -> None:
        for seat in seats.waiting(debate_id):
            if seat.open:
                _seat_form(debate_id, seat, key)
        note = st.session_state.get(f"{key}_sent")  # the last answer sent stays confirmed until the next one
        if note:
            st.success(note, icon=":material/check:")

    _box()


def seat_links(debate_id: str) -> None:
    """For each seat a person plays in the debate: its own link (a secret for that seat alone) and QR code,
    so the person types their turns on a phone through the audience server instead of at this screen."""
    store = resources.get_store()
    try:
        people = views.person_seats(store.event_dicts(debate_id, after_seq=-1)[:1])
        if not people:
            return
        base = address.published_url()
        with st.expander("Seats on phones", icon=":material/smartphone:"):
            if base is None:
                st.caption(
                    "A person can type their turns on a phone through the audience server: start it with "
                    "`python -m debate audience --host 0.0.0.0`, then each seat's QR code appears here."
                )
                return
            cols = st.columns(min(3, len(people)))
            for i, (agent, role) in enumerate(people):
                url = f"{base}/s/{links.store_at(store.path).link('seat', debate_id, agent)}"
                with cols[i % len(cols)]:
                    st.image(qr.png(url), width=170)
                    st.markdown(
                        f'<div class="meta"><b>{escape(agent)}</b> ({escape(role)}): only this seat\'s turns</div>',
                        unsafe_allow_html=True,
                    )
                    st.code(url, language=None)
    except DebateError as e:
        st.error(f"**{e.message}**  \n{e.hint}", icon=":material/error:")
