"""One lineup on one server: every seat of a lineup pointed at an Ollama or OpenAI-compatible server.

A GPU host serves the paper's models under names of its own: Ollama under its tags (`gemma3:12b`), vLLM
under `--served-model-name`, llama.cpp's server under each `model_alias`, LM Studio under its model
identifiers (`google/gemma-3-12b`). `on_server` rewrites each seat's spec to `backend:NAME[@URL]`, NAME
found, for each model the lineup names, in this order:

1. the model map the person gave (keys: the lineup's model name, e.g. `gemma3:12b`, or a seat's name,
   e.g. `Gemma3`; values: the server's name);
2. the same name in the server's model list;
3. the one listed model whose name has the same family and size (`gemma3:12b` ~ `google/gemma-3-12b-it`,
   `llama3.1:8b` ~ `Meta-Llama-3.1-8B-Instruct`); several equally good candidates are never guessed
   between: the person is asked to map the model.

`point_at_server` asks the server for its list first and refuses, before any model is called, when a
model is not there: which ones, for which seats, what the server has, and what to do. Keys are not
touched here: a spec naming `@URL` gets the key saved for that URL (models.registry), nothing else.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from debate.errors import DebateError, InvalidInput, ModelNotFound
from debate.models import backends
from debate.models.spec import ModelSpec, redacted, server_url, several_servers

MAX_MAP_ENTRIES = 200
MAX_NAME_CHARS = 200
_SIZE = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?[bm])(?![a-z0-9])")


@dataclass(frozen=True)
class Server:
    backend: str  # a server backend (backends.servers(): "ollama", "openai", others')
    base_url: str | None = None  # None: the host / base URL from the settings or the environment

    def spec(self, model: str) -> str:
        return str(ModelSpec(self.backend, model, self.base_url))

    def where(self) -> str:
        kind = f"{backends.get(self.backend).title} server"
        return f"the {kind} at {self.base_url}" if self.base_url else f"the configured {kind}"


def parse_server(text: str) -> Server:
    """`ollama`, `openai` (the configured host / base URL), `ollama@URL`, `openai@URL`, or a bare URL:
    one ending in /v1 is OpenAI-compatible, one on Ollama's port 11434 is Ollama."""
    t = (text or "").strip()
    backend, _, url = t.partition("@") if not t.lower().startswith(("http://", "https://")) else ("", "", t)
    backend = backend.strip().lower()
    if backend and backend not in backends.servers():
        kinds = backends.servers()
        raise InvalidInput(
            f"Unknown server kind {backend!r} in {redacted(t)!r}.",
            f"Write {' or '.join(f'{k}@URL' for k in kinds)} (or {' / '.join(kinds)} for the configured one).",
        )
    url = url.strip().rstrip("/")
    server_url(url, "The server URL")
    if url:
        p = urlparse(url)
        if p.scheme not in ("http", "https") or not p.hostname:
            raise InvalidInput(
                f"{url!r} is not a server URL.",
                "Write it as http://HOST:PORT/v1 (OpenAI-compatible) or http://HOST:11434 (Ollama).",
            )
        if not backend:
            if p.path.rstrip("/").endswith("/v1"):
                backend = "openai"
            elif p.port == 11434:
                backend = "ollama"
            else:
                raise InvalidInput(
                    f"Cannot tell which API the server at {url} speaks.", f"Write ollama@{url} or openai@{url}."
                )
    if not backend:
        raise InvalidInput("No server given.", "Write e.g. openai@http://127.0.0.1:8000/v1 or ollama@http://gpu:11434.")
    return Server(backend, url or None)


def _checked_map(data: Any, where: str) -> dict[str, str]:
    if not isinstance(data, dict):
        raise InvalidInput(
            f"The model map {where} is not a JSON object.", 'Write it as {"gemma3:12b": "name-on-the-server", ...}.'
        )
    if len(data) > MAX_MAP_ENTRIES:
        raise InvalidInput(
            f"The model map {where} has {len(data)} entries; at most {MAX_MAP_ENTRIES} are allowed.",
            "Map only the lineup's models.",
        )
    out: dict[str, str] = {}
    for k, v in data.items():
        k, v = str(k).strip(), v.strip() if isinstance(v, str) else v
        if not k or not isinstance(v, str) or not v or len(k) > MAX_NAME_CHARS or len(v) > MAX_NAME_CHARS:
            raise InvalidInput(
                f"The model map {where} has an unusable entry {str(k)[:60]!r}.",
                f"Each entry maps a model or seat name to the server's name for it, both text "
                f"of at most {MAX_NAME_CHARS} characters.",
            )
        out[k] = v
    return out


