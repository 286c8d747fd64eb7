"""The protocols, by the names the command line and the UI use.

`PROTOCOLS[name]` is a ProtocolInfo: title, one line on what it does, roles, and its parameters as
name -> (default, description), defaults being the papers' values. Beside them: decisions.py (pure
tallies, consensus, majority and tie rules, early stopping) and parsing.py (pure, linear-time parsing of
model answers), used by the protocols and by teaching and evaluation.

Protocols layer: may import the aids (demonstrations, thresholds) and the parts below them (models,
prompts, tasks, lineups, retrieval); never the runner, which drives them.
"""

from __future__ import annotations

from debate.protocols import baseline, council, radar, single, team
from debate.protocols.base import ProtocolInfo

PROTOCOLS: dict[str, ProtocolInfo] = {
    info.name: info for info in (single.INFO, team.INFO, council.INFO, baseline.INFO, radar.INFO, radar.SINGLE_INFO)
}

__all__ = ["PROTOCOLS", "ProtocolInfo"]
