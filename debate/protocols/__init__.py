"""The protocols, by the names the command line and the UI use: the one registry every list derives from.

`PROTOCOLS[name]` is a ProtocolInfo: title, one line on what it does, roles (its seats, drawn from a lineup
by `resolve_agents`), its parameters as name -> (default, description), defaults being the papers' values,
and where its prompt templates are. Protocols of other packages join it through the entry-point group
`debate.protocols` (each entry point names a ProtocolInfo; docs/architecture.md "Where new code goes"), or
by `register(info)`. Beside them: decisions.py (pure tallies, consensus, majority and tie rules, early
stopping) and parsing.py (pure, linear-time parsing of model answers), used by the protocols and by
teaching and evaluation.

Protocols layer: may import the aids (demonstrations, thresholds) and the parts below them (models,
prompts, tasks, lineups, retrieval); never the runner, which drives them.
"""

from __future__ import annotations

from typing import Any

from debate import lineups, plugins, prompts
from debate.errors import InvalidInput
from debate.lineups import Agent
from debate.models.client import ModelClient
from debate.protocols import baseline, council, radar, single, team
from debate.protocols.base import ProtocolInfo

ENTRY_POINT_GROUP = "debate.protocols"
BUILT_IN: tuple[ProtocolInfo, ...] = (
    single.INFO,
    team.INFO,
    council.INFO,
    baseline.INFO,
    radar.INFO,
    radar.SINGLE_INFO,
)
PROTOCOLS: dict[str, ProtocolInfo] = {info.name: info for info in BUILT_IN}
# entry points that could not be loaded: name -> why (`python -m debate protocols` lists them)
FAILED: dict[str, str] = {}


def register(info: ProtocolInfo) -> ProtocolInfo:
    """Adds a protocol to the registry (its prompt file, if it names one, to the templates)."""
    if not isinstance(info, ProtocolInfo):
        raise InvalidInput(
            f"A protocol must be registered as a ProtocolInfo, not a {type(info).__name__}.",
            "Point the entry point at the module's INFO (e.g. my_pkg.toy:INFO).",
        )
    if info.name in PROTOCOLS and PROTOCOLS[info.name] is not info:
        raise InvalidInput(f"A protocol named {info.name!r} is already registered.", "Give yours another name.")
    if info.run is None or not info.roles:
        raise InvalidInput(f"Protocol {info.name!r} has no run function or no roles.", "Set INFO's run= and roles=.")
    if info.prompt_file is not None:
        prompts.add_file(info.prompt_file)
    PROTOCOLS[info.name] = info
    return info


def _load_entry_points() -> None:
    """Registers every protocol other installed packages declare; one that fails is logged and left out
    (a broken plug-in must not stop the app), its error kept in FAILED."""
    plugins.load_entry_points(ENTRY_POINT_GROUP, "protocol", PROTOCOLS, register, FAILED)


def get(name: str) -> ProtocolInfo:
    info = PROTOCOLS.get((name or "").strip().lower())
    if info is None:
        raise InvalidInput(f"Unknown protocol {name!r}.", f"Use one of: {', '.join(PROTOCOLS)}.")
    return info


def resolve_agents(lineup: dict[str, Any], protocol: str, params: dict[str, Any] | None = None) -> list[Agent]:
    """The agents `protocol` uses with `lineup`, in speaking order, each with a unique name (its seats:
    ProtocolInfo.seat)."""
    return get(protocol).seat(lineup, params)


def validate_lineup(
    lineup: str | dict[str, Any], client: ModelClient, protocol: str | None = None, params: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """One row per distinct model of the seats `protocol` uses (every lineup entry without one):
    {model, ok, status, detail, agents}; never raises for a down backend (lineups.check_models)."""
    agents = resolve_agents(lineups.load_lineup(lineup), protocol, params) if protocol else None
    return lineups.check_models(lineup, client, agents)


_load_entry_points()

__all__ = ["PROTOCOLS", "ProtocolInfo", "register", "resolve_agents", "validate_lineup", "get"]
