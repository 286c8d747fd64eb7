"""Prompt templates as data: the papers' appendices verbatim, each with an id and its source.

The texts live in the .toml files beside this module (turquaz.toml, radar.toml, engine.toml, small.toml,
and NAME.toml for any protocol of this package: every .toml here is read) so they can be reviewed against
the papers without reading code. A protocol of another package names its own file (ProtocolInfo.prompt_file),
added here by the protocol registry (`add_file`). A variable is `{lower_snake_name}`; anything else in
braces (JSON examples, RADAR's `{specific domain}`) is literal. `render(id, **vars)` fills by name and
raises InvalidInput naming the missing variable, so a typo never sends "{tweet}" to a model.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from debate.errors import InvalidInput

_VAR = re.compile(r"\{([a-z][a-z0-9_]*)\}")
_HERE = Path(__file__).parent
_EXTRA: list[Path] = []  # other packages' prompt files (add_file), read after this package's


@dataclass(frozen=True)
class Template:
    id: str
    source: str
    role: str  # "system" | "user" | "assistant" (words the engine writes for a model: engine.begin_*)
    text: str

    @property
    def variables(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for m in _VAR.finditer(self.text):
            seen.setdefault(m.group(1), None)
        return tuple(seen)

    def render(self, **values: object) -> str:
        missing = [v for v in self.variables if v not in values]
        if missing:
            raise InvalidInput(
                f"Prompt template {self.id!r} needs {', '.join(map(repr, missing))}.",
                f"Pass every variable it uses: {', '.join(self.variables)}.",
            )
        # One pass, so a filled-in value that itself contains "{name}" is never re-expanded.
        return _VAR.sub(lambda m: str(values[m.group(1)]), self.text)


def files() -> list[Path]:
    """Every prompt file: the .toml files beside this module, by name, then those added."""
    return sorted(_HERE.glob("*.toml")) + [p for p in _EXTRA if p.parent != _HERE]


def add_file(path: Path | str) -> None:
    """Reads `path`'s templates too (a protocol of another package: its ProtocolInfo.prompt_file)."""
    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"No prompt file {p}.", "Name an existing .toml file (see debate/prompts/engine.toml).")
    if p not in _EXTRA:
        _EXTRA.append(p)
        templates.cache_clear()


@lru_cache(maxsize=1)
def templates() -> dict[str, Template]:
    out: dict[str, Template] = {}
    for path in files():
        name = path.name
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        for t in data.get("template", []):
            tpl = Template(t["id"], t["source"], t.get("role", "user"), t["text"])
            if tpl.id in out:
                raise RuntimeError(f"duplicate prompt template id {tpl.id!r} in {name}")
            out[tpl.id] = tpl
    return out


def get(template_id: str) -> Template:
    try:
        return templates()[template_id]
    except KeyError:
        raise InvalidInput(
            f"No prompt template {template_id!r}.",
            f"Known ids start with: {', '.join(sorted({i.split('.')[0] + '.' for i in templates()}))} "
            f"({len(templates())} in all; a protocol's templates go in debate/prompts/NAME.toml).",
        ) from None


def render(template_id: str, **values: object) -> str:
    return get(template_id).render(**values)


def messages(
    system_id: str | None, user_id: str, values: dict, *, system_values: dict | None = None, addendum: str = ""
) -> list[dict[str, str]]:
    """[system?, user] chat messages from two templates; `addendum` is appended to the user text."""
    msgs: list[dict[str, str]] = []
    if system_id:
        msgs.append({"role": "system", "content": render(system_id, **(system_values or values))})
    user = render(user_id, **values)
    if addendum:
        user = f"{user}\n\n{addendum}"
    msgs.append({"role": "user", "content": user})
    return msgs
