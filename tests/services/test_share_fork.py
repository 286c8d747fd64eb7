"""Sharing and steering, engine and CLI: moderator notes, forks, robustness variants, the offline HTML export.

Protocol logic runs on the scripted backend (exact prompts and call counts); the real-model fork and the
CLI run the embedded llama.cpp model in test_share_fork_real below.
"""

import html
import re
import threading

import pytest

from debate import moderation
from debate.errors import InvalidInput
from debate.runner import run_debate
from debate.sharing.fork import fork_config, rounds_of
from debate.sharing.html import to_html
from debate.sharing.robustness import summary, table, variant_configs, variant_row
from tests.support.engine import FakeRetriever, by_type, run, scripted

NOTE = "Consider whether the link is a press release."


def _prompts_with(backend, text):
    return [c for c in backend.calls if any(text in m["content"] for m in c["messages"])]


def test_live_note_reaches_every_later_prompt_marked_as_the_moderators():
    posted = threading.Event()

    def vote(messages, options):  # post the note while round 0 is being answered
        if not posted.is_set():
            posted.set()
            moderation.post("mod-test", NOTE)
        return '{"vote": "YES", "explanation": "x"}' if len(backend.calls) % 2 else '{"vote": "NO", "explanation": "y"}'

    client, backend = scripted({"vote": vote})
    ev = run(client, "council", n=3, debate_id="mod-test", params={"rounds": 1})
    mods = by_type(ev, "moderator")
    assert [m.text for m in mods] == [NOTE] and mods[0].source == "live" and mods[0].seen
    i_mod = ev.index(mods[0])
    assert ev[i_mod + 1].type == "phase_started" and ev[i_mod + 1].round == 1  # shown in place, before round 1
    seen = _prompts_with(backend, NOTE)
    round0 = 3  # three initial votes went out before the note
    assert len(seen) == len(backend.calls) - round0 > 0
    for c in seen:
        assert "Note from the human moderator" in c["messages"][-1]["content"]


def test_note_after_the_last_turn_is_kept_and_marked_unread():
    calls = []

    def vote(messages, options):  # the note arrives while the last model call is answered
        calls.append(1)
        if len(calls) == 3:
            moderation.post("late-test", "too late")
        return '{"vote": "YES", "explanation": "x"}'

    client, backend = scripted({"vote": vote})
    ev = run(client, "council", n=3, debate_id="late-test", params={"rounds": 0})
    mods = by_type(ev, "moderator")
    assert [(m.text, m.seen) for m in mods] == [("too late", False)]
    assert ev[-1].type == "finished" and not _prompts_with(backend, "too late")


def test_bad_notes_are_refused_with_a_message():
    with pytest.raises(InvalidInput, match="empty"):
        moderation.post("x", "   ")
    with pytest.raises(InvalidInput, match="at most"):
        moderation.post("x", "a" * (moderation.MAX_NOTE_CHARS + 1))


def _split(messages, options):  # members disagree for ever: the council runs all its rounds
    return '{"vote": "%s", "explanation": "e"}' % ("YES" if (options.seed or 0) % 2 else "NO")


def _council_parent():
    client, backend = scripted({"vote": _split})
    ev = run(client, "council", n=3, params={"rounds": 2, "stable_rounds": 9}, debate_id="parent")
    return ev, backend


def test_fork_replays_up_to_round_n_then_calls_models_with_the_note():
    parent, pb = _council_parent()
    assert rounds_of(parent) == [0, 1, 2]
    cfg = fork_config(parent, 1, say=NOTE)
    client, backend = scripted({"vote": _split})
    ev = list(run_debate(cfg, client))
    st = ev[0]
    assert st.type == "debate_started" and st.forked_from == {"debate_id": "parent", "round": 1}
    replayed = [e for e in by_type(ev, "turn_finished") if e.replayed]
    parent_turns = [e for e in by_type(parent, "turn_finished") if e.round <= 1]
    # each speaker's own words (members of one round finish in any order: compared speaker by speaker)
    said = lambda turns: sorted((t.round, t.agent, t.role, t.phase, t.text) for t in turns)
    assert said(replayed) == said(parent_turns) and len(replayed) == len(parent_turns)
    # only round 2 was generated: chair + 3 votes, each prompt carrying the note
    assert len(backend.calls) == 4 and len(_prompts_with(backend, NOTE)) == 4
    kinds = [e.type for e in ev]
    fork_at = next(i for i, e in enumerate(ev) if e.type == "phase_started" and e.phase == "fork")
    assert kinds[fork_at + 1] == "moderator" and all(
        not getattr(e, "replayed", True) for e in ev[fork_at:] if e.type == "turn_finished"
    )
    assert ev[-1].model_calls == 4 and ev[-1].status == "completed"


def test_fork_refuses_rounds_it_cannot_continue():
    parent, _ = _council_parent()
    with pytest.raises(InvalidInput, match="no round 7"):
        fork_config(parent, 7)
    with pytest.raises(InvalidInput, match="rounds=1"):
        fork_config(parent, 2, params={"rounds": 1})
    with pytest.raises(InvalidInput, match="different roles"):
        from tests.support.engine import lineup

        fork_config(parent, 0, lineup=lineup(5))
    base = run(scripted()[0], "baseline", n=2)
    with pytest.raises(InvalidInput, match="no rounds"):
        fork_config(base, 0)


