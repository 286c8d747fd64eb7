"""Benchmark (not a test): the live path against the engine and against llama.cpp's own limit.

For each protocol (default: the few-shot baseline and the default council), on the same claim, with
every other setting at the app's defaults and the response cache off, it measures in ONE run:

- **limit**: the tokens the debate asked for ÷ the model's own prompt and generation rates, measured
  here with llama.cpp directly (per model);
- **CLI**: `python -m debate run … --no-cache` in a subprocess (wall time of the debate from its events,
  and of the whole command including start-up);
- **app**: the real app (streamlit subprocess, DEBATE_CACHE=0, a fresh home) with Debian's chromium
  watching through playwright: Run click → first token on screen, and Run click → verdict on screen.

It prints one table with app / CLI and CLI / limit ratios, and the machine's load average (the machine
may be shared: ratios within one run are what to compare, not absolute seconds).

    /work/main/.venv/bin/python bench/bench_live.py [--protocols baseline,council] [--skip-app] \
        [--lineup embedded-larger]

`--lineup` runs both sides on one lineup: a preset is also chosen in the app's Lineup box (e.g.
`embedded-larger`, "Embedded, larger (slower)"); a lineup file runs on the CLI side only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.browser import app_server, browser_page, wait_idle  # noqa: E402

CLICK = "ready"
PACE = "demo"  # the app's default: the CLI runs the very same debate (bench --pace paper: both at the papers')
AIDS = True  # the app's default small-model aids (debate/aids/settings.py); the CLI gets --aids to match
LINEUP = "embedded"  # the CLI side's lineup (--lineup: e.g. a candidate council's JSON file)
CLAIM = "New study: people who drink 3 cups of coffee a day live longer, researchers at Harvard found https://t.co/abc"
# RADAR argues over evidence: offline only the local index answers, and for the coffee claim nothing passes
# the floor, so RADAR would argue over no passages (its cheapest case). It gets a claim the bundled index
# covers (bench_radar.py's), so its prompts carry the demo pace's 6 passages as a person's would.
CLAIMS = {
    "radar": (
        "More than 225,000 people dead, 225,000. The estimates are, if we’d have acted responsibly, "
        "there’d be 160,000 fewer dead."
    )
}
CLAIMS["radar-single"] = CLAIMS["radar"]
# llama.cpp's own rates on this machine when it was quiet (2026-12-01, README "Live debates"): a run on a
# loaded machine is scaled to them (times its limit at these rates / its limit at the rates it measured)
QUIET_RATES = {"qwen2.5-0.5b": (120.0, 32.0), "smollm2-135m": (225.0, 74.0)}


def lineup_models(lineup: str) -> list[str]:
    """The packaged models a lineup seats in any protocol (whose llama.cpp rates the limit needs)."""
    from debate.lineups import load_lineup

    lu = load_lineup(lineup)
    entries = list(lu.get("members") or []) + [lu.get("judge") or {}, lu.get("chair") or {}]
    entries += list((lu.get("roles") or {}).values())
    entries += [e for team in (lu.get("teams") or {}).values() for e in team]
    found = {str(e.get("model", "")).split(":", 1)[1] for e in entries if str(e.get("model", "")).startswith("local:")}
    return sorted(found | {"qwen2.5-0.5b", "smollm2-135m"})


TITLES = {
    "baseline": "Few-shot baseline",
    "council": "Council debate",
    "single": "Single debate",
    "team": "Team debate",
    "radar": "RADAR (role-anchored",
    "radar-single": "RADAR-single",
}
FIRST_TEXT_JS = """() => { for (const el of document.querySelectorAll('.turn > .txt')) {
    if (el.closest('[data-stale="true"]')) continue;
    if (el.innerText.trim().length) return true; } return false; }"""
VERDICT_JS = """() => [...document.querySelectorAll('.verdict-card')].some(el => !el.closest('[data-stale="true"]'))"""


def _real_home() -> Path:
    return Path(os.environ.get("DEBATE_HOME", Path.home() / ".cache" / "debate-viewer")).expanduser()


def _env(home: Path) -> dict:
    real = _real_home()
    return {
        **os.environ,
        "DEBATE_HOME": str(home),
        "DEBATE_CACHE": "0",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "DEBATE_MODELS_DIR": os.environ.get("DEBATE_MODELS_DIR", str(real / "models")),
        "DEBATE_INDEX_DIR": os.environ.get("DEBATE_INDEX_DIR", str(real / "indexes")),
        "PYTHONPATH": str(REPO),
    }


def browser_cpu_s() -> float:
    """CPU seconds used so far by every chromium process (the page's cost on the shared cores)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if "chrom" not in Path(f"/proc/{pid}/comm").read_text():
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return total


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# -- llama.cpp's own rates ----------------------------------------------------------------------
def rates(model: str, n_prompt: int = 600, n_gen: int = 48) -> tuple[float, float]:
    """(prompt tok/s, generation tok/s) of a packaged model, called directly (2 threads)."""
    from llama_cpp import Llama

    from debate.models import packaged

    entry = packaged.CATALOGUE[model]
    llm = Llama(model_path=str(packaged.ensure(entry)), n_ctx=4096, n_threads=2, n_threads_batch=2, verbose=False)
    toks = llm.tokenize(("Judge whether this tweet makes a scientific claim. " * 200).encode())[:n_prompt]
    for _ in llm.generate(toks[:32], temp=0.0):  # page the weights in first: a cold start is not a rate
        break
    llm.reset()
    t0 = time.perf_counter()
    n, t1 = 0, t0
    for _ in llm.generate(toks, temp=0.0):
        n += 1
        if n == 1:
            t1 = time.perf_counter()
        if n > n_gen:
            break
    t2 = time.perf_counter()
    del llm
    return len(toks) / (t1 - t0), (n - 1) / (t2 - t1)


def limit_s(
    events: list[dict], model_rates: dict[str, tuple[float, float]], reuse: bool = False
) -> tuple[float, int, int]:
    """Σ prompt tokens / prompt rate + Σ generated / generation rate over the debate's turns (with `reuse`,
    only the prompt tokens llama.cpp had to evaluate: the model work the debate actually asked for)."""
    total, ptok, ctok = 0.0, 0, 0
    for e in events:
        if e.get("type") != "turn_finished":
            continue
        name = str(e.get("model", "")).split(":", 1)[-1]
        pr, gr = model_rates[name]
        read = e["prompt_tokens"] - (int(e.get("prompt_reused_tokens") or 0) if reuse else 0)
        total += read / pr + e["completion_tokens"] / gr
        ptok += e["prompt_tokens"]
        ctok += e["completion_tokens"]
    return total, ptok, ctok


# -- the engine from the command line -----------------------------------------------------------
def cli_run(protocol: str, home: Path) -> dict:
    events = home / f"cli-{protocol}.jsonl"
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "debate",
            "run",
            "--protocol",
            protocol,
            "--lineup",
            LINEUP,
            "--pace",
            PACE,
            "--aids" if AIDS else "--no-aids",
            "--no-cache",
            "--color",
            "never",
            "--events",
            str(events),
            CLAIMS.get(protocol, CLAIM),
        ],
        cwd=REPO,
        env=_env(home),
        capture_output=True,
        text=True,
    )
    total = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"CLI {protocol} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    evs = [json.loads(x) for x in events.read_text().splitlines() if x.strip()]
    fin = evs[-1]
    first = next((e["t"] for e in evs if e["type"] == "token"), None)
    return {
        "events": evs,
        "wall": fin["wall_s"],
        "total": total,
        "first": first,
        "calls": fin["model_calls"],
        "label": fin.get("label"),
    }


