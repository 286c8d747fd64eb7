"""AppTest of what the teaching, presenting and status views say (real store, real live worker, real
runner on a scripted backend, a real SQLite response cache): Learn's evidence step agrees with the
evidence panel, a fork says beforehand what it will do and the address follows it, the robustness
check counts only finished runs and names the replays, the evidence panel says "searching" while the
search runs, the Markdown export's sections, the Models page's "assembled on first use"."""

from __future__ import annotations

import threading
import time

from streamlit.testing.v1 import AppTest

from debate import live
from debate.models.cache import ResponseCache
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.runner import DebateConfig, run_debate
from debate.sharing import exports
from debate.store import DebateStore
from debate.teaching import steps as teaching
from debate.teaching.flow import _reply_fn
from tests.support.engine import FakeRetriever
from tests.support.scripted_runs import SCRIPTED_LINEUP, scripted_client

T = 90


def _texts(at) -> str:
    return "\n".join(
        [m.value for m in at.markdown]
        + [m.value for m in at.caption]
        + [m.value for m in at.info]
        + [m.value for m in at.warning]
        + [m.value for m in at.error]
    )


def _council(
    claim: str, scenario: str = "agree", client=None, retriever=None, evidence: bool | None = None, rounds: int = 2
) -> str:
    cfg = DebateConfig(
        claim=claim,
        protocol="council",
        task="checkthat",
        category=1,
        lineup=SCRIPTED_LINEUP,
        params={"rounds": rounds},
        max_tokens=32,
        evidence=evidence,
    )
    did = live.start_debate(cfg, client or scripted_client(scenario), retriever, DebateStore(), run=run_debate)
    assert live.wait(did, 30)
    return did


def _learn_at(did: str, kind: str) -> AppTest:
    """The Learn page stepped to the first step of `kind` of debate `did`."""
    at = AppTest.from_file("../../app.py", default_timeout=T)
    at.switch_page("pages/learn.py").run()
    at.selectbox(key="learn_debate").select(did).run()
    steps = teaching.steps(DebateStore().event_dicts(did))
    at.session_state["learn_step"] = next(s.index for s in steps if s.kind == kind)
    at.run()
    assert not at.exception, at.exception
    return at


def test_learn_evidence_step_says_what_the_panel_says():
    shown = _council("Learn evidence shown only, a study says.", retriever=FakeRetriever(), evidence=False)
    at = _learn_at(shown, "evidence")
    text = _texts(at)
    assert "Evidence retrieved (for the viewer only)" in text and "the agents did not see them" in text
    assert "asked to cite them" not in text  # the note no longer contradicts the panel beside it
    assert "shown for reference: the agents did not see them" in text  # the panel
    seen = _council("Learn evidence given to the agents, a study says.", retriever=FakeRetriever(), evidence=True)
    text = _texts(_learn_at(seen, "evidence"))
    assert "agents see them numbered" in text and "and are asked to cite them" in text
    assert "did not see them" not in text


