"""Content and time of recorded debates, one row per events file: what a lineup changes.

Why: the preset "Embedded, larger (slower)" is worth its time only if its words are better. This reads
the JSONL events of debates run with `python -m debate run … --events FILE` and prints, per file, the
wall time, model calls, tokens generated, and for the debaters' turns: how many ended at the token
budget, how many repeat a sentence, their median words; for the judge: its label, whether the label is
the argmax of its own probabilities, and the verdict's number in words.

    .venv/bin/python scripts/lineup_content.py /tmp/radar-embedded.jsonl /tmp/radar-embedded-larger.jsonl
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debate.tasks import verdict_number

DEBATERS = {
    "politician",
    "scientist",
    "journalist",
    "expert",
    "advocate",
    "critic",
    "agent",
    "proponent",
    "opponent",
    "member",
}
_SENTENCE = re.compile(r"[^.!?]{12,}[.!?]")


def repeats(text: str) -> bool:
    """A sentence of 12+ characters said twice in one turn."""
    seen: set[str] = set()
    for s in _SENTENCE.findall(text):
        k = " ".join(s.lower().split())
        if k in seen:
            return True
        seen.add(k)
    return False


def row(path: Path) -> dict:
    evs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    turns = [e for e in evs if e.get("type") == "turn_finished"]
    deb = [t for t in turns if t.get("role") in DEBATERS]
    judge = [t for t in turns if t.get("role") == "judge" and t.get("label")]
    verdict = next((e for e in reversed(evs) if e.get("type") == "verdict"), {})
    fin = next((e for e in reversed(evs) if e.get("type") == "finished"), {})
    agree = [max(t["label_probs"], key=t["label_probs"].get) == t["label"] for t in judge if t.get("label_probs")]
    return {
        "file": path.name,
        "wall_s": fin.get("wall_s"),
        "calls": fin.get("model_calls"),
        "generated": sum(int(t.get("completion_tokens") or 0) for t in turns),
        "debater_turns": len(deb),
        "cut": sum(1 for t in deb if t.get("cut_off_at")),
        "repeat": sum(1 for t in deb if repeats(t.get("text", ""))),
        "median_words": statistics.median([len(t.get("text", "").split()) for t in deb]) if deb else 0,
        "judge_argmax": f"{sum(agree)} of {len(agree)}",
        "label_at": ",".join(str(t.get("label_at")) for t in judge),
        "verdict": verdict.get("label"),
        "number": verdict_number(verdict),
    }


def main() -> None:
    rows = [row(Path(p)) for p in sys.argv[1:]]
    cols = list(rows[0]) if rows else []
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(str(r[c]) for c in cols) + " |")


if __name__ == "__main__":
    main()
