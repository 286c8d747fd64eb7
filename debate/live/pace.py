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

PACES = ("paper", "demo")
PAPER_MAX_TOKENS = 256
DEMO_MAX_TOKENS = 128
DEMO_PARAMS: dict[str, dict[str, Any]] = {  # protocol -> parameter overrides
    "council": {"rounds": 2},
    "single": {"rounds": 2},
    "team": {"rounds": 2},
    "radar": {"rounds": 2},
    "radar-single": {"rounds": 2},
}


def overrides(pace: str, protocol: str) -> dict[str, Any]:
    """Parameters that differ from the papers' defaults at this pace (only those the protocol has)."""
    if pace != "demo":
        return {}
    from debate.protocols import PROTOCOLS

    known = dict(PROTOCOLS[protocol].params) if protocol in PROTOCOLS else {}
    return {k: v for k, v in DEMO_PARAMS.get(protocol, {}).items() if k in known}


def max_tokens(pace: str) -> int:
    return DEMO_MAX_TOKENS if pace == "demo" else PAPER_MAX_TOKENS


def describe(pace: str, protocol: str, paper_params: dict[str, tuple]) -> str:
    """One line for the page: what the pace changes, beside the papers' values."""
    if pace != "demo":
        return "The papers' settings."
    bits = [f"{k} {v} (paper: {paper_params[k][0]})" for k, v in overrides(pace, protocol).items()
            if k in paper_params]
    bits.append(f"answers of at most {DEMO_MAX_TOKENS} tokens (paper setting here: {PAPER_MAX_TOKENS})")
    return "Live-demo pace: " + ", ".join(bits) + ". Prompts, votes, thresholds and the judge are the papers'."
