"""Who plays which part: lineup presets, lineup files, and their resolution into agents per protocol.

A lineup is plain JSON so people can save and share one:
    {"name": ..., "description": ...,
     "members": [{"name": "Qwen3", "model": "ollama:qwen3:8b", "temperature": 0.8, "seed": 2}, ...],
     "judge": {...}, "chair": {...},                       # default: the first member at temperature 0
     "roles": {"proponent": {...}, "politician": {...}, ...},   # optional per-role overrides
     "teams": {"proponent": [...], "opponent": [...]}}          # optional, team debate "different" config
Every protocol draws its agents from it (`debate.protocols.resolve_agents`: the seats of its declared roles), so
one lineup serves every protocol.
Temperatures and seeds are per agent: with a fixed seed even a sampled answer is reproducible (and cached).
With the small-model aids' demonstrations (demos=dialogue) a member entry may also say which of the tweet's
nearest CheckThat train tweets it reads: "demo_skip" passes over the nearest ones, "k_demos" sets how many
follow (0 = the protocol's k_demos), "neighbours": "lexical" finds them by shared words (TF-IDF) instead of
by meaning. Members that read disjoint slices, or search differently, know different labelled examples.
"explain": false makes a council member answer with its vote alone under the aids (a model whose votes
count but whose words do not read well: the embedded SmolLM2-135M).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from debate.errors import DebateError, InvalidInput
from debate.models import packaged
from debate.models.spec import ModelSpec, several_servers

# The paper's Ollama models (TurQUaz Sec. 4.1: Q4_K_M quantisations except Mistral Q4_0, which are the
# default tags below). The paper states no temperature; 0.8 is Ollama's default, seeds make it repeatable.
_G, _Q, _D, _P, _M, _L = (
    "ollama:gemma3:12b",
    "ollama:qwen3:8b",
    "ollama:deepseek-r1:8b",
    "ollama:phi4:14b",
    "ollama:mistral:7b",
    "ollama:llama3.1:8b",
)


def _m(name: str, model: str, temperature: float, seed: int) -> dict:
    return {"name": name, "model": model, "temperature": temperature, "seed": seed}


def _o(ollama_spec: str) -> str:
    """The OpenAI-compatible spec of one of the paper's Ollama models, under the same name."""
    return "openai:" + ollama_spec.split(":", 1)[1]


# Names that read as the paper's setting wherever it runs: `--server` points them at any server.
ALIASES = {"paper-council": "paper-council-ollama", "paper-debate": "paper-debate-ollama"}


def _embedded_members() -> list[dict]:
    """The offline council: Qwen2.5-Coder-0.5B-Instruct and SmolLM2-135M-Instruct, mixed, each member with its own seed and
    temperature (a fresh list per preset, so editing one preset's copy never changes another's)."""
    return [
        _m("qwen-a", "local:qwen2.5-coder-0.5b", 0.7, 101),
        # SmolLM2 votes and says nothing more: measured on 30 CheckThat dev tweets (docs/content-benchmark.md),
        # its explanations held every cut, repeating, copied-format and most invented-figure turns of the
        # council (digit strings, letter chains, "lelace lelace …"); its vote is decoded first, unchanged
        {**_m("smol-a", "local:smollm2-135m", 0.7, 202), "explain": False},
        _m("qwen-b", "local:qwen2.5-coder-0.5b", 1.0, 303),
    ]


def _embedded_teams() -> dict[str, list[dict]]:
    """The team debate's seats offline: four Qwen2.5-Coder-0.5B-Instruct speakers, none SmolLM2-135M. Split from
    the members by position, the proponent team's second seat was SmolLM2, whose turns in the other protocols'
    free-text seats looped, wandered off the claim and argued the other side (docs/content-benchmark.md); its
    team turns said "I will present evidence that supports my team's position" and nothing else. The second
    proponent is the Qwen that argues against the claim in RADAR and the single debate (seed 202). Read blind on
    three held-out tweets the two seatings tied, 3 judgements to 3: the Qwen seats argue, sometimes both sides
    or from an invented study; SmolLM2's filled turns with nothing (docs/content-benchmark.md "The team
    debate's seats")."""
    return {
        "proponent": [
            _m("qwen-a", "local:qwen2.5-coder-0.5b", 0.7, 101),
            _m("qwen-c", "local:qwen2.5-coder-0.5b", 0.7, 202),
        ],
        "opponent": [
            _m("qwen-b", "local:qwen2.5-coder-0.5b", 1.0, 303),
            _m("qwen-a", "local:qwen2.5-coder-0.5b", 0.7, 101),
        ],
    }