def parse_model_map(text: str | None, files: bool = True) -> dict[str, str]:
    """A model map from a JSON file, inline JSON, or `name=server-name` pairs separated by commas or lines.
    `files` False (a page's text box): never read a file of the machine the app runs on."""
    t = (text or "").strip()
    if not t:
        return {}
    if len(t) > 50_000:
        raise InvalidInput("The model map is too long.", "Map only the lineup's models.")
    if t.startswith("{"):
        try:
            return _checked_map(json.loads(t), "given")
        except (ValueError, RecursionError) as e:
            raise InvalidInput(
                f"The model map is not valid JSON ({str(e)[:120]}).",
                'Write it as {"gemma3:12b": "my-gemma"} or gemma3:12b=my-gemma, ...',
            ) from None
    if files and ("\n" not in t and "=" not in t or t.endswith(".json")):
        p = Path(t).expanduser()
        try:
            with p.open("rb") as fh:
                raw = fh.read(1_000_000).decode("utf-8", errors="replace")  # a map is small: never read more
        except OSError as e:
            raise InvalidInput(
                f"Cannot read the model map {p}: {e.strerror or e}.",
                "Give a JSON file, or pairs such as gemma3:12b=my-gemma,qwen3:8b=my-qwen.",
            ) from None
        try:
            return _checked_map(json.loads(raw), f"in {p}")
        except (ValueError, RecursionError) as e:
            raise InvalidInput(
                f"The model map {p} is not valid JSON ({str(e)[:120]}).", 'Write it as {"gemma3:12b": "my-gemma", ...}.'
            ) from None
    pairs: dict[str, str] = {}
    for part in re.split(r"[,\n]", t):
        if not part.strip():
            continue
        if "=" not in part:
            raise InvalidInput(
                f"Model map entry {part.strip()[:60]!r} has no '='.",
                "Write each entry as lineup-name=server-name, e.g. gemma3:12b=my-gemma.",
            )
        k, v = part.split("=", 1)
        pairs[k.strip()] = v.strip()
    return _checked_map(pairs, "given")


def _entries(lineup: dict) -> Iterator[dict]:
    """Every seat entry of a lineup dict, in the order a person reads them."""
    yield from lineup.get("members") or []
    for key in ("judge", "chair"):
        if isinstance(lineup.get(key), dict):
            yield lineup[key]
    yield from (lineup.get("roles") or {}).values()
    for lst in (lineup.get("teams") or {}).values():
        yield from lst or []


def model_name(spec: ModelSpec) -> str:
    """The name a seat's model goes by on a server: a local file's stem, any other model's own name."""
    return Path(spec.model).stem if spec.backend == "local" and spec.model.endswith(".gguf") else spec.model


def _family_size(name: str) -> tuple[str, str | None]:
    n = name.lower().rsplit("/", 1)[-1]
    head, _, tag = n.partition(":")
    if tag and _SIZE.fullmatch(tag):
        return head, tag
    m = _SIZE.search(n)
    return (n[: m.start()].strip("-_. :"), m.group(1)) if m else (head, None)


def _family_at(family: str, name: str) -> int | None:
    """Where the family (`llama3.1`, `deepseek-r1`) starts in `name`, separators optional; None when absent.
    A version going on (`llama3` in `llama-3.1`) does not count."""
    parts = re.findall(r"[a-z]+|\d+", family)
    if not parts:
        return None
    pattern = r"(?<![a-z0-9])" + r"[-_. ]?".join(map(re.escape, parts)) + r"(?![a-z0-9])(?!\.\d)"
    m = re.search(pattern, name.lower().rsplit("/", 1)[-1])
    return m.start() if m else None


def matches(name: str, available: list[str]) -> list[str]:
    """The listed models with `name`'s family and size (or no size in their name), best first; only those
    where the family starts earliest, so `qwen3:8b` prefers `Qwen3-8B` to `DeepSeek-R1-Qwen3-8B`."""
    family, size = _family_size(name)
    found: list[tuple[int, str]] = []
    for cand in available:
        at = _family_at(family, cand)
        if at is None:
            continue
        sizes = _SIZE.findall(cand.lower())
        if size is None or not sizes or size in sizes:
            found.append((at, cand))
    if not found:
        return []
    first = min(at for at, _ in found)
    return sorted(c for at, c in found if at == first)


def _resolve(
    name: str, seat: str, model_map: dict[str, str], available: list[str] | None
) -> tuple[str | None, str, list[str]]:
    """(server name or None, how it was found, candidates when several fit)."""
    for key in (seat, name):
        if key and key in model_map:
            target = model_map[key]
            if available is not None and target not in available:
                return None, "mapped to a model the server does not list", []
            return target, "mapped", []
    if available is None:  # no list to check against (the server was not asked yet)
        return name, "same name", []
    if name in available:
        return name, "same name", []
    found = matches(name, available)
    if len(found) == 1:
        return found[0], "matched by name", []
    return None, ("several fit" if found else "missing"), found


