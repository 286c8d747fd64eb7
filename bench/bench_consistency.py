"""Consistency benchmark (not a test): do every screen and export of a stored debate say the same thing?

For each debate of a store it renders the exports (JSON, CSV, Markdown, HTML, the terminal transcript),
Learn's notes and the Library's row, optionally the app's pages through Streamlit's AppTest (Library card
and bubbles, Learn at its last step and its vote dynamics, Present at the end of its playback), reads the
statements each makes (debate/content/consistency.py: the verdict, who voted what as written and as
counted, consensus per round, the first vote's unanimity, how it stopped, the aids) and prints every
contradiction, then the totals per protocol.

Where the debates come from (one or more):
- `--home DIR`: the store of a DEBATE_HOME (DIR/debates.sqlite), e.g. one filled with
  `DEBATE_HOME=DIR python -m debate run --protocol P --lineup embedded ...`;
- `--events GLOB`: JSONL event files, as `python -m debate run ... --events FILE` writes them (repeatable);
- `--fixtures`: the stored fixtures (tests/fixtures/debates/*/debates.sqlite) and the event streams kept in
  bench/results/*-events.jsonl, imported into a temporary store;
- `--scripted N`: N debates per protocol on scripted models (no model file, seconds), each with its own
  seeded mix of answers: members that split or agree, bare and unreadable votes, votes counted from the
  models' own label probabilities (vote_from=probs), chairs whose status field contradicts the tally, judges
  and stop checks either way, one or three CheckThat categories. They test the renderers, not the models.

    .venv/bin/python bench/bench_consistency.py --fixtures --scripted 30 [--home DIR] [--pages 2]
        [--protocols council,single,...] [--out bench/results/consistency-<tag>.json]

`--pages K` opens the app's pages for the first K debates of each protocol (a few seconds each; 0 = none).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import logging
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _rng(*parts) -> random.Random:
    return random.Random(int(hashlib.sha256(repr(parts).encode()).hexdigest()[:12], 16))


def scripted_debates(store, protocols: list[str], n: int) -> list[str]:
    """n scripted debates per protocol, stored: the answers a seeded function of the debate and the prompt."""
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend
    from debate.runner import DebateConfig, run_debate
    from tests.support.engine import kind

    ids = []
    for protocol in protocols:
        for i in range(n):
            seed = (protocol, i)
            rnd = _rng(*seed)
            task = "halftruth" if protocol.startswith("radar") else "checkthat"
            labels = ("TRUE", "HALF-TRUE", "FALSE") if task == "halftruth" else ("YES", "NO")

            def reply(messages, options, seed=seed, labels=labels):
                r = _rng(*seed, options.seed, messages[-1]["content"][-400:], len(messages))
                k = kind(messages)
                lab = r.choice(labels)
                why = r.choice(["It names a study.", "No source is given.", "", "The figure is not in any source."])
                if k == "vote":
                    if r.random() < 0.08:
                        return "I cannot decide."  # unreadable, then its repair
                    return json.dumps({"vote": lab, "explanation": why} if why else {"vote": lab})
                if k == "repair":
                    return json.dumps({"vote": lab}) if r.random() < 0.5 else "still nothing"
                if k == "chair":
                    status = r.choice(["CONSENSUS REACHED", "CONSENSUS NOT REACHED"])
                    return json.dumps({"status": status, "summary": "Weigh the source."})
                if k == "judge":
                    return json.dumps({"category": 1 if lab in ("YES", "TRUE") else 0, "explanation": why or "x"})
                if k == "verdict":
                    return f"[REASON]: {why or 'Nothing decides it.'}\n[VERDICT]: {lab}"
                if k == "stop":
                    return r.choice(["DECISION: CONTINUE", "DECISION: STOP"])
                if k == "domain":
                    return "DOMAIN: Health"
                if k == "questions":
                    return "1. Who ran the study?"
                return f"{why or 'My argument.'} So the answer is {lab}."

            def probs(text, options, seed=seed):
                if not options.labels:
                    return None
                r = _rng(*seed, "p", text[-200:], options.seed)
                w = [r.random() + 0.05 for _ in options.labels]
                return {lab: x / sum(w) for lab, x in zip(options.labels, w)}

            client = ModelClient({"scripted": ScriptedBackend(default=reply, label_probs=probs)})
            members = [{"name": f"m{j}", "model": f"scripted:m{j}", "seed": j} for j in range(1, 4)]
            lineup = {
                "name": "scripted",
                "members": members,
                "judge": {"name": "judge", "model": "scripted:judge"},
                "chair": {"name": "chair", "model": "scripted:chair"},
            }
            from debate.protocols import PROTOCOLS

            params: dict = {"rounds": rnd.choice([1, 2, 3])} if "rounds" in PROTOCOLS[protocol].params else {}
            if protocol == "council" and rnd.random() < 0.5:
                params["vote_from"] = "probs"
            cfg = DebateConfig(
                claim=f"Scripted claim {protocol} {i}: a study says coffee helps.",
                protocol=protocol,
                task=task,
                category=None
                if (task == "checkthat" and rnd.random() < 0.15)
                else (1 if task == "checkthat" else None),
                lineup=lineup,
                params=params,
                evidence=False,
                max_tokens=48,
                gold=rnd.choice(labels) if rnd.random() < 0.5 and task != "checkthat" else None,
                aids=rnd.random() < 0.3,
            )
            did = f"s-{protocol}-{i:02d}"
            events = list(run_debate(cfg, client))
            store.create_debate(asdict(cfg), did)
            store.append_events(did, [e for e in events if e.type != "token"])
            store.release(did)
            ids.append(did)
    return ids


def fixture_debates(store) -> list[str]:
    """The stored fixtures and the event streams kept in bench/results, imported into `store`."""
    from debate.store import DebateStore

    ids = []
    for db in sorted(glob.glob(str(REPO / "tests/fixtures/debates/*/debates.sqlite"))):
        src = DebateStore(db)
        for row in src.list(limit=1000):
            did = f"fx-{Path(db).parent.name}-{row['id']}"
            _copy(store, did, src.event_dicts(row["id"]), row)
            ids.append(did)
    for f in sorted(glob.glob(str(REPO / "bench/results/*-events.jsonl"))):
        for k, line in enumerate(Path(f).read_text(encoding="utf-8").splitlines()):
            d = json.loads(line)
            if not d.get("events"):
                continue
            did = f"ev-{Path(f).stem}-{k}"
            _copy(store, did, d["events"], {"protocol": d.get("protocol"), "claim": d.get("item", "")})
            ids.append(did)
    return ids


def event_files(store, pattern: str) -> list[str]:
    """Each JSONL events file matching `pattern` (a finished run of `python -m debate run --events`), stored."""
    from debate.transcript import read_events

    ids = []
    for f in sorted(glob.glob(pattern)):
        events = [e.to_dict() for e in read_events(f) if e.type != "token"]
        if not any(e.get("type") == "finished" for e in events):
            print(f"{f}: not finished, left out", file=sys.stderr)
            continue
        did = f"run-{Path(f).stem}"
        _copy(store, did, events, {})
        ids.append(did)
    return ids


def _copy(store, did: str, events: list[dict], row: dict) -> None:
    started = next((e for e in events if e.get("type") == "debate_started"), {})
    cfg = dict(started.get("config") or {}) or {
        "protocol": row.get("protocol") or started.get("protocol"),
        "task": started.get("task", "checkthat"),
        "claim": started.get("claim") or row.get("claim") or "",
    }
    store.create_debate(cfg, did)
    store.append_events(did, events)
    store.release(did)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--home", action="append", default=[], help="a DEBATE_HOME whose store to check (repeatable)")
    ap.add_argument("--events", action="append", default=[], help="a glob of JSONL event files (repeatable)")
    ap.add_argument("--fixtures", action="store_true", help="the stored fixtures and bench/results event streams")
    ap.add_argument("--scripted", type=int, default=0, help="N scripted debates per protocol")
    ap.add_argument("--protocols", default="", help="comma-separated (default: every registered protocol)")
    ap.add_argument("--pages", type=int, default=0, help="open the app's pages for the first K debates per protocol")
    ap.add_argument("--out", default="", help="write the results as JSON here")
    ap.add_argument("--show", type=int, default=5, help="contradictions printed per debate")
    a = ap.parse_args()

    logging.getLogger("streamlit").setLevel(logging.ERROR)  # AppTest's "missing ScriptRunContext" notes
    # the pages read DEBATE_HOME's store: the first --home given, else the one this run fills
    work = (
        Path(a.home[0])
        if a.home and not (a.fixtures or a.scripted or a.events)
        else Path(tempfile.mkdtemp(prefix="consistency-"))
    )
    if a.pages:
        os.environ["DEBATE_HOME"] = str(work)
    from debate.protocols import PROTOCOLS
    from debate.store import DebateStore
    from tests.support.consistency import export_screens, page_screens

    protocols = [p for p in (a.protocols.split(",") if a.protocols else PROTOCOLS) if p]
    store = DebateStore(work / "debates.sqlite")
    sources: list[tuple[DebateStore, str, str]] = []  # (store, id, where from)
    if a.fixtures:
        sources += [(store, d, "fixture") for d in fixture_debates(store)]
    for pattern in a.events:
        sources += [(store, d, "events") for d in event_files(store, pattern)]
    if a.scripted:
        t = time.time()
        sources += [(store, d, "scripted") for d in scripted_debates(store, protocols, a.scripted)]
        print(f"{a.scripted} scripted debates per protocol made in {time.time() - t:.1f} s", file=sys.stderr)
    kinds = {"s-": "scripted", "fx-": "fixture", "ev-": "fixture", "run-": "events"}  # ids this script gives
    for home in a.home:
        s = store if Path(home) == work else DebateStore(Path(home) / "debates.sqlite")
        for r in s.list(limit=100000):
            if r["status"] != "running":
                origin = next((v for k, v in kinds.items() if r["id"].startswith(k)), home)
                sources.append((s, r["id"], origin))

    results = []
    paged: dict[str, int] = defaultdict(int)
    totals: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])  # (protocol, from) -> debates, bad, n
    t0 = time.time()
    for s, did, origin in sources:
        row = s.get(did) or {}
        protocol = str(row.get("protocol") or "?")
        if protocol not in protocols:
            continue
        screens = export_screens(s, did)
        if a.pages and paged[protocol] < a.pages and s is store:
            screens.update(page_screens(did))
            paged[protocol] += 1
        from debate.content.consistency import check, statements

        found = check(screens)
        n_stmts = sum(len(statements(k, v)) for k, v in screens.items())
        tot = totals[(protocol, origin)]
        tot[0] += 1
        tot[1] += bool(found)
        tot[2] += len(found)
        results.append(
            {
                "debate": did,
                "protocol": protocol,
                "from": origin,
                "screens": sorted(screens),
                "statements": n_stmts,
                "contradictions": [str(c) for c in found],
            }
        )
        flag = f"{len(found)} contradiction(s)" if found else "ok"
        print(f"{did:<40} {protocol:<13} {origin:<10} {n_stmts:>4} statements over {len(screens)} screens: {flag}")
        for c in found[: a.show]:
            print(f"    {c}")
    print()
    print(f"{'protocol':<13} {'from':<28} {'debates':>7} {'with any':>9} {'contradictions':>15}")
    for (p, origin), (n, bad, k) in sorted(totals.items()):
        print(f"{p:<13} {origin[-28:]:<28} {n:>7} {bad:>9} {k:>15}")
    print(
        f"\n{len(results)} debates, {sum(len(r['contradictions']) for r in results)} contradictions, "
        f"pages opened for {sum(paged.values())}, {time.time() - t0:.1f} s"
    )
    if a.out:
        Path(a.out).write_text(
            json.dumps(
                {
                    "command": " ".join(["bench/bench_consistency.py", *sys.argv[1:]]),
                    "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t0)),
                    "totals": [
                        {"protocol": p, "from": o, "debates": n, "with_contradictions": b, "contradictions": k}
                        for (p, o), (n, b, k) in sorted(totals.items())
                    ],
                    "results": results,
                },
                indent=1,
            ),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
