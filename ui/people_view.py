"""People beside the debate, page parts: a person's own verdict (overrule the judge) and the audience poll.

Pages stay thin: every function reads its widgets and calls debate.store.people; the records live in the same
SQLite file as the debates (debate.store.people.PeopleStore) and go into the JSON, Markdown and HTML exports.
"""

from __future__ import annotations

import uuid

import streamlit as st

from debate import live, tasks
from debate.audience import address, links, qr
from debate.errors import DebateError
from debate.store import people
from ui import resources, verdicts
from ui.safe import error_md, escape, text_html

POLL_TICK_S = 1.0


def _people() -> people.PeopleStore:
    return people.store_at(resources.get_store().path)


def _error(e: DebateError) -> None:
    st.error(error_md(e), icon=":material/error:")


# -- overrule the judge ---------------------------------------------------------------------------------
def verdict_line(debate_id: str) -> str:
    """HTML for the verdict card: the latest person's verdict beside the judge's ('' when there is none)."""
    try:
        o = _people().latest(debate_id)
    except DebateError:
        return ""
    if not o:
        return ""
    flag = (
        ' <span class="chip red">disagrees with the judge</span>'
        if o["disagrees"]
        else ' <span class="chip gray">agrees with the judge</span>'
    )
    return (
        f'<div class="gold person-verdict"><span class="chip person">person</span> verdict '
        f"{verdicts.chip(o['label'])}{flag} {text_html(o['reason'], css='txt inline')}</div>"
    )


def overrule_form(debate_id: str, key: str) -> None:
    """After a verdict: a person records their own verdict with a reason (kept with the debate)."""
    store = resources.get_store()
    row = store.get(debate_id)
    events = store.event_dicts(debate_id)
    judge, source = people.judge_verdict(events)
    if not any(e.get("type") == "verdict" for e in events):
        st.caption("Once the debate has a verdict, you can record your own here.")
        return
    labels = people.debate_labels(row)
    if not labels or (judge is None and any(e.get("labels") for e in events if e.get("type") == "verdict")):
        st.caption("This debate decided several categories at once: a person's verdict is kept for one label only.")
        return
    latest = _people().latest(debate_id)
    with st.form(key=f"{key}_overrule", border=False):
        c1, c2 = st.columns([1, 3])
        label = c1.radio(
            "Your verdict",
            list(labels),
            key=f"{key}_ov_label",
            index=list(labels).index(latest["label"]) if latest and latest["label"] in labels else 0,
        )
        reason = c2.text_area(
            "Why",
            key=f"{key}_ov_reason",
            max_chars=people.MAX_REASON_CHARS,
            height=90,
            placeholder=f"The judge said {judge or 'nothing readable'}; say why you decide as you do",
        )
        sent = st.form_submit_button("Record my verdict", icon=":material/gavel:", type="primary")
    if sent:
        try:
            _people().overrule(debate_id, label, reason, labels=labels, judge_label=judge, judge_source=source)
            st.toast("Your verdict is recorded beside the judge's.")
            st.rerun()
        except DebateError as e:
            _error(e)


def disagreement_ids() -> set[str]:
    """Debates whose latest person's verdict differs from the judge's (the Library's filter)."""
    return set(_people().disagreements())


# -- the audience poll ----------------------------------------------------------------------------------
def voter_id() -> str:
    """This browser session's voter id: one vote per session and stage."""
    if "poll_voter" not in st.session_state:
        st.session_state["poll_voter"] = uuid.uuid4().hex
    return st.session_state["poll_voter"]


def _links() -> links.AudienceStore:
    return links.store_at(resources.get_store().path)


def audience_link(debate_id: str) -> str | None:
    """The poll's link on the audience server (an opaque token, never the debate's id), or None when no
    audience server runs for this app's DEBATE_HOME."""
    base = address.published_url()
    return f"{base}/p/{_links().link('poll', debate_id)}" if base else None


def poll_link(debate_id: str) -> str:
    """The app's own poll page: for a room only when the app is not exposed (the audience server is)."""
    base = ""
    try:
        base = str(st.context.url or "").split("?")[0].rsplit("/", 1)[0]
    except Exception:  # noqa: BLE001 - older Streamlit: a relative link still works on this server
        base = ""
    return f"{base}/?debate={debate_id}&poll=1"


def poll_controls(debate_id: str, labels: tuple[str, ...], claim: str, key: str) -> None:
    """The presenter's buttons: ask the room before the debate, again after its verdict, close the poll."""
    p = _people().poll(debate_id)
    c1, c2, c3 = st.columns(3)
    try:
        if c1.button(
            "Poll before",
            key=f"{key}_poll_before",
            icon=":material/how_to_vote:",
            disabled=bool(p and p["stage"] == "after"),
            help="The room votes before the debate runs.",
        ):
            _people().open_poll(debate_id, "before", labels, claim)
            st.rerun()
        if c2.button(
            "Poll after",
            key=f"{key}_poll_after",
            icon=":material/how_to_vote:",
            disabled=not p,
            help="The room votes again after the verdict: Present shows the swing.",
        ):
            _people().open_poll(debate_id, "after", labels, claim)
            st.rerun()
        if c3.button("Close the poll", key=f"{key}_poll_close", icon=":material/lock:", disabled=not (p and p["open"])):
            _people().close_poll(debate_id)
            st.rerun()
    except DebateError as e:
        _error(e)
    if p:
        state = f"open for votes {p['stage']} the debate" if p["open"] else "closed"
        st.caption(f"Poll {state}.")
        poll_qr(debate_id, key)


