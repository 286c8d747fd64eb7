"""The single debate's judge asked for its category as the paper's digit (1 or 0) or as the word (YES or NO).

Why: reading default single debates, the 0.5B judge wrote "The tweet contains several scientific claims"
and then `"category": 0` (P 0.51): its reason and its label apart, so the card says NO under a reason for YES.
This re-judges stored debates: each debate's turns are replayed as they were (a fork whose replay ends
before the last judge), and only the judge answers anew, once with each `judge_labels` value, at the app's
defaults otherwise. Per judge: the label, its probability, whether the reason's own words take a side
(`reason_side`: the category's verb and object) and whether the label is that side, and gold.

    DEBATE_SHARED_DATA=/work/shared/data python bench/bench_judge_labels.py \\
        bench/results/substance-single-hold-side-2026-12-07-base-events.jsonl,... --tag single-judge-labels-2026-12-07

Results: bench/results/judge-labels-<tag>.json (every judge's row) and the table printed. The digits arm
should repeat each stored judge's label (same prompt, greedy): the table says how many did.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench_substance import RESULTS, debates_from_jsonl  # noqa: E402

from debate.content.substance import reason_side  # noqa: E402
from debate.evaluation.targets import macro_f1  # noqa: E402

ARMS = ("digits", "words")


def judge_rows(events: list[dict]) -> tuple[dict, list[dict]]:
    """The debate's last judge turn and the turns before it, in the order they were started (what a fork
    replays: turns of one step finish in any order)."""
    started = {e.get("turn_id"): i for i, e in enumerate(events) if e.get("type") == "turn_started"}
    turns = [e for e in events if e.get("type") == "turn_finished"]
    turns.sort(key=lambda e: started.get(e.get("turn_id"), len(events)))
    last = max(i for i, e in enumerate(turns) if e.get("role") == "judge" and e.get("phase") == "judge")
    return turns[last], turns[:last]


def rejudge(rec: dict, arm: str, client) -> dict:
    from bench_content import config_for

    from debate.runner import run_debate
    from debate.sharing.fork import Fork

    events = rec["events"]
    started = events[0]
    stored, replay = judge_rows(events)
    item = {"claim": started["claim"], "task": started["task"], "category": started["category"], "gold": rec["gold"]}
    cfg = config_for(rec["protocol"], item)
    cfg.params = {**cfg.params, "judge_labels": arm}
    cfg.fork = Fork(
        parent_id=str(started.get("debate_id") or "stored"), round=int(stored.get("round") or 0), turns=replay
    )
    t0 = time.perf_counter()
    out = [e.to_dict() for e in run_debate(cfg, client)]
    errors = [e.get("message") for e in out if e.get("type") == "error"]
    if errors:
        raise RuntimeError(f"{rec['item']} ({arm}): {errors}")
    judge, _ = judge_rows(out)
    verdict = [e for e in out if e.get("type") == "verdict"][-1]
    reason = str((judge.get("parsed") or {}).get("explanation") or "")
    cat = verdict.get("category") or started["category"]
    side = reason_side(reason, cat)
    return {
        "item": rec["item"],
        "arm": arm,
        "category": cat,
        "gold": rec["gold"],
        "label": judge.get("label"),
        "shown": verdict.get("label"),
        "probs": judge.get("label_probs"),
        "reason": reason,
        "reason_side": side,
        "apart": side is not None and side != judge.get("label"),
        "stored_label": stored.get("label"),
        "judge_s": round(time.perf_counter() - t0, 2),
        "status": out[-1].get("status"),
    }


def summary(rows: list[dict]) -> dict:
    out = {}
    for arm in ARMS:
        rs = [r for r in rows if r["arm"] == arm]
        if not rs:
            continue
        gold, shown = [r["gold"] for r in rs], [r["shown"] or "NO" for r in rs]
        out[arm] = {
            "judges": len(rs),
            "reason_takes_a_side": sum(r["reason_side"] is not None for r in rs),
            "label_apart_from_reason": sum(r["apart"] for r in rs),
            "right": sum(g == s for g, s in zip(gold, shown)),
            "macro_f1": round(macro_f1(gold, shown, ("YES", "NO")), 3),
            "same_as_stored": sum(r["label"] == r["stored_label"] for r in rs),
            "yes_shown": sum(s == "YES" for s in shown),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("events", help="substance benchmark JSONL files of single debates (comma-separated)")
    ap.add_argument("--tag", required=True)
    args = ap.parse_args(argv)
    from debate.models.registry import default_client

    client = default_client(cache=False)
    recs = [r for f in args.events.split(",") for r in debates_from_jsonl(Path(f)) if r.get("protocol") == "single"]
    rows = []
    for i, rec in enumerate(recs):
        for arm in ARMS if i % 2 == 0 else ARMS[::-1]:  # alternating order: neither arm always runs warm
            row = rejudge(rec, arm, client)
            rows.append(row)
            print(f"{rec['item']} {arm}: {row['label']} (reason {row['reason_side']}, gold {row['gold']})", flush=True)
    res = {"command": " ".join(sys.argv), "started": time.strftime("%Y-%m-%d %H:%M UTC"), "summary": summary(rows)}
    res["rows"] = rows
    path = RESULTS / f"judge-labels-{args.tag}.json"
    path.write_text(json.dumps(res, indent=1), encoding="utf-8")
    print("| arm | judges | reason takes a side | label apart from its reason | right | macro-F1 | same as stored |")
    print("|---|---|---|---|---|---|---|")
    for arm, s in res["summary"].items():
        print(
            f"| {arm} | {s['judges']} | {s['reason_takes_a_side']} | {s['label_apart_from_reason']} | "
            f"{s['right']} | {s['macro_f1']} | {s['same_as_stored']} |"
        )
    print(f"written: {path}")


if __name__ == "__main__":
    main()
