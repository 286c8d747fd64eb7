"""A person's own verdict beside the judge's, and the audience poll: stored in the real SQLite file beside
the debates, validated with clear messages, filtered (disagreements), queued for adjudication, exported."""

from __future__ import annotations

import json

import pytest

from debate import live
from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.overruled import overruled_queue
from debate.errors import InvalidInput
from debate.runner import DebateConfig
from debate.sharing import exports
from debate.sharing.html import to_html
from debate.store import DebateStore, people
from tests.support.scripted_runs import SCRIPTED_LINEUP, scripted_client


def _debate(store: DebateStore, claim: str) -> str:
    cfg = DebateConfig(
        claim=claim,
        protocol="council",
        task="checkthat",
        category=1,
        lineup=SCRIPTED_LINEUP,
        params={"rounds": 1},
        max_tokens=32,
    )
    did = live.start_debate(cfg, scripted_client("flip"), None, store)
    assert live.wait(did, 30)
    return did


def test_overrule_is_stored_beside_the_judges_verdict_filtered_queued_and_exported(tmp_path):
    store = DebateStore(tmp_path / "d.sqlite")
    ps = people.PeopleStore(store.path)
    a, b = _debate(store, "Study <b>shows</b> coffee cures colds."), _debate(store, "Another tweet.")
    labels = people.debate_labels(store.get(a))
    assert labels == ("YES", "NO")
    judge, source = people.judge_verdict(store.event_dicts(a))
    assert judge in labels
    other = "NO" if judge == "YES" else "YES"
    with pytest.raises(InvalidInput, match="not a verdict this debate can have") as e:
        ps.overrule(a, "MAYBE", "why", labels=labels, judge_label=judge)
    assert "YES, NO" in e.value.hint
    with pytest.raises(InvalidInput, match="reason for your verdict is empty"):
        ps.overrule(a, other, "  ", labels=labels, judge_label=judge)
    o = ps.overrule(
        a,
        other.lower(),
        "The link is a <script>press</script> release.",
        labels=labels,
        judge_label=judge,
        judge_source=source,
    )
    assert (o["label"], o["judge_label"], o["disagrees"]) == (other, judge, True)
    ps.overrule(b, judge, "Same as the judge.", labels=labels, judge_label=judge)
    assert set(ps.disagreements()) == {a}
    assert ps.latest(b)["disagrees"] is False
    # the queue for Adjudicate: one case per overruled debate, both verdicts shown, the debate replayable
    spec = overruled_queue(store, ps, "checkthat")
    assert [c.item_id for c in spec.cases] == [a]
    assert [v["label"] for v in spec.cases[0].verdicts] == [judge, other]
    assert spec.cases[0].debates == [{"debate_id": a}]
    qid = AnnotationStore(tmp_path / "d.sqlite").create_queue(spec)
    assert qid
    with pytest.raises(InvalidInput, match="No halftruth debate"):
        overruled_queue(store, ps, "halftruth")
    # every export keeps it; model and person text stay text
    exported = json.loads(exports.export_json(store, a))
    assert exported["overrules"][0]["reason"] == "The link is a <script>press</script> release."
    md = exports.export_markdown(store, a)
    assert "## A person's verdict" in md and "&lt;script&gt;" in md and "<script>" not in md
    html = to_html(store.event_dicts(a), people=people.export(store.path, a))
    assert "A person&#x27;s verdict" in html or "A person's verdict" in html
    assert "&lt;script&gt;press" in html and "<script>press" not in html


def test_poll_one_vote_per_session_and_stage_with_before_after_and_swing(tmp_path):
    store = DebateStore(tmp_path / "d.sqlite")
    ps = people.PeopleStore(store.path)
    did = live.new_debate_id()  # the presenter opens the poll before Run: the debate does not exist yet
    with pytest.raises(InvalidInput, match="not open"):
        ps.vote(did, "s1", "YES")
    ps.open_poll(did, "before", ("YES", "NO"), claim="Coffee cures colds.")
    ps.vote(did, "s1", "YES")
    ps.vote(did, "s2", "YES")
    ps.vote(did, "s3", "NO")
    with pytest.raises(InvalidInput, match="already voted before") as e:
        ps.vote(did, "s1", "NO")
    assert "One vote per browser" in e.value.hint
    with pytest.raises(InvalidInput, match="not an option"):
        ps.vote(did, "s4", "PERHAPS")
    assert ps.tallies(did)["swing"] == {}  # nothing to compare yet
    ps.open_poll(did, "after", ("YES", "NO"))
    ps.vote(did, "s1", "NO")
    ps.vote(did, "s2", "NO")
    t = ps.tallies(did)
    assert t["before"] == {"YES": 2, "NO": 1} and t["after"] == {"YES": 0, "NO": 2}
    assert t["swing"] == {"YES": round(0 - 2 / 3, 4), "NO": round(1 - 1 / 3, 4)}
    assert ps.voted(did, "s1") == {"before": "YES", "after": "NO"}
    ps.close_poll(did)
    with pytest.raises(InvalidInput, match="not open"):
        ps.vote(did, "s3", "YES")
    exported = people.export(store.path, did)["poll"]
    assert exported["before"] == {"YES": 2, "NO": 1} and exported["open"] is False
    assert "## Audience poll" in "\n".join(people.markdown(people.export(store.path, did)))


def test_cli_html_export_keeps_the_persons_verdict_by_id_and_from_a_library_export(tmp_path):
    from debate.__main__ import main
    from tests.support.scripted_runs import stored_council_debate

    did = stored_council_debate("Export me with a person's verdict.")
    store = DebateStore()
    judge = people.judge_verdict(store.event_dicts(did))[0]
    people.store_at(store.path).overrule(
        did, "NO" if judge == "YES" else "YES", "A reason from a person.", labels=("YES", "NO"), judge_label=judge
    )
    by_id, from_json = tmp_path / "by-id.html", tmp_path / "from-json.html"
    assert main(["export", did, "--html", str(by_id)]) == 0
    lib = tmp_path / "lib.json"
    lib.write_text(exports.export_json(store, did))
    assert main(["export", str(lib), "--html", str(from_json)]) == 0
    for f in (by_id, from_json):
        page = f.read_text()
        assert "A person's verdict" in page and "A reason from a person." in page and "they disagree" in page
