"""Benchmark (not a test): a room of phones voting on the audience server while a debate runs.

The presenter's side is the engine's live path, the one the app's Run button starts (`live.start_debate`
writing every event to the SQLite store, on the embedded default lineup, response cache off), in this
process; the Streamlit page itself is not driven (its browser would cost more CPU on this shared machine
than the phones do). The audience server is `python -m debate audience` in its own process on a loopback
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
"""

from __future__ import annotations

import argparse
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


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phones", type=int, default=60)
    ap.add_argument("--pairs", type=int, default=2, help="debates without and with the audience, alternating")
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--protocol", default="council", help="the debate's protocol (the app's default: council)")
    ap.add_argument("--spread", type=float, default=3.0, help="phones tap within this many seconds")
    ap.add_argument("--port", type=int, default=8592)
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
    client = default_client(cache=False)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; home {home}")
    print("warming the embedded models (one debate, not counted)…", flush=True)
    run_to_verdict(store, client, "warm", args.max_tokens, args.protocol)

    without, with_, clicks, problems, counts = [], [], [], [], []
    for k in range(args.pairs):
        t = run_to_verdict(store, client, f"alone-{k}", args.max_tokens, args.protocol)
        without.append(t)
        print(f"pair {k + 1}: without audience Run→verdict {t:.1f} s (load {os.getloadavg()[0]:.1f})", flush=True)

        did = f"room-{k}"
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

        def ask(cmd: str, phones=phones) -> list:
            phones.stdin.write(cmd + "\n")
            phones.stdin.flush()
            return json.loads(phones.stdout.readline())

        before: list = []

        def on_run(did=did, ask=ask, before=before) -> None:
            # the room votes while the debate opens, then waits reloading
            def room() -> None:
                before.extend(ask("vote"))
                ask("reload")

            threading.Thread(target=room, daemon=True).start()

        t = run_to_verdict(store, client, did, args.max_tokens, args.protocol, on_run=on_run)
        with_.append(t)
        while len(before) < args.phones:
            time.sleep(0.1)
        ask("stop-reload")
        people.open_poll(did, "after", labels)
        after = ask("vote")
        phones.stdin.write("quit\n")
        phones.stdin.flush()
        phones.wait(30)
        server.terminate()
        server.wait(30)

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
            f"pair {k + 1}: with audience Run→verdict {t:.1f} s; votes stored before {sum(tallies['before'].values())}"
            f", after {sum(tallies['after'].values())}; distinct voters {voters} (load {os.getloadavg()[0]:.1f})",
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
