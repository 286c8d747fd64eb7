"""Benchmark the model layer against calling llama.cpp directly (not a test; prints numbers).

    .venv/bin/python bench/bench_models.py [--model qwen2.5-0.5b] [--runs 5] [--max-tokens 64]

Both paths use the same loaded Llama object, the same prompt, greedy decoding and `llm.reset()`, and
alternate run by run so that load on the shared cores hits both alike. Reports tokens/s, time to first
token, and the layer's overhead two ways: end-to-end (median layer time minus median direct time,
noisy on shared cores) and instrumented (time measured inside the layer's own code: the logits
recorder and the client/ChatStream path per chunk), which is what the layer adds by construction.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debate.models import local as local_mod
from debate.models import packaged
from debate.models.base import GenOptions
from debate.models.client import ModelClient
from debate.models.local import LocalBackend, load_llama
from debate.models.scripted import ScriptedBackend

MESSAGES = [
    {"role": "system", "content": "You are a careful fact-checker. Explain briefly, then answer YES or NO."},
    {
        "role": "user",
        "content": "Tweet: 'The Great Wall of China is visible from the Moon with the naked eye.' "
        "Is this claim accurate?",
    },
]


def direct(llm, max_tokens: int) -> dict:
    t0 = time.perf_counter()
    ttft, n, parts = None, 0, []
    llm.reset()
    for chunk in llm.create_chat_completion(
        messages=MESSAGES, temperature=0.0, max_tokens=max_tokens, seed=0, stream=True
    ):
        text = chunk["choices"][0]["delta"].get("content")
        if text:
            if ttft is None:
                ttft = time.perf_counter() - t0
            n += 1
            parts.append(text)
    return {"total": time.perf_counter() - t0, "ttft": ttft, "chunks": n, "text": "".join(parts)}


def layer(client: ModelClient, spec: str, max_tokens: int) -> dict:
    t0 = time.perf_counter()
    stream = client.chat(spec, MESSAGES, GenOptions(max_tokens=max_tokens, cache=False))
    n = sum(1 for _ in stream)
    res = stream.result()
    return {
        "total": time.perf_counter() - t0,
        "ttft": res.ttft_s,
        "chunks": n,
        "text": res.text,
        "tokens": res.completion_tokens,
    }


def python_path_cost(chunks: int, reps: int = 200) -> float:
    """Seconds the client + ChatStream path costs per call for `chunks` deltas (scripted backend)."""
    text = " ".join(["w"] * chunks)
    client = ModelClient({"scripted": ScriptedBackend(default=text)})
    t0 = time.perf_counter()
    for _ in range(reps):
        client.chat("scripted:x", MESSAGES, GenOptions(cache=False)).result()
    return (time.perf_counter() - t0) / reps


def sampler_hook_cost(llm, tokens: int, reps: int = 50) -> float:
    """Seconds per call that llama-cpp-python's custom-sampler hook (which runs our logits recorder)
    costs for `tokens` tokens: it wraps the n_vocab candidates in a numpy recarray, calls the
    processor and copies the logits back. Reproduced here because it runs inside llama.cpp's sampler."""
    import ctypes

    import llama_cpp
    import numpy as np

    n_vocab = llm.n_vocab()
    buf = (llama_cpp.llama_token_data * n_vocab)()
    rec = local_mod._StepRecorder()
    t0 = time.perf_counter()
    for _ in range(reps):
        arr = np.recarray(
            shape=(n_vocab,),
            dtype=np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True),
            buf=(llama_cpp.llama_token_data * n_vocab).from_address(ctypes.addressof(buf)),
        )
        arr.logit[:] = rec(llm._input_ids, arr.logit)
    return (time.perf_counter() - t0) / reps * tokens


def label_recorder_cost(llm, path: Path, reps: int = 200) -> float:
    """Seconds per generated token that recording YES/NO label probabilities adds."""
    import numpy as np

    rec = local_mod._StepRecorder(*local_mod.label_token_ids(llm, str(path), ("YES", "NO")))
    scores = (np.random.default_rng(0).standard_normal(llm.n_vocab()) * 3).astype(np.single)
    t0 = time.perf_counter()
    for _ in range(reps):
        rec(llm._input_ids, scores)
    return (time.perf_counter() - t0) / reps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="qwen2.5-0.5b")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--max-tokens", type=int, default=64)
    args = ap.parse_args()

    path = packaged.ensure_model(args.model)
    backend = LocalBackend()
    t0 = time.perf_counter()
    llm, _ = load_llama(path, backend.n_ctx, backend.n_threads, packaged.CATALOGUE[args.model].chat_format)
    print(
        f"model {args.model} ({path.name}) loaded in {time.perf_counter() - t0:.2f} s; "
        f"n_ctx={backend.n_ctx} n_threads={backend.n_threads}"
    )
    client = ModelClient({"local": backend}, cache=None)
    spec = f"local:{args.model}"

    rec_time = [0.0]
    real_call = local_mod._StepRecorder.__call__

    def timed_call(self, input_ids, scores):
        t = time.perf_counter()
        out = real_call(self, input_ids, scores)
        rec_time[0] += time.perf_counter() - t
        return out

    local_mod._StepRecorder.__call__ = timed_call

    direct(llm, 4), layer(client, spec, 4)  # warm-up both paths
    d_runs, l_runs, rec_per_run = [], [], []
    for _ in range(args.runs):
        d_runs.append(direct(llm, args.max_tokens))
        rec_time[0] = 0.0
        l_runs.append(layer(client, spec, args.max_tokens))
        rec_per_run.append(rec_time[0])
    assert d_runs[0]["text"] == l_runs[0]["text"], "both paths must produce the same text"

    med = lambda runs, k: statistics.median(r[k] for r in runs)
    tokens = l_runs[0]["tokens"]
    d_tot, l_tot = med(d_runs, "total"), med(l_runs, "total")
    py_cost = python_path_cost(l_runs[0]["chunks"])
    hook = sampler_hook_cost(llm, tokens)
    instrumented = hook + py_cost
    lab = label_recorder_cost(llm, path)
    print(f"completion tokens per run: {tokens}  (runs: {args.runs}, greedy, same text on both paths)")
    print(
        f"direct llama.cpp : {tokens / d_tot:6.1f} tok/s  TTFT {med(d_runs, 'ttft') * 1000:7.1f} ms  "
        f"total {d_tot:.3f} s"
    )
    print(
        f"model layer      : {tokens / l_tot:6.1f} tok/s  TTFT {med(l_runs, 'ttft') * 1000:7.1f} ms  "
        f"total {l_tot:.3f} s"
    )
    print(
        f"overhead end-to-end (median difference): {(l_tot - d_tot) * 1000:+.1f} ms = "
        f"{(l_tot - d_tot) / d_tot * 100:+.2f}% of model time (noise on shared cores is of this order)"
    )
    print(
        f"overhead instrumented: sampler hook incl. logits recorder {hook * 1000:.2f} ms "
        f"(recorder alone {statistics.median(rec_per_run) * 1000:.2f} ms) + client/ChatStream "
        f"{py_cost * 1000:.2f} ms = {instrumented * 1000:.2f} ms = "
        f"{instrumented / d_tot * 100:.2f}% of model time  (target < 2%)"
    )
    per_token = d_tot / max(1, tokens)
    print(f"with labels=(YES, NO): + {lab * 1000:.3f} ms per token = {lab / per_token * 100:.2f}% of model time")


if __name__ == "__main__":
    main()
