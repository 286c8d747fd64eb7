"""Files from elsewhere, exports, DEBATE_HOME and a few readings of the papers, on real parts.

The real command line runs as a subprocess (`python -m debate ...`) against a loopback OpenAI-compatible
server (tests/support/hostile_servers.py) that records every request body, so what reached "the model"
is checked on the wire; stores are real SQLite files; the Adjudicate upload and the claim box are driven
through Streamlit's AppTest. No test here loads a model.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import from_upload
from debate.events import event_from_dict
from debate.sharing import exports
from debate.store import DebateStore
from tests.conftest import REPO
from tests.support.hostile_servers import recorder

CLAIM = "New study in Nature shows that coffee drinkers live longer https://t.co/x"
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cli(*args: str, home: Path | None = None, stdin: str | None = None, timeout: float = 300):
    env = {**os.environ, "PYTHONPATH": str(REPO), "DEBATE_CACHE": "0"}
    if home is not None:
        env["DEBATE_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "debate", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=timeout,
        input=stdin,
    )


def _told(proc, *needles: str) -> None:
    """A person's error: exit 2, `error:` and `hint:` lines, the needles, and no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "error: " in proc.stderr and "hint: " in proc.stderr, proc.stderr
    for n in needles:
        assert n in proc.stderr, (n, proc.stderr)


SEEDS = {"m1": 1, "m2": 2, "m3": 3, "chair": 7, "judge": 8}


def _lineup(tmp_path: Path, url: str, names=("m1", "m2", "m3"), **roles) -> Path:
    """Every seat on the one loopback model ("scripted"); a seat is told apart on the wire by its seed."""
    members = [{"name": n, "model": f"openai:scripted@{url}", "seed": SEEDS[n]} for n in names]
    data = {
        "name": "loopback",
        "members": members,
        **{k: {"name": k, "model": f"openai:scripted@{url}", "seed": SEEDS[v]} for k, v in roles.items()},
    }
    p = tmp_path / "lineup.json"
    p.write_text(json.dumps(data))
    return p


