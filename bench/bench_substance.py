"""Substance benchmark: what the debates argue, per protocol, over stored debates of every protocol.

bench_content.py measures the form of a turn (it ends, it does not loop, one script, figures from the
sources). This one measures what a room reads (debate/content/substance.py):
- per speaking turn (an argument or a vote's words; not the judges, not the engine's checks):
  copied (a run of 12 words, or half its 5-word runs, from another speaker's earlier turn; quoting the
  claim or the evidence is allowed), both sides or the other side (both positions in one turn, or a
  sided speaker calling the claim what the other side says), refusal, off-topic (not one content word of
  the claim), a named source (institution, journal, titled person, a name after "according to") that
  neither the claim nor the evidence names, such a name the page did not mark, hit the token budget;
- per rebuttal (a sided speaker's rebuttal after the other side spoke): answers a point the other side
  made (shares its own words beyond the claim's, without copying);
- per deciding judge: its reason ends with a full sentence; its written label is the verdict shown.

Read stored debates:

    python bench/bench_substance.py --home ~/.cache/debate-viewer          # a DEBATE_HOME's SQLite store
    python bench/bench_substance.py --events a.jsonl,b.jsonl                # JSONL files (see below)

or first generate N debates per protocol at the app's defaults (the engine as the app runs it: embedded
lineup, live-demo pace, aids on, RADAR's local evidence), on claims used for no tuning, then score them:

    nice -n 10 python bench/bench_substance.py --run 10 --protocol radar,council --tag before

Claims for --run: the content benchmark's fixed lists (bench_content.py) after their first 30 items, which
that benchmark (and the tuning done against it) uses, minus the app's example claims (what people try
first); LIAR valid and AVeriTeC dev in turn for RADAR, CheckThat 2025 4a dev tweets for the TurQUaz
protocols. Gold labels, LIAR's credit counts and AVeriTeC's justifications never reach a model (only the
claim text is debated; gold is kept for the record).

A JSONL file holds one debate per line ({"protocol", "item", "events": [...]}, as --run writes them to
bench/results/substance-<tag>-events.jsonl after every debate), or one event per line (a debate's export;
each debate_started begins a new debate). Results: bench/results/substance-<tag>.json (per protocol every
measure's count, total and share, per role too, plus every turn's row) and the table printed.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debate.content.substance import JUDGE_MEASURES, REBUTTAL_MEASURES, TURN_MEASURES, score_substance  # noqa: E402

RESULTS = REPO / "bench" / "results"
TUNING = 30  # the content benchmark's items: claims others tune against, never used here


# -- reading debates ------------------------------------------------------------------------------------------


def debates_from_jsonl(path: Path) -> list[dict]:
    """Debates ({"protocol", "item", "events"}) from a JSONL file of debates or of events."""
    out: list[dict] = []
    loose: list[dict] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        if isinstance(obj, dict) and isinstance(obj.get("events"), list):
            out.append(obj)
            continue
        if obj.get("type") == "debate_started" and loose:
            out.append(_loose(loose))
            loose = []
        loose.append(obj)
    if loose:
        out.append(_loose(loose))
    return out


def _loose(events: list[dict]) -> dict:
    start = next((e for e in events if e.get("type") == "debate_started"), {})
    return {"protocol": start.get("protocol") or "?", "item": start.get("claim", "")[:80], "events": events}


def debates_from_content(path: Path) -> list[dict]:
    """Debates from a content benchmark's results (bench_content.py --out): every turn's words, role, agent,
    label and budget, but no events. Rebuilt as events: a sided debater's turns are, in order, its opening,
    its rebuttals and (the last of three or more) its closing; the judge's last turn decides; the verdict is
    the one the results recorded. They hold no evidence and no claim (only the item's id): quoting the
    evidence then counts as copying, and a name the evidence gave counts as unsourced — read the named
    sources of such a file as an upper bound. The claims come from the content benchmark's item lists."""
    from bench_content import checkthat_items, truth_items

    from debate.content.substance import SIDE

    try:  # the claims, from the content benchmark's own fixed lists
        claims = {it["id"]: it["claim"] for it in truth_items(60) + checkthat_items(60)}
    except Exception:  # noqa: BLE001 - no data on this machine: off-topic cannot be measured (no claim)
        claims = {}
    out = []
    for r in json.loads(path.read_text(encoding="utf-8"))["results"]:
        turns = r.get("turns") or []
        per_agent: dict[str, int] = defaultdict(int)
        total = defaultdict(int)
        for t in turns:
            total[t.get("agent") or t.get("role") or ""] += 1
        claim = claims.get(r["item"], "")
        events: list[dict] = [{"type": "debate_started", "protocol": r["protocol"], "claim": claim}]
        for t in turns:
            role = t.get("role") or ""
            agent = t.get("agent") or role
            k = per_agent[agent] = per_agent[agent] + 1
            phase = ""
            if role in SIDE:
                phase = "opening" if k == 1 else "closing" if k == total[agent] and k >= 3 else "rebuttal"
            if role == "judge":
                phase = "judge"
            # the k-th turn of an agent: its k-th step (turns of one step ran side by side, unread by each other)
            events.append({"type": "turn_finished", "valid": True, **t, "phase": phase, "round": k})
        events.append({"type": "verdict", "label": r.get("label"), "t": r.get("verdict_s")})
        out.append({"protocol": r["protocol"], "item": r["item"], "events": events})
    return out


def debates_from_home(home: str) -> list[dict]:
    """Every debate of a DEBATE_HOME's store that is not still running, with its events."""
    os.environ["DEBATE_HOME"] = str(Path(home).expanduser())
    from debate.store.debates import DebateStore

    store = DebateStore()
    rows = store.list(limit=100_000)
    return [
        {"protocol": r.get("protocol") or "?", "item": r["id"], "events": store.event_dicts(r["id"])}
        for r in rows
        if r.get("status") != "running"
    ]


# -- generating debates ---------------------------------------------------------------------------------------


def held_out(protocol: str, n: int) -> list[dict]:
    """n claims for `protocol` that neither the content benchmark nor the app's examples use."""
    from bench_content import RADAR, checkthat_items, truth_items

    from ui.examples import load_examples

    task = "halftruth" if protocol in RADAR else "checkthat"
    make = truth_items if protocol in RADAR else checkthat_items
    # a tweet is debated once per category: one the content benchmark debates on another category is out too
    seen = {e["text"].strip() for e in load_examples(task, 60)} | {it["claim"].strip() for it in make(TUNING)}
    most = TUNING + 4 * n + 20 if protocol in RADAR else 156  # CheckThat dev: 3 categories x 52 at most
    items = [it for it in make(most)[TUNING:] if it["claim"].strip() not in seen]
    return items[:n]


def lineup_tag(lineup: str) -> str:
    """A lineup's short name for file names: a preset's name, or a lineup file's stem."""
    return Path(lineup).stem if lineup.endswith(".json") else lineup


def generate(
    protocols: list[str],
    n: int,
    lineups: list[str],
    out: Path,
    skip: int = 0,
    variants: list[tuple[str, dict]] | None = None,
) -> list[dict]:
    """Run n debates per protocol with the engine at the app's defaults, each claim by every lineup (and
    every variant: a name and the parameters it sets over the defaults) in turn, so a run stopped early still
    compares like with like; each debate written as soon as it ends, so an interrupted run keeps what it
    made: to `out` (JSONL), or with several lineups or variants to one file each (`out`'s name with
    -<lineup>[-<variant>] before -events.jsonl)."""
    from dataclasses import replace

    from bench_content import RADAR, config_for

    from debate.cli.run import _retriever
    from debate.models.registry import default_client
    from debate.runner import run_debate

    variants = variants or [("", {})]

    def path_for(lineup: str, variant: str) -> Path:
        if len(lineups) == 1 and len(variants) == 1:
            return out
        name = "-".join(x for x in (lineup_tag(lineup) if len(lineups) > 1 else "", variant) if x)
        return out.with_name(out.name.replace("-events.jsonl", f"-{name}-events.jsonl"))

    client = default_client(cache=False)
    retriever = None
    made = []
    for proto in protocols:
        if proto in RADAR and retriever is None:
            retriever = _retriever(None, "local")
        for i, it in enumerate(held_out(proto, skip + n)[skip:]):  # skip: claims an earlier run already debated
            # variants in turn, the first one first on every other claim: the second debate of a claim finds
            # its first prompts already read (the model's saved state), which would favour one variant
            order = variants if i % 2 == 0 else variants[::-1]
            for lineup, (variant, params) in ((lu, v) for lu in lineups for v in order):
                t0 = time.perf_counter()
                cfg = config_for(proto, it, lineup)
                cfg = replace(cfg, params={**cfg.params, **params})
                events = [e.to_dict() for e in run_debate(cfg, client, retriever if proto in RADAR else None)]
                d = {
                    "protocol": proto,
                    "item": it["id"],
                    "lineup": lineup,
                    "variant": variant,
                    "gold": it["gold"],
                    "wall_s": round(time.perf_counter() - t0, 2),
                    "load_1min": round(os.getloadavg()[0], 2),
                    "events": events,
                }
                made.append(d)
                with path_for(lineup, variant).open("a", encoding="utf-8") as f:
                    f.write(json.dumps(d, ensure_ascii=False) + "\n")
                v = next((e for e in reversed(events) if e["type"] == "verdict"), {})
                print(
                    f"{proto} {it['id']} {lineup_tag(lineup)} {variant}: {v.get('label')} at {v.get('t')} s",
                    file=sys.stderr,
                    flush=True,
                )
    return made


# -- scoring ---------------------------------------------------------------------------------------------------


def as_shown(d: dict) -> dict:
    """The debate as the room reads it. Every view shows a council vote whose sentence repeats an earlier
    round's vote with the same label as "NO, for the same reason as qwen-b's first vote." and that sentence
    once, where it was first given (debate.view.repeated_reason): there the vote says no words of its own,
    so it can neither copy nor be copied from. Scored beside the debate as written (`--as-shown`)."""
    from debate.view import build_view

    view = build_view(d["events"])
    again = {tid for tid, t in view.turns.items() if t.same_reason is not None and t.label}

    def shown(e: dict) -> dict:
        if e.get("type") != "turn_finished" or e.get("turn_id") not in again:
            return e
        vote = {"vote": e.get("label")}
        return {**e, "text": json.dumps(vote), "parsed": vote}

    variant = ", ".join(x for x in (d.get("variant") or "", "as shown") if x)
    return {**d, "events": [shown(e) for e in d["events"]], "variant": variant}


def _rate(rows: list[dict], m: str) -> dict:
    """count, of, share; a turn without words (a bare vote) counts for the budget only: it says nothing to
    copy, refuse or wander from."""
    if m != "hit_budget":
        rows = [r for r in rows if r.get("words", 1)]
    rows = [r for r in rows if r[m] is not None]  # a measure that does not apply to the turn
    k = sum(bool(r[m]) for r in rows)
    return {"count": k, "of": len(rows), "share": round(k / len(rows), 4) if rows else None}


@functools.cache
def prompt_texts() -> tuple[str, ...]:
    """What every agent was shown besides the claim and the evidence: the templates and the tasks'
    definitions and examples (debate/tasks.py as written). Repeating these is quoting, not copying."""
    from bench_content import every_format

    return every_format(), (REPO / "debate" / "tasks.py").read_text(encoding="utf-8")


def score(debates: list[dict]) -> dict:
    """Per protocol (and per role within it): every measure's count, total and share."""
    by_proto: dict[str, dict[str, list]] = defaultdict(lambda: {"turns": [], "rebuttals": [], "judges": []})
    times: dict[str, list[float]] = defaultdict(list)
    n_debates: dict[str, int] = defaultdict(int)
    several = len({d.get("lineup") for d in debates}) > 1  # then each lineup is scored apart
    rounds: dict[str, list[int]] = defaultdict(list)
    right: dict[str, list[bool]] = defaultdict(list)
    for d in debates:
        p = d.get("protocol") or "?"
        if several:
            p += f" ({lineup_tag(str(d.get('lineup') or '?'))})"
        if d.get("variant"):
            p += f" [{d['variant']}]"  # each variant scored apart
        n_debates[p] += 1
        tallies = [e for e in d["events"] if e.get("type") == "votes_tallied"]
        if tallies:
            rounds[p].append(len(tallies) - 1)  # discussion rounds
        last = next((e for e in reversed(d["events"]) if e.get("type") == "verdict"), None)
        if last is not None and d.get("gold") is not None:
            right[p].append(last.get("label") == d["gold"])
        s = score_substance(d["events"], prompt_texts())
        for k in s:
            by_proto[p][k] += [{**r, "item": d.get("item")} for r in s[k]]
        v = next((e for e in reversed(d["events"]) if e.get("type") == "verdict"), None)
        if v and v.get("t") is not None:
            times[p].append(float(v["t"]))
    out = {}
    for p, s in by_proto.items():
        roles = sorted({r["role"] for r in s["turns"]})
        out[p] = {
            "debates": n_debates[p],
            "run_to_verdict_median_s": round(statistics.median(times[p]), 1) if times[p] else None,
            "run_to_verdict_mean_s": round(statistics.mean(times[p]), 1) if times[p] else None,
            "discussion_rounds_mean": round(statistics.mean(rounds[p]), 2) if rounds[p] else None,
            "verdicts_right": f"{sum(right[p])}/{len(right[p])}" if right[p] else None,
            "turns": {m: _rate(s["turns"], m) for m in TURN_MEASURES},
            "rebuttals": {m: _rate(s["rebuttals"], m) for m in REBUTTAL_MEASURES},
            "judges": {m: _rate(s["judges"], m) for m in JUDGE_MEASURES},
            "by_role": {
                role: {m: _rate([r for r in s["turns"] if r["role"] == role], m) for m in TURN_MEASURES}
                for role in roles
            },
            "rows": s,
        }
    return out


def _cell(r: dict) -> str:
    return f"{r['count']}/{r['of']} ({r['share']:.0%})" if r["of"] else "—"


def table(scores: dict) -> str:
    heads = [*TURN_MEASURES, *REBUTTAL_MEASURES, *JUDGE_MEASURES]
    lines = [
        "| protocol | debates | " + " | ".join(h.replace("_", " ") for h in heads) + " | Run→verdict (median) |",
        "|" + "---|" * (len(heads) + 3),
    ]
    for p in sorted(scores):
        s = scores[p]
        cells = [_cell(s["turns"][m]) for m in TURN_MEASURES]
        cells += [_cell(s["rebuttals"][m]) for m in REBUTTAL_MEASURES]
        cells += [_cell(s["judges"][m]) for m in JUDGE_MEASURES]
        t = s["run_to_verdict_median_s"]
        lines.append(f"| {p} | {s['debates']} | " + " | ".join(cells) + f" | {'—' if t is None else f'{t} s'} |")
    lines += ["", "| protocol | verdicts right | discussion rounds (mean) | Run→verdict (mean) |", "|---|---|---|---|"]
    for p in sorted(scores):
        s = scores[p]
        lines.append(
            f"| {p} | {s.get('verdicts_right') or '—'} | {s.get('discussion_rounds_mean') or 0} | "
            f"{s.get('run_to_verdict_mean_s') or '—'} s |"
        )
    return "\n".join(lines)


def _variant(text: str) -> tuple[str, dict]:
    """ "NAME:k=v,k=v" -> (NAME, {k: v}); the values as typed (the engine reads them as the defaults' types)."""
    name, _, rest = text.partition(":")
    return name, dict(kv.split("=", 1) for kv in rest.split(",") if "=" in kv)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", default="", help="a DEBATE_HOME whose stored debates to score")
    ap.add_argument("--events", default="", help="JSONL files of debates or events (comma-separated)")
    ap.add_argument("--content", default="", help="content benchmark results (bench_content.py --out, comma-separated)")
    ap.add_argument("--run", type=int, default=0, help="first generate N debates per protocol (engine, app defaults)")
    ap.add_argument("--protocol", default="radar,council", help="protocols for --run (comma-separated)")
    ap.add_argument(
        "--lineup",
        default="embedded",
        help="lineup for --run (default: the embedded one); several, comma-separated, debate each claim in turn "
        "and are scored apart",
    )
    ap.add_argument(
        "--skip", type=int, default=0, help="--run: leave out the first K claims (an earlier run debated them)"
    )
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        help="--run: NAME:k=v,k=v, parameters set over the app's defaults; repeat to debate each claim under "
        "every variant in turn, scored apart (e.g. --variant asked:keep_first_vote=off --variant once:)",
    )
    ap.add_argument(
        "--as-shown",
        action="store_true",
        help="also score each debate as the room reads it (a council vote that repeats an earlier round's "
        "reason shows that reason once: as_shown), apart",
    )
    ap.add_argument("--only", default="", help="score only these protocols (comma-separated)")
    ap.add_argument("--tag", default="", help="names the results: bench/results/substance-<tag>.json")
    args = ap.parse_args(argv)
    tag = args.tag or time.strftime("%Y%m%d-%H%M", time.gmtime())
    RESULTS.mkdir(parents=True, exist_ok=True)
    debates: list[dict] = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.run:
        debates += generate(
            args.protocol.split(","),
            args.run,
            args.lineup.split(","),
            RESULTS / f"substance-{tag}-events.jsonl",
            args.skip,
            [_variant(v) for v in args.variant] or None,
        )
    for f in filter(None, args.events.split(",")):
        debates += debates_from_jsonl(Path(f))
    for f in filter(None, args.content.split(",")):
        debates += debates_from_content(Path(f))
    if args.home:
        debates += debates_from_home(args.home)
    if args.only:
        debates = [d for d in debates if d.get("protocol") in args.only.split(",")]
    if not debates:
        ap.error("no debates: give --home, --events, --content or --run N")
    if args.as_shown:
        debates += [as_shown(d) for d in debates]
    scores = score(debates)
    out = RESULTS / f"substance-{tag}.json"
    out.write_text(
        json.dumps({"command": " ".join(sys.argv), "started": started, "scores": scores}, ensure_ascii=False, indent=1)
    )
    print(table(scores))
    print(f"\nwritten: {out.relative_to(REPO)}")


if __name__ == "__main__":
    main()
