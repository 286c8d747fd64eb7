"""Small-model aids: the few settings that make the packaged 0.5B / 135M models' verdicts
worth showing, as one switch beside the papers' settings.

Why: on two CPU cores the app runs models 15-30 times smaller than the papers'. Asked as the papers ask,
they answer with the prompt's favourite label whatever the tweet says (README "Results"). With the aids:
- baseline and council on CheckThat: the 8 most similar CheckThat **train** tweets as earlier turns of the
  conversation, each answered with its gold label (demos=dialogue; KATE, Liu et al. 2022); the label
  decoded first and its probability held against a threshold fitted on train for that model and
  category (calibration=threshold); council members vote by that threshold (their initial prompt is the
  baseline's, so the same fitted threshold applies); a one-sentence explanation decoded after the label
  (explain=after: same prompt, label decoded first, so votes and thresholds are unchanged, and a live
  audience sees arguments even when the council agrees at once); the chair's status written as the tally's
  own state, its summary after it (chair_status=tally: the 0.5B chair wrote CONSENSUS REACHED whatever
  the tally said);
- RADAR: the judge's answer decoded under its JSON schema (always a readable verdict with label
  probabilities) and, where class weights were fitted on LIAR train for the judge's model, weighted by them;
  each debater with a side told which side it argues (state_side: a line after the paper's template; the
  0.5B debaters otherwise wrote both sides in one turn, or the other side's case), and held to it where
  its words would say the other side's ("the claim is false" from the politician: hold_side);
- single and team debates: the judge's JSON decoded under its schema, its explanation first and the
  category after it (judge_answer=constrained: the 0.5B judge wrote its category first and then a reason
  for the other one); each debater told its side again, last, in the paper's role sentence (state_side),
  and in the single debate held to it in the category's words ("the tweet does contain scientific claims"
  from the opponent: hold_side).

An aid applies only where its data exists (a fitted threshold for every member's model and category,
fitted weights for the judge), and never over a value the person changed from the paper's default.
Prompts' task text, the council's rounds and consensus, and RADAR's debate are the papers' (the council's
chair writes the tally's state as its status; RADAR's debaters get one line after the paper's template naming
their side).
Off: exactly the papers' settings. The engine applies the aids in `runner.prepare` (DebateConfig.aids),
so the app, the CLI (`--aids`) and exports record the parameters that actually ran.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from debate.aids import calibration as cal
from debate.models.spec import names_model

K_DEMOS = 8
# the members asked for their first vote only in a council with the aids (council keep_first_vote)
BLIND_IN_DISCUSSION = "local:smollm2-135m"
AIDS: dict[str, dict[str, Any]] = {
    "baseline": {
        "answer": "label-first",
        "demos": "dialogue",
        "k_demos": K_DEMOS,
        "calibration": "threshold",
        "explain": "after",
    },
    "council": {
        "demos": "dialogue",
        "k_demos": K_DEMOS,
        "vote_from": "probs",
        "calibration": "threshold",
        "explain": "after",
        "chair_status": "tally",
        # a model whose votes in a discussion round do not depend on the tweet is asked once (measured on
        # 30 held-out councils: SmolLM2's P(YES) 0.71-0.87 in all 34 of its discussion votes, 0.81 on NO
        # tweets and 0.84 on YES ones; first votes 0.19 and 0.58. Qwen's discussion votes still separate:
        # 0.22 and 0.31)
        "keep_first_vote": BLIND_IN_DISCUSSION,
    },
    # single and team: the judge's reason decoded first, its label after it (the 0.5B judge's label otherwise
    # came first and its reason argued for the other one)
    # single: hold_side in the category's words; 15 held-out tweets read blind by two readers: the held debates
    # preferred in 16 judgements, those without in 10 (4 the same); copied loosely 40 -> 27 of 120 turns; the
    # readers' own side counts did not move (138 vs 135): docs/content-benchmark.md "Holding a side in a
    # debate about a tweet's category". The team debate is not measured and keeps it off
    # open_side: on 15 more held-out tweets, two blind readers preferred the debates begun on their side in 23 of 30
    # judgements (side counts 77 against 103); macro-F1 0.700 against 0.250 (docs/content-benchmark.md "Beginning
    # each argument on its side")
    "single": {"judge_answer": "constrained", "state_side": True, "hold_side": True, "open_side": True},
    "team": {"judge_answer": "constrained", "state_side": True},
    # hold_side: measured on 30 held-out RADAR debates, read blind, the debates with it were preferred in 16
    # pairs, those without in 7 (same 7); read turn by turn, the readers found 79 turns on the wrong side or
    # both against 87 (docs/content-benchmark.md "Holding a side")
    # open_side: on 30 more held-out RADAR debates read blind, the debates whose arguments begin with their side's
    # words were preferred in 28 of 30 pairs; the readers found 62 turns on the wrong side or both against 98
    # (docs/content-benchmark.md "Beginning each argument on its side"). RADAR-single keeps it off: its lone
    # scientist begun "I oppose the claim." was preferred in 18 of 30 pairs only, and its judge said TRUE never
    "radar": {
        "judge_answer": "constrained",
        "judge_calibration": "fitted",
        "state_side": True,
        "hold_side": True,
        "open_side": True,
    },
    "radar-single": {
        "judge_answer": "constrained",
        "judge_calibration": "fitted",
        "state_side": True,
        "hold_side": True,
    },
}


def _blind_members(agents: Iterable[Any]) -> list[str]:
    """The members whose model the aids ask for their first vote only."""
    return [
        _field(a, "agent") or _field(a, "name")
        for a in agents
        if _field(a, "role") == "member" and names_model(BLIND_IN_DISCUSSION, _field(a, "model"))
    ]


def _thresholds_fitted(views: Iterable[tuple[str, int, int, str]], task: str, categories: list) -> bool:
    """Whether a threshold is fitted for every (model, k, skip, neighbours) view of the members in every
    category."""
    return all(
        c is not None
        and cal.fitted_threshold(cal.setting_key(m, task, c, "label-first", "dialogue", k or K_DEMOS, skip, found))
        is not None
        for m, k, skip, found in set(views)
        for c in categories
    ) and bool(categories)


def _view_of(agent: Any) -> tuple[str, int, int, str]:
    """An agent's model and its own view of the demonstrations (0, 0, semantic: the protocol's)."""

    def num(name: str) -> int:
        v = agent.get(name, 0) if isinstance(agent, dict) else getattr(agent, name, 0)
        return int(v or 0)

    return _field(agent, "model"), num("k_demos"), num("demo_skip"), _field(agent, "neighbours") or "semantic"


def _field(agent: Any, name: str) -> str:
    """An agent's field, whether an engine Agent or the page's dict of it."""
    return str(agent.get(name, "") if isinstance(agent, dict) else getattr(agent, name, ""))


def overrides(protocol: str, task: str, categories: list, agents: list) -> dict[str, Any]:
    """The aids' parameter values for this set-up: only those whose data exists (see the module doc)."""
    want = dict(AIDS.get(protocol, {}))
    if protocol in ("baseline", "council"):
        if task != "checkthat":
            return {}  # the demonstrations come from CheckThat train; other tasks have none
        views = [
            _view_of(a)
            for a in agents
            if _field(a, "role") in ("baseline", "member") and not _field(a, "model").startswith("human:")
        ]  # a person's vote needs no fitted threshold
        if not _thresholds_fitted(views, task, categories):
            want["calibration"] = "none"
        if protocol == "council" and not _blind_members(agents):
            want.pop("keep_first_vote", None)  # no such member: nothing to say, nothing changed
    if protocol.startswith("radar"):
        judge = next((a for a in agents if _field(a, "role") == "judge"), None)
        key = judge and cal.judge_key(_field(judge, "model"), task, protocol, "constrained")
        if not key or cal.fitted_weights(key) is None:
            want["judge_calibration"] = "none"
    return want


