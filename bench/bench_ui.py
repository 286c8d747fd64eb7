"""Benchmark (not a test): time from clicking Run to the first token on screen, against the backend's
own time to first token.

Starts the app on a free loopback port (response cache off, so every run calls the model), drives it with
Debian's chromium, runs the few-shot baseline (one model call) on the embedded lineup, and for each run
measures in the browser the time from the click to the first character in an agent's bubble. From the
store it reads the backend's TTFT for that call (ChatStream: request sent -> first delta) and when the
engine emitted the first token (debate clock). UI overhead = on-screen TTFT - backend TTFT.

    .venv/bin/python bench/bench_ui.py [--runs 5] [--protocol baseline] [--max-tokens 16]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.browser import app_server, browser_page, wait_idle, wait_settled  # noqa: E402

CLAIM = "Researchers at MIT found that sleeping less than six hours doubles the risk of a cold, says a new study"
THIS_DEBATE_JS = """(marker) => [...document.querySelectorAll('.claim-card')]
    .some(el => !el.closest('[data-stale="true"]') && el.textContent.includes(marker))"""
VERDICT_JS = """() => [...document.querySelectorAll('.verdict-card')].some(el => !el.closest('[data-stale="true"]'))"""
FIRST_TEXT_JS = """() => { for (const el of document.querySelectorAll('.turn > .txt')) {
    if (el.closest('[data-stale="true"]')) continue;
    if (el.innerText.trim().length) return true; } return false; }"""


def _set_number(page, key: str, value) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")
    wait_idle(page)


def one_run(page, claim: str) -> float:
    area = page.locator(".st-key-claim textarea")
    area.fill(claim)
    area.press("Control+Enter")
    wait_idle(page)
    t0 = time.perf_counter()
    page.locator(".st-key-run button").click()
    # the previous debate's bubbles stay in the DOM until this one is drawn: wait for this claim first
    page.wait_for_function(THIS_DEBATE_JS, arg=claim[-12:], polling="raf", timeout=600_000)
    page.wait_for_function(FIRST_TEXT_JS, polling="raf", timeout=600_000)
    t1 = time.perf_counter()
    page.wait_for_function(VERDICT_JS, polling=200, timeout=900_000)
    wait_settled(page)
    return t1 - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--protocol", default="baseline")
    ap.add_argument("--max-tokens", type=int, default=16)
    args = ap.parse_args()

    from debate.store import DebateStore

    with tempfile.TemporaryDirectory(prefix="bench-ui-") as tmp:
        home = Path(tmp)
        with app_server(home, env={"DEBATE_CACHE": "0"}) as url, browser_page(1400, 1600) as page:
            page.goto(url)
            page.locator(".st-key-claim textarea").wait_for(timeout=60_000)
            wait_idle(page)
            titles = {"baseline": "Few-shot baseline", "council": "Council debate", "single": "Single debate"}
            page.get_by_text(titles.get(args.protocol, args.protocol)).first.click()
            wait_idle(page)
            _set_number(page, "cfg_max_tokens", args.max_tokens)
            print("warm-up run (loads the model)…", flush=True)
            one_run(page, CLAIM + " (warm-up run)")
            ui, backend, engine = [], [], []
            store = DebateStore(home / "debates.sqlite")
            for i in range(args.runs):
                ui.append(one_run(page, f"{CLAIM} (timed run #{i})"))
                row = store.list(limit=1)[0]
                evs = store.events(row["id"])
                first_tok = next(e for e in evs if e.type == "token")
                turn = next(e for e in evs if e.type == "turn_finished" and e.turn_id == first_tok.turn_id)
                backend.append(turn.ttft_s or 0.0)
                engine.append(first_tok.t)
                print(
                    f"run {i + 1}: on screen {ui[-1]:.3f} s · engine first token {engine[-1]:.3f} s · "
                    f"backend TTFT {backend[-1]:.3f} s · UI overhead {ui[-1] - backend[-1]:.3f} s",
                    flush=True,
                )
    med = statistics.median
    print(
        f"\n{args.protocol}, {args.runs} runs, medians: Run→first token on screen {med(ui):.3f} s; "
        f"backend TTFT {med(backend):.3f} s; engine first token {med(engine):.3f} s after start; "
        f"UI overhead {med(u - b for u, b in zip(ui, backend)):.3f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
