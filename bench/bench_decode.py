"""Copying and budget figures of stored content-benchmark runs (bench/bench_content.py --out files).

Per speaking turn (a debater's argument): copied = it repeats a run of >= 12 words (lower-cased, punctuation
dropped) that stands in an earlier turn of *another* speaker of the same debate and not in the claim;
hit the budget = the answer ended at its token cap (`cut_off_at`: the hard cap, after any grace). Per judge:
its reason ends at a sentence end, and its label was read. Plus the median Run -> verdict (the engine's).

    python bench/bench_decode.py bench/results/content-decode-before-radar.json bench/results/content-decode-after-radar.json

A reading aid for the decode-time copy guard and the kind budget (debate/models/copyguard.py,
debate/models/stopping.py); the substance benchmark measures copying over every protocol.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

RUN = 12  # words: the copy the issue counted ("a run of 12 or more words from the other speaker")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(text: str) -> list[str]:
    return _WORD.findall((text or "").lower())


def runs(text: str, n: int = RUN) -> set[tuple[str, ...]]:
    w = words(text)
    return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}


def copied(text: str, others: list[str], claim: str = "", n: int = RUN) -> bool:
    """`text` repeats a run of n words of one of `others` that is not a run of the claim."""
    theirs = set().union(*(runs(o, n) for o in others)) if others else set()
    return bool((runs(text, n) & theirs) - runs(claim, n))


def claims() -> dict[str, str]:
    from bench.bench_content import truth_items

    return {it["id"]: it["claim"] for it in truth_items()}


def figures(results: list[dict]) -> dict:
    """The counts this script prints, from stored debates (pure over the stored turns)."""
    from debate.content.sentences import ends_mid_sentence

    try:
        by_id = claims()
    except Exception:  # noqa: BLE001 - the datasets are not here: no claim exempted (counts can only grow)
        by_id = {}
    out = {"turns": 0, "copied": 0, "budget": 0, "judges": 0, "reason_ends": 0, "labelled": 0, "times": []}
    for r in results:
        claim = by_id.get(r.get("item", ""), "")
        said: list[tuple[str, str]] = []
        for t in r.get("turns", []):
            agent, text = t.get("agent") or "", t.get("text") or ""
            if t.get("role") == "judge":
                out["judges"] += 1
                parsed = t.get("parsed") if isinstance(t.get("parsed"), dict) else {}
                reason = str(parsed.get("explanation") or parsed.get("reason") or "")
                out["reason_ends"] += bool(reason.strip()) and not ends_mid_sentence(reason)
                out["labelled"] += bool(t.get("label"))
            elif t.get("role") not in ("stop", "chair"):
                out["turns"] += 1
                out["copied"] += copied(text, [x for who, x in said if who != agent], claim)
                out["budget"] += bool(t.get("cut_off_at"))
            said.append((agent, text))
        if r.get("verdict_s") is not None:
            out["times"].append(float(r["verdict_s"]))
    return out


def main() -> None:
    print(
        "| run | debates | copied turns (>= 12 words of another speaker) | turns that hit the budget | judges' reasons that end | judges' labels read | Run→verdict (median, engine) |"
    )
    print("|---|---|---|---|---|---|---|")
    for path in sys.argv[1:]:
        results = json.loads(Path(path).read_text())
        results = results if isinstance(results, list) else results.get("results", [])
        f = figures(results)
        t, j = f["turns"], f["judges"]
        med = f"{statistics.median(f['times']):.1f} s" if f["times"] else "—"
        print(
            f"| {Path(path).stem} | {len(results)} | {f['copied']}/{t} ({f['copied'] / max(t, 1):.0%}) | "
            f"{f['budget']}/{t} ({f['budget'] / max(t, 1):.0%}) | {f['reason_ends']}/{j} | {f['labelled']}/{j} | {med} |"
        )


if __name__ == "__main__":
    main()
