"""Content benchmark (not a test): how the embedded lineup's turns read, per protocol and per role.

A fixed, seeded item set (the same every run): CheckThat 2025 4a dev tweets, positives and negatives of
each of the three categories, each debated on its own category, for the TurQUaz protocols; LIAR valid and
AVeriTeC dev claims (three-class, TRUE / HALF-TRUE / FALSE) for RADAR. Every protocol runs at the app's
defaults: the embedded lineup, live-demo pace (debate/live/pace.py), small-model aids on, evidence as the
protocol decides (RADAR: on, the local index only, so no network changes the figures), response cache off.

For each protocol and role it prints the share of turns (debate/content/score.py):
- cut: the answer budget ended the turn and its text stops mid-sentence;
- repeats: the turn repeats a sentence (>= 24 characters) or a run of 20 words;
- copied the format: the turn filled its answer with its format's placeholder ("Brief explanation of
  your decision…") instead of a reason (debate/content/echo.py);
- off-script: characters outside the Latin script in these English tasks;
- unsup. fig.: a figure (number, percentage, year, amount) found in none of the claim, the evidence the
  agents read and the earlier turns;
- label≠argmax: the written label is not the most probable label of the same turn's own probabilities;
  "of them unexplained": those whose turn does not say why (a sampled label, probabilities read away from
  the label, a server's split spellings are said on the page; anything else is a contradiction);
- median words per turn;
and per protocol the click time, Run -> verdict, from the events' timestamps: the engine alone, in one
process with the models loaded (no page, no browser, no read-ahead; bench_live.py measures the browser).

    nice -n 10 .venv/bin/python bench/bench_content.py [--size 30] [--protocols council,radar,...]
        [--lineup embedded-larger] [--out bench/results/content-<tag>.json]

The size is the number of items per protocol: the first N of the fixed list (interleaved, so any prefix
mixes the categories and datasets); `--skip M` leaves out the first M of them, so two processes on one
core each can share a long run (`--size 15` and `--skip 15 --size 30`, then `--table a.json,b.json`).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debate.content.score import MEASURES, score_debate, summarise  # noqa: E402

SEED = 35
N_MAX = 30
TURQUAZ = ("council", "baseline", "single", "team")
RADAR = ("radar", "radar-single")
ORDER = ("council", "radar", "baseline", "single", "team", "radar-single")


def checkthat_items(n: int = N_MAX) -> list[dict]:
    """n dev tweets: per category, positives and negatives in turn, the categories interleaved."""
    from debate.datasets import load_dataset

    ds = load_dataset("checkthat-dev")
    rng = random.Random(SEED)
    per_cat: dict[str, list[dict]] = {}
    for cat in ("1", "2", "3"):
        pos = [it for it in ds.items if it.gold[cat] == "YES"]
        neg = [it for it in ds.items if it.gold[cat] == "NO"]
        rng.shuffle(pos)
        rng.shuffle(neg)
        mixed = [x for pair in zip(pos, neg) for x in pair]
        per_cat[cat] = [
            {
                "id": f"ct-{it.id}-c{cat}",
                "claim": it.text,
                "task": "checkthat",
                "category": int(cat),
                "gold": it.gold[cat],
            }
            for it in mixed
        ]
    # n items take n/3 rounds of the three categories (the same first n for any n; at most 3 x 52 here)
    rounds = min(-(-n // 3), *(len(v) for v in per_cat.values()))
    out = [per_cat[c][i] for i in range(rounds) for c in ("1", "2", "3")]
    return out[:n]


def truth_items(n: int = N_MAX) -> list[dict]:
    """n claims, LIAR valid and AVeriTeC dev in turn, three-class gold."""
    from debate.datasets import load_dataset

    rng = random.Random(SEED)
    lists = []
    for name in ("liar-valid", "averitec-dev-3"):
        items = list(load_dataset(name).items)
        rng.shuffle(items)
        lists.append(
            [
                {"id": f"{name}-{it.id}", "claim": it.text, "task": "halftruth", "category": None, "gold": it.gold}
                for it in items
                if 20 <= len(it.text) <= 400
            ]
        )
    out = [x for pair in zip(*lists) for x in pair]
    return out[:n]


def config_for(protocol: str, item: dict, lineup: str = "embedded"):
    """The DebateConfig the app makes for this protocol at its defaults (ui/setup.py config())."""
    from debate.live import pace
    from debate.runner import DebateConfig

    return DebateConfig(
        claim=item["claim"],
        protocol=protocol,
        task=item["task"],
        category=item["category"],
        lineup=lineup,
        params=pace.overrides("demo", protocol),
        evidence=None,
        top_k=pace.top_k("demo"),
        max_tokens=pace.max_tokens("demo"),
        aids=True,
        gold=item["gold"],
        sources="local",
    )


def run_one(protocol: str, item: dict, client, retriever, lineup: str = "embedded") -> dict:
    from debate.runner import run_debate

    t0 = time.perf_counter()
    events = [e.to_dict() for e in run_debate(config_for(protocol, item, lineup), client, retriever)]
    verdict_t = next((e["t"] for e in reversed(events) if e["type"] == "verdict"), None)
    fin = events[-1] if events and events[-1]["type"] == "finished" else {}
    turns = [
        {
            k: e.get(k)
            for k in (
                "role",
                "agent",
                "model",
                "text",
                "label",
                "label_probs",
                "label_at",
                "confidence",
                "cut_off_at",
                "completion_tokens",
                "parsed",
            )
        }
        for e in events
        if e["type"] == "turn_finished"
    ]
    for t in turns:
        t["text"] = (t["text"] or "")[:3000]
    return {
        "item": item["id"],
        "protocol": protocol,
        "lineup": lineup,
        "verdict_s": verdict_t,
        "wall_s": round(time.perf_counter() - t0, 2),
        "status": fin.get("status"),
        "label": fin.get("label"),
        "gold": item["gold"],
        "scores": score_debate(events),
        "turns": turns,
        "errors": [e.get("message", "")[:300] for e in events if e["type"] == "error"],
    }


@functools.cache
def every_format() -> str:
    """Every template's text, once per run: what a saved turn's copied placeholder is read against."""
    from debate import prompts

    return "\n".join(t.text for t in prompts.templates().values())


def rescored(r: dict) -> list[dict]:
    """A result's rows with every measure that needs only the turn itself computed again with the current
    functions (runs made with another version of debate/content are then scored alike); the unsupported
    figures, which need the debate's evidence, are kept as the run scored them."""
    from debate.content.echo import echoed_format
    from debate.content.score import label_not_argmax, unexplained
    from debate.content.script import off_script
    from debate.content.sentences import ends_mid_sentence, find_loop, shown_text

    # every template's answer formats: a run saved before the engine recorded echoes is read against them all
    formats = every_format()
    rows = []
    for s, t in zip(r["scores"], r["turns"]):
        text = t.get("text") or ""
        parsed = t.get("parsed") if isinstance(t.get("parsed"), dict) else {}
        shown = shown_text(text, parsed, valid="error" not in parsed)  # a JSON answer's words, as the page shows
        rows.append(
            {
                **s,
                "words": len(shown.split()),
                "cut": bool(t.get("cut_off_at")) and ends_mid_sentence(shown),
                "repeats": find_loop(shown) is not None,
                "echoed_format": s["echoed_format"] if "echoed_format" in s else bool(echoed_format(text, formats)),
                "off_script": bool(off_script(shown)),
                "label_not_argmax": label_not_argmax(t.get("label"), t.get("label_probs")),
                # runs saved before label_at was kept cannot say where their probabilities were read
                # runs saved before the number the page shows was kept are read as they were scored then
                "unexplained": unexplained(t.get("label"), t.get("label_probs"), t.get("label_at"), t.get("confidence"))
                if "confidence" in t
                else s.get("unexplained"),
            }
        )
    return rows