# what a presenter should expect of the larger preset, measured with a browser watching on 2 cores
# (bench/bench_live.py --lineup embedded-larger, docs/benchmarks.md "The larger embedded lineup")
LARGER_TIME = (
    "Measured on 2 CPU cores: RADAR reaches its verdict about 66 s after Run (the default lineup: about "
    "28 s); a council about 10 s, as the default's, when its members agree at once. Each discussion round "
    "the 1.5B chair summarises adds about 20 s (estimated from its measured speed)."
)

PRESETS: dict[str, dict] = {
    "embedded": {
        "name": "embedded",
        "description": "Offline: the packaged Qwen2.5-Coder-0.5B-Instruct (a code model, the only Qwen the "
        "packages carry) and SmolLM2-135M-Instruct, mixed, each member with its own seed and temperature; "
        "Qwen2.5-Coder-0.5B argues both sides of RADAR and the single debate, judges and chairs (at "
        "temperature 0); SmolLM2 votes in the council, without words; the team debate's four seats are Qwen.",
        # the council whose Qwen members read different train tweets (assets/lineups/council-candidates/
        # b-split-qwen.json) argues more often and so misses the default click's time (README "A council
        # whose members differ"), with no measured gain on train: the default keeps these members
        "members": _embedded_members(),
        "judge": _m("judge", "local:qwen2.5-coder-0.5b", 0.0, 0),
        "chair": _m("chair", "local:qwen2.5-coder-0.5b", 0.0, 0),
        # the side against the claim would be the second member, SmolLM2, by position. As the single
        # debate's opponent its turns argued the proponent's case and wrote about themselves (held-out sweep,
        # bench/results/substance-sweep-b-2026-12-06); as RADAR's scientist they looped, wandered off the
        # claim and invented studies, and on 30 held-out claims a blind reading preferred the debates with a
        # Qwen in that seat in 21 of 30 pairs (bench/results/blind-radar-seats-held-2026-12-07-result.json).
        # A Qwen argues against the claim in RADAR and the single debate, and every team debate seat is a Qwen
        # (`_embedded_teams`); SmolLM2 votes in the council, without words
        "roles": {r: _m(r, "local:qwen2.5-coder-0.5b", 0.7, 202) for r in ("opponent", "scientist", "critic")},
        "teams": _embedded_teams(),
    },
    # The same offline models with the packaged Qwen2.5-Coder-1.5B where one model's words carry the
    # debate: RADAR's two debaters and its judge, the council's chair (its summary is what every member
    # reads). Members stay small (three 1.5B votes would triple the council's click for votes the fitted
    # thresholds already steady); the stop agent stays 0.5B (one word). docs/numbers-on-screen.md has the
    # measured content and time beside the default's.
    "embedded-larger": {
        "name": "embedded-larger",
        "description": "Offline, slower: the packaged Qwen2.5-Coder-1.5B-Instruct argues RADAR's two sides, "
        "judges, and chairs the council; members stay Qwen2.5-Coder-0.5B-Instruct and SmolLM2-135M-Instruct. "
        + LARGER_TIME,
        "members": _embedded_members(),
        "judge": _m("judge", "local:qwen2.5-coder-1.5b", 0.0, 0),
        "chair": _m("chair", "local:qwen2.5-coder-1.5b", 0.0, 0),
        "roles": {
            "politician": _m("politician", "local:qwen2.5-coder-1.5b", 0.7, 101),
            "scientist": _m("scientist", "local:qwen2.5-coder-1.5b", 0.7, 202),
            "advocate": _m("advocate", "local:qwen2.5-coder-1.5b", 0.7, 101),
            "critic": _m("critic", "local:qwen2.5-coder-1.5b", 0.7, 202),
            "single": _m("agent", "local:qwen2.5-coder-1.5b", 0.7, 101),
            "opponent": _m("opponent", "local:qwen2.5-coder-0.5b", 0.7, 202),  # as the default's
            "stop": _m("stop-agent", "local:qwen2.5-coder-0.5b", 0.0, 0),
        },
        "teams": _embedded_teams(),  # as the default's
    },
    "paper-council-ollama": {
        "name": "paper-council-ollama",
        "description": "TurQUaz council (Sec. 4.1): Gemma3 12B, Qwen3 8B, DeepSeek-R1 8B, Phi4 14B and "
        "Mistral 7B as members, Llama3.1 8B as chairperson, all through Ollama.",
        "members": [
            _m("Gemma3", _G, 0.8, 1),
            _m("Qwen3", _Q, 0.8, 2),
            _m("DeepSeek-R1", _D, 0.8, 3),
            _m("Phi4", _P, 0.8, 4),
            _m("Mistral", _M, 0.8, 5),
        ],
        "judge": _m("Llama3.1", _L, 0.0, 0),
        "chair": _m("Llama3.1", _L, 0.8, 6),
    },
    # The same council on an OpenAI-compatible server (vLLM, llama.cpp server, LM Studio): the server's
    # base URL comes from the settings or OPENAI_BASE_URL, its names for the models from `--server` /
    # `--model-map` (debate/lineup_server.py) when they are not the Ollama tags used here.
    "paper-council-openai": {
        "name": "paper-council-openai",
        "description": "TurQUaz council (Sec. 4.1) on an OpenAI-compatible server (vLLM, llama.cpp server, LM "
        "Studio): Gemma3 12B, Qwen3 8B, DeepSeek-R1 8B, Phi4 14B, Mistral 7B, Llama3.1 8B chairing; "
        "map the server's own model names with --model-map or the lineup's server box.",
        "members": [
            _m("Gemma3", _o(_G), 0.8, 1),
            _m("Qwen3", _o(_Q), 0.8, 2),
            _m("DeepSeek-R1", _o(_D), 0.8, 3),
            _m("Phi4", _o(_P), 0.8, 4),
            _m("Mistral", _o(_M), 0.8, 5),
        ],
        "judge": _m("Llama3.1", _o(_L), 0.0, 0),
        "chair": _m("Llama3.1", _o(_L), 0.8, 6),
    },
    "paper-debate-ollama": {
        "name": "paper-debate-ollama",
        "description": "TurQUaz single/team debates (Sec. 4.1): DeepSeek-R1 vs Qwen3; Team A (Gemma3, Qwen3, "
        "Mistral) vs Team B (DeepSeek-R1, Phi4, Llama3.1); Llama3.1 judges. RADAR roles use "
        "Llama3 8B, one of RADAR's backbones.",
        "members": [
            _m("Gemma3", _G, 0.8, 1),
            _m("Qwen3", _Q, 0.8, 2),
            _m("DeepSeek-R1", _D, 0.8, 3),
            _m("Phi4", _P, 0.8, 4),
            _m("Mistral", _M, 0.8, 5),
            _m("Llama3.1", _L, 0.8, 6),
        ],
        "judge": _m("Llama3.1", _L, 0.0, 0),
        "chair": _m("Llama3.1", _L, 0.8, 6),
        "roles": {
            "proponent": _m("DeepSeek-R1", _D, 0.8, 3),
            "opponent": _m("Qwen3", _Q, 0.8, 2),
            **{
                r: _m(r.capitalize(), "ollama:llama3:8b", 0.0 if r in ("judge", "stop") else 0.8, i)
                for i, r in enumerate(
                    ("politician", "scientist", "journalist", "expert", "advocate", "critic", "single", "stop"), 10
                )
            },
        },
        "teams": {
            "proponent": [_m("Gemma3", _G, 0.8, 1), _m("Qwen3", _Q, 0.8, 2), _m("Mistral", _M, 0.8, 5)],
            "opponent": [_m("DeepSeek-R1", _D, 0.8, 3), _m("Phi4", _P, 0.8, 4), _m("Llama3.1", _L, 0.8, 6)],
        },
    },
}


