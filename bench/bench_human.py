"""Benchmark (not a test): a person in a seat, on the embedded models.

1. **Hand-over**: a single debate where a person plays the opponent (answers typed by a thread the moment
   each seat opens, through debate.seats exactly as the page does). For every model turn that starts after
   a person's answer, it measures the time from the answer being accepted (`seats.answer`) to that turn's
   first token arriving in the event stream, and sets it against the model's own time to first token
   (`ttft_s`, from the moment the model starts reading the prompt). The difference is what the person's
   seat adds: the engine's hand-over (seat → backend stream → protocol → prompt → model).
2. **Unattended seat**: the same debate with nobody answering and a short countdown: for each seat, the time
   from the engine asking (`human_asked`) to the turn passing (`human_timeout`), against the countdown,
   and whether the debate completed.

    .venv/bin/python bench/bench_human.py [--countdown 5] [--rounds 1] [--max-tokens 32]

Prints one table per part and the machine's load average (the machine may be shared).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from debate import seats  # noqa: E402
from debate.models.registry import default_client  # noqa: E402
from debate.runner import DebateConfig, run_debate  # noqa: E402

CLAIM = "New study: people who drink 3 cups of coffee a day live longer, researchers at Harvard found https://t.co/abc"
ANSWER = "The tweet cites no study at all: a link and a number are not a reported result."


def _config(debate_id: str, rounds: int, max_tokens: int, countdown: float) -> DebateConfig:
    return DebateConfig(
        claim=CLAIM,
        protocol="single",
        category=1,
        lineup="embedded",
        params={"rounds": rounds, "examples": False},
        max_tokens=max_tokens,
        humans=["opponent"],
        human_timeout_s=countdown,
        debate_id=debate_id,
    )


def handover(rounds: int, max_tokens: int) -> list[dict]:
    did = f"bench-human-{os.getpid()}"
    accepted: list[float] = []  # perf_counter when each answer was accepted
    stop = threading.Event()

    busy: set[str] = set()  # model turns started and not finished

    def person() -> None:
        # answers once no model turn is running, so the next model turn waits for this answer alone
        while not stop.is_set():
            for seat in seats.waiting(did):
                if not busy:
                    seats.answer(did, seat.turn_id, ANSWER)
                    accepted.append(seat.answered_at or time.perf_counter())
            time.sleep(0.005)

    threading.Thread(target=person, daemon=True).start()
    started: dict[str, float] = {}  # turn id -> perf_counter of its TurnStarted (model turns)
    first: dict[str, float] = {}
    rows = []
    client = default_client(cache=False)
    try:
        for ev in run_debate(_config(did, rounds, max_tokens, 600), client):
            now = time.perf_counter()
            if ev.type == "turn_started" and not ev.human:
                started[ev.turn_id] = now
                busy.add(ev.turn_id)
            elif ev.type == "token" and ev.turn_id in started and ev.turn_id not in first:
                first[ev.turn_id] = now
            if ev.type == "turn_finished":
                busy.discard(ev.turn_id)
            if ev.type == "turn_finished" and ev.turn_id in first:
                before = [a for a in accepted if a <= started[ev.turn_id]]
                if before and ev.ttft_s is not None:  # a model turn that came after a person's answer
                    gap = first[ev.turn_id] - before[-1]
                    rows.append(
                        {
                            "turn": f"{ev.agent} {ev.phase} {ev.round}",
                            "answer_to_first_token_s": gap,
                            "model_ttft_s": ev.ttft_s,
                            "added_s": gap - ev.ttft_s,
                        }
                    )
    finally:
        stop.set()
    return rows


def unattended(rounds: int, max_tokens: int, countdown: float) -> tuple[list[dict], str, float]:
    did = f"bench-human-idle-{os.getpid()}"
    asked: dict[str, float] = {}
    rows, status, t0 = [], "", time.perf_counter()
    for ev in run_debate(_config(did, rounds, max_tokens, countdown), default_client(cache=False)):
        if ev.type == "human_asked":
            asked[ev.turn_id] = ev.t
        elif ev.type == "human_timeout":
            rows.append(
                {
                    "turn": f"{ev.agent} {ev.phase} {ev.round}",
                    "blocked_s": ev.t - asked[ev.turn_id],
                    "countdown_s": countdown,
                }
            )
        elif ev.type == "finished":
            status = ev.status
    return rows, status, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--countdown", type=float, default=5.0)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--max-tokens", type=int, default=32)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = handover(args.rounds, args.max_tokens)
    print("\n1. person's answer -> next model turn's first token (single debate, embedded lineup, opponent = person)")
    print(f"{'turn':<26}{'answer→1st token s':>20}{'model TTFT s':>14}{'added s':>10}")
    for r in rows:
        print(f"{r['turn']:<26}{r['answer_to_first_token_s']:>20.3f}{r['model_ttft_s']:>14.3f}{r['added_s']:>10.3f}")
    if rows:
        print(f"most added: {max(r['added_s'] for r in rows):.3f} s")
    idle, status, wall = unattended(args.rounds, args.max_tokens, args.countdown)
    print(f"\n2. unattended seat (nobody answers), countdown {args.countdown:g} s")
    print(f"{'turn':<26}{'blocked s':>12}{'countdown s':>14}")
    for r in idle:
        print(f"{r['turn']:<26}{r['blocked_s']:>12.3f}{r['countdown_s']:>14.3f}")
    if idle:
        print(
            f"most over the countdown: {max(r['blocked_s'] - r['countdown_s'] for r in idle):.3f} s; "
            f"debate {status} in {wall:.1f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