def applies(protocol: str, task: str) -> bool:
    """Whether any aid can change this protocol on this task (the demonstrations and thresholds exist
    for CheckThat only; the judges' aids of RADAR, single and team for every task)."""
    return protocol in AIDS and (protocol not in ("baseline", "council") or task == "checkthat")


def apply(params: dict[str, Any], defaults: dict[str, Any], aids: dict[str, Any]) -> dict[str, Any]:
    """The parameters with the aids applied where the person left the paper's default."""
    return {**params, **{k: v for k, v in aids.items() if k in params and params[k] == defaults.get(k)}}


def _slices(agents: list, k_default: int) -> str:
    """Which nearest train tweets each member reads, when the lineup gives members their own views."""
    views = [
        (_field(a, "agent") or _field(a, "name"), *_view_of(a)[1:])
        for a in agents
        if _field(a, "role") in ("baseline", "member")
    ]
    if not any(k or skip or found != "semantic" for _, k, skip, found in views):
        return ""

    def nth(n: int) -> str:
        return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"

    def which(k: int, skip: int) -> str:
        k = k or k_default
        return f"the {k} nearest" if not skip else f"the {nth(skip + 1)}-{nth(skip + k)} nearest"

    how = {"semantic": "", "lexical": " by shared words"}
    return "; ".join(f"{name}: {which(k, skip)}{how.get(found, '')}" for name, k, skip, found in views)