@dataclass
class Agent:
    agent: str  # unique display name in this debate
    role: str
    model: str
    temperature: float = 0.0
    seed: int | None = 0
    k_demos: int = 0  # demonstrations this agent reads (0 = the protocol's k_demos)
    demo_skip: int = 0  # nearest train tweets it passes over before its k_demos
    neighbours: str = "semantic"  # how those neighbours are found: "semantic" (MiniLM) or "lexical" (TF-IDF)
    # False: with the small-model aids, this council member gives its vote alone, no explanation (a model
    # whose votes count but whose words do not read: the 135M model's explanations are digits and loops)
    explain: bool = True

    def to_dict(self) -> dict:
        """The agent as stored in events; the view fields only when set, so ordinary seats read as before."""
        d = asdict(self)
        for k in VIEW_FIELDS:
            if not d[k] or d[k] == NEIGHBOURS[0]:
                d.pop(k)
        if d["explain"]:
            d.pop("explain")
        return d


VIEW_FIELDS = ("k_demos", "demo_skip", "neighbours")
# How a member's nearest train tweets are found (the default first): by meaning (MiniLM cosine) or by
# shared words (TF-IDF cosine, debate/aids/lexical.py). Members that search differently read other examples.
NEIGHBOURS = ("semantic", "lexical")