def _events(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _chats(srv) -> list[dict]:
    return [r["body"] for r in srv.requests if r["path"].endswith("/chat/completions")]


def _text(body: dict) -> str:
    return "\n\n".join(str(m.get("content", "")) for m in body.get("messages", []))


# -- item: hostile events files, folders, lineups, a claim too long ------------------------------------------
def _hostile_files(d: Path) -> dict[str, Path]:
    started = {
        "type": "debate_started",
        "debate_id": "d1",
        "protocol": "council",
        "task": "checkthat",
        "category": 2,
        "claim": CLAIM,
        "lineup": [],
        "settings": {},
    }
    files = {
        "list line": b"[1,2]\n",
        "null line": b"null\n",
        "bad UTF-8": json.dumps(started).encode() + b'\n\xff\xfe{"type": "finished"}\n',
        "deep nesting": b"[" * 200_000 + b"]" * 200_000 + b"\n",
        "wrong type": (
            json.dumps(started)
            + "\n"
            + json.dumps({"type": "turn_finished", "turn_id": "t1", "text": ["not", "text"], "confidence": "high"})
            + "\n"
        ).encode(),
        "lineup not a list": json.dumps({**started, "lineup": "m1,m2"}).encode() + b"\n",
        "library export": json.dumps({"debate": {"id": "d1"}, "events": [started, None]}).encode(),
    }
    out = {}
    for i, (name, data) in enumerate(files.items()):
        out[name] = d / f"hostile-{i}.{'json' if name == 'library export' else 'jsonl'}"
        out[name].write_bytes(data)
    return out


@pytest.mark.timeout(900)
def test_replay_export_and_fork_tell_what_is_wrong_with_a_hostile_events_file(tmp_path):
    for name, path in _hostile_files(tmp_path).items():
        line = "event 2" if name == "library export" else "line 2" if name in ("bad UTF-8", "wrong type") else "line 1"
        for args in (
            ("replay", str(path)),
            ("export", str(path), "--html", str(tmp_path / "out.html")),
            ("fork", str(path), "--round", "1", "--events", str(tmp_path / "fork.jsonl")),
        ):
            proc = _cli(*args)
            _told(proc, str(path), line)
            assert not (tmp_path / "out.html").exists() and not (tmp_path / "fork.jsonl").exists(), (name, args)
        if name == "deep nesting":
            assert "nested too deeply" in proc.stderr
        if name == "bad UTF-8":
            assert "not UTF-8" in proc.stderr
        if name == "wrong type":
            assert "field 'text' is a list" in proc.stderr
    # well-typed events whose recorded settings were edited into nonsense: fork says so
    started = {
        "type": "debate_started",
        "debate_id": "d1",
        "protocol": "council",
        "task": "checkthat",
        "category": 2,
        "claim": CLAIM,
        "lineup": [{"agent": "m1", "role": "member"}],
        "settings": {"params": ["rounds"]},
    }
    edited = tmp_path / "edited.jsonl"
    edited.write_text(
        "\n".join(
            json.dumps(e)
            for e in (
                started,
                {"type": "phase_started", "phase": "vote", "round": 0},
                {
                    "type": "votes_tallied",
                    "round": 0,
                    "votes": {"m1": None, "m2": "YES"},
                    "counts": {"YES": 1},
                },  # None: invalid
                {"type": "phase_started", "phase": "discussion", "round": 1},
                {"type": "verdict", "label": "YES"},
            )
        )
    )
    _told(
        _cli("fork", str(edited), "--round", "1", "--events", str(tmp_path / "fork.jsonl")),
        "recorded settings or lineup cannot be used",
    )
    assert _cli("replay", str(edited)).returncode == 0  # the transcript itself is fine to show


@pytest.mark.timeout(600)
def test_folders_a_lineup_array_and_a_claim_too_long_are_told_before_any_model_call(tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with recorder() as srv:
        lineup = _lineup(tmp_path, srv.url)
        _told(
            _cli("run", "--lineup", str(lineup), "--no-check", "--events", str(folder), CLAIM),
            f"--events {folder} is a folder",
        )
        _told(_cli("replay", str(folder)), f"{folder} is a folder, not an events file")
        _told(_cli("export", str(folder), "--html", str(tmp_path / "x.html")), "is a folder")
        arr = tmp_path / "array.json"
        arr.write_text(json.dumps([{"model": f"openai:scripted@{srv.url}"}]))
        _told(_cli("run", "--lineup", str(arr), CLAIM), "holds a JSON list, not an object")
        # a 1 MB claim: said, with the limit, and never sent
        _told(
            _cli("run", "--lineup", str(lineup), "--no-check", "-", stdin="x" * 1_000_000),
            "1,000,000 characters",
            "at most 4,000",
        )
        assert _chats(srv) == []
        ok = _cli(
            "run",
            "--lineup",
            str(lineup),
            "--no-check",
            "--protocol",
            "baseline",
            "--category",
            "2",
            "-",
            stdin="b" * 4_000,
        )  # exactly at the limit: runs
        assert ok.returncode == 0, ok.stderr[-2000:]
        assert len(_chats(srv)) >= 1


T = 120


def _adjudicate() -> AppTest:
    at = AppTest.from_file("../../pages/adjudicate.py", default_timeout=T)
    at.query_params.update({"who": "ann"})
    at.run()
    at.segmented_control(key="adj_view").set_value("New queue").run()
    at.radio(key="adj_src").set_value("Uploaded file").run()
    return at


@pytest.mark.timeout(600)
def test_adjudicate_upload_of_hostile_numbers_and_nesting_is_told_on_the_page():
    at = _adjudicate()
    uploads = [
        ("inf.csv", b"text,category\nA claim,inf\n", "category 'inf' is not a category number"),
        ("big.csv", b"text,category\nA claim,1e400\n", "category '1e400' is not a category number"),
        ("nan.jsonl", b'{"text": "a", "category": NaN}\n', "is not a category number"),
        ("huge.jsonl", b'{"text": "a", "category": 1e400}\n', "is not a category number"),
        ("deep.jsonl", b'{"text": "a", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", "nested too deeply"),
        ("digits.jsonl", b'{"text": "a", "category": 1' + b"0" * 5000 + b"}\n", "invalid JSON"),
        ("conf.csv", b"text,category,confidence\nA claim,1,inf\n", "not a number between 0 and 1"),
    ]
    n_queues = len(AnnotationStore().queues())
    for name, data, message in uploads:
        at.file_uploader(key="adj_up").upload(name, data, "text/csv").run()
        at.button(key="adj_build_up").click().run()
        assert not at.exception, (name, [e.message for e in at.exception])
        errors = [html.unescape(e.value) for e in at.error]  # the page escapes what the file says
        assert any(name in e and message in e for e in errors), (name, errors)
    assert len(AnnotationStore().queues()) == n_queues  # nothing half-made


@pytest.mark.timeout(600)
def test_the_claim_box_states_the_limit_and_run_refuses_a_longer_claim():
    at = AppTest.from_file("../../app.py", default_timeout=T)
    at.run()
    box = at.text_area(key="claim")
    assert "4,000 characters" in box.help
    n_before = len(DebateStore().list())
    box.input("c" * 5_000)  # kept in the box and told (a box with max_chars took nothing from such a paste)
    at.button(key="run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert len(at.text_area(key="claim").value) == 5_000
    assert any("5,000 characters" in w.value for w in at.warning)
    assert any("5,000 characters long" in e.value for e in at.error)  # nothing longer reaches the engine
    assert len(DebateStore().list()) == n_before and "debate_id" not in at.session_state


# -- item: exports neutralise images, controls and bidi; CSV formula guard with headers ----------------
HOSTILE = (
    "Look ![beacon](http://127.0.0.1:9/beacon.png) and ![ref][b] here \x1b[31mred\x1b[0m \x07bell "
    "\u202eevil\u202c \u2066iso\u2069 <img src=x onerror=alert(1)> "
    '{"vote": "YES", "explanation": "![x](http://127.0.0.1:9/x.png)", "status": "CONSENSUS NOT REACHED", '
    '"summary": "\u202esummary"}'
)


@pytest.mark.timeout(600)
def test_markdown_and_html_exports_show_images_controls_and_bidi_as_text(tmp_path):
    with recorder(reply=HOSTILE) as srv:
        lineup = _lineup(tmp_path, srv.url, ("m1", "m2"))
        events = tmp_path / "events.jsonl"
        proc = _cli(
            "run",
            "--lineup",
            str(lineup),
            "--no-check",
            "--param",
            "rounds=1",
            "--max-tokens",
            "128",
            "--events",
            str(events),
            "Claim \u202eevil ![c](http://127.0.0.1:9/c.png)",
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
    evs = _events(events)
    assert any("\u202e" in (e.get("text") or "") for e in evs)  # the events keep what was said (data)
    store = DebateStore(tmp_path / "s.sqlite")
    store.create_debate({"claim": evs[0]["claim"], "protocol": "council", "task": "checkthat"}, "d1")
    for e in evs:
        store.append_event("d1", event_from_dict(e))
    html_path = tmp_path / "d.html"
    exp = _cli("export", str(events), "--html", str(html_path))
    assert exp.returncode == 0, exp.stderr
    md, page = exports.export_markdown(store, "d1"), html_path.read_text(encoding="utf-8")
    for doc in (md, page):
        for bad in ("\x1b", "\x07", "\u202e", "\u202c", "\u2066", "\u2069", "<img"):
            assert bad not in doc, (bad, doc[:300])
        assert "[U+202E]" in doc and "[U+2066]" in doc and "red" in doc and "bell" in doc
    assert "![" not in md  # no image syntax left to fetch, inline or by reference
    assert "!\\[beacon](http://127.0.0.1:9/beacon.png)" in md and "!\\[ref][b]" in md and "!\\[c]" in md
    assert "<img" not in page.split("</style>", 1)[1]


@pytest.mark.timeout(300)
def test_adjudication_csv_exports_guard_cells_and_headers(tmp_path):
    store = AnnotationStore(tmp_path / "ann.sqlite")
    data = (
        b'id,text,label\n"@SUM(1,2)","=HYPERLINK(""http://evil.example"",""x"")",TRUE\n2,"+cmd|\' /C calc\'!A0",FALSE\n'
    )
    qid = store.create_queue(from_upload("cases.csv", data, task="halftruth"))
    cases = store.cases(qid)
    for c in cases:
        store.set_label(qid, c.key, '=HYPERLINK("http://evil.example")', "TRUE")
        store.set_note(qid, c.key, '=HYPERLINK("http://evil.example")', "-2+3 @SUM(A1) =1+1")
        store.set_label(qid, c.key, "\tbob", "FALSE")
    for fmt in ("cases", "csv"):
        text = store.export(qid, fmt)
        rows = list(csv.reader(io.StringIO(text)))
        header, cells = rows[0], [c for r in rows[1:] for c in r]
        assert len(rows) == 3 and cells
        bad = [c for c in header + cells if c[:1] in FORMULA]
        assert not bad, (fmt, bad)
    cases_csv = list(csv.DictReader(io.StringIO(store.export(qid, "cases"))))
    # an annotator's name reaches the headers behind "label:", which no spreadsheet runs; cells are guarded
    # (names are stored as one identity whatever their case, so the header carries the folded name)
    assert 'label:=hyperlink("http://evil.example")' in cases_csv[0] and "label:bob" in cases_csv[0]
    assert {r['rationale:=hyperlink("http://evil.example")'] for r in cases_csv} == {"'-2+3 @SUM(A1) =1+1"}
    from debate.sanitize import csv_text

    assert csv_text(["=cmd", "ok"], [{"=cmd": "@x", "ok": 1}]) == "'=cmd,ok\n'@x,1\n"  # a bare header too
    assert [r["text"] for r in cases_csv] == ['\'=HYPERLINK("http://evil.example","x")', "'+cmd|' /C calc'!A0"]
    assert [r["id"] for r in csv.DictReader(io.StringIO(store.export(qid, "csv")))] == ["'@SUM(1,2)", "2"]


# -- item: DEBATE_HOME is private ------------------------------------------------------------------------------
def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@pytest.mark.timeout(600)
def test_debate_home_is_created_private_and_an_existing_one_is_narrowed(tmp_path):
    home = tmp_path / "fresh" / "home"
    with recorder() as srv:
        lineup = _lineup(tmp_path, srv.url, ("m1", "m2"))
        env_cache = {**os.environ, "PYTHONPATH": str(REPO), "DEBATE_HOME": str(home)}
        env_cache.pop("DEBATE_CACHE", None)
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "debate",
                "run",
                "--lineup",
                str(lineup),
                "--no-check",
                "--param",
                "rounds=0",
                "--max-tokens",
                "16",
                CLAIM,
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env_cache,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
    cache = home / "response-cache.sqlite"
    assert cache.is_file() and _mode(home) == 0o700 and _mode(cache) == 0o600
    assert all(_mode(p) == 0o600 for p in home.glob("response-cache.sqlite-*"))
    # written by an older version: 0755 folder, 0644 database with its WAL files
    shared = tmp_path / "shared"
    old = shared / "old-home"
    old.mkdir(parents=True)
    for d in (shared, old):
        os.chmod(d, 0o755)
    db = sqlite3.connect(old / "debates.sqlite")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE t (x)")
    db.execute("INSERT INTO t VALUES ('a claim')")
    db.commit()
    (old / "settings.json").write_text("{}")
    for p in [old / "debates.sqlite", old / "settings.json", *old.glob("debates.sqlite-*")]:
        os.chmod(p, 0o644)
    assert (old / "debates.sqlite-wal").exists()
    # any command that opens the store: export of an id it does not hold (told, exit 2)
    _told(_cli("export", "no-such-debate", "--html", str(tmp_path / "x.html"), home=old), "no-such-debate")
    db.close()
    assert _mode(old) == 0o700
    for p in [old / "debates.sqlite", old / "settings.json", *old.glob("debates.sqlite-*")]:
        assert _mode(p) == 0o600, p
    assert DebateStore(old / "debates.sqlite").list() == []  # still a working store
    assert _mode(shared) == 0o755  # the folder above DEBATE_HOME is not ours to narrow
    sticky = tmp_path / "sticky"  # DEBATE_HOME pointed at a shared folder like /tmp: left as it is
    sticky.mkdir()
    os.chmod(sticky, 0o1777)
    _told(_cli("export", "no-such-debate", "--html", str(tmp_path / "y.html"), home=sticky), "no-such-debate")
    assert _mode(sticky) == 0o1777


# -- item: council chair summaries in the discussion (TurQUaz Table 5) ------------------------------------------
def _council_reply(body: dict) -> str:
    last = str(body["messages"][-1]["content"])
    if "Chairperson of a scientific council" in last:
        n = last.count("Chairperson (round ") + 1
        return json.dumps({"status": "CONSENSUS NOT REACHED", "summary": f"SUMMARY-{n} check the link."})
    vote = "NO" if body.get("seed") == SEEDS["m3"] else "YES"  # 2 of 3: below 80 %, never consensus
    return json.dumps({"vote": vote, "explanation": f"seat {body.get('seed')} reads the tweet."})


@pytest.mark.timeout(600)
def test_council_members_and_chair_read_earlier_chair_summaries_on_the_wire(tmp_path):
    with recorder(reply=_council_reply) as srv:
        lineup = _lineup(tmp_path, srv.url, chair="chair")
        events = tmp_path / "council.jsonl"
        proc = _cli(
            "run",
            "--lineup",
            str(lineup),
            "--no-check",
            "--param",
            "rounds=3",
            "--param",
            "stable_rounds=3",
            "--max-tokens",
            "64",
            "--events",
            str(events),
            CLAIM,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        bodies = _chats(srv)
    summaries = [e["summary"] for e in _events(events) if e["type"] == "chair_summary"]
    assert summaries == [f"SUMMARY-{n} check the link." for n in (1, 2, 3)]
    chair_prompts = [_text(b) for b in bodies if b.get("seed") == SEEDS["chair"]]
    member_prompts = [_text(b) for b in bodies if b.get("seed") == SEEDS["m1"]]
    assert len(chair_prompts) == 3 and len(member_prompts) == 4
    for r, prompt in enumerate(chair_prompts, 1):  # the chair reads its own earlier summaries, in order
        disc = prompt.split("Council Discussion: ", 1)[1]
        assert [s in disc for s in summaries] == [n < r for n in range(1, 4)]
    for r, prompt in enumerate(member_prompts):  # members: earlier summaries in the discussion, this one after
        disc, current = prompt.split("Council Discussion: ", 1)[1].split("Chairperson Summary: ", 1)
        assert [f"Chairperson (round {n} summary): {s}" in disc for n, s in enumerate(summaries, 1)] == [
            n < r for n in range(1, 4)
        ]
        assert current.startswith(summaries[r - 1] if r else "None")
    # the old reading stays one parameter away
    with recorder(reply=_council_reply) as srv:
        lineup = _lineup(tmp_path, srv.url, chair="chair")
        proc = _cli(
            "run",
            "--lineup",
            str(lineup),
            "--no-check",
            "--param",
            "rounds=2",
            "--param",
            "summaries_in_discussion=false",
            "--max-tokens",
            "64",
            CLAIM,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert not any("Chairperson (round" in _text(b) for b in _chats(srv))


# -- item: `examples` for single; repair prompts fitted to the window ---------------------------------------
@pytest.mark.timeout(300)
def test_single_no_longer_advertises_examples_and_stored_debates_still_resolve():
    proc = _cli("protocols", "--json")
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert "examples" not in listed["single"]["params"]
    assert "examples" in listed["council"]["params"] and "examples" in listed["team"]["params"]
    from debate.runner import DebateConfig, prepare

    pp = prepare(DebateConfig(claim=CLAIM, protocol="single", lineup="embedded", params={"examples": True}))
    assert "examples" not in pp.params


GARBAGE = " ".join(f"word{i}" for i in range(900))  # ~8,000 characters, no label anywhere


def _repair_reply(body: dict) -> str:
    if "could not be read" in str(body["messages"][-1]["content"]):
        return '{"explanation": "repaired", "category": 1}'
    return GARBAGE


@pytest.mark.timeout(600)
def test_the_repair_prompt_is_fitted_to_the_window_and_says_so(tmp_path):
    budget = 7_000
    with recorder(reply=_repair_reply) as srv:
        lineup = _lineup(tmp_path, srv.url, ("m1",))
        events = tmp_path / "baseline.jsonl"
        proc = _cli(
            "run",
            "--protocol",
            "baseline",
            "--category",
            "2",
            "--lineup",
            str(lineup),
            "--no-check",
            "--param",
            f"max_context_chars={budget}",
            "--max-tokens",
            "1000",
            "--events",
            str(events),
            CLAIM,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        first, repair = _chats(srv)
    size = lambda body: sum(len(m["content"]) for m in body["messages"])
    assert size(first) < budget  # the first prompt fitted as it was
    msgs = repair["messages"]
    assert msgs[: len(first["messages"])] == first["messages"]  # the turn's own prompt, unchanged
    echoed = msgs[-2]["content"]
    assert msgs[-2]["role"] == "assistant" and echoed.startswith("word0 word1") and echoed.endswith("[…]")
    assert size(repair) <= budget < size(first) + len(GARBAGE)
    assert "could not be read" in msgs[-1]["content"]
    evs = _events(events)
    cut = [e for e in evs if e["type"] == "transcript_shortened"]
    assert [(e["prompt_id"], e["phase"], e["condensed"]) for e in cut] == [("engine.repair", "answer repair", 1)]
    turn = next(e for e in evs if e["type"] == "turn_finished")
    assert turn["repaired"] and turn["label"] == "YES"
    assert "read a shortened debate (answer repair" in _cli("replay", str(events)).stdout


# -- item: eval --aids means what run --aids means --------------------------------------------------------------
def _radar_reply(body: dict) -> str:
    if body.get("response_format"):
        return '{"reason": "omits the date", "verdict": "HALF-TRUE"}'
    return "[REASON]: omits the date\n[VERDICT]: HALF-TRUE"


@pytest.mark.timeout(900)
def test_eval_aids_has_the_meaning_it_has_for_run(tmp_path):
    data = tmp_path / "claims.csv"
    data.write_text("id,text,label\n1,Klitschko auctioned his medal for Ukraine's children,HALF-TRUE\n")
    common = ("--protocol", "radar-single", "--no-evidence", "--max-tokens", "32")
    with recorder(reply=_radar_reply) as srv:
        lineup = _lineup(tmp_path, srv.url, ("m1",), judge="judge")
        params = {}
        for aids in ("--aids", "--no-aids"):
            run_ev = tmp_path / f"run{aids}.jsonl"
            r = _cli(
                "run",
                *common,
                "--task",
                "halftruth",
                "--lineup",
                str(lineup),
                "--no-check",
                aids,
                "--events",
                str(run_ev),
                "Klitschko auctioned his medal for Ukraine's children",
            )
            assert r.returncode == 0, r.stderr[-2000:]
            out = tmp_path / f"eval{aids}"
            e = _cli(
                "eval",
                *common,
                "--dataset",
                str(data),
                "--task",
                "halftruth",
                "--lineup",
                str(lineup),
                aids,
                "--no-progress",
                "--out",
                str(out),
            )
            assert e.returncode == 0, e.stderr[-2000:]
            from debate.evaluation.checkpoint import read_rows

            item = read_rows(out, with_events=True)[0]
            started = next(x for x in item["events"] if x["type"] == "debate_started")
            run_started = _events(run_ev)[0]
            assert started["settings"]["aids"] is run_started["settings"]["aids"] is (aids == "--aids")
            assert started["settings"]["params"] == run_started["settings"]["params"]  # same meaning
            params[aids] = started["settings"]["params"]
        judged = [b for b in _chats(srv) if b.get("seed") == SEEDS["judge"]]
    assert params["--aids"]["judge_answer"] == "constrained" and params["--no-aids"]["judge_answer"] == "paper"
    # on the wire: with the aids the judge is asked under a JSON schema, without them it writes freely
    assert [bool(b.get("response_format")) for b in judged] == [True, True, False, False]
    # a run folder's meaning is fixed: resuming it with the other setting is refused
    _told(
        _cli(
            "eval",
            *common,
            "--dataset",
            str(data),
            "--task",
            "halftruth",
            "--lineup",
            str(lineup),
            "--aids",
            "--no-progress",
            "--out",
            str(tmp_path / "eval--no-aids"),
        )
    )


# -- item: the deviations table states every reading ---------------------------------------------------------
def _deviation_rows() -> list[list[str]]:
    text = (REPO / "docs" / "protocols.md").read_text(encoding="utf-8")  # the deviations table's page
    table = text.split("## Fidelity to the papers", 1)[1].split("\n\n| # |", 1)[1].split("\n\n", 1)[0]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in table.splitlines()[1:] if line[:3] != "|--"]


def test_the_deviations_table_states_the_readings_and_names_real_parameters():
    from debate.protocols import PROTOCOLS

    rows = _deviation_rows()
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1)) and all(len(r) == 5 for r in rows)
    said = "\n".join(" | ".join(r) for r in rows)
    for reading in (
        "up to 3 **rebuttal** rounds",
        "rebuttals of one round are simultaneous",
        "the expert is heard only by the judge, the round judge and the stop agent",
        "the round judge uses the position-based judge template",
        "up to 5 rebuttal rounds",
        "the initial vote is the few-shot baseline's label-first prompt",
        "with the chair's earlier summaries in their place",
        "`single` has no `examples` parameter",
        "the repair prompt is built in `prompting.py`",
    ):
        assert reading in said, reading
    params = {k for info in PROTOCOLS.values() for k in info.params}
    named = {x.split(" ")[0] for r in rows for x in r[4].split("`")[1::2]}
    flags = {
        "--no-cat2-rule",
        "--evidence",
        "--category",
        "apply_cat2_rule",
        "aids",
        "top_k",
        "evidence_guard",
        "flagged_evidence",
    }  # run settings
    assert named and named - flags <= params, named - flags - params
    assert PROTOCOLS["council"].defaults()["summaries_in_discussion"] is True  # the paper's reading by default
