"""Decision rules on hand-built votes: consensus, majority with its tie rule, stabilisation, early stop."""

import pytest

from debate.protocols.decisions import (
    apply_cat2_rule,
    consensus_reached,
    consensus_share,
    majority,
    normalise_probs,
    shares,
    should_stop,
    stop_margin,
    tally,
    verdict_confidence,
    vote_status,
    votes_stabilised,
)

YN = ("YES", "NO")


def v(*labels):
    return {f"m{i}": lab for i, lab in enumerate(labels)}


def test_consensus_share_and_threshold():
    assert consensus_share(v("YES", "YES", "YES", "NO", "NO")) == pytest.approx(0.6)
    assert not consensus_reached(v("YES", "YES", "YES", "NO", "NO"), 0.8)
    assert consensus_reached(v("YES", "YES", "YES", "YES", "NO"), 0.8)  # 4/5 = 80% reaches θ (paper Table 5)
    # an invalid vote is not agreement: 4 YES + 1 invalid of 5 is 80%, 3 YES + 1 invalid of 4 is 75%
    assert consensus_share(v("YES", "YES", "YES", None)) == pytest.approx(0.75)
    assert consensus_share(v(None, None)) == 0.0
    assert tally(v("YES", None, "NO", "YES"), YN) == {"YES": 2, "NO": 1}


def test_vote_status_line_like_the_paper():
    assert vote_status(v("YES", "YES", "YES", "NO", "NO"), YN, 0.8) == "YES: 3, NO: 2 (Consensus: 60% - Not reached)"
    assert vote_status(v("YES", None), YN, 0.8).startswith("YES: 1, NO: 0, invalid: 1")


def test_majority_and_tie_rule():
    assert majority(v("YES", "NO", "YES"), YN, "NO") == ("YES", "majority")
    # tie: previous round's leader
    assert majority(v("YES", "NO"), YN, "NO", previous=v("YES", "YES")) == ("YES", "tie:previous")
    # tie with no previous (or previous tied too): the task's tie label
    assert majority(v("YES", "NO"), YN, "NO") == ("NO", "tie:default")
    assert majority(v("YES", "NO"), YN, "NO", previous=v("YES", "NO")) == ("NO", "tie:default")
    assert majority(v("YES", "NO"), YN, "NO", previous=v("YES", "YES"), tie_rule="default") == ("NO", "tie:default")
    assert majority(v(None, None), YN, "NO") == (None, "no valid votes")
    ht = ("TRUE", "FALSE", "HALF-TRUE")
    assert majority(v("TRUE", "FALSE"), ht, "HALF-TRUE") == ("HALF-TRUE", "tie:default")


def test_votes_stabilised_needs_consecutive_unchanged_rounds():
    a, b = v("YES", "YES", "NO"), v("YES", "NO", "NO")
    assert not votes_stabilised([a], 1)
    assert votes_stabilised([a, a], 1)
    assert not votes_stabilised([a, a], 2)  # the paper's log continues after one unchanged round
    assert votes_stabilised([b, a, a, a], 2)
    assert not votes_stabilised([a, a, b], 2)


def test_early_stop_formula():
    p = normalise_probs({"stop": 0.6, "CONTINUE": 0.2, "other": 5.0}, ("STOP", "CONTINUE"))
    assert p == pytest.approx({"STOP": 0.75, "CONTINUE": 0.25})
    assert stop_margin(p) == pytest.approx(0.5)
    assert normalise_probs(None, ("STOP",)) is None and normalise_probs({"x": 1.0}, ("STOP",)) is None
    assert shares(["STOP", "STOP", None], ("STOP", "CONTINUE")) == pytest.approx({"STOP": 2 / 3, "CONTINUE": 0})
    assert verdict_confidence({"TRUE": 0.1, "HALF-TRUE": 0.9}, None) == ("HALF-TRUE", 0.9)
    assert verdict_confidence({"TRUE": 0.1, "HALF-TRUE": 0.9}, "TRUE") == ("TRUE", 0.1)
    assert should_stop(0.5, 0.8, 0.5, 0.8)  # both thresholds inclusive
    assert not should_stop(0.49, 0.99, 0.5, 0.8)
    assert not should_stop(0.9, 0.79, 0.5, 0.8)


def test_cat2_rule():
    assert apply_cat2_rule({"1": "NO", "2": "YES", "3": "NO"}) == ({"1": "NO", "2": "YES", "3": "YES"}, True)
    assert apply_cat2_rule({"1": "NO", "2": "YES", "3": "YES"}) == ({"1": "NO", "2": "YES", "3": "YES"}, False)
    assert apply_cat2_rule({"1": "NO", "2": "NO", "3": "NO"})[1] is False
    assert apply_cat2_rule({"1": "NO", "2": None, "3": "NO"})[1] is False