MAX_SEAT_NAME = 80  # a seat's name, as people type it in a lineup


def _check_entry(e: Any, where: str) -> dict:
    if not isinstance(e, dict) or not str(e.get("model", "")).strip():
        raise InvalidInput(
            f"Lineup entry {where} has no model.",
            'Each entry needs at least {"model": "backend:model"}, e.g. "local:qwen2.5-coder-0.5b".',
        )
    if isinstance(e["model"], list):
        raise several_servers(f"Lineup entry {where}")
    ModelSpec.parse(str(e["model"]))  # raises InvalidInput with a hint
    try:
        float(e.get("temperature", 0.0))
    except (TypeError, ValueError):
        raise InvalidInput(
            f"Lineup entry {where} has a temperature that is not a number.", "Use a number such as 0 or 0.7."
        ) from None
    seed = e.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidInput(
            f"Lineup entry {where} has a seed that is not a whole number.", "Use e.g. 0 or 1, or leave it out."
        )
    if not isinstance(e.get("name", ""), str):
        raise InvalidInput(f"Lineup entry {where} has a name that is not text.", 'Use e.g. "name": "Qwen3".')
    if len(e.get("name", "")) > MAX_SEAT_NAME:  # shown on every turn, chip and export
        raise InvalidInput(
            f"Lineup entry {where} has a name of {len(e['name']):,} characters; at most {MAX_SEAT_NAME} are allowed.",
            'Use a short name, e.g. "name": "Qwen3".',
        )
    if (e.get("neighbours") or NEIGHBOURS[0]) not in NEIGHBOURS:
        raise InvalidInput(
            f"Lineup entry {where} has neighbours = {str(e.get('neighbours'))[:40]!r}.",
            'Use "neighbours": "lexical" (train tweets sharing the most words) or "semantic" '
            "(the most similar in meaning, the default), or leave it out.",
        )
    if not isinstance(e.get("explain", True), bool):
        raise InvalidInput(
            f"Lineup entry {where} has explain = {str(e.get('explain'))[:40]!r}.",
            'Use "explain": false (a council member that only votes) or leave it out.',
        )
    for k in VIEW_FIELDS[:2]:
        v = e.get(k, 0)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 64:
            raise InvalidInput(
                f"Lineup entry {where} has {k} = {v!r}, not a whole number from 0 to 64.",
                f'Use e.g. "{k}": 4, or leave it out.',
            )
    return e


