"""Choose the embedded council among candidate lineups on CheckThat TRAIN only (no model calls).

Each candidate (assets/lineups/council-candidates/*.json) seats three members; a member is a view: a model
and the slice of the tweet's nearest train tweets it reads as demonstrations (k_demos, demo_skip). Every
view was run once as the label-only baseline on the same stratified train sample per category
(runs/ct{C}-train-s{N}-{view}, leave-one-out demonstrations), which is exactly a member's first vote in
the council (same prompt, label decoded first). Here each view's P(YES) is held against a threshold
cross-fitted on the other folds of the same train items (5 folds, so no item is decided by a threshold
fitted on itself), and each candidate's first-vote majority is scored on the items every view finished.

The rule, fixed before the numbers were seen: the winner has the highest first-vote-majority macro-F1,
pooled over categories 1-3 (mean of per-category macro-F1); within 0.01 of it, the cheaper one (fewer
demonstration tokens per tweet) wins. The discussion rounds are not run on train (CPU budget): their
effect is measured on dev against this very vote (`python -m debate eval-targets`).

Usage: python scripts/choose_council.py [N] [VIEW=RUN_SUFFIX ...]
       (default N=40; views v1, v2 = the embedded members, d1, d2 = Qwen on the 4 nearest / the 5th-8th,
       l1, l2 = Qwen / SmolLM2 on the 8 lexical (TF-IDF) neighbours instead of the semantic ones,
       g3 = the Gemma 3 270M base model on the 8 nearest by meaning)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debate.aids import calibration as cal
from debate.evaluation.checkpoint import read_rows
from debate.evaluation.targets import macro_f1

CANDIDATES = Path(__file__).resolve().parents[1] / "assets" / "lineups" / "council-candidates"
# view name -> (model, k, skip, neighbours): what the run of that suffix answered with
VIEWS = {
    "v1": ("local:qwen2.5-coder-0.5b", 8, 0, "semantic"),
    "v2": ("local:smollm2-135m", 8, 0, "semantic"),
    "d1": ("local:qwen2.5-coder-0.5b", 4, 0, "semantic"),
    "d2": ("local:qwen2.5-coder-0.5b", 4, 4, "semantic"),
    "d3": ("local:smollm2-135m", 8, 8, "semantic"),
    "l1": ("local:qwen2.5-coder-0.5b", 8, 0, "lexical"),
    "l2": ("local:smollm2-135m", 8, 0, "lexical"),
    "g3": ("local:gemma3-270m", 8, 0, "semantic"),
}
# relative prompt cost of one demonstration (SmolLM2 reads prompts ~2x faster than Qwen2.5-Coder-0.5B)
COST = {"local:qwen2.5-coder-0.5b": 1.0, "local:smollm2-135m": 0.5, "local:gemma3-270m": 0.3}


def p_yes(run: Path) -> dict[str, tuple[float, str]]:
    """item id -> (P(YES) of the answer, gold) for the finished items of a baseline run."""
    out = {}
    cat = run.name.split("-")[0].removeprefix("ct")
    for r in read_rows(run, with_events=True):
        if r["status"] != "done":
            continue
        ans = next(
            (e for e in r.get("events") or [] if e.get("type") == "turn_finished" and e.get("phase") == "answer"), None
        )
        p = cal.normalised((ans or {}).get("label_probs"), ("YES", "NO"))
        gold = (r.get("gold") or {}).get(cat)
        if p is not None and gold in ("YES", "NO"):
            out[str(r["item_id"])] = (p["YES"], gold)
    return out


def cross_fitted(scores: list[float], golds: list[str], folds: int = 5) -> list[str]:
    """Each item decided by a threshold fitted on the other folds (items assigned to folds in order)."""
    out = [""] * len(scores)
    for f in range(folds):
        train = [i for i in range(len(scores)) if i % folds != f]
        t, _ = cal.fit_threshold([scores[i] for i in train], [golds[i] for i in train])
        for i in range(f, len(scores), folds):
            out[i] = "YES" if scores[i] >= t else "NO"
    return out


def majority(votes: list[str]) -> str:
    yes = sum(v == "YES" for v in votes)
    return "YES" if yes * 2 > len(votes) else "NO"  # an even split goes to the task's tie label, NO


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 40
    root = Path("runs")
    cats = ("1", "2", "3")
    decisions: dict[str, dict[str, list[str]]] = {}  # cat -> view -> decision per common item
    golds: dict[str, list[str]] = {}
    runs = {c: {v: root / f"ct{c}-train-s{n}-{v}" for v in VIEWS} for c in cats}
    views = [v for v in VIEWS if all(runs[c][v].is_dir() for c in cats)]  # a view counts if run in every category
    for c in cats:
        per = {v: p_yes(runs[c][v]) for v in views}
        common = sorted(
            set.intersection(*[set(d) for d in per.values()]) if per else set(),
            key=lambda x: int(x) if x.isdigit() else x,
        )
        if len(common) < 10:
            print(f"category {c}: {len(common)} train items finished by every view, too few to score; left out")
            continue
        golds[c] = [per[next(iter(per))][i][1] for i in common]
        decisions[c] = {v: cross_fitted([d[i][0] for i in common], golds[c]) for v, d in per.items()}
    if not decisions:
        print("No train runs found: run scripts/reproduce_targets.sh first.")
        return 1
    views_run = set.intersection(*[set(d) for d in decisions.values()])
    print(
        "Train items per category (every view finished): "
        + ", ".join(f"{c}: {len(golds[c])} ({golds[c].count('YES')} YES)" for c in decisions)
    )
    print("\n| view (model, k, skip, neighbours) | " + " | ".join(f"cat {c}" for c in decisions) + " | pooled |")
    print("|---|" + "---|" * (len(decisions) + 1))
    view_f1 = {}
    for v in sorted(views_run):
        per = [macro_f1(golds[c], decisions[c][v]) for c in decisions]
        view_f1[v] = sum(per) / len(per)
        print(f"| {v} {VIEWS[v]} | " + " | ".join(f"{x:.3f}" for x in per) + f" | {view_f1[v]:.3f} |")
    rows = []
    for path in sorted(CANDIDATES.glob("*.json")):
        lineup = json.loads(path.read_text())
        seats = []
        for m in lineup["members"]:
            key = (
                m["model"],
                int(m.get("k_demos") or 8),
                int(m.get("demo_skip") or 0),
                m.get("neighbours") or "semantic",
            )
            seats.append(next((v for v, k in VIEWS.items() if k == key and v in views_run), None))
        if None in seats:
            print(f"\n{path.stem}: a member's view was not run on train, left out")
            continue
        per, split = [], 0
        for c in decisions:
            votes = [majority([decisions[c][v][i] for v in seats]) for i in range(len(golds[c]))]
            per.append(macro_f1(golds[c], votes))
            split += sum(len({decisions[c][v][i] for v in seats}) > 1 for i in range(len(golds[c])))
        pooled = sum(per) / len(per)
        best = max(seats, key=lambda v: view_f1[v])
        cost = sum(COST[VIEWS[v][0]] * VIEWS[v][1] for v in set(seats))  # a repeated view is read once (prefix reuse)
        rows.append((path.stem, seats, per, pooled, best, split / sum(len(g) for g in golds.values()), cost))
    print(
        "\n| candidate | members (views) | "
        + " | ".join(f"cat {c}" for c in decisions)
        + " | pooled vote | − best member | first votes split | demo cost |"
    )
    print("|---|---|" + "---|" * (len(decisions) + 4))
    for name, seats, per, pooled, best, split, cost in rows:
        print(
            f"| {name} | {', '.join(seats)} | "
            + " | ".join(f"{x:.3f}" for x in per)
            + f" | {pooled:.3f} | {pooled - view_f1[best]:+.3f} ({best}) | {split:.0%} | {cost:g} |"
        )
    top = max(r[3] for r in rows)
    winner = min((r for r in rows if r[3] >= top - 0.01), key=lambda r: (r[6], -r[3]))
    print(f"\nWinner by the rule: {winner[0]} (pooled first-vote macro-F1 {winner[3]:.3f}; best {top:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
