"""How a small model should be shown its demonstrations: AUC of P(YES) on CheckThat TRAIN only.

Usage: python bench/pilot_demo_format.py MODEL CATEGORY N K FORMAT
  e.g. python bench/pilot_demo_format.py qwen2.5-0.5b 2 40 8 chat     (dialogue turns: demos=dialogue)
       python bench/pilot_demo_format.py qwen2.5-0.5b 2 40 8 inline   (one message, Tweet/Answer lines)
A stratified train sample (seed 1), each tweet shown its K most similar OTHER train tweets (leave-one-out),
P(YES) read from llama.cpp's logits after the forced `{"category": "` prefix. Prints the AUC, the AUC of
the neighbours' own label share (kNN), and the best macro-F1 over thresholds (in-sample, for orientation).
This chose demos=dialogue (debate/aids/demos.py) before any dev run; it never reads dev or test.
"""

import sys
import time

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from sklearn.metrics import f1_score, roc_auc_score

from debate.aids.demos import pool, select
from debate.datasets import load_dataset
from debate.evaluation.sampling import stratified_sample
from debate.models import packaged
from debate.models.local import load_llama
from debate.retrieval.embed import embed
from debate.tasks import resolve_task

model, cat, n, k, fmt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
entry = packaged.CATALOGUE[model]
llm = load_llama(packaged.ensure(entry), n_ctx=4096, n_threads=2)[0]
P = pool()
V = P.vectors()
labs = P.labels(cat)
ds = load_dataset("checkthat-train")
items = stratified_sample(ds.items, n, seed=1, category=cat)
t = resolve_task("checkthat", cat)
desc = f"Task: Decide whether a given tweet {t.phrase}.\n\nCategory Description: {t.description}\n\nGuidelines: {t.guidelines}"
yes_id = llm.tokenize(b"YES", add_bos=False)[0]
no_id = llm.tokenize(b"NO", add_bos=False)[0]


def chat(msgs):
    s = "".join(f"<|im_start|>{r}\n{c}<|im_end|>\n" for r, c in msgs)
    return s + '<|im_start|>assistant\n{"category": "'


scores, golds, knn = [], [], []
t0 = time.time()
for it in items:
    q = embed([it.text])[0]
    demos = select(q, V, P.texts, labs, k, exclude_text=it.text)
    gold = it.gold[str(cat)] if isinstance(it.gold, dict) else it.gold
    if fmt == "chat":
        msgs = [("system", desc + '\n\nAnswer with JSON: {"category": "YES"} or {"category": "NO"}.')]
        for d in demos:
            msgs += [("user", f"Tweet: {d.text.strip()}"), ("assistant", f'{{"category": "{d.label}"}}')]
        msgs.append(("user", f"Tweet: {it.text.strip()}"))
    else:
        ex = "\n".join(f'Tweet: "{d.text.strip()}"\nAnswer: {d.label}' for d in demos)
        msgs = [
            (
                "user",
                desc
                + "\n\nLabelled examples (most similar training tweets):\n"
                + ex
                + f'\n\nTweet: "{it.text.strip()}"\n\nRespond with JSON: {{"category": "YES" or "NO"}}',
            )
        ]
    toks = llm.tokenize(chat(msgs).encode(), add_bos=False, special=True)
    llm.reset()
    llm.eval(toks)
    lg = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm._n_vocab,)).copy()
    a, b = lg[yes_id], lg[no_id]
    scores.append(float(1 / (1 + np.exp(b - a))))
    golds.append(gold == "YES")
    knn.append(np.mean([d.label == "YES" for d in demos]))
y = np.array(golds)
s = np.array(scores)
best = max((f1_score(y, s >= th, average="macro"), th) for th in np.unique(s))
print(
    f"{model} cat{cat} n{n} k{k} {fmt}: auc {roc_auc_score(y, s):.3f} knn-auc {roc_auc_score(y, knn):.3f} "
    f"oracle-thr macroF1 {best[0]:.3f} @ {best[1]:.3f}  mean P {s.mean():.2f}  {time.time() - t0:.0f}s"
)
