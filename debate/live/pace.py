"""Live-demo pace: the few settings that let the embedded models finish a debate while people watch.

The papers' settings (TurQUaz: up to 5 council rounds; answers of up to 256 tokens here) are written
for 7-14B models on a GPU. On two CPU cores the packaged 0.5B models need minutes for them, mostly
re-reading a growing discussion and finishing answers that loop. The demo pace changes only how long a
debate may run (fewer rounds at most, shorter answers), never what a round is: prompts, votes,
thresholds and the judge stay the papers'. The app starts at this pace for its embedded default and
says so; one toggle (or `--pace paper` on the command line) gives the papers' settings back.
"""

from __future__ import annotations

from typing import Any

from debate.events import Event

PACES = ("paper", "demo")
PAPER_MAX_TOKENS = 256
DEMO_MAX_TOKENS = 128
PAPER_TOP_K = 20  # RADAR: the top-20 retrieved passages per claim
DEMO_TOP_K = 6  # every RADAR prompt carries the whole pool: 6 ranked, floor-checked passages instead of 20
# protocol -> parameter overrides; a protocol not named here runs its own parameters with the shorter answers
DEMO_PARAMS: dict[str, dict[str, Any]] = {
    "council": {"rounds": 2},
    # protocols whose debaters argue in free text: asked for three sentences, which the packaged models
    # finish inside DEMO_MAX_TOKENS (a turn the budget still ends mid-sentence ends at its last full one)
    # the single debate argues one rebuttal round, as RADAR does: on 10 held-out tweets the 0.5B debaters'
    # second rebuttal mostly said their first again; one round took Run→verdict from 84.8 s to 69.1 s and was
    # preferred blind in 6 of 10 pairs, 3 against (docs/content-benchmark.md). The team debate is not
    # measured so yet and keeps two
    "single": {"rounds": 1, "answer_sentences": 3},
    "team": {"rounds": 2, "answer_sentences": 3},
    # RADAR: a rebuttal round is two debater turns and a stop check (stop agent + round judge, each reading
    # the whole debate so far); measured on 2 cores, a check costs about 70 % of a round's model work. At
    # 1 round (paper: up to 3) the two checks would be a third of the debate's work and could save at most
    # the closing and the judge, so the demo pace argues the one round out without them; RADAR then
    # reaches a verdict within a minute (README, "Live debates at the engine's speed")
    "radar": {"rounds": 1, "early_stop": False, "shared_evidence": True, "answer_sentences": 3},
    "radar-single": {"rounds": 2, "shared_evidence": True, "answer_sentences": 3},
}


LENGTH = "answer_sentences"  # the one paced parameter that changes a prompt (a line after the template)


def overrides(pace: str, protocol: str) -> dict[str, Any]:
    """Parameters that differ from the papers' defaults at this pace (only those the protocol has)."""
    if pace != "demo":
        return {}
    from debate.protocols import PROTOCOLS

    known = dict(PROTOCOLS[protocol].params) if protocol in PROTOCOLS else {}
    return {k: v for k, v in DEMO_PARAMS.get(protocol, {}).items() if k in known}


def _uses_evidence(protocol: str) -> bool:
    """Whether the protocol argues over evidence by default (its ProtocolInfo): the pace's top-k applies."""
    from debate.protocols import PROTOCOLS

    return protocol in PROTOCOLS and PROTOCOLS[protocol].uses_evidence


def max_tokens(pace: str) -> int:
    return DEMO_MAX_TOKENS if pace == "demo" else PAPER_MAX_TOKENS


def top_k(pace: str) -> int:
    return DEMO_TOP_K if pace == "demo" else PAPER_TOP_K


def describe(pace: str, protocol: str, paper_params: dict[str, tuple], aids: bool = False) -> str:
    """One line for the page: what the pace changes, beside the papers' values. With the small-model aids
    on, the votes and the judge's verdict are read their way (debate/aids.py), so the line does not call
    them the papers'."""
    rest = (
        "Prompts and the rules of each round are the papers'; the small-model aids (below) change how votes "
        "and the judge's verdict are read."
        if aids
        else "Prompts, votes, thresholds and the judge are the papers'."
    )
    if pace != "demo":
        return "The papers' rounds and answer length. " + rest if aids else "The papers' settings."
    paced = overrides(pace, protocol)
    if not aids and LENGTH in paced:
        rest = "Prompts (but for the length asked of arguments), votes, thresholds and the judge are the papers'."
    bits = [f"{k} {v} (paper: {paper_params[k][0]})" for k, v in paced.items() if k in paper_params and k != LENGTH]
    if LENGTH in paced:
        bits.append(f"arguments asked for at most {paced[LENGTH]} sentences (paper: no length asked)")
    bits.append(f"answers of at most {DEMO_MAX_TOKENS} tokens (paper setting here: {PAPER_MAX_TOKENS})")
    if _uses_evidence(protocol):
        bits.append(f"{DEMO_TOP_K} evidence passages (paper: {PAPER_TOP_K})")
    return "Live-demo pace: " + ", ".join(bits) + ". " + rest


