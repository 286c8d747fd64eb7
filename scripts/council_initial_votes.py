"""Do two council runs on the same items cast the same initial votes?

Why: explain=after (one of the small-model aids) claims the one-sentence explanation cannot change a member's first vote
(same prompt, label decoded first). This checks it on real runs, e.g. the label-only council against the
explaining one: `python scripts/council_initial_votes.py runs/ct1-dev-s100-dlg8-council-labelonly
runs/ct1-dev-s100-dlg8-council`. Reads the runs' checkpoint.sqlite (the events of every finished item).
"""

from __future__ import annotations

import json
import sqlite3
import sys


def initial_votes(run: str) -> dict[str, tuple[dict | None, int]]:
    """Per finished item: the round-0 tally's votes and how many tallies (rounds) there were."""
    out = {}
    with sqlite3.connect(f"{run}/checkpoint.sqlite") as db:
        for item, events in db.execute("select item_id, events from items where status = 'done'"):
            tallies = [e for e in json.loads(events or "[]") if e.get("type") == "votes_tallied"]
            out[item] = (tallies[0]["votes"] if tallies else None, len(tallies))
    return out


def main(a_run: str, b_run: str) -> int:
    a, b = initial_votes(a_run), initial_votes(b_run)
    shared = sorted(set(a) & set(b))
    differ = [k for k in shared if a[k][0] != b[k][0]]
    print(
        f"{len(shared)} shared items: initial votes identical on {len(shared) - len(differ)}, differ on {len(differ)}"
    )
    for k in differ:
        print(f"  {k}: {a[k][0]} vs {b[k][0]}")
    print(f"discussion held: {sum(a[k][1] > 1 for k in shared)} vs {sum(b[k][1] > 1 for k in shared)} items")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