def load_lineup(ref: str | dict) -> dict:
    """A lineup from a preset name, a JSON file path or a dict, checked and with judge/chair filled in."""
    if isinstance(ref, dict):
        data = copy.deepcopy(ref)
    else:
        name = (ref or "").strip()
        name = ALIASES.get(name, name)
        if name in PRESETS:
            data = copy.deepcopy(PRESETS[name])
        elif name.endswith(".json") or Path(name).is_file():
            path = Path(name).expanduser()
            if not path.is_file():
                raise InvalidInput(f"Lineup file {name} does not exist.", "Check the path.")
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError) as e:
                raise InvalidInput(
                    f"Lineup file {name} is not valid JSON ({str(e)[:200] or type(e).__name__}).",
                    "See debate/lineups.py for the format.",
                ) from None
            if not isinstance(data, dict):
                raise InvalidInput(
                    f"Lineup file {name} holds a JSON {type(data).__name__}, not an object.",
                    'Write it as {"name": ..., "members": [{"model": "local:qwen2.5-coder-0.5b"}, ...]}.',
                )
            data.setdefault("name", path.stem)
        else:
            raise InvalidInput(
                f"Unknown lineup {name!r}.", f"Use a preset ({', '.join(PRESETS)}) or the path to a lineup JSON file."
            )
    if not isinstance(data, dict):
        raise InvalidInput("A lineup must be a JSON object.", "See debate/lineups.py for the format.")
    members = data.get("members")
    if not isinstance(members, list) or not members:
        raise InvalidInput("The lineup has no members.", 'Add "members": [{"model": "local:qwen2.5-coder-0.5b"}, ...].')
    for i, m in enumerate(members):
        _check_entry(m, f"members[{i}]")
    for key in ("judge", "chair"):
        if data.get(key) is None:
            first = members[0]
            data[key] = {"name": key, "model": first["model"], "temperature": 0.0, "seed": 0}
        _check_entry(data[key], key)
    for key in ("roles", "teams"):
        if not isinstance(data.get(key) or {}, dict):
            raise InvalidInput(
                f"The lineup's {key!r} is not a JSON object.",
                'Write it as in debate/lineups.py, e.g. "roles": {"judge": {"model": '
                '"local:qwen2.5-coder-0.5b"}}, or leave it out.',
            )
    for side, lst in (data.get("teams") or {}).items():
        if not isinstance(lst or [], list):
            raise InvalidInput(
                f"The lineup's team {side!r} is not a list of entries.", 'Write it as [{"model": "..."}, ...].'
            )
    for role, entry in (data.get("roles") or {}).items():
        _check_entry(entry, f"roles.{role}")
    for side, lst in (data.get("teams") or {}).items():
        for i, entry in enumerate(lst or []):
            _check_entry(entry, f"teams.{side}[{i}]")
    data.setdefault("name", "custom")
    return data


def _short(model: str) -> str:
    return re.sub(r"^[a-z]+:", "", model).split("@")[0].split("/")[-1]


class _Namer:
    def __init__(self) -> None:
        self.used: dict[str, int] = {}

    def __call__(self, base: str) -> str:
        n = self.used.get(base, 0) + 1
        self.used[base] = n
        return base if n == 1 else f"{base}#{n}"


def _agent(entry: dict, role: str, name: str, seed_offset: int = 0) -> Agent:
    seed = entry.get("seed", 0)
    return Agent(
        name,
        role,
        packaged.canonical_spec(str(entry["model"]).strip()),  # an old packaged name runs under its own
        float(entry.get("temperature", 0.0)),
        None if seed is None else int(seed) + seed_offset,
        int(entry.get("k_demos", 0) or 0),
        int(entry.get("demo_skip", 0) or 0),
        str(entry.get("neighbours") or NEIGHBOURS[0]),
        entry.get("explain", True) is not False,
    )


