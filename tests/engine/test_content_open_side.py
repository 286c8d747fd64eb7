"""A debater's argument begun by the engine in its side's words (open_side): which turns get the opening, that
the model goes on from it (the backend is asked to continue, not to restart), and that every view says which
words were the engine's."""

from __future__ import annotations

import pytest

from debate import prompts
from debate.events import event_from_dict
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.sharing.exports import export_csv
from debate.sharing.html import to_html
from debate.store import DebateStore, to_markdown
from debate.transcript import render_text
from tests.support.engine import by_type, radar_lineup, run

CLAIM = "Texas has created more jobs than all the other states combined."
VERDICT = "[REASON]: Both made points. [VERDICT]: HALF-TRUE"


def _debate(params: dict, prefill: bool = True) -> tuple[ScriptedBackend, list]:
    b = ScriptedBackend({"pol": " Jobs grew.", "sci": " The data disagree.", "judge": VERDICT})
    b.supports_prefill = prefill
    params = {"rounds": 1, "early_stop": False, "state_side": True, **params}
    events = run(
        ModelClient({"scripted": b}), "radar", params=params, lineup=radar_lineup(), claim=CLAIM, task="halftruth"
    )
    return b, events


def test_each_argument_of_a_sided_debater_begins_with_its_sides_words_and_the_model_goes_on():
    b, events = _debate({"open_side": True})
    want = {
        (side, phase): prompts.render(f"engine.begin_{side}_{phase}")
        for side in ("for", "against")
        for phase in ("opening", "rebuttal", "closing")
    }
    assert want[("against", "opening")] == "I oppose the claim."
    asked = {m: [c["options"].prefill for c in b.calls if c["model"] == m] for m in ("pol", "sci", "judge")}
    assert asked["pol"] == [want[("for", p)] for p in ("opening", "rebuttal", "closing")]
    assert asked["sci"] == [want[("against", p)] for p in ("opening", "rebuttal", "closing")]
    assert asked["judge"] == [""]  # a judge's answer is its own from the first word
    finished = [e for e in by_type(events, "turn_finished") if e.role in ("politician", "scientist")]
    assert len(finished) == 6
    for t in finished:
        side = "for" if t.role == "politician" else "against"
        assert t.begun == want[(side, t.phase)]
        assert t.text == t.begun + (" Jobs grew." if side == "for" else " The data disagree.")
    # the room sees the opening as the turn's first words, before the model's
    pol_open = finished[0].turn_id if finished[0].role == "politician" else finished[1].turn_id
    deltas = [d.text for d in by_type(events, "token") if d.turn_id == pol_open]
    assert deltas[0] == want[("for", "opening")] and "".join(deltas).endswith("Jobs grew.")
    (judge,) = [e for e in by_type(events, "turn_finished") if e.role == "judge"]
    assert judge.begun == ""


@pytest.mark.parametrize(
    ("params", "prefill"),
    [({"open_side": False}, True), ({"open_side": True}, False), ({"open_side": True, "state_side": False}, True)],
    ids=["off", "a backend that cannot continue an answer", "no side told"],
)
def test_no_opening_is_written_when_off_or_where_it_cannot_be_continued(params, prefill):
    b, events = _debate(params, prefill)
    assert all(c["options"].prefill == "" for c in b.calls)
    assert all(t.begun == "" for t in by_type(events, "turn_finished"))
    assert {t.text for t in by_type(events, "turn_finished") if t.role == "politician"} == {"Jobs grew."}


def test_a_category_debate_opens_in_its_categorys_words_and_a_custom_question_gets_none():
    """A debate about a tweet's CheckThat category argues YES or NO about the category, not a claim: the
    proponents begin with the category's words, the opponents with their negation; each phase in the category
    it argues. A custom question has no such words, so nothing is written for it."""
    from tests.support.engine import scripted

    for category, stance in ((1, "contains"), (2, "refers to"), (3, "mentions")):
        client, backend = scripted()
        backend.supports_prefill = True
        events = run(
            client, "single", category=category, n=2, params={"rounds": 1, "state_side": True, "open_side": True}
        )
        begun = {(t.role, t.phase): t.begun for t in by_type(events, "turn_finished") if t.role != "judge"}
        assert len(begun) == 6
        assert begun[("proponent", "opening")].startswith(f"The tweet {stance} a"), begun
        assert begun[("opponent", "opening")].startswith(f"The tweet {stance} no"), begun
        assert (
            begun[("opponent", "rebuttal")]
            == f"My opponent is wrong: the tweet {stance} no" + begun[("opponent", "opening")].split(" no", 1)[1]
        )
        assert begun[("proponent", "closing")].startswith(f"In closing, the tweet {stance} a")
        assert all(t.text.startswith(t.begun) for t in by_type(events, "turn_finished"))
    client, backend = scripted()
    backend.supports_prefill = True
    custom = {"custom_title": "Is about climate change", "custom_description": "Mentions climate or emissions."}
    params = {"rounds": 0, "state_side": True, "open_side": True}
    events = run(client, "single", task="custom", category=None, n=2, params=params, **custom)
    assert all(c["options"].prefill == "" for c in backend.calls)
    assert all(t.begun == "" for t in by_type(events, "turn_finished"))


def test_every_view_says_which_words_the_engine_wrote(tmp_path):
    _, events = _debate({"open_side": True})
    dicts = [e.to_dict() for e in events]
    note = 'The engine began this turn with "I oppose the claim." (its side); the model wrote the rest.'
    store = DebateStore(tmp_path / "d.sqlite")
    did = store.create_debate({"claim": CLAIM, "protocol": "radar"}, "d")
    store.append_events(did, dicts)
    row = {"id": "d", "protocol": "radar", "task": "halftruth", "status": "completed", "created_at": "", "claim": CLAIM}
    sinks = {
        "terminal": render_text([event_from_dict(e) for e in dicts]),
        "markdown": to_markdown(row, dicts),
        "html": to_html(dicts).replace("&#x27;", "'").replace("&quot;", '"'),
    }
    assert {k: note in v for k, v in sinks.items()} == dict.fromkeys(sinks, True), sinks["html"][:2000]
    csv = export_csv(store, did)
    assert csv.splitlines()[0].split(",")[-2:] == ["begun", "flag"]
    assert ',"In closing, I support the claim.",' in csv and ",I oppose the claim.," in csv
    store.close()
    # a debate without it says nothing of the kind
    _, plain = _debate({"open_side": False})
    assert "The engine began this turn" not in render_text(plain)


def test_the_opening_is_decided_once_per_turn(monkeypatch):
    """The generation options, the streamed first piece and the recorded turn read one decision: a turn's
    opening is worked out once (a backend lookup and a template), not once per reader."""
    from debate.protocols.base import DebateContext

    decided: list[str] = []
    original = DebateContext._opening_words

    def counted(self, spec):
        decided.append(spec.turn_id)
        return original(self, spec)

    monkeypatch.setattr(DebateContext, "_opening_words", counted)
    _, events = _debate({"open_side": True})
    turns = [e.turn_id for e in by_type(events, "turn_finished")]
    assert sorted(decided) == sorted(turns)  # each turn once, the judge's included (its answer: "")
    assert all(t.begun for t in by_type(events, "turn_finished") if t.role in ("politician", "scientist"))
