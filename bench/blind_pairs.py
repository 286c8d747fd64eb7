"""Blind pairwise reading: two configurations' debates of the same claims, read side by side without
knowing which is which, judged against a written rubric, then unblinded.

Why: the substance benchmark counts what it can count (copies, refusals, invented sources); whether a
debate is worth showing a class is a reader's judgement. A reader who knows which debate came from the
new defaults reads it kindly, so the reader sees neither the configuration nor its order: each pair's
two debates stand as "Debate 1" and "Debate 2" in a random order (seeded, recorded in the key), speakers
are named by their role only, and every model name, agent name, lineup name and setting the events hold
is removed from the text shown.

    python bench/blind_pairs.py make --a before-events.jsonl --b after-events.jsonl --name defaults
        # -> bench/results/blind-defaults-pairs.md (what the reader reads) and -key.json (not for the reader)
    python bench/blind_pairs.py judge --name defaults --pair 3 --prefer 2 --why "Debate 2 answers its opponent."
        # one judgement per call, appended to bench/results/blind-defaults-judgements.jsonl
    python bench/blind_pairs.py unblind --name defaults
        # how often each configuration was preferred, written to bench/results/blind-defaults-result.json

The input files are the substance benchmark's debates (bench_substance.py --run writes them; one debate
per line with its events) or a content benchmark's results (.json: bench_content.py --out). The rubric every reader follows is bench/results/blind-rubric.md.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_substance import RESULTS, debates_from_content, debates_from_jsonl  # noqa: E402

from debate.content.sentences import shown_text  # noqa: E402
from debate.protocols.radar import NAMES  # noqa: E402

RUBRIC = "blind-rubric.md"
ROLE_NAMES = {
    **NAMES,  # RADAR's debaters, as its judge reads them
    "proponent": "Proponent",
    "opponent": "Opponent",
    "judge": "Judge",
    "member": "Member",
    "chair": "Chair",
    "baseline": "Single model",
}
SKIP_PHASES = ("round-judge", "stop-check", "calibrate", "domain")
MAX_TURN_CHARS = 3000


def pair_key(events: list[dict]) -> tuple[str, str]:
    """What makes two debates a pair: the same claim on the same task and category (a CheckThat tweet is
    debated once per category)."""
    start = next((e for e in events if e.get("type") == "debate_started"), {})
    return str(start.get("claim") or ""), f"{start.get('task') or ''}/{start.get('category') or ''}"


def identifying(events: list[dict]) -> list[str]:
    """Every string that would tell a reader the configuration: model and agent names, the lineup's name,
    the settings' string values (longest first, so a name is removed before a part of it)."""
    found: set[str] = set()
    for e in events:
        if e.get("type") == "debate_started":
            for a in e.get("lineup") or []:
                found |= {str(a.get(k) or "") for k in ("agent", "model")}
            settings = e.get("settings") or {}
            found |= {str(v) for v in settings.values() if isinstance(v, str)}
        if e.get("type") in ("turn_started", "turn_finished"):
            found |= {str(e.get("agent") or ""), str(e.get("model") or "")}
    parts = set()
    for s in found:  # "local:qwen2.5-0.5b" also as "qwen2.5-0.5b"
        parts |= {s, s.split(":", 1)[-1], s.rsplit("/", 1)[-1]}
    # an agent named for its role ("politician") names no configuration, and its words must stay readable
    roles = {x.lower() for x in (*ROLE_NAMES, *ROLE_NAMES.values())}
    return sorted((p for p in parts if len(p) >= 3 and p.lower() not in roles), key=len, reverse=True)


def scrub(text: str, names: list[str]) -> str:
    for n in names:
        text = re.sub(re.escape(n), "[hidden]", text, flags=re.I)
    return text


def render(events: list[dict]) -> str:
    """A debate as a reader sees it: speakers by role (members numbered), what each turn shows, the
    verdict; nothing that names a model, an agent, a lineup or a setting."""
    names = identifying(events)
    turns = [e for e in events if e.get("type") == "turn_finished"]
    agents: dict[str, list[str]] = {}  # role -> its agents in the order they first speak
    for e in turns:
        mine = agents.setdefault(str(e.get("role") or ""), [])
        if str(e.get("agent")) not in mine:
            mine.append(str(e.get("agent")))
    lines = []
    for e in events:
        t = e.get("type")
        if t == "turn_finished" and not e.get("replayed") and str(e.get("phase") or "") not in SKIP_PHASES:
            role = str(e.get("role") or "")
            who = ROLE_NAMES.get(role, role.title() or "Speaker")
            if len(agents[role]) > 1:  # several agents in one role (a council's members): numbered
                who = f"{who} {agents[role].index(str(e.get('agent'))) + 1}"
            words = shown_text(str(e.get("text") or ""), e.get("parsed"), bool(e.get("valid", True)))
            label = f" [{e['label']}]" if e.get("label") else ""
            phase = str(e.get("phase") or "")
            lines.append(f"**{who}** ({phase}){label}: {scrub(words[:MAX_TURN_CHARS], names)}")
        elif t == "votes_tallied":  # the tally line the page shows under each round of votes
            counts = ", ".join(f"{k} {n}" for k, n in (e.get("counts") or {}).items())
            members = agents.get("member", [])
            kept = "; ".join(
                f"Member {members.index(a) + 1 if a in members else '?'} not asked again: its first vote, "
                f"counted as {(e.get('votes') or {}).get(a)}, stands"
                for a in e.get("kept") or []
            )
            lines.append(f"**Votes, round {e.get('round')}**: {counts}" + (f" · {kept}" if kept else ""))
        elif t == "verdict":
            lines.append(f"**Verdict shown**: {e.get('label')} — {scrub(str(e.get('explanation') or '')[:800], names)}")
    return "\n\n".join(lines)