# -- the app with a browser watching ------------------------------------------------------------
def choose_lineup(page) -> None:
    """Pick LINEUP in the Debate page's Lineup box, when it is a preset the page offers."""
    from debate.lineups import PRESETS
    from ui.catalog import preset_title

    if LINEUP == "embedded" or LINEUP not in PRESETS:
        return
    page.get_by_text("Lineup · who plays which part").first.click()
    wait_idle(page)
    page.locator(".st-key-cfg_preset").click()
    page.get_by_role("option", name=preset_title(LINEUP)).first.click()
    wait_idle(page)


def app_run(page, protocol: str, store) -> dict:
    page.get_by_text(TITLES.get(protocol, protocol)).first.click()
    wait_idle(page)
    choose_lineup(page)
    if PACE == "paper" and page.locator(".st-key-cfg_pace input").is_checked():
        page.locator(".st-key-cfg_pace").get_by_text("Live-demo pace").click()
        wait_idle(page)
    if not AIDS and page.locator(".st-key-cfg_aids input").is_checked():
        page.locator(".st-key-cfg_aids").get_by_text("Small-model aids").click()
        wait_idle(page)
    area = page.locator(".st-key-claim textarea")
    area.fill(CLAIMS.get(protocol, CLAIM))
    area.press("Control+Enter")
    wait_idle(page)
    ready_s = None
    if CLICK == "ready":  # as a presenter would: Run once the page says the opening prompts are read
        t = time.perf_counter()
        page.get_by_text("Ready: the models have read").first.wait_for(timeout=300_000)
        ready_s = time.perf_counter() - t
    t0 = time.perf_counter()
    cpu0 = browser_cpu_s()
    page.locator(".st-key-run button").click()
    page.wait_for_function(FIRST_TEXT_JS, polling="raf", timeout=900_000)
    t1 = time.perf_counter()
    page.wait_for_function(VERDICT_JS, polling=100, timeout=1_800_000)
    t2 = time.perf_counter()
    browser = browser_cpu_s() - cpu0
    row = store.list(limit=1)[0]
    deadline = time.time() + 120  # passages for the viewer may still come after the verdict
    while True:
        evs = store.event_dicts(row["id"])
        fin = next((e for e in evs if e["type"] == "finished"), {})
        if fin or time.time() > deadline:
            break
        time.sleep(0.5)
    # the next debate starts on a page that has settled
    wait_idle(page, timeout=120_000)
    turns = [e for e in evs if e["type"] == "turn_finished"]
    head = []  # the debate's opening, in the engine's clock: what came before the first token
    for e in evs:
        if e["type"] == "token":
            head.append(f"{e['t']:.2f} first token")
            break
        head.append(f"{e['t']:.2f} {e['type']} {e.get('agent', '')}".rstrip())
    print("  opening: " + " · ".join(head), flush=True)
    return {
        "first": t1 - t0,
        "verdict": t2 - t0,
        "wall": fin.get("wall_s"),
        "events": evs,
        "calls": fin.get("model_calls"),
        "label": fin.get("label"),
        "first_engine": next((e["t"] for e in evs if e["type"] == "token"), None),
        "ready_s": ready_s,
        "browser_cpu": browser,
        "reused_first": (turns[0].get("prompt_reused_tokens", 0), turns[0].get("prompt_tokens", 0)) if turns else None,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--protocols", default="baseline,council")
    ap.add_argument("--skip-app", action="store_true", help="only the limit and the CLI")
    ap.add_argument(
        "--skip-rates-after",
        action="store_true",
        help="measure llama.cpp's rates only before the run (default: before and after, averaged)",
    )
    ap.add_argument(
        "--pace",
        choices=("demo", "paper"),
        default="demo",
        help="the pace both sides run at (the app's toggle is set to match)",
    )
    ap.add_argument(
        "--click",
        choices=("ready", "now"),
        default="ready",
        help="ready: click Run once the page says the models have read the opening prompts (as a "
        "presenter would); now: right after typing the claim",
    )
    ap.add_argument(
        "--aids",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="small-model aids on both sides (the app's default; the app's toggle is set to match)",
    )
    ap.add_argument(
        "--lineup",
        default="embedded",
        help="both sides' lineup: a preset (also chosen in the app's Lineup box, e.g. embedded-larger) "
        "or a lineup JSON file (CLI side only; the app then runs its default)",
    )
    args = ap.parse_args()
    global PACE, CLICK, AIDS, LINEUP
    PACE, CLICK, AIDS, LINEUP = args.pace, args.click, args.aids, args.lineup
    protocols = [p.strip() for p in args.protocols.split(",") if p.strip()]

    print(f"load average at start: {load()}", flush=True)
    print(
        f"both sides: pace {PACE}, small-model aids {'on' if AIDS else 'off'}, click {CLICK}, lineup {LINEUP}",
        flush=True,
    )
    model_rates = {m: rates(m) for m in lineup_models(LINEUP)}
    for m, (pr, gr) in model_rates.items():
        print(f"llama.cpp directly, {m}: prompt {pr:.0f} tok/s, generation {gr:.1f} tok/s", flush=True)

    from debate.store import DebateStore

    results: dict[str, dict] = defaultdict(dict)
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        home = Path(tmp)
        (home / "cli").mkdir()
        for p in protocols:
            print(f"CLI {p}…", flush=True)
            results[p]["cli"] = r = cli_run(p, home / "cli")
            print(
                f"  {r['wall']:.1f} s ({r['calls']} calls, verdict {r['label']}); command {r['total']:.1f} s; "
                f"load {load()}",
                flush=True,
            )
        if not args.skip_app:
            app_home = home / "app"
            app_home.mkdir()
            with (
                app_server(
                    app_home,
                    env={k: v for k, v in _env(app_home).items() if k.startswith(("DEBATE_", "HF_", "TRANSFORMERS_"))},
                ) as url,
                browser_page(1400, 1600) as page,
            ):
                store = DebateStore(app_home / "debates.sqlite")
                for p in protocols:
                    # a fresh page per debate: the last debate's transcript and verdict card must not
                    # satisfy the next one's "first token" and "verdict" checks
                    page.goto(url)
                    page.locator(".st-key-claim textarea").wait_for(timeout=60_000)
                    wait_idle(page)
                    print(f"app {p}…", flush=True)
                    results[p]["app"] = r = app_run(page, p, store)
                    print(
                        f"  Run→verdict {r['verdict']:.1f} s, first token on screen {r['first']:.2f} s "
                        f"({r['calls']} calls, verdict {r['label']}); load {load()}",
                        flush=True,
                    )
                    print(
                        f"  first token in the engine's own clock {r['first_engine']} s; first turn's prompt "
                        f"tokens read ahead / all: {r['reused_first']}; claim typed → 'Ready' "
                        f"{'–' if r['ready_s'] is None else format(r['ready_s'], '.1f') + ' s'}; chromium used "
                        f"{r['browser_cpu']:.1f} CPU-s during Run→verdict",
                        flush=True,
                    )

    print(f"\nload average at end: {load()}")
    if not args.skip_rates_after:  # the machine may be shared: rates drift, so they bracket the run
        after = {m: rates(m) for m in model_rates}
        for m, (pr, gr) in after.items():
            print(f"llama.cpp directly at the end, {m}: prompt {pr:.0f} tok/s, generation {gr:.1f} tok/s", flush=True)
        model_rates = {
            m: ((model_rates[m][0] + after[m][0]) / 2, (model_rates[m][1] + after[m][1]) / 2) for m in model_rates
        }
    for p in protocols:
        print(f"\n{p}, the CLI's turns (where the time goes):")
        for e in results[p]["cli"]["events"]:
            if e.get("type") == "turn_finished":
                print(
                    f"  {e['agent']:<11} {e.get('phase', ''):<11} r{e.get('round', 0)} prompt {e['prompt_tokens']:>5} "
                    f"(reused {int(e.get('prompt_reused_tokens') or 0):>5}) generated {e['completion_tokens']:>4} "
                    f"{float(e.get('latency_s') or 0):6.1f} s  {e.get('model', '')}"
                )
    head = (
        "| protocol | model calls | prompt / generated tokens | limit (llama.cpp rates) | CLI | CLI / limit "
        "| app Run→verdict | app / CLI | first token on screen |"
    )
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for p in protocols:
        cli, app = results[p]["cli"], results[p].get("app")
        lim, ptok, ctok = limit_s(cli["events"], model_rates)
        row = [
            p,
            str(cli["calls"]),
            f"{ptok:,} / {ctok:,}",
            f"{lim:.1f} s",
            f"{cli['wall']:.1f} s",
            f"{cli['wall'] / lim:.2f}×",
        ]
        if app:
            row += [f"{app['verdict']:.1f} s", f"**{app['verdict'] / cli['wall']:.2f}×**", f"{app['first']:.2f} s"]
        else:
            row += ["–", "–", "–"]
        print("| " + " | ".join(row) + " |")
    print()
    for p in protocols:  # one line per protocol, the numbers a re-run on a quiet machine is compared by
        cli, app = results[p]["cli"], results[p].get("app")
        lim, _, _ = limit_s(cli["events"], model_rates)
        quiet_rates = {**model_rates, **QUIET_RATES}  # a model with no quiet rate recorded: as measured
        quiet, _, _ = limit_s(cli["events"], quiet_rates)
        scale = quiet / lim if lim else 1.0
        work, _, _ = limit_s(cli["events"], quiet_rates, reuse=True)
        print(
            f"{p}: model work at the quiet rates (prompt tokens evaluated after reuse, tokens generated) {work:.1f} s"
        )
        if app:
            print(
                f"RESULT {p}: Run→first token on screen {app['first']:.2f} s · Run→verdict on screen "
                f"{app['verdict']:.1f} s · CLI {cli['wall']:.1f} s · app/CLI {app['verdict'] / cli['wall']:.2f}× · "
                f"quiet-machine equivalent (×{scale:.2f} by llama.cpp's rates): Run→verdict "
                f"{app['verdict'] * scale:.1f} s, CLI {cli['wall'] * scale:.1f} s"
            )
        else:
            print(
                f"RESULT {p}: CLI {cli['wall']:.1f} s · quiet-machine equivalent (×{scale:.2f} by llama.cpp's "
                f"rates): CLI {cli['wall'] * scale:.1f} s (app not run)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
