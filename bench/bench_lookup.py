"""Benchmark (not a test): would llama.cpp's prompt-lookup decoding make the embedded debaters and judge
faster, with the same answers?

Prompt-lookup decoding (llama-cpp-python's `LlamaPromptLookupDecoding`, a "draft model" that proposes the
tokens that followed the answer's last n-gram where it stands in the prompt) verifies several proposed
tokens in one batch; accepted ones cost no step of their own. It can only pay where an answer repeats its
prompt, and the speed it buys must not change an answer: a greedy answer has to be the same token for
token (llama.cpp's logits for a token depend in their last bits on the batch it is computed in).

For each stored RADAR debate (a substance benchmark events file), the judge's prompt is rebuilt from the
debate's own turns and evidence (RADAR's expertise judge prompt, as the app sends it) and each debater's
rebuttal prompt likewise; each is answered greedily by the model that answered it in the debate, once
plainly and once with prompt lookup, alternating which goes first, on a fresh Llama each (no state
shared). Printed: per kind of turn, the time with ÷ without (median), tokens per second, and how many
answers are identical.

    python bench/bench_lookup.py bench/results/substance-radar-ab-2026-12-06-embedded-events.jsonl --debates 4
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from debate import prompts  # noqa: E402


def debates(path: Path, n: int) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d.get("protocol") == "radar":
            out.append(d)
        if len(out) >= n:
            break
    return out


def _evidence(events: list[dict]) -> str:
    ev = next((e for e in events if e["type"] == "evidence"), None)
    passages = (ev or {}).get("passages") or []
    return "\n".join(f"[E{i + 1}] {p.get('text', '')}" for i, p in enumerate(passages)) or "(no evidence found)"


def requests(d: dict) -> list[tuple[str, str, list[dict]]]:
    """(kind, model, messages) of the judge and of each rebuttal of debate `d`, rebuilt from its turns."""
    events = d["events"]
    claim = events[0]["claim"]
    turns = {(e["agent"], e["phase"]): e for e in events if e["type"] == "turn_finished"}
    evidence = _evidence(events)
    out: list[tuple[str, str, list[dict]]] = []
    pol, sci = turns.get(("politician", "opening")), turns.get(("scientist", "opening"))
    for me, other in (("politician", sci), ("scientist", pol)):
        mine = turns.get((me, "rebuttal"))
        if mine and other:
            msgs = prompts.messages(
                f"radar.expertise.system.{me}",
                "radar.expertise.rebuttal",
                {
                    "role_name": me.capitalize(),
                    "opponent_name": "Scientist" if me == "politician" else "Politician",
                    "claim": claim,
                    "evidence": evidence,
                    "con_argument": other["text"],
                },
            )
            out.append(("rebuttal", mine["model"], msgs))
    judge = turns.get(("judge", "judge"))
    text = lambda a, p: (turns.get((a, p)) or {}).get("text", "")
    if judge:
        msgs = prompts.messages(
            "radar.expertise.system.judge",
            "radar.expertise.judge",
            {
                "decision_question": "Is the claim true, false or half-true?",
                "claim": claim,
                "evidence": evidence,
                "advocate_open": text("politician", "opening"),
                "critic_open": text("scientist", "opening"),
                "advocate_rebuttal": text("politician", "rebuttal"),
                "critic_rebuttal": text("scientist", "rebuttal"),
                "advocate_close": text("politician", "closing"),
                "critic_close": text("scientist", "closing"),
                "verdict_options": "TRUE, FALSE, HALF-TRUE",
            },
        )
        out.append(("judge", judge["model"], msgs))
    return out


def answer(model: str, msgs: list[dict], lookup: int, max_tokens: int) -> tuple[str, float, int]:
    from llama_cpp import Llama
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    from debate.models.local import LocalBackend

    path, chat_format = LocalBackend().resolve(model.split(":", 1)[-1])
    draft = LlamaPromptLookupDecoding(num_pred_tokens=lookup) if lookup else None
    llm = Llama(
        model_path=str(path),
        n_ctx=4096,
        n_threads=2,
        n_threads_batch=2,
        chat_format=chat_format,
        verbose=False,
        seed=0,
        draft_model=draft,
        logits_all=bool(lookup),  # the draft path reads every position's logits (0.3.36 does not set it itself)
    )
    t0 = time.perf_counter()
    r = llm.create_chat_completion(messages=msgs, temperature=0.0, max_tokens=max_tokens, seed=0)
    dt = time.perf_counter() - t0
    return r["choices"][0]["message"]["content"] or "", dt, int(r["usage"]["completion_tokens"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("events", type=Path)
    ap.add_argument("--debates", type=int, default=4)
    ap.add_argument("--lookup", type=int, default=10, help="tokens proposed per step (num_pred_tokens)")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--out", type=Path, default=None, help="write every measurement here (JSON)")
    a = ap.parse_args()
    rows = []
    for i, d in enumerate(debates(a.events, a.debates)):
        for kind, model, msgs in requests(d):
            order = (0, a.lookup) if (i + len(rows)) % 2 == 0 else (a.lookup, 0)
            got = {k: answer(model, msgs, k, a.max_tokens) for k in order}
            plain, look = got[0], got[a.lookup]
            rows.append(
                {
                    "debate": d.get("item"),
                    "kind": kind,
                    "model": model,
                    "plain_s": round(plain[1], 3),
                    "lookup_s": round(look[1], 3),
                    "tokens": plain[2],
                    "lookup_tokens": look[2],
                    "identical": plain[0] == look[0],
                }
            )
            r = rows[-1]
            print(
                f"{r['kind']:8} {model:28} {r['plain_s']:6.2f} s → {r['lookup_s']:6.2f} s  identical={r['identical']}"
            )
    for kind in sorted({r["kind"] for r in rows}):
        rs = [r for r in rows if r["kind"] == kind]
        ratio = statistics.median(r["lookup_s"] / r["plain_s"] for r in rs)
        same = sum(r["identical"] for r in rs)
        print(
            f"{kind}: {len(rs)} answers, time with lookup ÷ without (median) {ratio:.2f}×, identical {same}/{len(rs)}"
        )
    if a.out:
        a.out.write_text(json.dumps({"lookup": a.lookup, "rows": rows}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