def table(results: list[dict]) -> str:
    """The printed table: one row per protocol (all its turns) and per role within it."""
    head = (
        "| protocol | role | turns | cut mid-sentence | repeats | copied the format | off-script | unsupported figure | "
        "label ≠ argmax | of them unexplained | median words | Run→verdict (median, engine) |"
    )
    lines = [head, "|" + "---|" * 12]
    by_proto: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        by_proto[r["protocol"]].append(r)
    for proto in [p for p in ORDER if p in by_proto]:
        runs = by_proto[proto]
        rows = [s for r in runs for s in rescored(r)]
        times = [r["verdict_s"] for r in runs if r["verdict_s"] is not None]
        click = f"{statistics.median(times):.1f} s (n={len(times)})" if times else "—"
        # per role, and per role and model where a role is played by several models (which model writes
        # better in which seat is read from these rows)
        groups: list[tuple[str, list[dict]]] = [("all", rows)]
        for role in sorted({s["role"] for s in rows}):
            mine = [s for s in rows if s["role"] == role]
            groups.append((role, mine))
            models = sorted({s.get("model") or "" for s in mine})
            if len(models) > 1:
                groups += [(f"{role} · {m}", [s for s in mine if s.get("model") == m]) for m in models]
        for role, group in groups:
            sm = summarise(group)
            cells = []
            for m in MEASURES:
                k, n = sm[m]
                cells.append(f"{k}/{n} ({k / n:.0%})" if n else "—")
            lines.append(
                f"| {proto} ({len(runs)} items) | {role} | {sm['turns']} | "
                + " | ".join(cells)
                + f" | {sm['median_words']:g} | {click if role == 'all' else ''} |"
            )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=N_MAX, help=f"items per protocol (at most {N_MAX})")
    ap.add_argument(
        "--skip",
        type=int,
        default=0,
        help="leave out the first N items (two processes, one core each, split a long run: "
        "--size 15 and --skip 15 --size 30; --table a.json,b.json prints them together)",
    )
    ap.add_argument("--protocols", default=",".join(ORDER))
    ap.add_argument("--lineup", default="embedded", help="a preset's name (e.g. embedded-larger); default embedded")
    ap.add_argument("--out", default="", help="write the raw results here as JSON")
    ap.add_argument("--table", default="", help="print the table of earlier --out files (comma-separated) and exit")
    args = ap.parse_args()
    if args.table:  # one or several files (comma-separated): e.g. a long run of two protocols and a short one
        print(table([r for f in args.table.split(",") for r in json.loads(Path(f).read_text())["results"]]))
        return
    from debate.cli.run import _retriever
    from debate.models.registry import default_client

    client = default_client(cache=False)
    retriever = None
    results: list[dict] = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    loads = [os.getloadavg()[0]]
    for proto in args.protocols.split(","):
        items = (truth_items if proto in RADAR else checkthat_items)(min(args.size, N_MAX))[args.skip :]
        if proto in RADAR and retriever is None:
            retriever = _retriever(None, "local")
        for it in items:
            r = run_one(proto, it, client, retriever if proto in RADAR else None, args.lineup)
            results.append(r)
            loads.append(os.getloadavg()[0])
            print(
                f"{proto} {it['id']}: verdict {r['label']} (gold {r['gold']}) at {r['verdict_s']} s, "
                f"{len(r['scores'])} turns",
                file=sys.stderr,
                flush=True,
            )
            if args.out:  # written after every debate: a long run interrupted keeps what it measured
                Path(args.out).write_text(
                    json.dumps(
                        {
                            "command": " ".join(sys.argv),
                            "started": started,
                            "load_1min": [round(x, 2) for x in loads],
                            "results": results,
                        },
                        ensure_ascii=False,
                    )
                )
    print(f"started {started}; load average (1 min) during the run: min {min(loads):.1f}, max {max(loads):.1f}")
    print(table(results))


if __name__ == "__main__":
    main()
