"""The Debate page and Adjudicate through AppTest, for what a careless or new user meets: the Debate page's
address coming back to a running debate, a second start that keeps the first, the "Preparing" line saying
what it waits for, and agreement with an uploaded file's own labels shown with one annotator. Real SQLite
store, the real runner on scripted models."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from debate import live
from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import from_upload
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.runner import DebateConfig
from debate.store import DebateStore
from ui.widgets import preparing_line

T = 90
VOTE = '{"vote": "YES", "explanation": "A study is cited."}'


def _slow_debate() -> str:
    client = ModelClient({"scripted": ScriptedBackend(default=lambda m, o: VOTE, delay_s=1.0)})
    lineup = {
        "name": "s",
        "members": [{"name": n, "model": f"scripted:{n}"} for n in ("a", "b", "c")],
        "judge": {"model": "scripted:judge"},
        "chair": {"model": "scripted:judge"},
    }
    cfg = DebateConfig(claim="Reattach me: coffee cures colds.", protocol="council", lineup=lineup, params={})
    return live.start_debate(cfg, client, None, DebateStore())


@pytest.mark.timeout(120)
def test_the_debate_page_address_brings_a_running_debate_back():
    did = _slow_debate()
    try:
        at = AppTest.from_file("../../app.py", default_timeout=T)
        at.query_params["debate"] = did  # a reload: a new session, the address only
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        assert at.session_state["debate_id"] == did
        assert any("Reattach me" in m.value for m in at.markdown)  # its claim card, on the Debate page
        assert at.text_area(key="claim").value == "Reattach me: coffee cures colds."  # and in the box
        assert at.button(key="run").disabled  # Run waits for the running debate
    finally:
        live.stop(did)
        live.wait(did, 30)


def test_the_preparing_line_says_what_it_waits_for():
    assert "waiting for the debate running in this app to end (12 s so far)" in preparing_line(
        {"what": "debate", "since": 100.0}, now=112.0
    )
    line = preparing_line({"what": "reading", "since": 0.0, "model": "local:qwen@x", "i": 2, "n": 3}, now=40.0)
    assert "local:qwen is reading" in line and "model 2 of 3, 40 s so far" in line and "@x" not in line
    assert "about to read" in preparing_line(None)


@pytest.mark.timeout(240)
def test_one_annotator_sees_agreement_with_the_file_and_the_export_says_what_it_adds():
    rows = "".join(f"{i}\tTweet number {i} about a study\t[{i % 2}.0, 0.0, 0.5]\n" for i in range(1, 13))
    spec = from_upload("own.tsv", ("index\ttext\tlabels\n" + rows).encode())
    store = AnnotationStore()
    qid = store.create_queue(spec)
    for n, c in enumerate(c for c in spec.cases if c.category == 1):
        flip = n == 0
        store.set_label(qid, c.key, "ann", ("NO" if c.gold == "YES" else "YES") if flip else c.gold)
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    at.query_params.update({"who": "ann", "q": qid})
    at.run()
    at.segmented_control(key="adj_view").set_value("Agreement").run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("Against the file's own labels" in m.value for m in at.markdown)
    table = next(d.value for d in at.dataframe if "95% interval" in d.value.columns)
    row = table.iloc[0]
    assert row["annotator"] == "ann" and row["cases"] == 12 and row["95% interval"] != "—"
    assert float(row["Cohen's kappa"]) == pytest.approx(0.833, abs=0.001)  # 11 of 12 agree, 6 YES / 6 NO
    at.segmented_control(key="adj_view").set_value("Export").run()
    assert any("its own labels kept" in c.value for c in at.caption)


def _seat_models(at: AppTest, protocol: str) -> dict[str, str]:
    prefix = f"lu_embedded_{protocol}_"
    return {k.removeprefix(prefix): at.session_state[k] for k in at.session_state if str(k).startswith(prefix)}


@pytest.mark.timeout(120)
def test_a_seat_follows_its_default_when_the_layout_changes_and_keeps_a_pick():
    """Team config "different" -> "same": "pro-2" is a Qwen seat of the preset's teams and, with every member on
    both sides, the SmolLM2 member. Its box held the old default, so the page ran a lineup nobody chose
    ("custom") where the command line runs the preset; now it follows the default, and a model the person
    picked stays picked. (Team size 2 -> 1 showed it too, until every seat of the preset's teams was a Qwen.)"""
    from ui.catalog import resolve

    want = {a["agent"]: a["model"] for a in resolve("embedded", "team", {"config": "same"})}
    at = AppTest.from_file("../../app.py", default_timeout=T).run()
    at.radio(key="cfg_protocol").set_value("team").run()
    assert _seat_models(at, "team")["pro-2"] == "local:qwen2.5-coder-0.5b"  # the preset's teams
    at.selectbox(key="p_team_config").set_value("same").run()
    assert not at.exception
    shown = {k: v for k, v in _seat_models(at, "team").items() if k in want}
    assert shown == want and want["pro-2"] == "local:smollm2-135m"
    assert not any("custom" in str(c.value) for c in at.caption)
    # a pick is kept through the same change
    at.selectbox(key="p_team_config").set_value("different").run()
    at.selectbox(key="lu_embedded_team_pro-2").set_value("local:qwen2.5-coder-1.5b").run()
    at.selectbox(key="p_team_config").set_value("same").run()
    assert _seat_models(at, "team")["pro-2"] == "local:qwen2.5-coder-1.5b"
    at.selectbox(key="p_team_config").set_value("different").run()
    assert _seat_models(at, "team")["pro-2"] == "local:qwen2.5-coder-1.5b"  # the person's pick, not the default
