"""Every decision rule of the protocols as a pure function (no I/O, no state), tested on hand-built votes.

Choices the papers leave open, stated once here (also in the protocol parameter descriptions):
- Consensus share = votes for the leading label / all council members. An invalid (unreadable) vote
  counts in the denominator: a member who did not vote has not agreed. 4 of 5 = 80% reaches θ = 0.8.
- Majority tie rule ("previous"): among tied labels take the one that led the previous round; if that
  does not settle it, the task's tie label (NO for yes/no tasks, the conservative answer on CheckThat
  where most tweets are negative; HALF-TRUE for half-truth). Rule "default" skips the previous-round step.
- Votes stabilised = every member's vote unchanged over the last `stable_rounds` transitions (default 2:
  TurQUaz's own Table 5 log continues after one unchanged round, so one is not enough).
- RADAR early stop (Sec. 3.3 names the signals, not the formula): stop margin = P(STOP) - P(CONTINUE)
  from the stop agent, verdict confidence = P(preliminary verdict) from the round judge, both from label
  probabilities (normalised over the allowed labels) or from vote shares of n samples; stop when
  margin >= τs AND confidence >= τc.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

Votes = Mapping[str, "str | None"]


def tally(votes: Votes, labels: Sequence[str]) -> dict[str, int]:
    """Counts per label, in the task's label order, including zeros; invalid votes are not a label."""
    c = Counter(v for v in votes.values() if v is not None)
    return {lab: c.get(lab, 0) for lab in labels}


def consensus_share(votes: Votes) -> float:
    if not votes:
        return 0.0
    c = Counter(v for v in votes.values() if v is not None)
    return (max(c.values()) / len(votes)) if c else 0.0


def consensus_reached(votes: Votes, theta: float) -> bool:
    return consensus_share(votes) + 1e-9 >= theta


def majority(
    votes: Votes,
    labels: Sequence[str],
    tie_label: str | None = None,
    previous: Votes | None = None,
    tie_rule: str = "previous",
) -> tuple[str | None, str]:
    """(label, how) where how is "majority", "tie:previous", "tie:default" or "no valid votes"."""
    counts = tally(votes, labels)
    best = max(counts.values(), default=0)
    if best == 0:
        return None, "no valid votes"
    leaders = [lab for lab in labels if counts[lab] == best]
    if len(leaders) == 1:
        return leaders[0], "majority"
    if tie_rule == "previous" and previous:
        prev_counts = tally(previous, labels)
        top = max(prev_counts[lab] for lab in leaders)
        prev_leaders = [lab for lab in leaders if prev_counts[lab] == top]
        if len(prev_leaders) == 1 and top > 0:
            return prev_leaders[0], "tie:previous"
    if tie_label in leaders:
        return tie_label, "tie:default"
    return (tie_label or leaders[0]), "tie:default"


def votes_stabilised(history: Sequence[Votes], stable_rounds: int = 2) -> bool:
    """True when the last `stable_rounds` + 1 tallies give every member the same vote."""
    if stable_rounds < 1 or len(history) < stable_rounds + 1:
        return False
    last = dict(history[-1])
    return all(dict(h) == last for h in history[-(stable_rounds + 1) : -1])


def vote_status(votes: Votes, labels: Sequence[str], theta: float) -> str:
    """The chair's "Vote Status" line, in the style of TurQUaz Table 5: `YES: 3, NO: 2 (Consensus: 60% - Not reached)`."""
    counts = tally(votes, labels)
    invalid = sum(1 for v in votes.values() if v is None)
    parts = [f"{lab}: {n}" for lab, n in counts.items()]
    if invalid:
        parts.append(f"invalid: {invalid}")
    share = consensus_share(votes)
    state = "Reached" if consensus_reached(votes, theta) else "Not reached"
    return f"{', '.join(parts)} (Consensus: {share * 100:.0f}% - {state})"