def _page(page: str, client, did: str | None = None) -> AppTest:
    """A page run with `client` behind every debate it starts (the live worker, no retriever)."""
    at = AppTest.from_file("../../app.py", default_timeout=T)
    for k, v in {"_client": client, "_run": run_debate, "_retriever": None}.items():
        at.session_state[k] = v
    if did:
        at.query_params["debate"] = did
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def test_a_fork_of_a_council_that_agreed_says_so_first_and_the_address_follows_the_fork():
    did = _council("Fork an agreed council, a study says.")
    at = _page("pages/library.py", scripted_client("agree"), did)
    at.selectbox(key="lib_fork_round").select(0).run()
    warning = "\n".join(w.value for w in at.warning)
    assert "A fork after round 0 would run nothing new: the members agreed at round 0" in warning
    argue = at.checkbox(key="lib_fork_argue")
    assert argue.value is True and "Make them argue" in argue.label and "min_rounds=1" in argue.label
    # without the offer, Fork is refused with the reason: no empty fork runs silently
    argue.uncheck()
    at.text_input(key="lib_fork_note").input("Is it peer-reviewed?")
    n_before = len(DebateStore().list())
    at.button(key="FormSubmitter:lib_fork-Fork").click().run()
    assert "would run nothing new" in "\n".join(e.value for e in at.error)
    assert len(DebateStore().list()) == n_before
    # with it, the members argue again (the note is read) and the address names the fork
    at.checkbox(key="lib_fork_argue").check()
    at.button(key="FormSubmitter:lib_fork-Fork").click().run()
    assert not at.exception, at.exception
    fork = next(
        r for r in DebateStore().list() if r["id"] != did and r["claim"] == "Fork an agreed council, a study says."
    )
    assert live.wait(fork["id"], 30)
    assert at.query_params["debate"] == [fork["id"]] or at.query_params["debate"] == fork["id"]
    ev = DebateStore().event_dicts(fork["id"])
    new = [e for e in ev if e["type"] == "turn_finished" and not e.get("replayed")]
    assert sorted(e["role"] for e in new) == ["chair", "member", "member", "member"]  # all anew
    assert all(e.get("seen") for e in ev if e["type"] == "moderator")