def describe_many(pace: str, protocols: list[str], aids: bool = False) -> str:
    """`describe` for one or several protocols (Compare's columns): each protocol's paced values named."""
    from debate.protocols import PROTOCOLS

    protocols = [p for p in dict.fromkeys(protocols) if p in PROTOCOLS]
    if len(protocols) <= 1:
        name = protocols[0] if protocols else ""
        return describe(pace, name, dict(PROTOCOLS[name].params) if name else {}, aids)
    line = describe(pace, "", {}, aids)
    if pace != "demo":
        return line
    bits = [
        f"{p} {k} {v} (paper: {PROTOCOLS[p].params[k][0]})" for p in protocols for k, v in overrides(pace, p).items()
    ]
    return line.replace("Live-demo pace: ", "Live-demo pace: " + ", ".join(bits) + ", ", 1) if bits else line


def _search_words(settings: dict) -> str:
    """How the evidence was searched, for the settings line: two pages whose evidence differs for one claim
    must show why (another top-k, other sources, questions written for the search)."""
    if not isinstance(settings.get("top_k"), int):
        return ""
    sources = str(settings.get("sources") or "") or "every source that answers"
    q = int(settings.get("questions") or 0)
    return (
        f" (top {settings['top_k']} passages from {sources.replace(',', ', ')}"
        + (f", {q} search question{'s' if q > 1 else ''}" if q else "")
        + ")"
    )


def settings_line(started: Event | dict) -> str:
    """What a debate ran with, in one line, from its debate_started event: every parameter that differs
    from the papers' defaults (beside the paper's value), the answer budget, whether the live-demo pace
    and the small-model aids were on, and whether the agents saw the evidence. Read from the stored
    event, so a page shows the settings that ran, not the ones its widgets hold now."""
    from debate.aids.settings import AIDS
    from debate.protocols import PROTOCOLS

    get = started.get if isinstance(started, dict) else (lambda k, d=None: getattr(started, k, d))
    settings = get("settings") or {}
    protocol = str(get("protocol") or "")
    info = PROTOCOLS.get(protocol)
    params = settings.get("params") or {}
    paper = info.defaults() if info else {}
    changed = {k: v for k, v in params.items() if k in paper and paper[k] != v}
    max_tokens = settings.get("max_tokens")
    paced = max_tokens == DEMO_MAX_TOKENS and all(
        changed.get(k) == v for k, v in overrides("demo", protocol).items() if k != LENGTH
    )  # (debates stored before the length was asked had none)
    parts = [f"{protocol}"]
    if paced:
        parts.append("live-demo pace")
    if max_tokens is not None:
        parts.append(f"answers of at most {max_tokens} tokens (paper: {PAPER_MAX_TOKENS})")
    aid_values = {k: v for k, v in changed.items() if AIDS.get(protocol, {}).get(k) == v}
    aided = {k: v for k, v in changed.items() if k in AIDS.get(protocol, {})} if settings.get("aids") else aid_values
    own = {k: v for k, v in changed.items() if k not in aided}
    if own:
        parts.append(", ".join(f"{k} {v} (paper: {paper[k]})" for k, v in own.items()))
    if not settings.get("aids") and aided:
        # the switch was off, yet the aids' values ran (a fork keeps the parameters of the debate it
        # continues, aids and all): never "aids off" beside a recalibrated judge
        whence = " (kept from the debate it continues)" if get("forked_from") else " (set by hand)"
        parts.append(
            "small-model aids' values in effect"
            + whence
            + ": "
            + ", ".join(f"{k} {v} (paper: {paper[k]})" for k, v in aided.items())
        )
    elif settings.get("aids"):
        parts.append(
            "small-model aids on"
            + (
                ": " + ", ".join(f"{k} {v} (paper: {paper[k]})" for k, v in aided.items())
                if aided
                else ", none applies here"
            )
        )
    else:
        parts.append("small-model aids off")
    if "evidence_on" in settings:
        parts.append(
            (
                "evidence in the agents' prompts"
                if settings["evidence_on"]
                else "evidence shown, not given to the agents"
            )
            + _search_words(settings)
        )
    return "Ran with: " + " · ".join(parts) + "."
