"""Robustness check: does the verdict hold when positions are swapped, members reordered, seeds changed?

Position bias (the side a model argues changes the outcome) and self-preference (a judge favouring its
own model's side) are the first questions a sceptical audience asks. Each variant is an ordinary debate
of the same claim, protocol and parameters with re-seated agents (DebateConfig.seats), recorded with
`variant_of` in its settings so the Library can find the family; the table compares the verdicts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from debate.errors import InvalidInput
from debate.events import Event

SEAT_KEYS = ("model", "temperature", "seed")


@dataclass
class Variant:
    name: str
    description: str
    config: Any  # runner.DebateConfig


def _swap(seats: list[dict], a: dict, b: dict) -> None:
    for k in SEAT_KEYS:
        a[k], b[k] = b[k], a[k]


def swapped(protocol: str, seats: list[dict]) -> list[dict] | None:
    """The models of opposite sides exchanged (the protocol's declared `sides`, ProtocolInfo: proponent and
    opponent, team: pro-i with opp-i); None when the protocol has no sides or this debate has no pair."""
    from debate.protocols import PROTOCOLS

    out = [dict(s) for s in seats]
    info = PROTOCOLS.get(protocol)
    done = False
    for ra, rb in info.sides if info else ():
        a_side = [s for s in out if s["role"] == ra]
        b_side = [s for s in out if s["role"] == rb]
        for a, b in zip(a_side, b_side):
            _swap(out, a, b)
            done = True
    return out if done else None


def shuffled(protocol: str, seats: list[dict], seed: int) -> list[dict] | None:
    """The seats of each role that several agents share (a council's members, each team) in another order;
    None when order cannot change."""
    out = [dict(s) for s in seats]
    roles = [s["role"] for s in out]
    groups = [r for r in dict.fromkeys(roles) if roles.count(r) > 1]
    changed = False
    for role in groups:
        idx = [i for i, s in enumerate(out) if s["role"] == role]
        models = [{k: out[i][k] for k in SEAT_KEYS} for i in idx]
        if len({m["model"] for m in models}) < 2 and len({m["seed"] for m in models}) < 2:
            continue
        order = list(range(len(idx)))
        random.Random(seed).shuffle(order)
        if order == sorted(order):
            order = order[1:] + order[:1]
        for i, j in zip(idx, order):
            out[i].update(models[j])
        changed = True
    return out if changed else None


def variant_configs(events: list[Event | dict], seeds: int = 2, shuffle_seed: int = 1) -> list[Variant]:
    """The variants of a stored debate: swapped positions, shuffled members, `seeds` other seeds."""
    from debate.runner import DebateConfig

    ds = [e.to_dict() if isinstance(e, Event) else dict(e) for e in events]
    st = next((e for e in ds if e.get("type") == "debate_started"), None)
    if st is None:
        raise InvalidInput(
            "These events have no debate_started event.", "Use a debate's events file or Library export."
        )
    seats = list(st.get("lineup") or [])
    settings = st.get("settings") or {}
    protocol = st.get("protocol", "")
    did = st.get("debate_id", "")

    def cfg(name: str, new_seats: list[dict], seed: int) -> DebateConfig:
        return DebateConfig(
            claim=st.get("claim", ""),
            protocol=protocol,
            task=st.get("task", "checkthat"),
            category=st.get("category"),
            custom_title=settings.get("custom_title", ""),
            custom_description=settings.get("custom_description", ""),
            lineup=str(settings.get("lineup_name") or "parent"),
            params=dict(settings.get("params") or {}),
            evidence=settings.get("evidence"),
            top_k=int(settings.get("top_k", 20)),
            max_tokens=int(settings.get("max_tokens", 256)),
            seed=seed,
            gold=st.get("gold"),
            apply_cat2_rule=bool(settings.get("apply_cat2_rule", True)),
            seats=new_seats,
            variant_of={"debate_id": did, "variant": name},
        )

    base_seed = int(st.get("seed") or 0)
    out: list[Variant] = []
    sw = swapped(protocol, seats)
    if sw is not None:
        out.append(
            Variant(
                "positions swapped", "the models of the two sides exchanged", cfg("positions swapped", sw, base_seed)
            )
        )
    sh = shuffled(protocol, seats, shuffle_seed)
    if sh is not None:
        out.append(
            Variant("members shuffled", "members seated in another order", cfg("members shuffled", sh, base_seed))
        )
    for k in range(1, max(0, int(seeds)) + 1):
        reseeded = [{**s, "seed": (int(s.get("seed") or 0) + 1000 * k)} for s in seats]
        hot = any(float(s.get("temperature") or 0) > 0 for s in seats)
        out.append(
            Variant(
                f"seed +{k}",
                "every agent's seed changed"
                + ("" if hot else " (all agents decode greedily at temperature 0, so seeds alone change little)"),
                cfg(f"seed +{k}", reseeded, base_seed + k),
            )
        )
    return out


def verdict_of(events: Sequence[Event | dict]) -> tuple[str | None, str]:
    """(final label, status) of a debate's events; a multi-category verdict as 'c1=YES c2=NO ...'."""
    ds = [e.to_dict() if isinstance(e, Event) else dict(e) for e in events]
    v = next((e for e in reversed(ds) if e.get("type") == "verdict"), None)
    fin = next((e for e in reversed(ds) if e.get("type") == "finished"), None)
    label = None
    if v is not None:
        label = v.get("label") if v.get("labels") is None else " ".join(f"c{k}={x}" for k, x in v["labels"].items())
    return label, (fin or {}).get("status", "running")


def variant_row(name: str, events: Sequence[Event | dict], debate_id: str = "", running: bool = False) -> dict:
    """One row of the robustness table from a variant's events: its verdict, status and what it ran.

    `running`: the variant is still being generated (its finished event may be written already while
    the worker winds down); such a row is shown but not counted."""
    ds = [e.to_dict() if isinstance(e, Event) else dict(e) for e in events]
    label, status = verdict_of(ds)
    fin: dict[str, Any] = next((e for e in reversed(ds) if e.get("type") == "finished"), {})
    return {
        "variant": name,
        "label": label,
        "status": "running" if running else status,
        "debate_id": debate_id,
        "model_calls": int(fin.get("model_calls") or 0),
        "cache_hits": int(fin.get("cache_hits") or 0),
    }


def table(original: str | None, rows: list[dict]) -> dict:
    """rows: [{variant, label, status, debate_id, model_calls, cache_hits}] -> rows with `holds`, the summary.

    Counted are only variants that finished and ran models: one that did not finish, or made no model
    call, is shown with its status but counted neither way. A variant whose every answer came from the
    response cache is a replay of earlier answers, not an independent confirmation: it is marked
    `replay` and not counted either."""
    out = []
    for r in rows:
        calls, hits = int(r.get("model_calls") or 0), int(r.get("cache_hits") or 0)
        done = r.get("status") == "completed" and calls > 0
        replay = done and hits >= calls
        out.append(
            {**r, "ran": done, "replay": replay, "holds": (r.get("label") == original) if done and not replay else None}
        )
    decided = [r for r in out if r["holds"] is not None]
    held = sum(1 for r in decided if r["holds"])
    return {
        "original": original,
        "rows": out,
        "held": held,
        "decided": len(decided),
        "share": (held / len(decided)) if decided else None,
        "replays": [r["variant"] for r in out if r["replay"]],
        "pending": [r["variant"] for r in out if r.get("status") == "running"],
    }


def summary(t: dict) -> str:
    """The table's verdict in one plain sentence (what the page and the CLI print)."""
    share = "" if t["share"] is None else f" ({t['share']:.0%})"
    head = (
        f"The verdict ({t['original']}) holds in {t['held']} of {t['decided']} finished variants that ran "
        f"the models{share}."
        if t["decided"]
        else f"No variant has finished a run of the models yet, so nothing says whether the verdict ({t['original']}) holds."
    )
    if t.get("pending"):
        head += f" Still running: {', '.join(t['pending'])}."
    if t.get("replays"):
        head += (
            f" Not counted, answered entirely from the response cache (replays of earlier answers, not "
            f"independent runs): {', '.join(t['replays'])}."
        )
    return head


def format_table(t: dict) -> str:
    lines = [
        f"Original verdict: {t['original']}",
        "",
        f"{'variant':<20} {'verdict':<14} {'holds':<6} {'status':<10} debate",
        "-" * 72,
    ]
    for r in t["rows"]:
        holds = ("replay" if r.get("replay") else "-") if r["holds"] is None else ("yes" if r["holds"] else "NO")
        lines.append(
            f"{r['variant']:<20} {r.get('label')!s:<14} {holds:<6} {r.get('status', ''):<10} {r.get('debate_id', '')}"
        )
    lines += ["", summary(t)]
    return "\n".join(lines) + "\n"