def test_fork_of_radar_reuses_parent_evidence_and_reruns_the_stop_check():
    client, _ = scripted()
    parent = run(
        client,
        "radar",
        task="halftruth",
        category=None,
        retriever=FakeRetriever(),
        params={"rounds": 2, "tau_s": 2},
        debate_id="rp",
    )
    cfg = fork_config(parent, 1, say=NOTE)
    client2, backend2 = scripted()
    retriever = FakeRetriever()
    ev = list(run_debate(cfg, client2, retriever=retriever))
    assert by_type(ev, "evidence")[0].passages == by_type(parent, "evidence")[0].passages and not retriever.queries
    replayed = [e for e in by_type(ev, "turn_finished") if e.replayed]
    assert len(replayed) == len(
        [e for e in by_type(parent, "turn_finished") if e.round < 1 or (e.round == 1 and e.phase == "rebuttal")]
    )
    from tests.support.engine import kind

    assert kind(backend2.calls[0]["messages"]) == "stop"  # the check after round 1 is made anew
    assert all(NOTE in c["messages"][-1]["content"] for c in backend2.calls)
    assert ev[-1].status == "completed"
    # new thresholds that would have stopped before the fork point: said, not hidden
    early = list(run_debate(fork_config(parent, 1, params={"tau_s": -1, "tau_c": 0}), scripted()[0]))
    assert any(e.type == "error" and "before round 1" in e.message for e in early)


def test_robustness_variants_swap_sides_and_reseed():
    client, _ = scripted()
    parent = run(client, "single", n=2, params={"rounds": 1}, debate_id="rb")
    vs = variant_configs(parent, seeds=2)
    assert [v.name for v in vs] == ["positions swapped", "seed +1", "seed +2"]
    sw = {s["role"]: s["model"] for s in vs[0].config.seats}
    orig = {a["role"]: a["model"] for a in parent[0].lineup}
    assert sw["proponent"] == orig["opponent"] and sw["opponent"] == orig["proponent"]
    rows = []
    for v in vs:
        ev = list(run_debate(v.config, client))
        assert ev[0].settings["variant_of"] == {"debate_id": "rb", "variant": v.name}
        rows.append(variant_row(v.name, ev))
    t = table(parent[-1].label, rows + [{"variant": "cut", "label": None, "status": "stopped"}])
    assert t["decided"] == 3 and t["held"] == 3 and t["rows"][-1]["holds"] is None
    council = run(client, "council", n=3, params={"rounds": 0})
    assert [v.name for v in variant_configs(council, seeds=0)] == ["members shuffled"]


def test_html_export_escapes_model_text_and_loads_nothing_external():
    evil = '<script>alert(1)</script><img src="http://x/y.png"> [E1] & "quotes"'
    client, _ = scripted({"argue": evil, "vote": '{"vote": "YES", "explanation": "<b>bold</b>"}'})
    ev = run(client, "council", n=3, params={"rounds": 1}, retriever=FakeRetriever(), evidence=True)
    page = to_html(ev)
    assert "<script" not in page and "<img" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    # nothing is fetched: no src/href to another origin except evidence source links, and a CSP forbids loads
    assert "default-src 'none'" in page
    assert not re.search(r"""(src|@import|url\()\s*=?\s*["']?https?:""", page)
    assert "<svg" in page and "Votes per round" in page and "Verdict" in page
    for p in by_type(ev, "evidence")[0].passages:
        assert html.escape(str(p.get("source") or ""), quote=True) in page


def test_family_and_round_alignment_of_a_fork(tmp_path):
    from debate.sharing.family import align_rounds, family
    from debate.store import DebateStore

    parent, _ = _council_parent()
    fork_ev = list(run_debate(fork_config(parent, 0, say=NOTE, debate_id="child"), scripted({"vote": _split})[0]))
    store = DebateStore(tmp_path / "s.sqlite")
    for ev in (parent, fork_ev):
        store.create_debate({"claim": ev[0].claim}, ev[0].debate_id)
        for e in ev:
            store.append_event(ev[0].debate_id, e)
    fam = family(store, "child")
    assert [(f["id"], f["kind"], f["round"]) for f in fam] == [("parent", "original", None), ("child", "fork", 0)]
    rows = align_rounds(parent, fork_ev)
    by = {r["round"]: r for r in rows}
    assert not by["0"]["changed"] and by["0"]["replayed in fork"] == 3  # the initial votes are the parent's
    assert by["1"]["fork tokens"] >= 0 and [r["round"] for r in rows][-2:] == ["verdict", "tokens"]


def test_robustness_counts_only_finished_variants_that_ran_and_names_the_replays(tmp_path):
    from debate.models.cache import ResponseCache
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend

    backend = ScriptedBackend(default=_split)
    cached = ModelClient(backends={"scripted": backend}, cache=ResponseCache(tmp_path / "cache.sqlite"))
    parent = run(cached, "council", n=3, params={"rounds": 0}, debate_id="rb-parent")
    shuffled, reseeded = variant_configs(parent, seeds=1)
    # members shuffled at temperature 0 send the parent's very prompts and seeds: the cache answers all
    sh = list(run_debate(shuffled.config, cached))
    first = list(run_debate(reseeded.config, cached))
    assert sh[-1].model_calls == sh[-1].cache_hits > 0 and first[-1].cache_hits < first[-1].model_calls
    running = variant_row("seed +2", first[:-2], running=True)  # still streaming: no finished event yet
    t = table(parent[-1].label, [variant_row("members shuffled", sh), variant_row("seed +1", first), running])
    assert (t["decided"], t["replays"], t["pending"]) == (1, ["members shuffled"], ["seed +2"])
    said = summary(t)
    assert "in 1 of 1 finished variants that ran the models" in said
    assert "Still running: seed +2" in said and "from the response cache" in said and "members shuffled" in said
    # a variant still marked running by the worker is not counted even if its finished event is stored
    assert table(parent[-1].label, [variant_row("x", first, running=True)])["decided"] == 0