def _words(protocol: str, k: str, v: Any, aids: dict[str, Any], agents: Sequence[Any] = ()) -> str:
    """What one aid does, in words a newcomer reads (the parameter names follow in brackets)."""
    who = "each member" if protocol == "council" else "the model"
    if k == "demos" and v == "dialogue":
        if slices := _slices(list(agents), int(aids.get("k_demos", K_DEMOS))):
            return (
                f"{who} first reads its own slice of the most similar CheckThat train tweets ({slices}), "
                "each answered with its gold label"
                + (
                    "; by meaning (MiniLM) unless it says by shared words (TF-IDF)"
                    if "by shared words" in slices
                    else ""
                )
            )
        return (
            f"{who} first reads the {aids.get('k_demos', K_DEMOS)} most similar CheckThat train tweets, "
            "each answered with its gold label"
        )
    if k == "answer" and v == "label-first":
        return "the label is written first, under a JSON schema, so every answer is readable"
    if k == "calibration" and v == "threshold":
        return f"{who}'s P(YES) is held against a threshold fitted on CheckThat train" + (
            ", which counts a member's vote as that decision even where it wrote the other label "
            "(the verdict's headline then gives both counts)"
            if protocol == "council"
            else ", a calibrated reading shown beside the label it wrote as a second opinion where they "
            "differ (the answer stays the label written unless calibrated_reading is on)"
        )
    if k == "vote_from" and v == "probs":
        return "votes are counted from the members' label probabilities, not from the label they wrote"
    if k == "explain" and v == "after":
        return (
            "one sentence of explanation follows each label (a member whose lineup entry says explain: false, "
            "such as the embedded SmolLM2, gives its vote alone)"
        )
    if k == "keep_first_vote" and v:
        return (
            f"{', '.join(_blind_members(agents)) or 'a SmolLM2 member'} votes once and its first vote stands in the "
            "discussion rounds (SmolLM2's discussion votes did not depend on the tweet: P(YES) 0.71-0.87 in all 34 "
            "measured)"
        )
    if k == "chair_status" and v == "tally":
        return "the chair's status is the tally's own state, and its one-sentence summary follows it"
    if k == "judge_answer" and v == "constrained":
        return (
            "the judge answers under its JSON schema, its reason first and its label after it, so its verdict is "
            "always readable, with label probabilities, and follows what it wrote"
        )
    if k == "judge_calibration" and v == "fitted":
        return (
            "the judge's label probabilities are weighted by class weights fitted on LIAR train, a calibrated "
            "reading shown beside the verdict it wrote as a second opinion where they differ (the verdict "
            "stays the label written unless calibrated_reading is on)"
        )
    if k == "state_side" and v is True:
        return (
            "each debater with a side is told which side it argues, in a line after the paper's prompt (the "
            "politician for the claim, the scientist against it; in a debate about a tweet's category, the "
            "proponents YES and the opponents NO)"
        )
    if k == "hold_side" and v is True and protocol in ("single", "team"):
        return (
            "a debater may not write the other side's words about the tweet (for scientific claims: the opponent "
            'not that it "contains scientific claims", the proponent not that it "does not contain" them)'
        )
    if k == "open_side" and v is True and protocol in ("single", "team"):
        return (
            "each argument begins with its side's words about the tweet, written by the engine and marked so "
            '("The tweet contains no scientific claim." from the opponent), and the model goes on from them'
        )
    if k == "open_side" and v is True:
        return (
            "each argument of a debater with a side begins with its side's words, written by the engine and marked "
            'so ("I oppose the claim."), and the model goes on from them'
        )
    if k == "hold_side" and v is True:
        return (
            'a debater with a side may not call the claim what the other side says ("the claim is false" from '
            "the politician) nor declare the other side's position"
        )
    return ""


def describe(protocol: str, task: str, categories: list, agents: list, defaults: dict[str, Any]) -> str:
    """One line for the page: what the aids change here, in words, then the values beside the papers'."""
    full = overrides(protocol, task, categories, agents)
    o = {k: v for k, v in full.items() if defaults.get(k) != v}
    if not o:
        return "No small-model aid applies to this protocol and task: the papers' settings."
    words = [w for w in (_words(protocol, k, v, full, agents) for k, v in o.items()) if w]
    missing = ""
    if AIDS.get(protocol, {}).get("calibration") == "threshold" and full.get("calibration") == "none":
        missing = " No threshold is fitted for these models and this category, so labels count as written."
    if AIDS.get(protocol, {}).get("judge_calibration") == "fitted" and full.get("judge_calibration") == "none":
        missing = " No class weights are fitted for this judge's model, so its verdict counts as written."
    words[0] = words[0][0].upper() + words[0][1:]
    values = ", ".join(f"{k} = {v} (paper: {defaults.get(k)})" for k, v in o.items())
    return f"Small-model aids: {'; '.join(words)}.{missing} Values: {values}. Off: the papers' settings."
