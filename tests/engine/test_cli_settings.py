"""The CLI reads the backend settings the Models page saves (DEBATE_HOME/settings.json)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # released on exit: nothing listens there


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "DEBATE_HOME": str(home), "HOME": str(home), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "debate", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )


def test_models_listing_uses_the_saved_ollama_host(tmp_path):
    host = f"http://127.0.0.1:{_closed_port()}"
    (tmp_path / "settings.json").write_text(json.dumps({"ollama": {"host": host, "timeout_s": 5}}))
    r = _cli(tmp_path, "models", "--json")
    assert r.returncode == 0, r.stderr
    ollama = [row for row in json.loads(r.stdout) if row["backend"] == "ollama"]
    assert ollama and ollama[0]["status"] == "unreachable" and host in ollama[0]["detail"]  # a real refused connection


def test_broken_settings_file_is_a_clear_error(tmp_path):
    (tmp_path / "settings.json").write_text("{not json")
    r = _cli(tmp_path, "models")
    assert r.returncode == 2
    assert "settings.json" in r.stderr and "Fix or delete the file" in r.stderr


def test_a_run_without_a_task_is_judged_as_the_app_judges_its_protocol():
    """`debate run --protocol radar "…"` is a true/false debate, as the Debate page switches it; the TurQUaz
    protocols keep CheckThat; a task given is kept."""
    from debate.__main__ import build_parser
    from debate.cli.run import default_task

    args = build_parser().parse_args(["run", "--protocol", "radar", "A claim"])
    assert args.task is None and default_task(args.task, args.protocol) == "halftruth"
    assert default_task(None, "radar-single") == "halftruth"
    assert default_task(None, "council") == "checkthat" and default_task(None, "single") == "checkthat"
    assert default_task("checkthat", "radar") == "checkthat"
