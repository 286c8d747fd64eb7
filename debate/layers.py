"""The engine's layers, declared once: what may import what inside `debate/`.

A module may import from its own layer and from any layer below it, never from one above, and no two
modules may import each other, even through others and even inside a function (tests/engine/test_layers.py
parses every module and fails on either). The point is that each layer can be read, tested and reused
without the ones above it: the protocols run without a store or a page, the store without a runner.

Above the engine sit the app's own two layers (APP_LAYERS): `ui/` (Streamlit rendering) builds on
`debate/`, and `pages/` (with app.py) builds on both; nothing below imports anything above, and no two
modules of ui/ import each other. The same test checks them.

Where a new module goes: into the package of its concern (README "Architecture"), and into this table if
it starts a new package; if it needs something from a higher layer, it belongs higher, or the thing it
needs belongs lower.
"""

from __future__ import annotations

# Lowest first. Each entry: (layer name, module prefixes in it). A module belongs to the entry with the
# longest prefix that matches it ("debate.store" covers debate.store and debate.store.sqlite); the bare
# "debate" is the package's own __init__ only, so a module missing from the table is noticed.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "foundation",
        (
            "debate",
            "debate.errors",
            "debate.config",
            "debate.sanitize",
            "debate.events",
            "debate.layers",
            "debate.plugins",
            "debate.records",
            "debate.outcome",
            "debate.content",
        ),
    ),
    (
        "parts",
        (
            "debate.models",
            "debate.prompts",
            "debate.tasks",
            "debate.lineups",
            "debate.lineup_server",
            "debate.transcript",
            "debate.view",
            "debate.retrieval",
            "debate.data",
            "debate.datasets",
            "debate.moderation",
            "debate.seats",
        ),
    ),
    ("aids", ("debate.aids",)),
    ("protocols", ("debate.protocols",)),
    ("runner", ("debate.runner",)),
    ("services", ("debate.store", "debate.live", "debate.sharing", "debate.evaluation", "debate.audience")),
    ("review", ("debate.teaching", "debate.adjudication")),
    ("cli", ("debate.cli", "debate.__main__")),
)


def layer_of(module: str) -> int | None:
    """Index of the module's layer in LAYERS (0 = lowest), or None when no entry covers it."""
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            covers = module == p or (p != "debate" and module.startswith(p + "."))
            if covers and len(p) > best_len:
                best, best_len = i, len(p)
    return best


# The whole repository's layers, lowest first: the engine, the Streamlit parts, the pages. Keyed by the
# first component of a module's dotted name (app.py is the module "app").
APP_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("engine", ("debate",)),
    ("ui", ("ui",)),
    ("pages", ("pages", "app")),
)


def app_layer_of(module: str) -> int | None:
    """Index of the module's app layer in APP_LAYERS (0 = the engine), or None for a module outside them."""
    top = module.split(".")[0]
    return next((i for i, (_, tops) in enumerate(APP_LAYERS) if top in tops), None)
