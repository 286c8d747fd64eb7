"""What a debate decided, stated once: the verdict's reading, each member's vote (written and counted),
each round's consensus and the chair's status against it. Every screen and export reads these.

Why one place: the card, the bubbles' tags, Learn's notes and charts, Present, the Library and the
exports each used to read the events their own way, and a council could be "3 of 3 voted YES" on the
card while a member's bubble said NO and Learn said nobody changed. Here:

- **The verdict's reading.** The answer a debate gives is the label its deciding model *wrote* (the judge,
  the baseline's model), unless the person chose the calibrated reading (`calibrated_reading`, off by
  default). A calibration (class weights fitted on LIAR, a threshold fitted on CheckThat) that gives
  another label is a *second opinion*, named as such ("Calibrated reading: FALSE (class weights fitted on
  LIAR train)"), never a silent swap. Debates stored before the choice existed carried the calibrated
  label as their answer (`written_label` beside it): they are read as the calibrated reading they were,
  and say so.
- **A council's votes.** With the small-model aids a member's vote may be counted from its label
  probabilities (a fitted threshold) rather than from the label it wrote. The tally is what the
  protocol counted; a headline says both whenever they differ ("2 wrote YES, 1 wrote NO; counted from
  their probabilities: 3 YES").
- **The chair's status.** The chair answers {"status": "CONSENSUS REACHED" | "CONSENSUS NOT REACHED",
  "summary"}, the status decoded first under a JSON schema: a small model writes the first option whatever
  the vote status it was shown (and its own summary) says. Alg. 3 stops on the tally, never on the chair's
  word, so the tag shows the tally's state and names what the chair wrote when it contradicts it.

Pure functions over events or their stored dicts; no Streamlit, no store.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from debate.content.sentences import json_prose
from debate.events import VoteComparison, event_from_dict

CHAIR_ROLES = ("chair", "chairperson")


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """A field of an event, of its stored dict, or of a view of it (sinks hold any of these)."""
    if obj is None:
        return default
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


# -- the verdict's reading ---------------------------------------------------------------------------
_WHO = {"judge": "the judge", "round-judge": "the round judge", "majority": "the members"}


@dataclass(frozen=True)
class Reading:
    """One verdict as every sink states it.

    `shown` is the debate's answer (what the card, the Library, the exports and batch evaluation give);
    `written` the label the deciding model wrote; `calibrated` the label an aid gives (None when no aid
    ran or it read no probabilities); `reading` which of the two `shown` is ("written", "calibrated", or
    "votes" for a council's counted majority); `aid` the aid in words."""

    shown: str | None
    written: str | None
    calibrated: str | None
    reading: str
    aid: str = ""
    source: str = ""
    recorded_before: bool = False  # stored before the reading was a choice (it was then always calibrated)

    @property
    def who(self) -> str:
        return _WHO.get(self.source, "the model")

    @property
    def disagree(self) -> bool:
        return bool(self.written and self.calibrated and self.written != self.calibrated)

    def second_opinion(self) -> str:
        """Under the written reading, the calibration's label when it differs: "Calibrated reading: FALSE
        (class weights fitted on LIAR train): a second opinion; the verdict is the label the judge wrote."."""
        if self.reading != "written" or not self.disagree:
            return ""
        how = f" ({self.aid.split(':')[0].strip()})" if self.aid else ""
        return (
            f"Calibrated reading: {self.calibrated}{how} — a second opinion; the verdict is the label {self.who} wrote."
        )

    def chosen_note(self) -> str:
        """Under the calibrated reading, that it was chosen (or recorded so) and what the model wrote."""
        if self.reading != "calibrated" or not self.disagree:
            return ""
        how = f" ({self.aid})" if self.aid else ""
        why = (
            "recorded before the written label became the verdict"
            if self.recorded_before
            else "the calibrated reading was chosen for this debate"
        )
        return (
            f"Calibrated reading{how}, {why}: {self.who} wrote {self.written}; the calibration gives {self.calibrated}."
        )

    def note(self) -> str:
        """The one sentence every sink puts beside the verdict's label ("" when nothing disagrees)."""
        if self.reading == "votes":
            if not (self.written and self.shown and self.written != self.shown):
                return ""
            how = f" ({self.aid})" if self.aid else ""
            return (
                f"The members wrote a majority of {self.written}; counted by their label probabilities{how}, "
                f"the majority is {self.shown}."
            )
        return self.second_opinion() or self.chosen_note()


def reading(verdict: Any) -> Reading:
    """The verdict's reading (see the module's doc), for a Verdict event or its stored dict."""
    label, source = _get(verdict, "label"), str(_get(verdict, "source") or "")
    written_field, aid = _get(verdict, "written_label"), str(_get(verdict, "aid") or "").strip()
    how = str(_get(verdict, "reading") or "")
    if source == "majority":
        return Reading(label, written_field or label, None, "votes", aid, source)
    if how == "written":
        return Reading(label, label, _get(verdict, "calibrated_label"), "written", aid, source)
    if how == "calibrated":
        return Reading(label, written_field or label, label, "calibrated", aid, source)
    if written_field and label and written_field != label:  # stored before the choice: calibrated was shown
        return Reading(label, written_field, label, "calibrated", aid, source, recorded_before=True)
    return Reading(label, label, None, "written", aid, source)


def prediction_of(verdict: Any, which: str = "shown") -> str | None:
    """One verdict's label for scoring: `shown` (the debate's answer), `written` or `calibrated` (None
    when no calibration gave one)."""
    r = reading(verdict)
    return {"shown": r.shown, "written": r.written, "calibrated": r.calibrated}.get(which, r.shown)


# -- a council's votes ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MemberVote:
    agent: str
    round: int
    written: str | None  # the label it wrote (None: no readable vote)
    counted: str | None  # the vote the tally counted
    explained: bool  # it gave a reason in words (not a bare label, not the format's placeholder)
    turn_id: str = ""

    @property
    def differs(self) -> bool:
        return self.written is not None and self.counted is not None and self.written != self.counted


@dataclass
class RoundVotes:
    """One tally with the votes behind it."""

    round: int
    votes: list[MemberVote] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # counted, as the protocol tallied them
    share: float = 0.0
    threshold: float = 0.8
    reached: bool = False
    stabilised: bool = False
    majority: str | None = None
    category: int | None = None
    kept: list[str] = field(default_factory=list)  # members not asked this round: their first vote counted

    @property
    def differs(self) -> bool:
        return any(v.differs for v in self.votes)

    def kept_note(self) -> str:
        """What every tally line adds when members were not asked this round (the council's
        keep_first_vote): "smol-a not asked again: its first vote, counted as NO, stands" (as counted, which
        the aids may read otherwise than it was written). Empty otherwise."""
        got = {v.agent: v.counted for v in self.votes}
        return "; ".join(
            f"{a} not asked again: its first vote, counted as {got.get(a) or 'no readable vote'}, stands"
            for a in self.kept
        )

    def written_counts(self, order: Iterable[str] = ()) -> dict[str, int]:
        c = Counter(v.written for v in self.votes if v.written is not None)
        keys = [k for k in order if c.get(k)] + sorted(k for k in c if k not in set(order))
        return {k: c[k] for k in keys}

    def consensus_words(self) -> str:
        state = "reached" if self.reached else ("not reached, votes stabilised" if self.stabilised else "not reached")
        return f"consensus {self.share:.0%} vs threshold {self.threshold:.0%}: {state}"

    def headline(self) -> str:
        """ "3 of 3 members voted YES", or when the aids counted votes otherwise than written,
        "2 wrote YES, 1 wrote NO; counted from their probabilities: 3 YES"."""
        order = list(self.counts)
        counted = ", ".join(f"{n} {k}" for k, n in self.counts.items() if n)
        invalid = sum(1 for v in self.votes if v.counted is None)
        n = len(self.votes) or sum(self.counts.values()) + invalid
        if self.differs:
            wrote = ", ".join(f"{k_n} wrote {k}" for k, k_n in self.written_counts(order).items())
            unread = sum(1 for v in self.votes if v.written is None)
            wrote += f", {unread} gave no readable vote" if unread else ""
            return f"{wrote}; counted from their probabilities: {counted or 'no vote'}"
        top = self.majority or (max(self.counts, key=lambda k: self.counts[k]) if self.counts else None)
        k = self.counts.get(top, 0) if top else 0
        tail = f" ({counted}" + (f", {invalid} invalid" if invalid else "") + ")" if k != n else ""
        return f"{k} of {n} members voted {top}{tail}" if top else "no member gave a readable vote"


def member_vote(turn: Any, counted: dict | None) -> MemberVote:
    """A vote turn (event, dict or view) against the tally's counted votes."""
    agent = str(_get(turn, "agent") or "")
    valid = bool(_get(turn, "valid", True))
    written = _get(turn, "label") if valid else None
    explanation = _get(turn, "explanation", None)
    if explanation is None:
        explanation = json_prose(_get(turn, "parsed")) if valid else ""
    explained = bool(str(explanation or "").strip()) and not _get(turn, "echoed_format", "")
    got = (counted or {}).get(agent, written) if counted is not None else written
    return MemberVote(agent, int(_get(turn, "round") or 0), written, got, explained, str(_get(turn, "turn_id") or ""))


def round_votes(tally: Any, turns: Iterable[Any], category: int | None = None) -> RoundVotes:
    """A tally (VotesTallied or its dict) with the vote turns of its round (the latest per member)."""
    counted = dict(_get(tally, "votes") or {})
    latest: dict[str, Any] = {}
    for t in turns:
        if str(_get(t, "role", "") or "").lower() in CHAIR_ROLES:
            continue
        if _get(t, "phase") == "vote" and int(_get(t, "round") or 0) == int(_get(tally, "round") or 0):
            latest[str(_get(t, "agent"))] = t
    votes = [member_vote(latest[a], counted) for a in counted if a in latest]
    # a vote with no turn to read it from (an older or hand-made stream): as counted, its reason unknown (kept)
    votes += [MemberVote(a, int(_get(tally, "round") or 0), v, v, True) for a, v in counted.items() if a not in latest]
    return RoundVotes(
        round=int(_get(tally, "round") or 0),
        votes=votes,
        counts=dict(_get(tally, "counts") or {}),
        share=float(_get(tally, "consensus_share") or 0.0),
        threshold=float(_get(tally, "threshold") or 0.0),
        reached=bool(_get(tally, "reached")),
        stabilised=bool(_get(tally, "stabilised")),
        majority=_get(tally, "majority"),
        category=category,
        kept=[str(a) for a in (_get(tally, "kept") or [])],
    )


def council_rounds(events: Iterable[Any]) -> list[RoundVotes]:
    """Every tally of a debate with its votes, in order (events or their dicts)."""
    out: list[RoundVotes] = []
    turns: list[Any] = []
    category = None
    for e in events:
        t = _get(e, "type")
        if t == "phase_started" and _get(e, "category") is not None:
            category = _get(e, "category")
        elif t == "turn_finished":
            turns.append(e)
        elif t == "votes_tallied":
            out.append(round_votes(e, turns, category))
            turns = []
    return out


def counted_votes(events: Iterable[Any]) -> dict[str, MemberVote]:
    """turn_id -> its vote as written and as counted (vote turns a tally counted)."""
    return {v.turn_id: v for r in council_rounds(events) for v in r.votes if v.turn_id}


def vote_words(v: MemberVote) -> str:
    """A member's vote for a note or a tag: "YES", or "wrote NO, counted as YES"."""
    if v.differs:
        return f"wrote {v.written}, counted as {v.counted} (from its own label probabilities)"
    return str(v.counted if v.counted is not None else "no readable vote")


def verdict_headline(verdict: Any, rounds: list[RoundVotes]) -> str:
    """A council verdict's number in words: the last tally's headline (votes written and counted)."""
    if str(_get(verdict, "source") or "") != "majority" or not rounds:
        return ""
    cat = _get(verdict, "category")
    mine = [r for r in rounds if r.category == cat] or rounds
    return mine[-1].headline()


# -- the chair ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChairTag:
    label: str  # "CONSENSUS REACHED" | "CONSENSUS NOT REACHED": the tally's state
    wrote: str | None  # what the chair wrote, when it contradicts the tally
    why: str  # the tally it is read from


def chair_tag(written: str | None, tally: Any) -> ChairTag | None:
    """The chair's tag: the state of the tally it was shown (the one before its round). None without
    a tally (nothing to read it from: the chair's own word is then shown as written)."""
    if tally is None:
        return None
    reached = bool(_get(tally, "reached"))
    label = "CONSENSUS REACHED" if reached else "CONSENSUS NOT REACHED"
    w = str(written or "").strip().upper() or None
    contradicts = w in ("CONSENSUS REACHED", "CONSENSUS NOT REACHED") and w != label
    why = (
        f"the tally it read (round {int(_get(tally, 'round') or 0)}): consensus "
        f"{float(_get(tally, 'consensus_share') or 0):.0%} vs threshold {float(_get(tally, 'threshold') or 0):.0%}"
    )
    return ChairTag(label, w if contradicts else None, why)


def chair_tags(events: Iterable[Any]) -> dict[str, ChairTag]:
    """turn_id of every chair turn -> its tag, read from the last tally before it."""
    out: dict[str, ChairTag] = {}
    last = None
    for e in events:
        t = _get(e, "type")
        if t == "votes_tallied":
            last = e
        elif t == "turn_finished" and str(_get(e, "role", "") or "").lower() in CHAIR_ROLES:
            tag = chair_tag(_get(e, "label"), last)
            if tag is not None:
                out[str(_get(e, "turn_id") or "")] = tag
    return out


def chair_words(tag: ChairTag) -> str:
    """The chair's status in words for a note or an export."""
    s = f"{tag.label} — {tag.why}"
    return s + (f"; its own status field said {tag.wrote}, but the tally decides" if tag.wrote else "")


# -- the debate against its first vote ----------------------------------------------------------------
def _first_round(comparison: Any, rounds: list[RoundVotes]) -> RoundVotes | None:
    cat = _get(comparison, "category")
    mine = [r for r in rounds if r.category == cat] or rounds
    return min(mine, key=lambda r: r.round) if mine else None


def first_written_label(comparison: Any, rounds: list[RoundVotes]) -> str | None:
    """The label every first voter wrote, when they all wrote one readable label (else None): the aids may
    count a vote that every member wrote NO as YES, and the first vote is then unanimous both ways."""
    r0 = _first_round(comparison, rounds) if str(_get(comparison, "basis") or "first votes") == "first votes" else None
    if r0 is None or not r0.votes or any(v.written is None for v in r0.votes):
        return None
    written = r0.written_counts()
    return next(iter(written)) if len(written) == 1 else None


def first_counted_otherwise(comparison: Any, rounds: list[RoundVotes]) -> bool:
    """Whether the first votes a comparison counts differ from what the members wrote: the event's own
    flag, or, for a stream stored before the flag existed, the first tally of its category read here.
    Every sink asks this one question, so "unanimous at the first vote" is never said on one screen beside
    a first tally that says a member wrote otherwise on another."""
    if str(_get(comparison, "basis") or "first votes") != "first votes":
        return False
    if _get(comparison, "counted_otherwise"):
        return True
    r0 = _first_round(comparison, rounds)
    return r0 is not None and r0.differs


def comparison_sentence(comparison: Any, rounds: list[RoundVotes]) -> str:
    """The line on the debate against its first vote (VoteComparison.sentence), for an event or its dict,
    with the first votes' written-or-counted state read by first_counted_otherwise."""
    c = comparison if isinstance(comparison, VoteComparison) else event_from_dict(dict(comparison))
    assert isinstance(c, VoteComparison)
    otherwise = first_counted_otherwise(c, rounds)
    wrote = first_written_label(c, rounds)
    if c.outcome == "unanimous" and otherwise and wrote and wrote != c.vote_label:  # unanimous both ways
        return f"unanimous at the first vote: every member wrote {wrote}, every vote was counted as {c.vote_label}"
    return replace(c, counted_otherwise=otherwise).sentence()
