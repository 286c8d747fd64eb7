"""The protocols, by the names the command line and the UI use.

`PROTOCOLS[name]` is a ProtocolInfo: title, one line on what it does, roles, and its parameters as
name -> (default, description), defaults being the papers' values.
"""

from __future__ import annotations

from debate.protocols import baseline, council, radar, single, team
from debate.protocols.base import ProtocolInfo

PROTOCOLS: dict[str, ProtocolInfo] = {
    info.name: info for info in (single.INFO, team.INFO, council.INFO, baseline.INFO, radar.INFO, radar.SINGLE_INFO)
}

__all__ = ["PROTOCOLS", "ProtocolInfo"]
