"""Who descends from whom in the store: forks (forked_from) and robustness variants (variant_of).

Why read it from the events: the relation is part of each debate's first event, so it needs no new
column or migration (the store schema belongs to everyone), and an imported events file keeps it.
"""

from __future__ import annotations

import json
from typing import Any


def relations(store: Any) -> dict[str, dict]:
    """debate id -> {"forked_from": {...} | None, "variant_of": {...} | None} for every related debate."""
    rows = store._q(
        "SELECT debate_id, json_extract(json, '$.forked_from') AS f, "
        "json_extract(json, '$.settings.variant_of') AS v FROM events "
        "WHERE seq = 0 AND type = 'debate_started' AND (f IS NOT NULL OR v IS NOT NULL)"
    )
    return {
        r["debate_id"]: {
            "forked_from": json.loads(r["f"]) if r["f"] else None,
            "variant_of": json.loads(r["v"]) if r["v"] else None,
        }
        for r in rows
    }


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
        out.append(
            {
                "id": node,
                "depth": depth,
                "kind": "fork" if f else "variant" if v else "original",
                "round": f.get("round"),
                "variant": v.get("variant"),
            }
        )
        for c in sorted(kids.get(node, [])):
            if all(c != o["id"] for o in out):
                walk(c, depth + 1)

    walk(root, 0)
    return out


def variants(store: Any, debate_id: str) -> list[str]:
    """Ids of the robustness variants run for `debate_id`, oldest first."""
    rel = relations(store)
    return sorted(k for k, r in rel.items() if (r.get("variant_of") or {}).get("debate_id") == debate_id)


def _by_round(events: list) -> dict[int, dict]:
    ds = [e.to_dict() if hasattr(e, "to_dict") else dict(e) for e in events]
    out: dict[int, dict] = {}
    for e in ds:
        kind = e.get("type")
        if kind == "turn_finished":
            r = out.setdefault(
                int(e.get("round", 0)), {"turns": 0, "tokens": 0, "labels": {}, "votes": None, "replayed": 0}
            )
            r["turns"] += 1
            r["replayed"] += int(bool(e.get("replayed")))
            r["tokens"] += int(e.get("prompt_tokens") or 0) + int(e.get("completion_tokens") or 0)
            if e.get("label") is not None:
                r["labels"][e.get("agent", "")] = e["label"]
        elif kind == "votes_tallied":
            r = out.setdefault(
                int(e.get("round", 0)), {"turns": 0, "tokens": 0, "labels": {}, "votes": None, "replayed": 0}
            )
            r["votes"] = dict(e.get("counts") or {})
    return out


def _fmt(d: dict | None) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) if d else ""


def align_rounds(parent: list, fork: list) -> list[dict]:
    """Parent and fork side by side, one row per round, then the verdict and the totals: what changed.

    Rounds up to the fork point are the same turns (replayed), so `changed` marks where they part."""
    from debate.sharing.robustness import verdict_of

    a, b = _by_round(parent), _by_round(fork)
    rows = []
    for r in sorted(set(a) | set(b)):
        x, y = a.get(r, {}), b.get(r, {})
        px = _fmt(x.get("votes")) or _fmt(_count(x.get("labels")))
        py = _fmt(y.get("votes")) or _fmt(_count(y.get("labels")))
        rows.append(
            {
                "round": str(r),
                "parent": px or "—",
                "fork": py or "—",
                "parent tokens": x.get("tokens", 0),
                "fork tokens": y.get("tokens", 0),
                "replayed in fork": y.get("replayed", 0),
                "changed": px != py,
            }
        )
    (pl, ps), (fl, fs) = verdict_of(parent), verdict_of(fork)
    rows.append(
        {
            "round": "verdict",
            "parent": f"{pl} ({ps})",
            "fork": f"{fl} ({fs})",
            "parent tokens": None,
            "fork tokens": None,
            "replayed in fork": None,
            "changed": pl != fl,
        }
    )
    pt, ft = (sum(v.get("tokens", 0) for v in m.values()) for m in (a, b))
    new = sum(v.get("tokens", 0) for v in b.values()) - sum(
        v.get("tokens", 0) for k, v in b.items() if v.get("replayed") == v.get("turns") and v.get("turns")
    )
    rows.append(
        {
            "round": "tokens",
            "parent": str(pt),
            "fork": f"{ft} ({new} new)",
            "parent tokens": pt,
            "fork tokens": ft,
            "replayed in fork": None,
            "changed": pt != ft,
        }
    )
    return rows


def _count(labels: dict | None) -> dict:
    out: dict[str, int] = {}
    for v in (labels or {}).values():
        out[v] = out.get(v, 0) + 1
    return out
