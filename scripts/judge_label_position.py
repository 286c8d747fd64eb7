"""Where are a judge's label probabilities read? The RADAR judge on the embedded model, old rule vs new.

Why: a RADAR judge wrote `[VERDICT]: HALF-TRUE` while its label probabilities gave FALSE 0.999 ("wrote
HALF-TRUE · P 0.00"). The probabilities were read at the generated position where the labels held the
most probability anywhere in the answer: in the `[REASON]` a sentence such as "the claim is false" puts
almost all of it on FALSE, so that position won over the one after `[VERDICT]:`, where the label is
written. Now they are read where the label is written after the answer's label key, and under greedy
decoding only the most probable label's tokens stay allowed there, so label and probabilities agree.

This runs the RADAR judge alone (radar-single, single_mode=judge, the engine's own prompt and evidence
off) on a few claims, captures the judge's messages, and asks the same model the same messages twice:
with the old rule (no label key) and with the engine's options now. It prints, per claim, the written
label, the argmax of each rule's probabilities, and where the new rule read them:

    nice -n 10 .venv/bin/python scripts/judge_label_position.py [--model local:qwen2.5-coder-0.5b] [--tokens 128]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debate.models.client import ModelClient
from debate.models.local import LocalBackend
from debate.protocols.parsing import parse_verdict
from debate.runner import DebateConfig, run_debate

CLAIMS = (  # the kinds of claim the issue tried (LIAR / AVeriTeC style)
    "The Great Wall of China is visible from space with the naked eye.",
    "Cutting the corporate tax rate to 21 percent paid for itself within two years.",
    "Vaccines cause autism in children.",
    "Crime in New York City fell by half between 1990 and 2000.",
    "Florida has more registered Republican voters than registered Democrats.",
)
LABELS = ("TRUE", "FALSE", "HALF-TRUE")


class Recording(ModelClient):
    """A ModelClient that keeps the (spec, messages, options) of every call."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.calls: list[tuple] = []

    def chat(self, spec, messages, options=None):
        self.calls.append((spec, messages, options))
        return super().chat(spec, messages, options)


def top(probs: dict | None) -> str:
    return max(probs, key=lambda k: probs[k]) if probs else "-"


def ask(backend: LocalBackend, spec, messages, options) -> tuple[str, dict | None, str]:
    """(text, label probabilities, where they were read) of one call straight to the backend."""
    model = spec.model if hasattr(spec, "model") else str(spec).split(":", 1)[1]
    text, probs, at = "", None, ""
    for chunk in backend.stream(model, messages, options):
        if hasattr(chunk, "text"):
            text += chunk.text
        elif hasattr(chunk, "label_probs"):
            probs, at = chunk.label_probs, chunk.label_at
    return text, probs, at


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--model", default="local:qwen2.5-coder-0.5b", help="the judge's model (default: the embedded judge)"
    )
    ap.add_argument("--tokens", type=int, default=128, help="answer budget (the app's RADAR default: 128)")
    ap.add_argument("--claims", type=int, default=len(CLAIMS))
    ap.add_argument(
        "--debate",
        action="store_true",
        help="a whole RADAR debate (embedded lineup, opening and closing, no rebuttal) before the "
        "judge, as in the app, instead of the judge alone",
    )
    a = ap.parse_args()
    backend = LocalBackend()
    client = Recording({"local": backend})  # no response cache: every answer is generated now
    judge = {"name": "judge", "model": a.model, "temperature": 0.0, "seed": 0}
    print(
        f"{'claim':<44} {'call':<7} {'old: written':<13} {'argmax':<10} {'P(written)':>10} | "
        f"{'new: written':<13} {'argmax':<10} {'P(written)':>10}  read"
    )
    bad_old = bad_new = n = 0
    for claim in CLAIMS[: a.claims]:
        client.calls.clear()
        if a.debate:
            from debate.lineups import PRESETS

            lineup = {**PRESETS["embedded"], "judge": judge}
            cfg = DebateConfig(
                claim=claim,
                protocol="radar",
                task="halftruth",
                lineup=lineup,
                params={"rounds": 0, "early_stop": False},
                evidence=False,
                max_tokens=a.tokens,
            )
        else:
            lineup = {"name": "repro", "members": [judge], "judge": judge, "chair": judge}
            cfg = DebateConfig(
                claim=claim,
                protocol="radar-single",
                task="halftruth",
                lineup=lineup,
                params={"single_mode": "judge"},
                evidence=False,
                max_tokens=a.tokens,
            )
        list(run_debate(cfg, client))
        judged = [(s_, m, o) for s_, m, o in client.calls if o.labels == LABELS]
        for _k, (spec, messages, options) in enumerate(judged):
            rows = []
            for opts in (replace(options, label_key=""), options):
                text, probs, at = ask(backend, spec, messages, opts)
                written = parse_verdict(text, LABELS).label
                rows.append((written, top(probs), f"{probs.get(written, 0):.3f}" if probs and written else "-", at))
            (w0, t0, p0, _), (w1, t1, p1, at1) = rows
            n += 1
            bad_old += bool(w0 and t0 != "-" and t0 != w0)
            bad_new += bool(w1 and t1 != "-" and t1 != w1)
            call = "repair" if options.json_schema else "judge"
            print(f"{claim[:43]:<44} {call:<7} {w0!s:<13} {t0:<10} {p0:>10} | {w1!s:<13} {t1:<10} {p1:>10}  {at1}")
    print(
        f"\njudge calls whose written label is not the argmax of their own probabilities: old rule {bad_old} "
        f"of {n}, new {bad_new} of {n}"
    )


if __name__ == "__main__":
    main()
