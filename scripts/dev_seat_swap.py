"""The first-vote majority of a council with one seat swapped, on CheckThat DEV, with no model call.

A council member's first vote is its label-only few-shot answer (same prompt, same train-fitted threshold),
so the vote of a council that seats another view in one seat can be read off runs that exist: the council
runs (`scripts/reproduce_targets.sh`'s dev step) give the other members' first votes, a baseline run of the
new view on the same dev items gives its own. This prints the swapped council's vote against the best
member, the k-NN reference of train labels and always-NO, overall and on the least-similar third, with the
same paired bootstrap and McNemar as `python -m debate eval-targets` (the discussion rounds are not
simulated: where they would run, the README measures that they do not help these models).

Usage: python scripts/dev_seat_swap.py SEAT NAME COUNCIL_RUN_CAT1 VIEW_RUN_CAT1 [COUNCIL_RUN_CAT2 VIEW_RUN_CAT2 ...]
       e.g. qwen-b gemma-a runs/ct1-dev-s100-council-embedded runs/ct1-dev-s100-g3 ...
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debate.evaluation import targets as tg
from debate.evaluation.checkpoint import read_meta, read_rows


def view_decisions(run: str, category: str) -> dict[str, str]:
    """item id -> the view's decision (the run's calibrated prediction) on its finished items."""
    out = {}
    for r in read_rows(run):
        pred = r.get("prediction") if isinstance(r.get("prediction"), dict) else {}
        if r.get("status") == "done" and pred.get(category) in tg.LABELS:
            out[str(r["item_id"])] = pred[category]
    return out


def main(argv: list[str]) -> int:
    if len(argv) < 4 or len(argv) % 2:
        print(__doc__)
        return 2
    seat, name, pairs = argv[0], argv[1], list(zip(argv[2::2], argv[3::2]))
    t = tg.collect([c for c, _ in pairs])
    for council, view in pairs:
        c = str((read_meta(council, "options") or {}).get("category"))
        it, got = t.cats[c], view_decisions(view, c)
        keep = [i for i, x in enumerate(it.ids) if x in got]
        if len(keep) < len(it.ids):
            print(f"category {c}: the view answered {len(keep)} of the council's {len(it.ids)} items; scoring those")
        it.ids, it.texts, it.gold = [it.ids[i] for i in keep], [it.texts[i] for i in keep], [it.gold[i] for i in keep]
        it.discussed = [False] * len(keep)  # the swapped council is scored on its vote: no round held
        it.sides = {s: [v[i] for i in keep] for s, v in it.sides.items()}
        it.sides[f"member {name}"] = [got[x] for x in it.ids]
        members = [s for s in it.sides if s.startswith("member ") and s != f"member {seat}"]
        it.sides["council"] = [  # the swapped council decides by its first-vote majority (ties to NO)
            "YES" if 2 * sum(it.sides[m][i] == "YES" for m in members) > len(members) else "NO"
            for i in range(len(it.ids))
        ]
        it.sides["vote"] = list(it.sides["council"])
        del it.sides[f"member {seat}"]
    names = sorted({s for it in t.cats.values() for s in it.sides if s.startswith("member ")})
    t.best_member = max(names, key=lambda m: (t.score(m)[1], m))
    print(f"Seat {seat} swapped for {name}; the swapped council decides by its first vote (no discussion).\n")
    print(tg.render(t))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
