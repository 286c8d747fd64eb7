"""Benchmark (not a test): a room of phones voting on the audience server while a debate runs.

The presenter's side is, with `--browser`, the app itself: `streamlit run app.py` on a loopback port driven by
Debian's chromium (the claim typed, Run clicked, Run→verdict timed until the verdict card is on screen, the
debate's id read from the page's address as the presenter's Present page would use it). Without `--browser`
it is the engine's live path the Run button starts (`live.start_debate` writing every event to the SQLite
store), in this process, which costs less CPU on a shared machine. Both on the embedded default lineup with
the response cache off. The audience server is `python -m debate audience` in its own process on a loopback
port, on the same SQLite file. The phones are another process: N clients, each with its own cookie jar
(its own device), all from 127.0.0.1 (as a room behind one NAT: the default per-address rate limit holds).

One debate with an audience goes like a talk: the presenter opens the poll, presses Run; the phones vote
(each phone taps twice: the second tap must be refused), then reload their page as its meta refresh does
(every 8 s) until the verdict; the presenter opens the "after" poll and the phones vote again. Beside it
the same debate runs with no audience (no server, no phones). Runs alternate (without, with, without, with …).

Measured: votes stored = votes accepted (counted in the store), one per phone and stage (distinct voters,
every second tap refused), click→stored p50/p95 (a vote's POST until its answer: the answer is sent after
the vote is committed), and Run→verdict (Run until the verdict event is in the store) with and without the
audience, as a ratio.

    /work/main/.venv/bin/python bench/bench_room.py [--phones 60] [--pairs 2] [--max-tokens 48] [--protocol council]
        [--browser]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CLAIM = "New study: people who drink 3 cups of coffee a day live longer, researchers at Harvard found https://t.co/abc"
RELOAD_S = 8.0  # the poll page's meta refresh while a phone waits (debate.audience.server.REFRESH_WAIT_S)


# -- the phones (a process of their own) ----------------------------------------------------------------
def form_token(html: str) -> str:
    m = re.search(r'name="form" value="([^"]+)"', html)
    return m.group(1) if m else ""


def phones_main(args: argparse.Namespace) -> int:
    """Run N phones against one poll link; reads commands from stdin ('vote', 'reload', 'quit'), prints JSON."""
    import httpx

    url = args.url
    clients = [httpx.Client(timeout=30) for _ in range(args.phones)]
    pool = ThreadPoolExecutor(args.phones)
    reloading = threading.Event()

    def vote(i: int) -> dict:
        c = clients[i]
        time.sleep(random.uniform(0, args.spread))  # a room does not tap in the same millisecond
        page = c.get(url)
        labels = re.findall(r'name="label" value="([^"]+)"', page.text)
        if not labels:
            return {"ok": False, "status": page.status_code, "why": "no buttons"}
        t0 = time.perf_counter()
        r = c.post(url, data={"form": form_token(page.text), "label": random.choice(labels)})
        dt = time.perf_counter() - t0
        again = c.post(url, data={"form": form_token(page.text), "label": labels[0]})  # a second tap
        return {"ok": r.status_code == 303, "status": r.status_code, "s": dt, "second": again.status_code}

    def reload_loop(i: int) -> int:
        n, c = 0, clients[i]
        time.sleep(random.uniform(0, RELOAD_S))
        while reloading.is_set():
            c.get(url)
            n += 1
            time.sleep(RELOAD_S)
        return n

    reloads = []
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "vote":
            out = list(pool.map(vote, range(args.phones)))
            print(json.dumps(out), flush=True)
        elif cmd == "reload":
            reloading.set()
            reloads = [threading.Thread(target=reload_loop, args=(i,), daemon=True) for i in range(args.phones)]
            for t in reloads:
                t.start()
            print("[]", flush=True)
        elif cmd == "stop-reload":
            reloading.clear()
            print("[]", flush=True)
        elif cmd == "quit":
            break
    return 0


# -- the presenter's side -------------------------------------------------------------------------------
def run_to_verdict(store, client, did: str, max_tokens: int, protocol: str, on_run=None) -> float:
    """Run (live.start_debate, as the app's Run) → the verdict event in the store, in seconds."""
    from debate import live
    from debate.runner import DebateConfig

    cfg = DebateConfig(claim=CLAIM, protocol=protocol, lineup="embedded", max_tokens=max_tokens, debate_id=did)
    t0 = time.perf_counter()
    live.start_debate(cfg, client, None, store, debate_id=did)
    if on_run:
        on_run()
    seen = -1
    while True:
        evs = store.event_dicts(did, after_seq=seen)
        if evs:
            seen = evs[-1]["seq"]
            if any(e["type"] == "verdict" for e in evs):
                t = time.perf_counter() - t0
                break
            if any(e["type"] == "finished" for e in evs):
                raise SystemExit(f"debate {did} finished without a verdict: {evs[-1]}")
        time.sleep(0.05)
    live.wait(did, 120)
    return t


THIS_DEBATE_JS = """(marker) => [...document.querySelectorAll('.claim-card')]
    .some(el => !el.closest('[data-stale="true"]') && el.textContent.includes(marker))"""
VERDICT_JS = """() => [...document.querySelectorAll('.verdict-card')].some(el => !el.closest('[data-stale="true"]'))"""


def browser_run_to_verdict(page, claim: str, on_run=None) -> tuple[float, str]:
    """Run clicked on the app's Debate page → the verdict card on screen, in seconds, and the debate's id
    (from the page's address, which the page writes after Run)."""
    from tests.support.browser import wait_idle, wait_settled

    area = page.locator(".st-key-claim textarea")
    area.fill(claim)
    area.press("Control+Enter")
    wait_idle(page)
    t0 = time.perf_counter()
    page.locator(".st-key-run button").click()
    page.wait_for_function(THIS_DEBATE_JS, arg=claim[-12:], polling="raf", timeout=600_000)
    page.wait_for_url(re.compile(r"[?&]debate="), timeout=600_000)
    did = re.search(r"[?&]debate=([^&#]+)", page.url).group(1)
    if on_run:
        on_run(did)
    page.wait_for_function(VERDICT_JS, polling=100, timeout=900_000)
    t = time.perf_counter() - t0
    wait_settled(page)
    return t, did


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def room_run(args, env, people, audience, presenter, name: str):
    """One debate with a room: the audience server started, the phones vote while the debate runs and reload
    until the verdict, then the "after" poll. Returns (Run→verdict s, debate id, before votes, after votes)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "debate", "audience", "--host", "127.0.0.1", "--port", str(args.port)],
        env=env,
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
    )
    server.stderr.readline()  # "Audience server for phones: …" once it listens
    threading.Thread(target=server.stderr.read, daemon=True).start()  # drained, never blocks the server
    labels = ("YES", "NO")
    room: dict = {"before": []}

    def on_run(did: str) -> None:
        # the presenter opens the poll as the debate starts; the room votes, then waits reloading
        people.open_poll(did, "before", labels, CLAIM)
        url = f"http://127.0.0.1:{args.port}/p/{audience.link('poll', did)}"
        phones = subprocess.Popen(
            [sys.executable, __file__, "--phones", str(args.phones), "--spread", str(args.spread), "--phones-url", url],
            env=env,
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

        def ask(cmd: str) -> list:
            phones.stdin.write(cmd + "\n")
            phones.stdin.flush()
            return json.loads(phones.stdout.readline())

        room.update(phones=phones, ask=ask, did=did)

        def votes() -> None:
            room["before"].extend(ask("vote"))
            ask("reload")

        threading.Thread(target=votes, daemon=True).start()

    t, did = presenter(name, on_run)
    while len(room["before"]) < args.phones:
        time.sleep(0.1)
    ask, phones = room["ask"], room["phones"]
    ask("stop-reload")
    people.open_poll(did, "after", labels)
    after = ask("vote")
    phones.stdin.write("quit\n")
    phones.stdin.flush()
    phones.wait(30)
    server.terminate()
    server.wait(30)
    return t, did, room["before"], after


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phones", type=int, default=60)
    ap.add_argument("--pairs", type=int, default=2, help="debates without and with the audience, alternating")
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--protocol", default="council", help="the debate's protocol (the app's default: council)")
    ap.add_argument("--spread", type=float, default=3.0, help="phones tap within this many seconds")
    ap.add_argument("--port", type=int, default=8592)
    ap.add_argument("--browser", action="store_true", help="the presenter's side is the app in chromium")
    ap.add_argument("--phones-url", default=None, help=argparse.SUPPRESS)  # the phones' process
    args = ap.parse_args()
    if args.phones_url:
        args.url = args.phones_url
        return phones_main(args)

    real = Path(os.environ.get("DEBATE_HOME", Path.home() / ".cache" / "debate-viewer")).expanduser()
    home = Path(tempfile.mkdtemp(prefix="bench-room-"))  # a store of its own; the models assembled once, shared
    os.environ.setdefault("DEBATE_MODELS_DIR", str(real / "models"))
    os.environ.update(DEBATE_HOME=str(home), DEBATE_CACHE="0", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    from debate import config
    from debate.audience import links
    from debate.models.registry import default_client
    from debate.store import DebateStore
    from debate.store.people import PeopleStore

    store, people, audience = DebateStore(), PeopleStore(config.store_db()), links.AudienceStore(config.store_db())
    env = dict(os.environ, PYTHONPATH=str(REPO))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; home {home}")
    with contextlib.ExitStack() as stack:
        if args.browser:
            from tests.support.browser import app_server, browser_page, wait_idle

            url = stack.enter_context(app_server(home, env={"DEBATE_CACHE": "0"}))
            page = stack.enter_context(browser_page(1400, 1600))
            page.goto(url)
            page.locator(".st-key-claim textarea").wait_for(timeout=60_000)
            wait_idle(page)
            titles = {"baseline": "Few-shot baseline", "council": "Council debate", "single": "Single debate"}
            page.get_by_text(titles.get(args.protocol, args.protocol)).first.click()
            wait_idle(page)
            box = page.locator(".st-key-cfg_max_tokens input")
            box.fill(str(args.max_tokens))
            box.press("Enter")
            wait_idle(page)

            def presenter(name: str, on_run=None) -> tuple[float, str]:
                return browser_run_to_verdict(page, f"{CLAIM} ({name})", on_run)
        else:
            client = default_client(cache=False)

            def presenter(name: str, on_run=None) -> tuple[float, str]:
                did = name
                t = run_to_verdict(
                    store, client, did, args.max_tokens, args.protocol, on_run=(lambda: on_run(did)) if on_run else None
                )
                return t, did

        print("warming the embedded models (one debate, not counted)…", flush=True)
        presenter("warm")
        without, with_, clicks, problems, counts = [], [], [], [], []
        for k in range(args.pairs):
            t, _ = presenter(f"alone-{k}")
            without.append(t)
            print(f"pair {k + 1}: without audience Run→verdict {t:.1f} s (load {os.getloadavg()[0]:.1f})", flush=True)
            t, did, before, after = room_run(args, env, people, audience, presenter, f"room-{k}")
            with_.append(t)
            tallies = people.tallies(did)
            for stage, cast in (("before", before), ("after", after)):
                stored = sum(tallies[stage].values())
                accepted = sum(1 for v in cast if v["ok"])
                second_refused = sum(1 for v in cast if v.get("second") == 409)
                clicks += [v["s"] for v in cast if v["ok"]]
                counts.append((k + 1, stage, len(cast), accepted, stored, second_refused))
                if not (stored == accepted == args.phones == second_refused):
                    problems.append(f"pair {k + 1} {stage}: cast {len(cast)}, accepted {accepted}, stored {stored}")
            voters = people._q("SELECT COUNT(DISTINCT voter) FROM poll_votes WHERE debate_id=?", (did,))[0][0]
            if voters != args.phones:
                problems.append(f"pair {k + 1}: {voters} distinct voters for {args.phones} phones")
            print(
                f"pair {k + 1}: with audience Run→verdict {t:.1f} s; votes stored before "
                f"{sum(tallies['before'].values())}, after {sum(tallies['after'].values())}; distinct voters {voters} "
                f"(load {os.getloadavg()[0]:.1f})",
                flush=True,
            )

    print("\n| pair | stage | phones | votes accepted | votes stored | second taps refused |")
    print("|---|---|---|---|---|---|")
    for row in counts:
        print("| " + " | ".join(map(str, row)) + " |")
    ratio = statistics.median(with_) / statistics.median(without)
    print(
        f"\nclick→stored over {len(clicks)} votes: p50 {pct(clicks, 0.5) * 1000:.0f} ms, p95 "
        f"{pct(clicks, 0.95) * 1000:.0f} ms, max {max(clicks) * 1000:.0f} ms"
    )
    print(
        f"Run→verdict without audience {', '.join(f'{x:.1f}' for x in without)} s; with "
        f"{', '.join(f'{x:.1f}' for x in with_)} s; median ratio {ratio:.2f}×"
    )
    print("problems: " + ("; ".join(problems) if problems else "none"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