def debates_of(path: Path) -> list[dict]:
    """A JSONL file of debates (bench_substance.py --run) or a content benchmark's results (.json)."""
    return debates_from_content(path) if path.suffix == ".json" else debates_from_jsonl(path)


def make(a_file: Path, b_file: Path, name: str, seed: int, results: Path = RESULTS) -> tuple[Path, Path]:
    """Pairs of the claims both sets debated: pairs file (for the reader) and key file (for unblinding)."""
    a = {pair_key(d["events"]): d for d in debates_of(a_file)}
    b = {pair_key(d["events"]): d for d in debates_of(b_file)}
    claims = [c for c in a if c in b and c[0]]
    rng = random.Random(seed)
    rng.shuffle(claims)
    md = [f"# Blind pairs: {len(claims)}", "", f"Read {RUBRIC} first. Judge each pair on its own.", ""]
    key = {"a": str(a_file), "b": str(b_file), "seed": seed, "made": time.strftime("%Y-%m-%d %H:%M UTC"), "pairs": {}}
    for i, c in enumerate(claims, 1):
        first = rng.choice("ab")
        order = (a[c], b[c]) if first == "a" else (b[c], a[c])
        key["pairs"][str(i)] = {"debate_1": first, "debate_2": "b" if first == "a" else "a", "claim": c[0]}
        md += [f"## Pair {i}", "", f"Claim: {c[0]}", ""]
        for n, d in enumerate(order, 1):
            md += [f"### Debate {n}", "", render(d["events"]), ""]
    pairs, keyf = results / f"blind-{name}-pairs.md", results / f"blind-{name}-key.json"
    pairs.write_text("\n".join(md), encoding="utf-8")
    keyf.write_text(json.dumps(key, ensure_ascii=False, indent=1), encoding="utf-8")
    return pairs, keyf


def judge(name: str, pair: int, prefer: str, why: str, reader: str, results: Path = RESULTS) -> dict:
    """One reader's judgement of one pair, appended (never rewritten): which debate, and why."""
    if prefer not in ("1", "2", "same"):
        raise SystemExit("--prefer must be 1, 2 or same")
    if not why.strip():
        raise SystemExit("--why is required: the rubric asks why")
    row = {
        "pair": pair,
        "prefer": prefer,
        "why": why.strip(),
        "reader": reader,
        "at": time.strftime("%Y-%m-%d %H:%M UTC"),
    }
    with (results / f"blind-{name}-judgements.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return row


def unblind(name: str, results: Path = RESULTS) -> dict:
    """Every judgement with the configuration it preferred; the share of pairs each was preferred in (a
    reader's later judgement of a pair replaces their earlier one)."""
    key = json.loads((results / f"blind-{name}-key.json").read_text(encoding="utf-8"))
    latest: dict[tuple[str, int], dict] = {}
    path = results / f"blind-{name}-judgements.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        if line.strip():
            j = json.loads(line)
            latest[(j["reader"], int(j["pair"]))] = j
    rows = []
    for j in latest.values():
        k = key["pairs"].get(str(j["pair"]))
        if k is None:
            continue
        chosen = "same" if j["prefer"] == "same" else k[f"debate_{j['prefer']}"]
        rows.append({**j, "preferred": chosen, "claim": k["claim"]})
    n = len(rows)
    out = {
        "a": key["a"],
        "b": key["b"],
        "judgements": n,
        "prefer_a": sum(r["preferred"] == "a" for r in rows),
        "prefer_b": sum(r["preferred"] == "b" for r in rows),
        "same": sum(r["preferred"] == "same" for r in rows),
        "rows": rows,
    }
    out["share_b"] = round(out["prefer_b"] / n, 3) if n else None
    (results / f"blind-{name}-result.json").write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make", help="write the pairs and their key")
    m.add_argument("--a", required=True, help="JSONL of configuration A's debates")
    m.add_argument("--b", required=True, help="JSONL of configuration B's debates")
    m.add_argument("--name", required=True, help="the comparison's name (files blind-<name>-*)")
    m.add_argument("--seed", type=int, default=int(time.time()))
    j = sub.add_parser("judge", help="record one judgement")
    j.add_argument("--name", required=True)
    j.add_argument("--pair", type=int, required=True)
    j.add_argument("--prefer", required=True, help="1, 2 or same")
    j.add_argument("--why", required=True)
    j.add_argument("--reader", default="reader")
    u = sub.add_parser("unblind", help="say which configuration each judgement preferred")
    u.add_argument("--name", required=True)
    args = ap.parse_args(argv)
    if args.cmd == "make":
        pairs, key = make(Path(args.a), Path(args.b), args.name, args.seed)
        print(f"pairs: {pairs.relative_to(REPO)} (for the reader); key: {key.relative_to(REPO)} (not for the reader)")
    elif args.cmd == "judge":
        print(json.dumps(judge(args.name, args.pair, args.prefer, args.why, args.reader)))
    else:
        r = unblind(args.name)
        print(
            f"{r['judgements']} judgements: A ({r['a']}) preferred {r['prefer_a']}, B ({r['b']}) {r['prefer_b']}, "
            f"same {r['same']}; B preferred in {r['share_b']}"
        )


if __name__ == "__main__":
    main()