def on_server(
    lineup: dict, server: Server, model_map: dict[str, str] | None = None, available: list[str] | None = None
) -> tuple[dict, list[dict]]:
    """The lineup with every seat on `server`, and one row per (lineup model, server model):
    {model, seats, server_model (None when missing), spec, how, candidates}. With `available` None the
    names are not checked (the caller has no list yet); a seat whose model is not found asks the server for
    its own name, so a check against the server (validate_lineup) reports it there, not elsewhere."""
    mm = dict(model_map or {})
    lu = copy.deepcopy(lineup)
    rows: dict[tuple[str, str | None, str], dict] = {}
    for e in _entries(lu):
        if isinstance(e.get("model"), list):
            raise several_servers(f"Seat {e.get('name') or '?'!r}")
        spec = ModelSpec.parse(str(e.get("model", "")))
        if not backends.get(spec.backend).listed:  # a person's seat or a scripted test model stays as it is
            continue
        name, seat = model_name(spec), str(e.get("name") or "")
        target, how, candidates = _resolve(name, seat, mm, available)
        e["model"] = server.spec(target or name)  # a missing one too: the server's own check then names it
        row = rows.setdefault(
            (name, target, how),
            {
                "model": name,
                "seats": [],
                "server_model": target,
                "spec": server.spec(target) if target else None,
                "how": how,
                "candidates": candidates,
                "wanted": mm.get(seat) or mm.get(name),
            },
        )
        if seat and seat not in row["seats"]:
            row["seats"].append(seat)
    base = re.sub(r"-(ollama|openai)$", "", str(lineup.get("name") or "custom"))  # the preset's backend no longer holds
    lu["name"] = f"{base} on {server.base_url or server.backend}"
    return lu, list(rows.values())


def unused_keys(lineup: dict, model_map: dict[str, str]) -> list[str]:
    """Map keys that name neither a model nor a seat of the lineup (typos, or another lineup's map)."""
    names = set()
    for e in _entries(lineup):
        spec = ModelSpec.parse(str(e.get("model", "")))
        names.update({model_name(spec), str(e.get("name") or "")})
    return [k for k in model_map if k not in names]


def _shown(names: list[str], n: int = 20) -> str:
    """A server's names, bounded (a server may list thousands, of any length)."""
    cut = [x if len(x) <= 100 else x[:99] + "…" for x in names[:n]]
    return ", ".join(cut) + (f" … ({len(names) - n} more)" if len(names) > n else "") if names else "(none)"


def missing_error(server: Server, rows: list[dict], available: list[str], unused: Sequence[str] = ()) -> ModelNotFound:
    """What is missing on the server, for which seats, what it has, and what to do."""
    bad = [r for r in rows if r["server_model"] is None]
    parts = []
    for r in bad:
        seats = f" ({', '.join(r['seats'])})" if r["seats"] else ""
        if r["how"] == "several fit":
            parts.append(f"{r['model']}{seats}: several fit ({_shown(r['candidates'], 5)})")
        elif r["wanted"]:
            parts.append(f"{r['model']}{seats}: mapped to {r['wanted']!r}, which it does not list")
        else:
            parts.append(f"{r['model']}{seats}")
    where = server.where()
    msg = (
        f"{where[0].upper()}{where[1:]} lacks {len(bad)} of the lineup's models: {'; '.join(parts)}. "
        f"It has: {_shown(available)}."
    )
    if unused:
        msg += f" The model map's {', '.join(repr(k) for k in unused)} name no model or seat of this lineup."
    example = ",".join(f"{r['model']}=NAME" for r in bad[:3])
    serve = (
        "pull them (" + "; ".join(f"`ollama pull {r['model']}`" for r in bad[:5]) + ")"
        if server.backend == "ollama"
        else "serve them under these names (vLLM --served-model-name, llama.cpp server model_alias, "
        "LM Studio's model identifier)"
    )
    hint = (
        f"Either {serve}, or map each onto a model the server has: --model-map '{example}' "
        f'(or a JSON file {{"{bad[0]["model"]}": "NAME"}}; in the app: the lineup\'s server box).'
    )
    return ModelNotFound(msg, hint)


def list_server(server: Server, client: Any) -> list[str]:
    """The server's model names, or a DebateError saying it cannot be asked (and how to start it)."""
    backend = client.backend_for(ModelSpec(server.backend, "-", server.base_url))
    try:
        return list(backend.model_names())
    except DebateError as e:
        raise type(e)(f"Cannot list the models of {server.where()}: {e.message}", e.hint) from None


def point_at_server(
    lineup: dict, server: Server, model_map: dict[str, str] | None, client: Any
) -> tuple[dict, list[dict]]:
    """`on_server` against the server's own list, refusing (before any model call) when a model is missing."""
    mm = dict(model_map or {})
    available = list_server(server, client)
    lu, rows = on_server(lineup, server, mm, available)
    if any(r["server_model"] is None for r in rows):
        raise missing_error(server, rows, available, unused_keys(lineup, mm))
    return lu, rows


def describe(rows: list[dict]) -> str:
    """One line per lineup model: where it runs and how its name was found."""
    return "\n".join(
        f"  {r['model']} -> {r['spec']} ({r['how']}; {', '.join(r['seats'])})"
        for r in rows
        if r["server_model"] is not None
    )
