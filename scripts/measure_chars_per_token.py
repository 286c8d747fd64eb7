"""Measure chars per token of a real debate prompt (TurQUaz team judge, few-shot guidelines, six turns) with the
embedded models' tokenizers: the basis of debate.protocols.prompting.CHARS_PER_TOKEN.

    .venv/bin/python scripts/measure_chars_per_token.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from llama_cpp import Llama

from debate import prompts
from debate.models import packaged
from debate.tasks import resolve_task

paths = {
    "qwen2.5-coder-0.5b": str(packaged.ensure_model("qwen2.5-coder-0.5b")),
    "smollm2-135m": str(packaged.ensure_model("smollm2-135m")),
}
t = resolve_task("checkthat", 2, None, None)
turn = (
    "The tweet links to nature.com/articles, which hosts peer-reviewed research. The phrase 'new study' "
    "signals a reference to a publication, and the claim about heart disease risk is a scientific finding. "
) * 3
vals = {
    "category_title": t.phrase,
    "category_description": t.description,
    "category_description_and_guidelines": t.description_and_guidelines(examples=True),
    "focus_rule": t.focus_rule,
    "category_values": t.category_values,
    "tweet": "A new study in Nature shows coffee lowers the risk https://www.nature.com/articles/x1",
    "transcript": "\n\n".join(f"Proponent (rebuttal {i}): {turn}" for i in range(6)),
}
texts = {"turquaz judge + 6 turns": prompts.render("turquaz.team.judge", **vals)}
for name, path in paths.items():
    llm = Llama(model_path=path, vocab_only=True, verbose=False)
    for k, txt in texts.items():
        n = len(llm.tokenize(txt.encode(), add_bos=False))
        print(f"{name}: {k}: {len(txt)} chars / {n} tokens = {len(txt) / n:.2f} chars per token")
