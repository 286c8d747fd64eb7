"""Who descends from whom in the store: forks (forked_from) and robustness variants (variant_of).

Why read it from the events: the relation is part of each debate's first event, so it needs no new
column or migration (the store schema belongs to everyone), and an imported events file keeps it.
"""

from __future__ import annotations

import json
from typing import Any


def relations(store: Any) -> dict[str, dict]:
    """debate id -> {"forked_from": {...} | None, "variant_of": {...} | None} for every related debate."""
    rows = store._q("SELECT debate_id, json_extract(json, '$.forked_from') AS f, "
                    "json_extract(json, '$.settings.variant_of') AS v FROM events "
                    "WHERE seq = 0 AND type = 'debate_started' AND (f IS NOT NULL OR v IS NOT NULL)")
    return {r["debate_id"]: {"forked_from": json.loads(r["f"]) if r["f"] else None,
                             "variant_of": json.loads(r["v"]) if r["v"] else None} for r in rows}


def parent_of(rel: dict[str, dict], debate_id: str) -> str | None:
    r = rel.get(debate_id) or {}
    return ((r.get("forked_from") or {}).get("debate_id") or (r.get("variant_of") or {}).get("debate_id")) or None


def family(store: Any, debate_id: str) -> list[dict]:
    """The debate's whole tree, root first, depth-first: [{id, depth, kind, round, variant}]."""
    rel = relations(store)
    root, seen = debate_id, {debate_id}
    while (p := parent_of(rel, root)) and p not in seen:
        seen.add(p)
        root = p
    kids: dict[str, list[str]] = {}
    for child in rel:
        p = parent_of(rel, child)
        if p:
            kids.setdefault(p, []).append(child)
    out: list[dict] = []

    def walk(node: str, depth: int) -> None:
        r = rel.get(node) or {}
        f, v = r.get("forked_from") or {}, r.get("variant_of") or {}
        out.append({"id": node, "depth": depth, "kind": "fork" if f else "variant" if v else "original",
                    "round": f.get("round"), "variant": v.get("variant")})
        for c in sorted(kids.get(node, [])):
            if all(c != o["id"] for o in out):
                walk(c, depth + 1)

    walk(root, 0)
    return out


def variants(store: Any, debate_id: str) -> list[str]:
    """Ids of the robustness variants run for `debate_id`, oldest first."""
    rel = relations(store)
    return sorted(k for k, r in rel.items() if (r.get("variant_of") or {}).get("debate_id") == debate_id)
