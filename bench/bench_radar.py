"""RADAR's time to a verdict from the command line, before and after the live-demo evidence settings
(benchmark, not a test): the same claim, the embedded lineup, the demo pace, the response cache off,
the local index as the only source (network-independent), three variants:

- paper-pool: 20 passages in the paper's prompt layout (what the demo pace gave RADAR before);
- fewer: 6 ranked, floor-checked passages, paper layout;
- demo (the app's default now): 6 passages, and the pool leading every prompt (`shared_evidence`) so
  llama.cpp evaluates it once per model.

Per variant: wall time, time to the first token, model calls, prompt tokens and how many of them were
reused from llama.cpp's cache. The app adds the page on top (bench_live.py --protocols radar measures it
with a browser watching).

    .venv/bin/python bench/bench_radar.py [--protocol radar|radar-single] [--variants paper-pool,fewer,demo]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# an AVeriTeC dev claim: offline only the local index answers, and for a claim it does not cover nothing
# passes the floor, so every variant would argue over no passages and compare nothing
CLAIM = (
    "More than 225,000 people dead, 225,000. The estimates are, if we’d have acted responsibly, there’d be "
    "160,000 fewer dead."
)
VARIANTS = {
    "paper-pool": ["--top-k", "20", "--param", "shared_evidence=false"],
    "fewer": ["--top-k", "6", "--param", "shared_evidence=false"],
    "demo": [],
}


def run(protocol: str, extra: list[str], home: Path) -> dict:
    real = Path(os.environ.get("DEBATE_HOME", Path.home() / ".cache" / "debate-viewer")).expanduser()
    env = {
        **os.environ,
        "DEBATE_HOME": str(home),
        "DEBATE_CACHE": "0",
        "HF_HUB_OFFLINE": "1",
        "DEBATE_MODELS_DIR": os.environ.get("DEBATE_MODELS_DIR", str(real / "models")),
        "DEBATE_INDEX_DIR": os.environ.get("DEBATE_INDEX_DIR", str(real / "indexes")),
        "PYTHONPATH": str(REPO),
    }
    out = home / "events.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "debate",
            "run",
            "--protocol",
            protocol,
            "--lineup",
            "embedded",
            "--pace",
            "demo",
            "--aids",
            "--no-cache",
            "--color",
            "never",
            "--sources",
            "local",
            "--events",
            str(out),
            *extra,
            CLAIM,
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{protocol} {extra} failed:\n{proc.stderr[-2000:]}")
    evs = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
    turns = [e for e in evs if e["type"] == "turn_finished"]
    fin = evs[-1]
    ev = next((e for e in evs if e["type"] == "evidence"), {})
    return {
        "wall_s": fin["wall_s"],
        "first_token_s": next((e["t"] for e in evs if e["type"] == "token"), None),
        "evidence_s": ev.get("t"),
        "passages": len(ev.get("passages") or []),
        "calls": fin["model_calls"],
        "prompt_tokens": fin["prompt_tokens"],
        "completion_tokens": fin["completion_tokens"],
        "reused_prompt_tokens": sum(int(t.get("prompt_reused_tokens") or 0) for t in turns),
        "label": fin.get("label"),
        "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--protocol", default="radar")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    args = ap.parse_args()
    for name in args.variants.split(","):
        with tempfile.TemporaryDirectory(prefix="bench-radar-") as tmp:
            r = run(args.protocol, VARIANTS[name], Path(tmp))
        print(f"{args.protocol} {name}: " + json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