def poll_qr_open(debate_id: str) -> None:
    """On Present: the QR code for the room while the poll takes votes (nothing when no poll is open)."""
    try:
        p = _people().poll(debate_id)
    except DebateError:
        return
    if p and p["open"]:
        poll_qr(debate_id, width=260)


def poll_qr(debate_id: str, key: str | None = None, width: int = 200) -> None:
    """The audience link as a QR code with its address (and, with `key`, whether phones see the results);
    without an audience server, how to start one."""
    try:
        url = audience_link(debate_id)
    except DebateError as e:
        _error(e)
        return
    if url is None:
        st.caption(
            "Phones vote through the audience server, which exposes nothing else of this app: start it with "
            "`python -m debate audience --host 0.0.0.0` and its QR code appears here. On this machine alone: "
            f"`{poll_link(debate_id)}`"
        )
        return
    c1, c2 = st.columns([1, 2], vertical_alignment="center")
    c1.image(qr.png(url), width=width)
    c2.markdown(f"**Scan to vote**  \n`{url}`")
    if key is not None:
        shown = _links().results_shown(debate_id)
        want = c2.toggle(
            "Show the results on phones",
            value=shown,
            key=f"{key}_phones_see_{debate_id}",
            help="Off: phones show only the claim and their own vote. On: also the tallies and the swing.",
        )
        if want != shown:
            _links().show_results(debate_id, want)


def poll_results(debate_id: str) -> None:
    """Before and after tallies and the swing, in large type; follows the votes live."""
    if _people().poll(debate_id) is None:
        return

    @st.fragment(run_every=POLL_TICK_S)
    def _results() -> None:
        t = _people().tallies(debate_id)
        rows = []
        for lab in t["labels"]:
            swing = t["swing"].get(lab) if t["swing"] else None
            rows.append(
                f"<tr><td><b>{escape(lab)}</b></td><td>{t['before'].get(lab, 0)}</td>"
                f"<td>{t['after'].get(lab, 0)}</td><td>{'' if swing is None else f'{swing:+.0%}'}</td></tr>"
            )
        stage = f"voting {t['stage']} the debate" if t["open"] else "closed"
        st.markdown(
            f'<div class="present p-votes p-poll"><span class="meta">Audience poll · {escape(stage)}</span>'
            f"<table><tr><th></th><th>before</th><th>after</th><th>swing</th></tr>{''.join(rows)}</table>"
            f"</div>",
            unsafe_allow_html=True,
        )

    _results()


def poll_page(debate_id: str) -> None:
    """What anyone with the link sees: the claim and one vote per stage for this browser session."""
    ps = _people()
    p = ps.poll(debate_id)
    if p is None:
        st.info("No poll is open for this debate. Ask the presenter for the link once they open it.")
        return
    row = resources.get_store().get(debate_id)
    claim = (row or {}).get("claim") or p.get("claim", "")
    st.markdown(text_html(claim, css="p-claim"), unsafe_allow_html=True)

    @st.fragment(run_every=POLL_TICK_S)
    def _vote() -> None:
        now = ps.poll(debate_id) or p
        mine = ps.voted(debate_id, voter_id())
        if not now["open"]:
            st.info("The poll is closed. Thank you!")
            return
        stage = now["stage"]
        if stage in mine:
            st.success(
                f"Your vote {stage} the debate: **{mine[stage]}**. "
                + ("Wait for the verdict: the presenter will ask again." if stage == "before" else "Thank you!")
            )
            return
        st.markdown(f"#### {'Before' if stage == 'before' else 'After'} the debate: what do you think?")
        cols = st.columns(len(now["labels"]))
        for col, lab in zip(cols, now["labels"]):
            if col.button(lab, key=f"poll_vote_{stage}_{lab}", type="primary", width="stretch"):
                try:
                    ps.vote(debate_id, voter_id(), lab)
                    st.rerun()
                except DebateError as e:
                    _error(e)

    _vote()


def poll_before_run(task: dict, claim: str) -> None:
    """Before Run: open the poll for the debate about to start (its id is chosen now and used by Run)."""
    if not claim.strip():
        st.caption("Paste the claim first: the room votes on it.")
        return
    try:
        cat = (task["category"] or 1) if task["task"] == "checkthat" else task["category"]
        labels = tasks.resolve_task(
            task["task"], cat, task.get("custom_title", ""), task.get("custom_description", "")
        ).labels
    except DebateError as e:
        _error(e)
        return
    nid = st.session_state.get("next_debate_id")
    if nid is None:
        nid = st.session_state["next_debate_id"] = live.new_debate_id()
    poll_controls(nid, tuple(labels), claim.strip(), "next")


def poll_controls_for(debate_id: str, key: str) -> None:
    """The presenter's poll buttons for a stored debate (its task's labels, its claim)."""
    row = resources.get_store().get(debate_id)
    labels = people.debate_labels(row)
    poll_controls(debate_id, labels, (row or {}).get("claim", ""), key)
