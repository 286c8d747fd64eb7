"""Where things live on disk, read from the environment when used (never at import time).

DEBATE_HOME (default ~/.cache/debate-viewer) holds assembled model files, the response cache, the
debate store and retrieval indexes. Tests point it at a temporary folder.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
ASSETS = REPO_ROOT / "assets"


PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
_tightened: set[str] = set()  # folders already made private in this process (home() is called often)


def home() -> Path:
    """DEBATE_HOME, created readable by its owner only: it holds claims, model answers, annotations and
    keys. An existing one is tightened too (see `private_dir`)."""
    p = Path(os.environ.get("DEBATE_HOME", Path.home() / ".cache" / "debate-viewer")).expanduser()
    if str(p) in _tightened:  # narrowed earlier in this process; if deleted meanwhile, made again private
        p.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
        return p
    private_dir(p)
    _tightened.add(str(p))
    for name in ("settings.json", "debates.sqlite", "response-cache.sqlite"):
        if (p / name).is_file():
            private_file(p / name)
    return p


def _ours(p: Path) -> bool:
    """Safe to narrow: a real (not symlinked) path this user owns that is not a shared place: not the
    home folder, not a folder directly under / (e.g. /tmp, /srv), not a sticky folder like /tmp."""
    try:
        st = p.lstat()
    except OSError:
        return False
    real = p.resolve()
    return (
        not p.is_symlink()
        and st.st_uid == os.getuid()
        and not st.st_mode & 0o1000
        and real != Path.home().resolve()
        and len(real.parts) > 2
    )


def private_dir(p: Path) -> Path:
    """Create folder `p` (and its parents) with mode 0700; an existing one of ours loses its group and
    other permissions. Parents that already exist are left alone (they may be shared folders)."""
    p.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    if _ours(p) and p.stat().st_mode & 0o077:
        try:
            os.chmod(p, p.stat().st_mode & PRIVATE_DIR)
        except OSError:  # e.g. a read-only mount: still usable, just not narrowed
            pass
    return p


def private_file(p: Path) -> Path:
    """Make the file at `p` readable by its owner only before anything is written to it: created empty
    with mode 0600 when missing (SQLite takes an empty file as a new database, and gives its -wal and
    -shm files the database's mode), narrowed to 0600 when it exists and is ours (with its -wal/-shm)."""
    p = Path(p)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists():
            # Never open an existing database file here: closing any descriptor of a file drops every
            # POSIX lock this process holds on it, including those of SQLite connections already open
            # on it (the live worker and the pages share one process), which SQLite then reports as
            # "disk I/O error". A new file has no connection yet; O_EXCL leaves a racing creator's alone.
            os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE))
    except FileExistsError:
        pass
    except OSError:
        return p  # the caller's own open reports what is wrong, with its message
    for f in (p, p.with_name(p.name + "-wal"), p.with_name(p.name + "-shm")):
        if f.is_file() and _ours(f) and f.stat().st_mode & 0o077:
            try:
                os.chmod(f, PRIVATE_FILE)
            except OSError:
                pass
    return p


def models_dir() -> Path:
    p = Path(os.environ.get("DEBATE_MODELS_DIR", home() / "models")).expanduser()
    p.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    return p


def cache_db() -> Path:
    return Path(os.environ.get("DEBATE_CACHE_DB", home() / "response-cache.sqlite"))


def store_db() -> Path:
    return Path(os.environ.get("DEBATE_STORE_DB", home() / "debates.sqlite"))


def index_dir() -> Path:
    p = Path(os.environ.get("DEBATE_INDEX_DIR", home() / "indexes"))
    p.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    return p


def model_packages_dir() -> Path:
    """Where the Makefile installs the model packages: outside site-packages (`pip install --target`), so
    none of their code is importable and no .pth file of theirs is processed (DEBATE_MODEL_PACKAGES
    overrides; default: the environment's own folder, .venv/model-packages)."""
    import sys

    return Path(os.environ.get("DEBATE_MODEL_PACKAGES", Path(sys.prefix) / "model-packages")).expanduser()


def package_data_dir(module: str) -> Path | None:
    """The folder of a model package's data, found without running any of its code: in
    model_packages_dir(), else (set-ups that installed into site-packages) by importlib's finder, which
    locates a top-level package without executing it."""
    import importlib.util

    own = model_packages_dir() / module
    if own.is_dir():
        return own
    spec = importlib.util.find_spec(module)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return Path(spec.origin).parent if spec.origin else None


def settings_path() -> Path:
    """Backend settings saved from the Models page; the CLI and batch runs read the same file."""
    return home() / "settings.json"


def save_settings(settings: dict) -> Path:
    """Write the settings atomically, readable by the owner only (they may hold API keys).

    A temporary file in the same folder, created with mode 0600, is written, flushed to disk and renamed
    over settings.json: a crash mid-write leaves the old file whole, and no other user can read the key
    at any moment (an older file with wider permissions is replaced, not rewritten in place)."""
    import json
    import tempfile

    p = settings_path()
    fd, tmp = tempfile.mkstemp(prefix=p.name + ".", suffix=".tmp", dir=p.parent)  # mkstemp: mode 0600
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(settings, fh, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


def load_settings() -> dict:
    """The saved backend settings ({} when none); environment variables fill the gaps."""
    import json

    from debate.errors import InvalidInput

    p = settings_path()
    if not p.exists():
        return {}
    try:
        data = json.loads(p.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise InvalidInput(
            f"Cannot read the backend settings in {p}: {e}.",
            "Fix or delete the file (the Models page writes it again on Save).",
        ) from e
    if not isinstance(data, dict):
        raise InvalidInput(
            f"The backend settings in {p} are not a JSON object.",
            "Fix or delete the file (the Models page writes it again on Save).",
        )
    return data
