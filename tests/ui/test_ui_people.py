"""AppTest of a person's verdict (Library: record it, the verdict card shows both, the disagreement filter,
Adjudicate's queue from it) and of the audience poll (two sessions vote while a third presents)."""

from __future__ import annotations

import html

from streamlit.testing.v1 import AppTest

from debate.store import DebateStore, people
from tests.support.scripted_runs import stored_council_debate

T = 90


def _texts(at) -> str:
    return html.unescape(
        "\n".join(
            [m.value for m in at.markdown]
            + [m.value for m in at.caption]
            + [m.value for m in at.info]
            + [m.value for m in at.success]
            + [m.value for m in at.error]
        )
    )


def test_overrule_the_judge_in_the_library_then_filter_and_queue_it(tmp_path, monkeypatch):
    # a store of its own: an account left by another test would turn Adjudicate into a team's signed-in page
    monkeypatch.setenv("DEBATE_STORE_DB", str(tmp_path / "own.sqlite"))
    did = stored_council_debate("Overrule me, a study says.")
    stored_council_debate("Leave me alone.")
    judge = people.judge_verdict(DebateStore().event_dicts(did))[0]
    mine = "NO" if judge == "YES" else "YES"
    at = AppTest.from_file("../../app.py", default_timeout=T)
    at.query_params["debate"] = did
    at.switch_page("pages/library.py").run()
    assert not at.exception
    at.radio(key="lib_ov_label").set_value(mine)
    at.text_area(key="lib_ov_reason").input("The tweet links a press release, not the study.")
    at.button(key="FormSubmitter:lib_overrule-Record my verdict").click().run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert "disagrees with the judge" in text and "The tweet links a press release" in text
    assert 'class="chip person"' in text
    at.toggle(key="lib_disagree").set_value(True).run()
    shown = at.selectbox(key="lib_open").options
    assert any("Overrule me" in o for o in shown) and not any("Leave me alone" in o for o in shown)
    # Adjudicate takes these debates as a queue
    adj = AppTest.from_file("../../app.py", default_timeout=T)
    adj.switch_page("pages/adjudicate.py").run()
    adj.radio(key="adj_src").set_value("Overruled debates").run()
    adj.selectbox(key="adj_ov_task").set_value("checkthat")
    adj.button(key="adj_build_ov").click().run()
    assert not adj.exception, adj.exception
    from debate.adjudication.annotations import AnnotationStore

    q = AnnotationStore().queues()[0]
    assert q["source"]["kind"] == "overrules" if isinstance(q["source"], dict) else "overrules" in q["source"]


def test_two_sessions_vote_in_a_poll_while_a_third_presents():
    did = stored_council_debate("Poll the room on this.")
    presenter = AppTest.from_file("../../app.py", default_timeout=T)
    presenter.query_params["debate"] = did
    presenter.switch_page("pages/present.py").run()
    presenter.button(key="pres_poll_before").click().run()
    assert not presenter.exception, presenter.exception
    assert f"/?debate={did}&poll=1" in _texts(presenter)

    def voter() -> AppTest:
        v = AppTest.from_file("../../app.py", default_timeout=T)
        v.query_params["debate"] = did
        v.query_params["poll"] = "1"
        v.run()  # the root page sends ?debate=ID&poll=1 to the poll page
        assert not v.exception, v.exception
        assert "Before the debate: what do you think?" in _texts(v) and "Poll the room on this." in _texts(v)
        return v

    a, b = voter(), voter()
    a.button(key="poll_vote_before_YES").click().run()
    b.button(key="poll_vote_before_NO").click().run()
    assert "Your vote before the debate: **YES**" in _texts(a)
    assert [x.key for x in a.button if str(x.key).startswith("poll_vote_")] == []  # one vote per session
    presenter.run()
    before = _texts(presenter)
    assert "Audience poll" in before
    presenter.button(key="pres_poll_after").click().run()
    a.run()
    b.run()
    a.button(key="poll_vote_after_NO").click().run()
    b.button(key="poll_vote_after_NO").click().run()
    presenter.run()
    t = people.store_at(DebateStore().path).tallies(did)
    assert t["before"] == {"YES": 1, "NO": 1} and t["after"] == {"YES": 0, "NO": 2}
    shown = _texts(presenter)
    assert "+50%" in shown and "-50%" in shown  # the swing, on Present
    presenter.button(key="pres_poll_close").click().run()
    a.run()
    assert "The poll is closed" in _texts(a)


def test_poll_opened_before_run_belongs_to_the_debate_that_run_starts():
    from debate import live
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend
    from debate.runner import run_debate
    from tests.support.scripted_runs import SCRIPTED_LINEUP

    vote = '{"vote": "YES", "explanation": "It cites a study."}'
    client = ModelClient({"scripted": ScriptedBackend(dict.fromkeys(("ana", "ben", "cy", "chair"), vote))})
    DebateStore().save_lineup("poll-lineup", SCRIPTED_LINEUP)
    at = AppTest.from_file("../../app.py", default_timeout=T)
    at.session_state["_client"] = client
    at.session_state["_run"] = run_debate
    at.session_state["_retriever"] = None
    at.run()
    at.text_area(key="claim").input("Before Run, the room votes on this claim.").run()
    at.selectbox(key="cfg_preset").set_value("saved:poll-lineup").run()
    at.button(key="next_poll_before").click().run()
    assert not at.exception, at.exception
    nid = at.session_state["next_debate_id"]
    assert f"/?debate={nid}&poll=1" in _texts(at)
    voter = AppTest.from_file("../../app.py", default_timeout=T)
    voter.query_params["debate"] = nid
    voter.query_params["poll"] = "1"
    voter.run()
    assert "Before Run, the room votes on this claim." in _texts(voter)  # no debate yet: the poll's own claim
    voter.button(key="poll_vote_before_YES").click().run()
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["debate_id"] == nid
    assert live.wait(nid, 30)
    at.run()
    # the poll's id is spent: with this debate over, the poll offered before the next Run has an id of its own
    assert at.session_state["next_debate_id"] != nid
    assert people.store_at(DebateStore().path).tallies(nid)["before"]["YES"] == 1
    assert DebateStore().get(nid)["status"] == "completed"
