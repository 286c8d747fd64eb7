"""Hardening (hostile model text): exported transcripts are inert wherever they are opened.

A real council debate is run by the real command line (`python -m debate run`, a subprocess) against a
loopback OpenAI-compatible server whose every answer is hostile: raw HTML, a spreadsheet formula and
terminal control sequences. The terminal must not receive the sequences; the events it wrote, stored in
a real SQLite store, must export to Markdown with the HTML shown as text and to CSV with no cell a
spreadsheet would run.
"""

import csv
import io
import json
import os
import subprocess
import sys
import time

from debate.events import event_from_dict
from debate.sanitize import csv_cell, strip_terminal
from debate.sharing import exports
from debate.store import DebateStore
from tests.support.hostile_servers import recorder

HOSTILE = (
    '=HYPERLINK("http://evil.example","x") <img src=x onerror=alert(1)> \x1b]0;pwned\x07 '
    '\x1b[2J\x1b[1A\r {"vote": "YES", "explanation": "@SUM(1+1)"}'
)
CLAIM = "=cmd|' /C calc'!A0 <script>alert(1)</script>"


def _run_cli(url: str, tmp_path) -> tuple[str, list[dict]]:
    members = [{"name": "m1", "model": f"openai:scripted@{url}"}, {"name": "m2", "model": f"openai:scripted@{url}"}]
    lineup = tmp_path / "lineup.json"
    lineup.write_text(json.dumps({"name": "hostile", "members": members, "judge": members[0], "chair": members[0]}))
    events = tmp_path / "events.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "debate",
            "run",
            "--protocol",
            "council",
            "--lineup",
            str(lineup),
            "--param",
            "rounds=1",
            "--max-tokens",
            "64",
            "--no-cache",
            "--color",
            "always",
            "--events",
            str(events),
            CLAIM,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DEBATE_CACHE": "0"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, [json.loads(line) for line in events.read_text().splitlines() if line.strip()]


def test_cli_export_markdown_and_csv_neutralise_hostile_model_text(tmp_path):
    with recorder(reply=HOSTILE) as srv:
        out, events = _run_cli(srv.url, tmp_path)
    # the terminal: the model's sequences are gone, the CLI's own colours stay
    assert (
        "onerror=alert(1)" in out
        and "pwned" not in out
        and "\x1b]" not in out
        and "\x07" not in out
        and "\r" not in out
    )
    assert "\x1b[2J" not in out and "\x1b[1A" not in out and "\x1b[1m" in out
    # the events file keeps what the model really said (it is data, not a terminal)
    assert any("\x1b]0;pwned" in (e.get("text") or "") for e in events)

    store = DebateStore(tmp_path / "s.sqlite")
    store.create_debate({"claim": CLAIM, "protocol": "council", "task": "checkthat"}, "d1")
    for e in events:
        store.append_event("d1", event_from_dict(e))
    md = exports.export_markdown(store, "d1")
    assert "<img" not in md and "<script>" not in md
    assert "&lt;img src=x onerror=alert(1)&gt;" in md and "&lt;script&gt;" in md

    for text in (exports.export_csv(store, "d1"), exports.library_csv(store, store.list())):
        rows = list(csv.reader(io.StringIO(text)))
        cells = [c for r in rows[1:] for c in r]
        assert cells and not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], cells
    turns = [r for r in csv.DictReader(io.StringIO(exports.export_csv(store, "d1"))) if r["phase"] != "verdict"]
    assert turns and all(t["text"].startswith("'=HYPERLINK(") for t in turns)
    assert list(csv.DictReader(io.StringIO(exports.library_csv(store, store.list()))))[0]["claim"] == "'" + CLAIM


def test_sanitizers_on_their_own():
    assert (
        strip_terminal("a\x1b[31mred\x1b[0m\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\x9b\x00b\tc\nd")
        == "aredlinkb\tc\nd"
    )
    assert csv_cell("-2+3") == "'-2+3" and csv_cell(-2) == -2 and csv_cell("ok") == "ok" and csv_cell("") == ""
    t = time.thread_time()
    left = strip_terminal("\x1b" * 50_000 + "[" * 50_000 + "\x1b]" * 30_000)
    assert time.thread_time() - t < 0.05 and "\x1b" not in left and set(left) == {"["}
