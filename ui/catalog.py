"""What the engine offers, read from the engine (no Streamlit): protocols, tasks, lineup presets.

The page never keeps its own copy of protocol titles, parameters or defaults: they come from each
protocol's ProtocolInfo, so the paper defaults shown are the ones the engine uses.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from debate.tasks import TASK_TITLES

PROTOCOL_ORDER = ("council", "single", "team", "baseline", "radar", "radar-single")  # the picker's first
TASKS = TASK_TITLES  # the engine's one list of tasks, with their titles
CATEGORIES = {
    1: "1 · scientific claim",
    2: "2 · reference to a study",
    3: "3 · scientific entities",
    None: "all three (with the cat 2 ⇒ cat 3 rule)",
}
PRESET_TITLES = {
    "embedded": "Embedded (offline)",
    "embedded-larger": "Embedded, larger (slower)",
    "paper-council-ollama": "Paper council (Ollama)",
    "paper-council-openai": "Paper council (OpenAI-compatible server)",
    "paper-debate-ollama": "Paper debates (Ollama)",
}


def protocols() -> dict[str, Any]:
    """name -> ProtocolInfo, from the engine's registry (other packages' protocols too), the papers' first
    in the order the picker shows them."""
    from debate.protocols import PROTOCOLS

    order = [n for n in PROTOCOL_ORDER if n in PROTOCOLS] + [n for n in PROTOCOLS if n not in PROTOCOL_ORDER]
    return {n: PROTOCOLS[n] for n in order}


def param_kind(name: str, default: Any, choices: dict | None = None) -> str:
    if name in (choices or {}):
        return "choice"
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    return "text"


def presets() -> dict[str, dict]:
    from debate.lineups import PRESETS

    return copy.deepcopy(PRESETS)


def preset_title(name: str) -> str:
    return PRESET_TITLES.get(name, name)


def resolve(lineup: dict | str, protocol: str, params: dict) -> list[dict]:
    """The agents `protocol` would use with this lineup: [{agent, role, model, temperature, seed}]."""
    from debate.lineups import load_lineup
    from debate.protocols import resolve_agents

    return [a.to_dict() for a in resolve_agents(load_lineup(lineup), protocol, params)]


def with_models(base: dict, protocol: str, params: dict, models: dict[str, str]) -> dict:
    """A lineup like `base` where the named agents of `protocol` use the given models.

    The edit is written where resolve_agents reads it (members, chair, judge, roles, teams), so the
    edited lineup resolves to exactly the agents shown, and other protocols still get sensible agents."""
    lu = copy.deepcopy(base)
    agents = resolve(lu, protocol, params)

    def entry(a: dict) -> dict:
        return {
            "name": a["agent"],
            "model": models.get(a["agent"], a["model"]),
            "temperature": a["temperature"],
            "seed": a["seed"],
        }

    roles = lu.setdefault("roles", {})
    if protocol == "council":
        members = [a for a in agents if a["role"] == "member"]
        n = len(lu["members"])
        for i, a in enumerate(members[:n]):
            lu["members"][i] = {**lu["members"][i], "model": models.get(a["agent"], a["model"])}
        for a in members[n:]:
            lu["members"].append(entry(a))
        chair = next(a for a in agents if a["role"] == "chair")
        roles.pop("chair", None)
        lu["chair"] = {**lu["chair"], "model": models.get(chair["agent"], chair["model"])}
    elif protocol == "team":
        pro = [entry(a) for a in agents if a["role"] == "proponent"]
        opp = [entry(a) for a in agents if a["role"] == "opponent"]
        if str(params.get("config", "different")) == "same":
            lu["members"] = pro + lu["members"][len(pro) :]
        else:
            lu["teams"] = {"proponent": pro, "opponent": opp}
    elif protocol == "baseline":
        idx = int(params.get("member", 1)) - 1
        lu["members"][idx] = {**lu["members"][idx], "model": models.get(agents[0]["agent"], agents[0]["model"])}
        roles.pop("baseline", None)
    else:
        for a in agents:
            role = {"judge": "judge", "stop-agent": "stop", "baseline": "baseline"}.get(a["role"], a["role"])
            if protocol == "radar-single" and a["role"] != "judge":
                role = "single"
            if role == "judge":
                roles.pop("judge", None)
                lu["judge"] = {**lu["judge"], "model": models.get(a["agent"], a["model"])}
            else:
                roles[role] = entry(a)
    lu["name"] = "custom"
    return lu


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", (text or "").lower()).strip("-")[:40] or "lineup"


def run_summary(agents: list[dict], params: dict, max_tokens: int) -> str:
    """One line saying what Run will ask of the models (a live demo says its defaults, as they differ
    from the papers'): who speaks, how many rounds at most and why it may end sooner, and the answer budget."""
    models = ", ".join(f"{a['agent']} ({a['model'].split(':', 1)[-1]})" for a in agents)
    rounds = params.get("rounds")
    parts = [f"{len(agents)} agent{'s' if len(agents) != 1 else ''}: {models}"]
    if rounds is not None:
        parts.append(
            f"up to {rounds} round{'s' if rounds != 1 else ''}"
            + (" (ends early on consensus or stable votes)" if "theta" in params else "")
        )
    parts.append(f"answers of at most {max_tokens} tokens, ended as soon as their JSON closes or they repeat")
    return "This run: " + "; ".join(parts) + "."
