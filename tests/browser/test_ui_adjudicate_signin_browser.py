"""Real browser (Debian chromium + playwright) through the whole OIDC round trip: the Adjudicate page's
"Sign in with the team's provider" button (`st.login`) sends the browser to a loopback OIDC stand-in
(tests/support/oidc.py: discovery, authorize, token, JWKS), which sends it back to Streamlit's
/oauth2callback; Streamlit exchanges the code (PKCE), checks the RS256 ID token against the JWKS and sets
its identity cookie; the page then knows the annotator by the account matching the token's e-mail. The
annotator labels a blind queue under that identity, sees nobody else's label before, and signs out. And a
password sign-in in the same browser, with another annotator's name in the address to no effect."""

from __future__ import annotations

import os

import pytest

from debate.adjudication.accounts import AccountStore
from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import from_upload
from tests.support.browser import app_server, browser_page, have_browser, poll, shot, wait_settled
from tests.support.oidc import OIDCStandIn

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not have_browser(), reason="chromium/playwright missing")]
pytest.importorskip("authlib")


def _poll(fn, timeout: float = 20.0):
    return poll(fn, timeout)


@pytest.mark.timeout(300)
def test_sign_in_through_the_teams_oidc_provider(tmp_path):
    db = tmp_path / "team.sqlite"
    acc = AccountStore(db)
    acc.add("alice", None, email="alice@example.org")
    acc.add("rita", "rita password", reviewer=True)
    store = AnnotationStore(db)
    qid = store.create_queue(
        from_upload(
            "cases.csv",
            b"id,claim,label\nc1,The deficit fell 15% last year.,FALSE\nc2,Crime doubled.,TRUE\n",
            task="halftruth",
        ),
        {"blind": True},
    )
    store.set_label(qid, "c1", "zeno", "TRUE")
    store.set_note(qid, "c1", "zeno", "zenos secret rationale")
    secrets_file = tmp_path / "secrets.toml"
    home = tmp_path / "home"
    home.mkdir()
    with OIDCStandIn(
        "debate-viewer",
        "stand-in-secret",
        {"sub": "u-alice", "email": "alice@example.org", "email_verified": True, "name": "Alice A."},
    ) as idp:
        secrets_file.write_text(
            "[auth]\n"
            'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
            f'cookie_secret = "{os.urandom(24).hex()}"\n'
            'client_id = "debate-viewer"\nclient_secret = "stand-in-secret"\n'
            f'server_metadata_url = "{idp.metadata_url}"\n'
        )
        env = {"DEBATE_STORE_DB": str(db), "DEBATE_WARM_RETRIEVER": "0", "STREAMLIT_SECRETS_FILES": str(secrets_file)}
        with app_server(home, env=env) as url, browser_page(1300, 1600) as page:
            idp.redirect_uris.add(url + "/oauth2callback")
            page.goto(url)
            wait_settled(page)
            page.goto(f"{url}/adjudicate?q={qid}")
            button = page.get_by_role("button", name="Sign in with the team's provider")
            button.wait_for(timeout=60_000)
            assert page.get_by_text("Sign in to label").count() == 1
            button.click()  # st.login: off to the provider and back
            assert _poll(lambda: ("POST", "/token", 200) in idp.log, 60), idp.log
            page.wait_for_url(url + "/", timeout=60_000)  # Streamlit sends the browser home after the callback
            page.wait_for_load_state()
            assert [p for m, p, s in idp.log if s < 400][:1] == ["/.well-known/openid-configuration"]
            assert ("GET", "/authorize", 302) in idp.log and ("POST", "/token", 200) in idp.log
            assert ("GET", "/jwks", 200) in idp.log  # the ID token's signature was checked
            page.goto(f"{url}/adjudicate?q={qid}")
            page.get_by_text("Signed in as").wait_for(timeout=60_000)
            wait_settled(page)
            html = page.content()
            assert "Signed in as <strong>alice</strong>" in html and "annotator" in html
            for leak in ("zeno", "secret rationale", "Others:"):
                i = html.find(leak)
                assert i < 0, (leak, html[max(0, i - 200) : i + 100])
            shot(page, "signin-oidc-alice")
            labels = store.queue(qid)["labels"]
            page.locator(f".st-key-adj_lab_{labels.index('FALSE')} button").click()
            assert _poll(lambda: store.mine(qid, "alice").get("c1", {}).get("label")) == "FALSE"
            assert store.mine(qid, "zeno")["c1"]["label"] == "TRUE"
            page.get_by_role("button", name="Sign out").click()
            page.wait_for_timeout(1500)
            wait_settled(page)
            page.goto(f"{url}/adjudicate?q={qid}")
            page.get_by_role("button", name="Sign in with the team's provider").wait_for(timeout=60_000)
            assert ("GET", "/logout", 302) in idp.log  # signed out at the provider too (RP-initiated logout)
            assert page.get_by_text("Signed in as").count() == 0


@pytest.mark.timeout(300)
def test_password_sign_in_in_the_browser_ignores_a_name_in_the_address(tmp_path):
    db = tmp_path / "team.sqlite"
    acc = AccountStore(db)
    acc.add("bob", "bobs long password")
    store = AnnotationStore(db)
    qid = store.create_queue(
        from_upload("cases.csv", b"id,claim,label\nc1,Crime doubled.,TRUE\n", task="halftruth"), {"blind": True}
    )
    store.set_label(qid, "c1", "zeno", "FALSE")
    store.set_note(qid, "c1", "zeno", "zenos secret rationale")
    home = tmp_path / "home"
    home.mkdir()
    with (
        app_server(home, env={"DEBATE_STORE_DB": str(db), "DEBATE_WARM_RETRIEVER": "0"}) as url,
        browser_page(1300, 1600) as page,
    ):
        page.goto(url)
        wait_settled(page)
        page.goto(f"{url}/adjudicate?q={qid}&who=zeno")  # naming zeno in the address makes nobody zeno
        page.get_by_text("Sign in to label").wait_for(timeout=60_000)
        wait_settled(page)
        assert "zeno" not in page.content().replace("?who=zeno", "")
        page.get_by_role("textbox", name="Name").fill("Bob")
        page.get_by_role("textbox", name="Password").fill("bobs long password")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text("Signed in as").wait_for(timeout=60_000)
        wait_settled(page)
        html = page.content()
        assert "Signed in as <strong>bob</strong>" in html and "bobs long password" not in html
        for leak in ("zeno", "secret rationale", "Others:"):
            i = html.find(leak)
            assert i < 0, (leak, html[max(0, i - 200) : i + 100])
        assert "who=" not in page.url
        labels = store.queue(qid)["labels"]
        page.locator(f".st-key-adj_lab_{labels.index('TRUE')} button").click()
        assert _poll(lambda: store.mine(qid, "bob").get("c1", {}).get("label")) == "TRUE"
        assert store.mine(qid, "zeno")["c1"]["label"] == "FALSE"
        page.get_by_text("Others: zeno: FALSE").wait_for(timeout=30_000)  # revealed once bob has labelled