class Seating:
    """What a protocol's seats are drawn from: the lineup's entries, and names kept unique.

    `role(r, default)` is the lineup's `roles[r]` entry when it has one, else `default`; `member(i)` the
    i-th member (wrapping round); `judge` and `chair` the lineup's; `seat(entry, role, name)` the Agent,
    its name made unique in the debate ("pro-1", "judge", a second "judge" becomes "judge#2")."""

    def __init__(self, lineup: dict) -> None:
        self.lineup = lineup
        self.members: list[dict] = lineup["members"]
        self.roles: dict = lineup.get("roles") or {}
        self.judge: dict = lineup["judge"]
        self.chair: dict = lineup["chair"]
        self._name = _Namer()

    def role(self, role: str, default: dict) -> dict:
        return self.roles.get(role) or default

    def member(self, i: int) -> dict:
        return self.members[i % len(self.members)]

    def member_name(self, entry: dict) -> str:
        return entry.get("name") or _short(entry["model"])

    def seat(self, entry: dict, role: str, name: str, seed_offset: int = 0) -> Agent:
        return _agent(entry, role, self._name(name), seed_offset)


def seats_from_roles(lineup: dict, roles: tuple[str, ...], params: dict | None = None) -> list[Agent]:
    """One seat per declared role, in the order declared, each named for its role: the lineup's entry for
    that role (`roles`) when it has one, else its judge for "judge" and its chair for "chair", else the
    member in the role's place among the others (the first the first member, the second the second, …). A protocol whose seats depend on its parameters (a council of N members, teams)
    declares its own `seating` instead (ProtocolInfo in debate/protocols/base.py)."""
    s = Seating(lineup)
    out: list[Agent] = []
    for role in roles:
        fallback = {"judge": s.judge, "chair": s.chair}.get(role)
        if fallback is None:
            fallback = s.member(sum(a.role not in ("judge", "chair") for a in out))
        out.append(s.seat(s.role(role, fallback), role, role))
    return out


def check_models(lineup: str | dict, client, agents: list[Agent] | None = None) -> list[dict]:
    """One row per distinct model of `agents` (default: every entry of the lineup): {model, ok, status,
    detail, agents}. Never raises for a down backend: the point is to tell a person, before a run, which
    models are not there and why. `debate.protocols.validate_lineup` gives it a protocol's seats."""
    lu = load_lineup(lineup)
    if agents is None:
        entries = list(lu["members"]) + [lu["judge"], lu["chair"]] + list((lu.get("roles") or {}).values())
        agents = [_agent(e, "", e.get("name") or _short(e["model"])) for e in entries]
    by_model: dict[str, list[str]] = {}
    for a in agents:
        by_model.setdefault(a.model, []).append(a.agent)
    rows: list[dict] = []
    listed: dict[str, Any] = {}
    for model, names in by_model.items():
        spec = ModelSpec.parse(model)
        row = {"model": model, "ok": False, "status": "missing", "detail": "", "agents": names}
        try:
            backend = client.backend_for(spec)
            key = f"{spec.backend}@{spec.base_url or ''}"
            if key not in listed:
                listed[key] = backend.list_models()
            infos = listed[key]
            match = next((i for i in infos if i.spec == str(spec) or i.name == spec.model), None)
            if match is None and spec.backend == "local" and Path(spec.model).suffix == ".gguf":
                ok = Path(spec.model).expanduser().is_file()
                row.update(ok=ok, status="ready" if ok else "missing", detail="" if ok else f"no file at {spec.model}")
            elif match is None and (down := next((i for i in infos if not i.name and i.status != "ready"), None)):
                # the backend listed itself as down (one row, no model name): say so, not "not listed"
                row.update(status="unreachable", detail=down.detail)
            elif match is None:
                known = ", ".join(sorted(i.name for i in infos if i.name)[:12]) or "none"
                row["detail"] = f"{spec.backend} does not list {spec.model!r} (it has: {known})."
            else:
                row.update(ok=match.status == "ready", status=match.status, detail=match.detail)
        except DebateError as e:
            row.update(status="unreachable", detail=str(e))
        rows.append(row)
    return rows