# -- RADAR early stopping ----------------------------------------------------------------------
def normalise_probs(probs: Mapping[str, float] | None, labels: Sequence[str]) -> dict[str, float] | None:
    """Restrict to `labels` (case-insensitive keys) and rescale to sum 1; None if nothing usable."""
    if not probs:
        return None
    up = {str(k).upper(): float(v) for k, v in probs.items() if v is not None}
    vals = {lab: max(0.0, up.get(lab.upper(), 0.0)) for lab in labels}
    total = sum(vals.values())
    if total <= 0:
        return None
    return {lab: v / total for lab, v in vals.items()}


def shares(samples: Sequence[str | None], labels: Sequence[str]) -> dict[str, float]:
    """Vote shares of n sampled answers; unreadable samples count in the denominator."""
    n = len(samples)
    c = Counter(s for s in samples if s is not None)
    return {lab: (c.get(lab, 0) / n if n else 0.0) for lab in labels}


def stop_margin(stop_probs: Mapping[str, float]) -> float:
    return float(stop_probs.get("STOP", 0.0)) - float(stop_probs.get("CONTINUE", 0.0))


def verdict_confidence(verdict_probs: Mapping[str, float], label: str | None) -> tuple[str | None, float]:
    """(label, its probability); without a readable label, the most probable one."""
    if label is None:
        if not verdict_probs:
            return None, 0.0
        label = max(verdict_probs, key=lambda k: verdict_probs[k])
    return label, float(verdict_probs.get(label, 0.0))


def should_stop(margin: float, confidence: float, tau_s: float, tau_c: float) -> bool:
    return margin + 1e-9 >= tau_s and confidence + 1e-9 >= tau_c


# -- CheckThat post-step -----------------------------------------------------------------------
def apply_cat2_rule(labels: Mapping[str, str | None]) -> tuple[dict[str, str | None], bool]:
    """TurQUaz Sec. 3: a positive category 2 (reference to a study) makes category 3 positive."""
    after = dict(labels)
    if after.get("2") == "YES" and after.get("3") != "YES":
        after["3"] = "YES"
        return after, True
    return after, False


# -- debate against vote -----------------------------------------------------------------------
def against_vote(
    first_votes: Votes, labels: Sequence[str], tie_label: str | None, debate_label: str | None, gold: str | None = None
) -> dict[str, Any]:
    """What a plain majority of the first answers would have decided with no discussion, beside the debate.

    Majority voting explains most of what debate gains in the literature, so every debate is shown
    against it. The vote uses the task's tie label on a tie (no previous round exists at the first vote).
    `outcome` is "unanimous" (every first answer readable and the same, and the debate kept it), "stood"
    (the vote's label is the debate's) or "changed"; with a gold label, `effect` says whether the change
    was "for the better" (wrong -> right), "for the worse" (right -> wrong), or "neither" (both wrong,
    on a task with more than two labels) — None without gold or without a change.
    """
    vote_label, _ = majority(first_votes, labels, tie_label, None, "default")
    readable = [v for v in first_votes.values() if v is not None]
    unanimous = bool(first_votes) and len(readable) == len(first_votes) and len(set(readable)) == 1
    changed = vote_label != debate_label
    outcome = "changed" if changed else ("unanimous" if unanimous else "stood")
    g = None if gold is None else str(gold).strip().upper()
    vote_correct = None if g is None or vote_label is None else vote_label == g
    debate_correct = None if g is None or debate_label is None else debate_label == g
    effect = None
    if changed and g is not None:
        effect = (
            "for the better"
            if debate_correct and not vote_correct
            else "for the worse"
            if vote_correct and not debate_correct
            else "neither"
        )
    return {
        "first_votes": dict(first_votes),
        "vote_label": vote_label,
        "debate_label": debate_label,
        "unanimous": unanimous,
        "changed": changed,
        "outcome": outcome,
        "gold": g,
        "vote_correct": vote_correct,
        "debate_correct": debate_correct,
        "effect": effect,
    }