def test_robustness_counts_finished_runs_and_names_the_replays(tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    client = ModelClient(backends={"scripted": ScriptedBackend(default=_reply_fn("agree", ("YES", "NO")))}, cache=cache)
    did = _council("Robust, a study says.", client=client, rounds=0)
    at = _page("pages/library.py", client, did)
    at.number_input(key="lib_rb_seeds").set_value(1).run()
    at.button(key="lib_rb_go").click().run()
    assert not at.exception, at.exception
    from debate.sharing.family import variants

    vids = variants(DebateStore(), did)
    assert len(vids) == 2 and all(live.wait(v, 30) for v in vids)
    at.run()
    text = _texts(at)
    # members shuffled at temperature 0 asked the parent's very questions: the cache answered all of them
    assert "holds in 1 of 1 finished variants that ran the models" in text
    assert "answered entirely from the response cache" in text and "members shuffled" in text
    table = next(d.value for d in at.dataframe if "holds" in d.value.columns)
    holds = dict(zip(table["variant"], table["holds"]))
    assert holds == {"members shuffled": "replay — not counted", "seed +1": "yes"}


class SlowRetriever:
    """A real retriever whose index is still loading until `ready` is set (as in the app's first minute)."""

    name = "slow"

    def __init__(self) -> None:
        self.ready = threading.Event()

    @property
    def searchable(self) -> bool:
        return self.ready.is_set()

    def search(self, query: str, k: int = 20) -> list[dict]:
        return FakeRetriever().search(query, k)


def test_evidence_panel_says_searching_until_the_search_has_answered():
    retriever = SlowRetriever()
    cfg = DebateConfig(
        claim="Slow index, a study says.",
        protocol="council",
        task="checkthat",
        category=1,
        lineup=SCRIPTED_LINEUP,
        params={"rounds": 0},
        max_tokens=32,
        evidence=False,
    )
    did = live.start_debate(cfg, scripted_client("agree"), retriever, DebateStore(), run=run_debate)
    try:
        deadline = time.time() + 30  # the votes and the verdict are in; the passages are not yet
        while not any(e["type"] == "verdict" for e in DebateStore().event_dicts(did)) and time.time() < deadline:
            time.sleep(0.05)
        at = AppTest.from_file("../../app.py", default_timeout=T)
        at.query_params["debate"] = did
        at.switch_page("pages/library.py").run()
        assert not at.exception, at.exception
        text = _texts(at)
        assert "Searching for passages to show beside the debate" in text
        assert "No evidence was retrieved" not in text
    finally:
        retriever.ready.set()
    assert live.wait(did, 30)
    at.run()
    text = _texts(at)
    assert "3 passages, shown for reference" in text and "Searching for passages" not in text


def test_markdown_export_of_a_stored_debate_has_no_empty_or_misplaced_sections():
    did = _council("Markdown sections, a study says.", retriever=FakeRetriever(), evidence=False, rounds=0)
    md = exports.export_markdown(DebateStore(), did)
    sections = {s.split("\n", 1)[0]: s for s in md.split("\n## ")[1:]}
    assert "Initial votes" in sections and "### ana" in sections["Initial votes"]
    assert "Votes" not in sections["Evidence"] and "### " not in sections["Evidence"]
    assert "the agents did not see these passages" in sections["Evidence"]


def test_models_page_says_assembled_on_first_use(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_MODELS_DIR", str(tmp_path / "empty-models"))  # nothing assembled here yet
    from debate.models import packaged
    from debate.models.local import LocalBackend

    rows = LocalBackend().list_models()
    later = [r for r in rows if r.extra.get("on_first_use")]
    if not later:  # no packaged model installed at all: nothing to assemble on first use
        assert all(
            packaged.status(packaged.CATALOGUE[r.name])[0] != "ready" for r in rows if r.name in packaged.CATALOGUE
        )
        return
    at = AppTest.from_file("../../app.py", default_timeout=T)
    at.switch_page("pages/models.py").run()
    deadline = time.time() + 60
    while "checking" in _texts(at) and time.time() < deadline:  # each backend is listed in the background
        time.sleep(0.5)
        at.run()
    assert not at.exception, at.exception
    text = _texts(at)
    assert f"{len(later)} assembled on first use" in text
    table = at.dataframe[0].value
    status = dict(zip(table["spec"], table["status"]))
    for r in later:
        assert status[r.spec] == "🟡 assembled on first use"


def test_a_fork_from_learn_opens_in_the_library_at_its_own_address():
    did = _council("Fork from Learn, a study says.", scenario="flip")
    at = _page("pages/learn.py", scripted_client("flip"))
    at.selectbox(key="learn_debate").select(did).run()
    steps = teaching.steps(DebateStore().event_dicts(did))
    at.session_state["learn_step"] = next(s.index for s in steps if s.kind == "votes_tallied")  # round 0
    at.run()
    assert "then the chairperson summarises and the members vote again from round 1" in _texts(at)
    at.button(key="FormSubmitter:learn0_fork-Fork").click().run()
    assert not at.exception, at.exception
    fork = next(r for r in DebateStore().list() if r["id"] != did and r["claim"] == "Fork from Learn, a study says.")
    assert live.wait(fork["id"], 30)
    qp = at.query_params["debate"]
    assert (qp[0] if isinstance(qp, list) else qp) == fork["id"]
    assert "Library" in _texts(at)


def test_present_shows_the_tallies_stop_checks_and_verdict_beside_the_speaker():
    from debate.sharing import playback
    from tests.support.engine import lineup, scripted

    client, _ = scripted()
    cfg = DebateConfig(
        claim="Present the stop checks.",
        protocol="radar",
        task="halftruth",
        lineup=lineup(5),
        params={"rounds": 1},
        max_tokens=32,
        evidence=True,
    )
    radar = live.start_debate(cfg, client, FakeRetriever(), DebateStore(), run=run_debate)
    council = _council("Present the votes.", scenario="flip")
    assert live.wait(radar, 30)
    for did, expect in ((radar, "Stop check, round 0: margin"), (council, "Votes, round 0:")):
        n = len(playback.beats(DebateStore().event_dicts(did)))
        at = AppTest.from_file("../../app.py", default_timeout=T)
        at.query_params["debate"] = did
        at.session_state[f"pres_pos:{did}"] = float(n)  # at the end of the recording
        at.session_state[f"pres_playing:{did}"] = False
        at.switch_page("pages/present.py").run()
        assert not at.exception, at.exception
        text = _texts(at)
        assert expect in text and "p-verdict" in text and "RECORDED" in text, text[:2000]
        assert [p.proto.text for p in at.get("progress")] == [f"step {n} of {n} · paused"]
