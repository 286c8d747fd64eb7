"""Sign-in for a labelling team on the Adjudicate page (Streamlit side; accounts live in the engine).

The page serves a team when an account exists or the app has an OIDC provider in
.streamlit/secrets.toml ([auth]); then every annotator signs in, with the team's provider through
`st.login` (matched to an account by e-mail) or with an account's password. The signed-in identity is
kept in the server-side session state, never in the address or a widget, so nobody can become another
annotator by typing a name. With neither, the page keeps the one-person path (a typed name).
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import asdict

import streamlit as st

from debate.adjudication.accounts import MAX_NAME, AccountStore, Identity, email_verified
from debate.errors import DebateError
from ui.safe import error_md, escape

_SESSION_KEY = "signin_identity"  # not a widget key: the browser cannot set it


def _auth_section() -> dict:
    try:
        auth = st.secrets.get("auth")
    except Exception:  # noqa: BLE001 - no secrets file, or one that does not parse: no provider configured
        return {}
    return dict(auth) if auth else {}


def oidc_providers() -> list[str | None]:
    """The OIDC providers configured in secrets.toml: None for a provider given directly in [auth],
    a name for each [auth.NAME] section."""
    auth = _auth_section()
    named = [k for k, v in auth.items() if hasattr(v, "get") and v.get("client_id")]
    return ([None] if auth.get("client_id") else []) + named


def _user() -> dict:
    try:
        return dict(st.user.to_dict()) if hasattr(st.user, "to_dict") else dict(st.user)
    except Exception:  # noqa: BLE001 - st.user unavailable (no session context): nobody signed in through OIDC
        return {}


def identity(accounts: AccountStore) -> tuple[bool, Identity | None]:
    """(team?, who is signed in). Outside a team the page keeps its typed-name path (None here)."""
    providers = oidc_providers()
    if not providers and not accounts.team():
        st.session_state.pop(_SESSION_KEY, None)
        return False, None
    user = _user()
    if providers and user.get("is_logged_in"):
        email = str(user.get("email") or "")[:320]
        # an address the provider itself has not verified proves nothing about who signed in
        verified = email_verified(user)
        found = accounts.by_email(email) if email and verified else None
        if found is None:
            shown = re.sub(r"[^\w.@+-]", "", email) or "EMAIL"  # provider text, inside a code span below
            why = (
                "is not on this labelling team"
                if verified
                else "is not verified by the team's provider (it did not say email_verified: true)"
            )
            st.error(
                f"**{escape(email) or 'This account'} {why}.**  \nAsk the team's admin to add "
                f"it: `python -m debate annotators add NAME --email {shown}`.",
                icon=":material/no_accounts:",
            )
            st.button("Sign out", key="signin_out_unknown", on_click=st.logout)
            st.stop()
        return True, found
    saved = st.session_state.get(_SESSION_KEY)
    if saved:
        current = accounts.get(saved["name"])  # removed accounts and changed roles take effect at once
        if current is not None and saved.get("via") == "password":
            return True, Identity(current.name, current.reviewer, "password", current.email)
        st.session_state.pop(_SESSION_KEY, None)
    return True, None


def sign_in_panel(accounts: AccountStore) -> None:
    """What a signed-out member of the team sees: the provider's button and/or the password form."""
    st.markdown("#### Sign in to label")
    st.caption("This page serves a labelling team: labels are saved under the identity you sign in with.")
    if msg := st.session_state.pop("signin_msg", None):
        st.error(msg, icon=":material/error:")
    providers = oidc_providers()
    if providers and importlib.util.find_spec("authlib") is None:
        st.error(
            "**Sign-in through the team's provider needs Authlib, which is not installed.**  \n"
            "Install the app's requirements: `pip install -r requirements.txt`.",
            icon=":material/error:",
        )
        providers = []
    for provider in providers:
        label = f"Sign in with {provider}" if provider else "Sign in with the team's provider"
        st.button(
            label,
            key=f"signin_oidc:{provider or ''}",
            icon=":material/login:",
            type="primary",
            on_click=_login,
            args=(provider,),
        )
    if accounts.has_passwords():
        # cleared on submit: the typed password does not stay in the session's state
        with st.form("signin_form", border=True, clear_on_submit=True):
            name = st.text_input("Name", key="signin_name", autocomplete="username", max_chars=MAX_NAME)
            password = st.text_input(
                "Password", type="password", key="signin_password", autocomplete="current-password"
            )
            if st.form_submit_button("Sign in", type="primary"):
                try:
                    ident = accounts.verify(name, password)
                except DebateError as e:
                    st.error(error_md(e), icon=":material/error:")
                else:
                    st.session_state[_SESSION_KEY] = asdict(ident)
                    st.rerun()
    elif not oidc_providers():
        st.info(
            "No account here has a password. Ask the team's admin to set one: "
            "`python -m debate annotators passwd NAME`.",
            icon=":material/key:",
        )


def _login(provider: str | None) -> None:
    from streamlit.errors import StreamlitAPIException, StreamlitAuthError

    try:
        st.login(provider) if provider else st.login()
    except (StreamlitAuthError, StreamlitAPIException) as e:  # secrets.toml incomplete: say what is missing
        st.session_state["signin_msg"] = (
            f"**The team's sign-in is not set up completely:** {escape(str(e))}  \n"
            "Check the [auth] section of .streamlit/secrets.toml (README, "
            '"A labelling team: sign-in").'
        )


def signed_in_box(ident: Identity) -> None:
    """The sidebar line saying who is labelling, with the sign-out button."""
    role = "reviewer" if ident.reviewer else "annotator"
    st.markdown(f":material/verified_user: Signed in as **{escape(ident.name)}** · {role}")
    st.button("Sign out", key="signin_out", on_click=_sign_out, args=(ident.via,))


def _sign_out(via: str) -> None:
    st.session_state.pop(_SESSION_KEY, None)
    if via == "oidc":
        st.logout()
