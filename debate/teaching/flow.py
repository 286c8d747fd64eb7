"""A diagram of each protocol's flow, generated from the protocol itself rather than drawn by hand.

A protocol is a generator (debate.protocols), not a declared graph, so its flow is read the only
faithful way: by running it. `trace_protocol` runs the protocol through the real runner on a scripted
backend in a few scenarios (everyone agrees and the stop agent says STOP; members split and keep their
votes; votes flip every turn and the stop agent says CONTINUE), and `flow_graph` folds the event
streams into phases and decisions: each PhaseStarted is a box (its engine note and the roles that speak,
"∥" when they speak at once), each tally or stop check a diamond whose outgoing edges carry the outcome
that led there. `flow_dot` writes Graphviz DOT (drawn by st.graphviz_chart). A change to a protocol's
code changes its diagram; a branch no scenario reaches is not drawn.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections import Counter
from functools import lru_cache
from typing import Any

SCENARIOS = ("agree", "split", "flip")


def _node_of(e: dict) -> tuple[str, str, str] | None:
    """(node id, kind, label) of an event, or None for events that are not flow steps."""
    t = e.get("type")
    if t == "debate_started":
        return "start", "start", "claim + task"
    if t == "evidence":
        return "evidence", "io", "retrieve evidence\n(top-k passages)"
    if t == "phase_started":
        phase = str(e.get("phase") or "phase")
        return f"phase:{phase}", "phase", phase
    if t == "votes_tallied":
        return "tally", "decision", "consensus ≥ θ ?"
    if t == "stop_check":
        return "stop_check", "decision", "stop margin ≥ τs\nand confidence ≥ τc ?"
    if t == "chair_summary":
        return "chair", "phase", "chairperson summary"
    if t == "rule_applied":
        return "rule", "rule", f"rule: {e.get('rule', '')}"
    if t == "verdict":
        return "verdict", "verdict", f"verdict ({e.get('source') or 'protocol'})"
    if t == "finished":
        return "end", "end", "finished"
    return None


def _outcome(e: dict) -> str:
    if e.get("type") == "votes_tallied":
        return "reached" if e.get("reached") else ("stabilised" if e.get("stabilised") else "not reached")
    if e.get("type") == "stop_check":
        return str(e.get("decision") or "")
    return ""


def flow_graph(traces: list[list[dict]]) -> dict:
    """{nodes: {id: {kind, label, note, roles}}, edges: {(a, b, outcome): count}} over event streams."""
    nodes: dict[str, dict] = {}
    edges: Counter = Counter()
    for events in traces:
        prev: str | None = None
        prev_outcome = ""
        phase_id: str | None = None
        batch: list[str] = []  # roles started since the last finish: concurrent when > 1
        for e in events:
            t = e.get("type")
            if t == "turn_started" and phase_id:
                batch.append(str(e.get("role") or e.get("agent")))
                continue
            if t == "turn_finished" and phase_id:
                if batch:
                    counts = Counter(batch)
                    group = " ∥ ".join(f"{r} ×{n}" if n > 1 else r for r, n in counts.items())
                    seq = nodes[phase_id].setdefault("order", [])
                    if group not in seq:
                        seq.append(group)
                    batch = []
                continue
            n = _node_of(e)
            if n is None:
                continue
            nid, kind, label = n
            node = nodes.setdefault(nid, {"kind": kind, "label": label, "note": "", "order": []})
            if t == "phase_started":
                phase_id = nid
                node["note"] = node["note"] or str(e.get("note") or "")
                title = str(e.get("title") or "")
                node.setdefault("titles", [])
                if title and title not in node["titles"]:
                    node["titles"].append(title)
            if prev is not None and prev != nid:
                edges[(prev, nid, prev_outcome)] += 1
            elif prev == nid and kind == "phase":
                edges[(prev, nid, prev_outcome)] += 1  # a phase repeating (rounds) is a loop
            prev, prev_outcome = nid, _outcome(e)
    return {"nodes": nodes, "edges": dict(edges)}


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _wrap(s: str, width: int = 38) -> str:
    return "\n".join(textwrap.wrap(s, width)) if s else ""


_SHAPES = {
    "start": 'shape=oval, style=filled, fillcolor="#E8EEF7"',
    "end": 'shape=oval, style=filled, fillcolor="#E8EEF7"',
    "io": 'shape=parallelogram, style=filled, fillcolor="#F3F0FA"',
    "phase": 'shape=box, style="rounded,filled", fillcolor="#FFFFFF"',
    "decision": 'shape=diamond, style=filled, fillcolor="#FFF4DD"',
    "rule": 'shape=box, style="dashed,rounded"',
    "verdict": 'shape=box, style="rounded,filled,bold", fillcolor="#E3F4E8"',
}


def flow_dot(graph: dict, title: str = "", params: dict[str, Any] | None = None) -> str:
    """Graphviz DOT of a flow graph; parameter defaults are listed under the title."""
    lines = [
        "digraph protocol {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=12, labelloc=t, nodesep=0.35];',
        '  node [fontname="Helvetica", fontsize=10, margin="0.12,0.06"];',
        '  edge [fontname="Helvetica", fontsize=9, color="#666666"];',
    ]
    if title:
        sub = ", ".join(f"{k}={v}" for k, v in (params or {}).items() if not isinstance(v, (dict, list)))
        lines.append(f"  label={_q(title + (chr(10) + _wrap(sub, 90) if sub else ''))};")
    for nid, n in graph["nodes"].items():
        label = n["label"]
        if n["kind"] == "phase" and n.get("titles"):
            label = n["titles"][0] if len(n["titles"]) == 1 else re.sub(r"\s*\d+$", "", n["titles"][0]) + " (repeats)"
        parts = [label]
        if n.get("order"):
            parts.append(" → ".join(n["order"]))
        if n.get("note"):
            parts.append(_wrap(n["note"]))
        lines.append(f"  {_q(nid)} [label={_q(chr(10).join(parts))}, {_SHAPES.get(n['kind'], 'shape=box')}];")
    names = edge_labels(graph)
    for (a, b, outcome), _count in graph["edges"].items():
        label = names.get((a, b, outcome), outcome)
        attrs = [f"label={_q(label)}"] if label else []
        if a == b:
            attrs.append("constraint=false")
        lines.append(f"  {_q(a)} -> {_q(b)}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines)


def _reaches(graph: dict, start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        x = todo.pop()
        if x == goal:
            return True
        if x not in seen:
            seen.add(x)
            todo += [b for (a, b, _o) in graph["edges"] if a == x]
    return False


def edge_labels(graph: dict) -> dict[tuple[str, str, str], str]:
    """Each labelled edge's label, unique among the edges leaving its node: when one outcome leads to two
    places (a tally "not reached" opens a new round, or, with no rounds left, goes to the verdict), the
    edge that leads back into the loop says "rounds left" and the other "no rounds left"; a tie left
    after that names the target."""
    out: dict[tuple[str, str, str], str] = {}
    by_source: dict[tuple[str, str], list[str]] = {}
    for a, b, outcome in graph["edges"]:
        if outcome:
            by_source.setdefault((a, outcome), []).append(b)
    for (a, outcome), targets in by_source.items():
        if len(targets) == 1:
            out[(a, targets[0], outcome)] = outcome
            continue
        for b in targets:
            out[(a, b, outcome)] = f"{outcome}, {'rounds left' if _reaches(graph, b, a) else 'no rounds left'}"
        labels = [out[(a, b, outcome)] for b in targets]
        for b in targets:
            if labels.count(out[(a, b, outcome)]) > 1:
                out[(a, b, outcome)] += f" → {graph['nodes'].get(b, {}).get('label', b)}"
    return out


# -- tracing a protocol on a scripted backend -----------------------------------------------------
def _reply_fn(scenario: str, task_labels: tuple[str, ...]):
    calls: Counter = Counter()  # per seed (= per agent): "flip" changes each agent's vote every call

    def reply(messages: list[dict], options: Any) -> str:
        labels = tuple(getattr(options, "labels", ()) or ())
        prompt = " ".join(str(m.get("content", "")) for m in messages[-2:])
        if set(labels) >= {"STOP", "CONTINUE"} or ("CONTINUE" in prompt and "STOP" in prompt and not labels):
            return "DECISION: STOP" if scenario == "agree" else "DECISION: CONTINUE"
        labels = labels if labels and not set(labels) & {"STOP", "CONTINUE"} else task_labels
        if scenario == "agree":
            lab = labels[0]
        elif scenario == "split":
            lab = labels[int(getattr(options, "seed", 0) or 0) % 2]
        else:
            seed = int(getattr(options, "seed", 0) or 0)
            calls[seed] += 1
            lab = labels[(seed + calls[seed]) % 2]
        return (
            json.dumps({"vote": lab, "category": lab, "label": lab, "explanation": "A scripted reason."})
            + f"\n[REASON]: A scripted reason.\n[VERDICT]: {lab}"
        )

    return reply


def _lineup(n: int = 6) -> dict:
    members = [{"name": f"member-{i}", "model": "scripted:m", "temperature": 0.0, "seed": i} for i in range(1, n + 1)]
    return {
        "name": "trace",
        "members": members,
        "judge": {"name": "judge", "model": "scripted:j", "seed": 0},
        "chair": {"name": "chair", "model": "scripted:c", "seed": 0},
    }


class _TraceRetriever:
    """Two fixed passages: enough for an evidence-using protocol to show its retrieval step."""

    name = "trace"

    def search(self, claim: str, k: int = 2) -> list[dict]:
        return [{"text": "A passage for the trace.", "score": 1.0, "source": "trace"}] * min(k, 2)


@lru_cache(maxsize=32)
def _trace_json(protocol: str, task: str, category: int | None, rounds: int | None) -> str:
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend
    from debate.runner import DebateConfig, run_debate
    from debate.tasks import resolve_task

    labels = resolve_task(task, category, "a custom question").labels
    traces = []
    for sc in SCENARIOS:
        client = ModelClient(backends={"scripted": ScriptedBackend(default=_reply_fn(sc, labels))})
        cfg = DebateConfig(
            claim="A claim to trace the protocol with.",
            protocol=protocol,
            task=task,
            category=category,
            lineup=_lineup(),
            params={"rounds": rounds} if rounds else {},
            evidence=None,
            max_tokens=32,
            seed=0,
        )
        traces.append([e.to_dict() for e in run_debate(cfg, client, retriever=_TraceRetriever())])
    return json.dumps(traces)


def trace_protocol(
    protocol: str, task: str = "checkthat", category: int | None = 1, rounds: int | None = None
) -> list[list[dict]]:
    """Event streams of the protocol in each scenario (cached: the protocol code does not change in a run)."""
    return json.loads(_trace_json(protocol, task, category, rounds))


def protocol_dot(protocol: str, task: str = "checkthat", category: int | None = 1) -> str:
    """The protocol's flow as DOT, from its registry entry (title, parameters) and its traced behaviour."""
    from debate.errors import InvalidInput
    from debate.protocols import PROTOCOLS

    info = PROTOCOLS.get(protocol)
    if info is None:
        raise InvalidInput(f"Unknown protocol {protocol!r}.", f"Use one of: {', '.join(PROTOCOLS)}.")
    graph = flow_graph(trace_protocol(protocol, task, category))
    return flow_dot(graph, getattr(info, "title", protocol), info.defaults() if hasattr(info, "defaults") else None)
