"""AppTest of a labelling team signing in on the Adjudicate page: password accounts (Argon2, real SQLite
file), the team's OIDC provider as `st.user` reports it, blind queues whose other labels stay hidden to a
signed-in annotator whatever the address says, Review only for a reviewer, and the one-person path with no
team. Each test has its own store file, so its accounts do not turn other tests into a team."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from debate.adjudication.accounts import AccountStore
from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import from_upload

T = 90
CASES = (
    b"id,claim,label,verdict,confidence\nc1,The deficit fell 15% last year.,HALF-TRUE,TRUE,0.9\n"
    b"c2,Vaccines cause autism.,FALSE,FALSE,0.8\n"
)


@pytest.fixture
def team_db(tmp_path, monkeypatch):
    db = tmp_path / "team.sqlite"
    monkeypatch.setenv("DEBATE_STORE_DB", str(db))
    return db


def _queue(db, blind: bool = True) -> str:
    store = AnnotationStore(db)
    qid = store.create_queue(from_upload("cases.csv", CASES, task="halftruth"), {"blind": blind})
    store.set_label(qid, "c1", "alice", "FALSE")
    store.set_note(qid, "c1", "alice", "the budget office says 9 percent")
    return qid


def _text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]
    parts += [m.value for m in at.sidebar.markdown] + [e.value for e in at.error] + [w.value for w in at.warning]
    parts += [d.value.to_csv() for d in at.dataframe]
    return "\n".join(parts)


def _sign_in(at: AppTest, name: str, password: str) -> AppTest:
    at.text_input(key="signin_name").input(name)
    at.text_input(key="signin_password").input(password)
    next(b for b in at.button if b.label == "Sign in").click()
    return at.run()


@pytest.mark.timeout(300)
def test_password_team_blind_queue_and_reviewer_only_review(team_db):
    acc = AccountStore(team_db)
    acc.add("alice", "alice password")
    acc.add("Bob", "bob password")
    acc.add("rita", "rita password", reviewer=True)
    qid = _queue(team_db)

    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    at.query_params.update({"who": "alice", "q": qid})  # an address naming alice makes nobody alice
    at.run()
    assert not at.exception
    assert "Sign in to label" in _text(at) and "adj_annotator" not in [t.key for t in at.sidebar.text_input]
    assert not [b for b in at.button if b.key and b.key.startswith("adj_lab_")]  # nothing to label yet

    _sign_in(at, "bob", "wrong password")
    assert "Wrong name or password" in _text(at)
    _sign_in(at, "BOB", "bob password")  # names are one identity whatever the case
    assert not at.exception and not at.error
    text = _text(at)
    assert "Signed in as **bob** · annotator" in text
    assert at.segmented_control(key="adj_view").options == ["Label"]  # blind queue: no view of others' labels
    for leak in ("alice", "9 percent", "Others:"):
        assert leak not in text, leak
    # bob labels c1: his own label, alice's untouched; now the queue shows him hers
    store = AnnotationStore(team_db)
    at.button(key=f"adj_lab_{store.queue(qid)['labels'].index('TRUE')}").click().run()
    assert store.mine(qid, "bob")["c1"]["label"] == "TRUE" and store.mine(qid, "alice")["c1"]["label"] == "FALSE"
    assert "who" not in at.query_params
    at.button(key="adj_prev").click().run()
    assert "Others: alice: FALSE" in _text(at)
    # a changed label after the reveal is kept as a revision
    at.button(key=f"adj_lab_{store.queue(qid)['labels'].index('FALSE')}").click().run()
    assert [(r["annotator"], r["old_label"], r["new_label"]) for r in store.revisions(qid)] == [
        ("bob", "TRUE", "FALSE")
    ]
    at.button(key="adj_prev").click().run()
    assert "your first label, TRUE, is the one agreement counts" in _text(at)
    # a view name pushed into the session does not open Review for an annotator
    at.session_state["adj_view"] = "Review"
    at.run()
    assert not at.exception and at.segmented_control(key="adj_view").value == "Label"
    assert "budget office" not in _text(at)  # alice's rationale is for the reviewer
    assert not [b for b in at.button if b.key and b.key.startswith("adj_rev_save")]
    at.sidebar.button(key="signin_out").click().run()
    assert "Sign in to label" in _text(at)

    # the reviewer: Review and every label with its rationale
    _sign_in(at, "rita", "rita password")
    assert "Signed in as **rita** · reviewer" in _text(at)
    assert "Review" in at.segmented_control(key="adj_view").options
    at.segmented_control(key="adj_view").set_value("Review").run()
    assert not at.exception and not at.error
    text = _text(at)
    assert "the budget office says 9 percent" in text and "TRUE → FALSE" in text
    at.text_input(key=f"adj_rev_why:{qid}:c1").input("The office's own report says 9 percent.").run()
    at.button(key=f"adj_rev_save:{qid}:c1").click().run()
    assert store.resolutions(qid)["c1"]["reviewer"] == "rita"


@pytest.mark.timeout(300)
def test_removed_account_is_signed_out_and_an_annotator_cannot_set_queues_up(team_db):
    acc = AccountStore(team_db)
    acc.add("bob", "bob password")
    acc.add("rita", "rita password", reviewer=True)  # the team goes on without bob
    qid = _queue(team_db, blind=False)
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    at.query_params["q"] = qid
    at.run()
    _sign_in(at, "bob", "bob password")
    options = at.segmented_control(key="adj_view").options
    assert options == ["Label", "Agreement", "Disagreements", "Export"]  # open queue: no Review, no settings
    acc.remove("bob")
    at.run()
    assert "Sign in to label" in _text(at)


@pytest.mark.timeout(300)
def test_oidc_identity_from_the_teams_provider(team_db):
    acc = AccountStore(team_db)
    acc.add("alice", None, email="alice@example.org")
    qid = _queue(team_db)
    auth = {
        "redirect_uri": "http://localhost:8501/oauth2callback",
        "cookie_secret": "x" * 32,
        "client_id": "debate-viewer",
        "client_secret": "s3cret",
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
    }

    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    at.secrets["auth"] = auth
    at.user = {"is_logged_in": False}
    at.query_params["q"] = qid
    at.run()
    assert not at.exception
    assert "Sign in with the team's provider" in [b.label for b in at.button]
    assert not [b for b in at.button if b.label == "Sign in"]  # no password account: no password form
    # AppTest's secrets do not reach st.login's own check: it finds the set-up incomplete, as a real
    # app with a half-written [auth] section does; the page says so instead of a stack trace
    next(b for b in at.button if b.label == "Sign in with the team's provider").click().run()
    assert not at.exception
    assert any("not set up completely" in e.value and "secrets.toml" in e.value for e in at.error)

    at.user = {"is_logged_in": True, "email": "Alice@Example.org", "name": "Alice", "email_verified": True}
    at.run()
    assert not at.exception
    assert "Signed in as **alice** · annotator" in _text(at)
    labels = AnnotationStore(team_db).queue(qid)["labels"]
    at.button(key=f"adj_lab_{labels.index('HALF-TRUE')}").click().run()
    assert AnnotationStore(team_db).mine(qid, "alice")["c1"]["label"] == "HALF-TRUE"

    for unverified in ({"email_verified": False}, {"email_verified": "False"}, {}):  # only the boolean true counts
        at.user = {"is_logged_in": True, "email": "alice@example.org", **unverified}
        at.run()
        assert "is not verified by the team's provider" in _text(at), unverified
        assert not [b for b in at.button if b.key and b.key.startswith("adj_lab_")]

    at.user = {"is_logged_in": True, "email": "mallory@example.org", "email_verified": True}
    at.run()
    text = _text(at)
    assert "is not on this labelling team" in text and "annotators add" in text
    assert not [b for b in at.button if b.key and b.key.startswith("adj_lab_")]


@pytest.mark.timeout(300)
def test_no_team_keeps_the_typed_name(team_db):
    qid = _queue(team_db, blind=False)
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    at.query_params.update({"who": "Alice", "q": qid})
    at.run()
    assert not at.exception and "Sign in to label" not in _text(at)
    assert at.sidebar.text_input(key="adj_annotator").value == "Alice"
    at.button(key="adj_lab_0").click().run()  # "Alice" is the alice who labelled c1 before
    assert AnnotationStore(team_db).progress(qid)["annotators"] == ["alice"]


@pytest.mark.timeout(300)
def test_agreement_says_when_there_is_nothing_to_measure(team_db):
    store = AnnotationStore(team_db)
    qid = store.create_queue(
        from_upload("plain.csv", b"id,claim\nc1,Crime doubled.\nc2,Taxes fell.\n", task="halftruth"), {"blind": False}
    )
    store.set_label(qid, "c1", "alice", "TRUE")
    store.set_label(qid, "c1", "bob", "FALSE")  # a tie: nothing adjudicated
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    at.query_params.update({"who": "rita", "q": qid})
    at.run()
    at.segmented_control(key="adj_view").set_value("Agreement").run()
    assert not at.exception and not at.error
    text = _text(at)
    assert "No judge verdicts" in text and "Nothing adjudicated yet" in text
    assert "judge accuracy" not in text and "annotator,cases,Cohen's kappa" not in text  # no table of nothing
    store.set_label(qid, "c2", "alice", "TRUE")  # one label is a final label; still no judge
    at.run()
    text = _text(at)
    assert "none of the 1 adjudicated cases came with a judge's verdict" in text and "judge accuracy" not in text
