"""The presenter's gate: on loopback the app opens as it always has; reachable from elsewhere, every page
waits for the presenter's passcode.

Why: the app is the presenter's whole machine room (every stored debate, Delete, models that run, the
settings with their keys' URLs). A room reaches polls and seats through the separate audience server
(`debate audience`), so the app itself is meant to stay on 127.0.0.1; when a presenter serves it beyond
loopback anyway (`--server.address 0.0.0.0` and a widened `server.allowedHosts`), whoever opens it must
first prove to be the presenter. The passcode comes from `DEBATE_PRESENTER_PASSCODE` or the file
`DEBATE_HOME/presenter-passcode`; without one such an app refuses every page and says how to set one.

A labelling team is the one other role such an app serves: a member who signs in with their own account
(password or the team's provider, the Adjudicate page's sign-in) gets the Adjudicate page and nothing else —
not the Library's Delete, not the Models page, not the presenter's settings — so an annotator working from
another machine never needs the presenter's passcode.
"""

from __future__ import annotations

import hmac
import os
import time

import streamlit as st

from debate.config import home as debate_home

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
_OK = "_presenter_ok"


def host_name(host_header: str | None) -> str:
    """The host of a Host header without its port ("[::1]:8501" -> "::1", "laptop.local:8501" -> "laptop.local")."""
    h = (host_header or "").strip().lower()
    if h.startswith("["):
        return h[1 : h.find("]")] if "]" in h else h
    return h.rsplit(":", 1)[0] if h.count(":") == 1 else h


def beyond_loopback(address: str | None, host_header: str | None) -> bool:
    """True when the app listens on more than loopback or was reached under another name than loopback's.
    An unset address is Streamlit's default: every interface."""
    if (address or "").strip().lower() not in LOOPBACK:
        return True
    return bool(host_header) and host_name(host_header) not in LOOPBACK


def passcode() -> str | None:
    """The presenter's passcode: DEBATE_PRESENTER_PASSCODE, else the file DEBATE_HOME/presenter-passcode."""
    env = os.environ.get("DEBATE_PRESENTER_PASSCODE", "").strip()
    if env:
        return env
    path = debate_home() / "presenter-passcode"
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text or None


def matches(given: str, expected: str) -> bool:
    """Constant-time comparison of what was typed with the passcode."""
    return hmac.compare_digest(given.strip().encode("utf-8"), expected.encode("utf-8"))


def needed() -> bool:
    """True while this browser session must still give the presenter's passcode: the app is reachable beyond
    loopback and the session has not given it."""
    try:
        host = st.context.headers.get("Host")
    except (AttributeError, KeyError, RuntimeError):  # no script run context
        host = None
    if not host:  # no request at all (AppTest, bare mode): nothing is served, nobody to keep out
        return False
    return beyond_loopback(st.get_option("server.address"), host) and not st.session_state.get(_OK)


def _accounts():
    from debate import config
    from debate.adjudication.accounts import AccountStore

    return AccountStore(str(config.store_db()))


def annotator():
    """The labelling team's member signed in in this session, or None (no team, or nobody signed in).
    Only the Adjudicate page's own sign-in makes one, so the identity cannot come from the address."""
    from ui import signin

    team, ident = signin.identity(_accounts())
    return ident if team else None


def sign_in_page() -> None:
    """The one page such an app shows until the presenter or a member of the labelling team is recognised
    (app.py navigates to nothing else, so neither the menu nor a page's address reaches another page)."""
    code = passcode()
    accounts = _accounts()
    if accounts.team():
        with st.expander("Annotators and reviewers: sign in to label", icon=":material/gavel:"):
            from ui import signin

            signin.sign_in_panel(accounts)
    if not code:
        st.error(
            "This app is reachable from other machines, and no presenter passcode is set, so it opens no "
            "page. Set one (`DEBATE_PRESENTER_PASSCODE=…` in the environment, or a file "
            "`presenter-passcode` in the app's home folder) and restart, or serve the app on 127.0.0.1 and "
            "give the room only the audience server (`python -m debate audience`)."
        )
        return
    st.title("Presenter sign-in")
    st.caption("This app is reachable from other machines: only the presenter may open it.")
    with st.form("presenter_gate"):
        typed = st.text_input("Presenter passcode", type="password", max_chars=200, key="presenter_passcode")
        sent = st.form_submit_button("Open the app")
    if sent:
        if matches(typed, code):
            st.session_state[_OK] = True
            st.rerun()
        time.sleep(1.0)  # a guesser's pace, per try
        st.error("That is not the presenter's passcode.")
