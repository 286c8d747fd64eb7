"""Backend failures told truly, secrets scoped, bounded transfers, windows reported.

Every server here is a real loopback HTTP server speaking the real OpenAI or Ollama API and misbehaving on
purpose (tests/support/hostile_servers.py) or a closed port; debates run through the real engine, the real
CLI (a subprocess), the real SQLite store and response cache, the real evaluation runner and the real
Library page (AppTest).
"""

from __future__ import annotations

import html
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from debate.errors import BackendTimeout, DebateError, ResponseTooLarge
from debate.evaluation.runner import EvalOptions, run_eval
from debate.models.base import GenOptions
from debate.models.cache import ResponseCache
from debate.models.client import ModelClient
from debate.models.ollama_backend import OllamaBackend
from debate.models.ollama_backend import key_for as ollama_key_for
from debate.models.openai_backend import OpenAIBackend
from debate.models.registry import default_client, make_backend
from debate.runner import DebateConfig, run_debate
from tests.support.hostile_servers import Recorder, recorder
from tests.support.servers import closed_port

REPO = Path(__file__).resolve().parents[2]
ASK = [{"role": "user", "content": "Say something."}]
CLAIM = "A new study in Nature shows that coffee cures colds."


def council_lineup(good_url: str, bad_model: str) -> dict:
    """Three council members: two at a working server, m2 at `bad_model`."""
    members = [
        {"name": "m1", "model": f"openai:scripted@{good_url}", "temperature": 0.7, "seed": 1},
        {"name": "m2", "model": bad_model, "temperature": 0.7, "seed": 2},
        {"name": "m3", "model": f"openai:scripted@{good_url}", "temperature": 0.7, "seed": 3},
    ]
    return {"name": "one-down", "members": members, "judge": members[0], "chair": members[0]}


def cli(*args: str, env: dict | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(REPO), "DEBATE_CACHE": "0", "DEBATE_RETRIES": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "debate", *args], cwd=REPO, env=full, capture_output=True, text=True, timeout=timeout
    )


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# -- a failed member ends the debate failed, with who, which backend and why -------------------------
@pytest.mark.parametrize("down", ["refused", "http500"])
def test_a_failed_member_ends_the_cli_run_failed_with_member_backend_and_cause(tmp_path, down):
    with recorder() as good, recorder("error", status=500, error_text="scripted overload") as bad:
        bad_model = (
            f"openai:x@http://127.0.0.1:{closed_port()}/v1" if down == "refused" else f"openai:scripted@{bad.url}"
        )
        lineup = tmp_path / "lineup.json"
        lineup.write_text(json.dumps(council_lineup(good.url, bad_model)))
        out = tmp_path / "events.jsonl"
        r = cli(
            "run",
            "--no-check",
            "--no-cache",
            "--protocol",
            "council",
            "--category",
            "2",
            "--lineup",
            str(lineup),
            "--param",
            "rounds=1",
            "--max-tokens",
            "16",
            "--color",
            "never",
            "--events",
            str(out),
            CLAIM,
        )
    assert r.returncode == 1, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert "stopped by the user" not in r.stdout
    cause = "Cannot reach the OpenAI-compatible server" if down == "refused" else "HTTP 500: scripted overload"
    last = r.stdout.strip().splitlines()[-1]
    assert "failed: Member m2 (" + bad_model + ", backend openai) failed: " in last and cause in last, last
    events = read_jsonl(out)
    err = next(e for e in events if e["type"] == "error")
    assert (err["agent"], err["model"], err["backend"]) == ("m2", bad_model, "openai")
    assert err["error"] == ("BackendUnavailable" if down == "refused" else "ServerError")
    assert cause in err["message"]
    assert events[-1]["type"] == "finished" and events[-1]["status"] == "error" and events[-1]["label"] is None
    # the behaviour chosen for a member down: stop, so no verdict from fewer members than the lineup seats
    assert not any(e["type"] in ("verdict", "votes_tallied") for e in events)


def test_a_failed_member_is_shown_in_the_store_and_the_library(tmp_path):
    from streamlit.testing.v1 import AppTest

    from debate import live
    from debate.store import DebateStore

    bad_model = f"openai:x@http://127.0.0.1:{closed_port()}/v1"
    with recorder() as good:
        cfg = DebateConfig(
            claim=CLAIM,
            protocol="council",
            category=2,
            max_tokens=16,
            params={"rounds": 1},
            lineup=council_lineup(good.url, bad_model),
        )
        store = DebateStore()
        did = live.start_debate(cfg, default_client({}, cache=False), None, store)
        assert live.wait(did, 60)
    row = store.get(did)
    assert row["status"] == "error" and "Member m2" in row["stop_reason"] and "Cannot reach" in row["stop_reason"]
    at = AppTest.from_file("../../app.py", default_timeout=90)
    at.query_params["debate"] = did
    at.switch_page("pages/library.py").run()
    assert not at.exception, at.exception
    # the page escapes stored text before Markdown (":" as an entity, so no autolink); read it as shown
    shown = html.unescape(
        "\n".join([e.value for e in at.error] + [m.value for m in at.markdown] + [c.value for c in at.caption])
    )
    assert f"Member m2 ({bad_model}, backend openai) failed: Cannot reach" in shown
    assert "Failed" in shown and "stopped by the user" not in shown


def test_eval_counts_the_item_failed_with_the_real_cause(tmp_path):
    bad_model = f"openai:x@http://127.0.0.1:{closed_port()}/v1"
    with recorder() as good:
        opts = EvalOptions(
            dataset="checkthat-dev",
            out=str(tmp_path / "run"),
            protocol="council",
            category=2,
            lineup=council_lineup(good.url, bad_model),
            params={"rounds": 1},
            limit=1,
            concurrency=1,
            retries=0,
            max_tokens=16,
            progress=False,
        )
        # a backend that cannot be reached is a configuration error: the batch stops, saying why
        with pytest.raises(DebateError, match=r"failed with BackendUnavailable: Member m2 \("):
            run_eval(opts, client=default_client({}, cache=False))
    with sqlite3.connect(tmp_path / "run" / "checkpoint.sqlite") as c:
        (err,) = c.execute("SELECT error FROM items").fetchone()
    assert err.startswith("BackendUnavailable: Member m2 (") and "Cannot reach" in err, err
    assert "stopped" not in err and "DebateNotCompleted" not in err


# -- a cut-off stream is not a vote ---------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_stream_cut_before_its_finish_is_asked_again_then_counted_invalid(kind):
    with recorder("cut" if kind == "openai" else "no_done", reply='{"vote": "YES", "explan') as srv:
        model = f"openai:scripted@{srv.url}" if kind == "openai" else f"ollama:scripted@{srv.host}"
        members = [{"name": f"m{i}", "model": model, "temperature": 0.7, "seed": i} for i in (1, 2)]
        cfg = DebateConfig(
            claim=CLAIM,
            protocol="council",
            category=2,
            max_tokens=16,
            params={"rounds": 1},
            lineup={"name": "cut", "members": members, "judge": members[0], "chair": members[0]},
        )
        events = list(run_debate(cfg, default_client({}, cache=False)))
        chats = [r for r in srv.requests if r["path"].endswith(("/chat/completions", "/api/chat"))]
    votes = [e for e in events if e.type == "turn_finished" and e.phase == "vote"]
    assert votes and all(not t.valid and t.label is None and "cut off" in t.parsed["error"] for t in votes)
    tally = next(e for e in events if e.type == "votes_tallied")
    assert set(tally.votes.values()) == {None} and tally.counts.get("YES", 0) == 0
    turns = [e for e in events if e.type == "turn_finished"]
    assert len(chats) == 2 * len(turns)  # each cut answer was asked for once more, none repaired


def test_a_stream_cut_once_is_replaced_by_the_whole_answer():
    """The second asking is real: a server that cuts only its first answer gives a whole, valid one."""
    with recorder("cut", reply='{"category": 1, "explanation": "whole"}', cuts=1) as srv:
        member = {"name": "m1", "model": f"openai:scripted@{srv.url}"}
        cfg = DebateConfig(
            claim=CLAIM,
            protocol="baseline",
            category=2,
            max_tokens=32,
            lineup={"name": "cut", "members": [member], "judge": member, "chair": member},
        )
        events = list(run_debate(cfg, ModelClient({f"openai@{srv.url}": OpenAIBackend(srv.url)})))
        chats = [r for r in srv.requests if r["path"].endswith("/chat/completions")]
    turn = next(e for e in events if e.type == "turn_finished")
    assert turn.valid and not turn.repaired and turn.label == "YES" and len(chats) == 2


# -- trickling servers are bounded in wall time and bytes ---------------------------------------------------
@pytest.mark.timeout(120)
@pytest.mark.parametrize("mode", ["trickle", "trickle_head"])
@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_trickling_server_fails_the_health_check_at_its_timeout(kind, mode):
    with recorder(mode, delay_s=0.2) as srv:
        backend = (
            OpenAIBackend(srv.url, health_timeout_s=1.0)
            if kind == "openai"
            else OllamaBackend(srv.host, health_timeout_s=1.0)
        )
        rows = backend.list_models()
    assert len(rows) == 1 and rows[0].status == "unreachable"
    assert "was still sending one response" in rows[0].detail and "after 1 s" in rows[0].detail, rows[0].detail


@pytest.mark.timeout(120)
@pytest.mark.parametrize("mode", ["trickle", "trickle_head"])
@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_trickling_answer_fails_at_the_generation_timeout(kind, mode):
    with recorder(mode, delay_s=0.2) as srv:
        if kind == "openai":
            backend, spec = OpenAIBackend(srv.url, timeout_s=1.5, retries=1), f"openai:scripted@{srv.url}"
            backend._known.add("scripted")  # the /models check would trickle too: this test is the answer's
        else:
            backend, spec = OllamaBackend(srv.host, timeout_s=1.5, retries=1, num_ctx=0), f"ollama:scripted@{srv.host}"
            backend._windows["scripted"] = None
        client = ModelClient({f"{kind}@{srv.url if kind == 'openai' else srv.host}": backend})
        with pytest.raises(BackendTimeout, match=r"still sending one response.* after 1\.5 s"):
            client.chat(spec, ASK, GenOptions(max_tokens=16, cache=False)).result()


def test_a_response_larger_than_the_cap_is_refused():
    import httpx

    from debate.models.transport import bounded_transport

    with recorder("flood") as srv:
        with httpx.Client(transport=bounded_transport("test server", max_bytes=50_000), timeout=30) as http:
            body = {"model": "scripted", "messages": ASK, "stream": True}
            with pytest.raises(ResponseTooLarge, match="more than 50,000 bytes"):
                with http.stream("POST", srv.url + "/chat/completions", json=body) as r:
                    for _ in r.iter_raw():
                        pass


# -- environment secrets go only to the URL they were set for -----------------------------------------
@contextmanager
def asked_mine_and_a_stranger(
    monkeypatch, secrets: dict[str, str], home_var: str, backend: str
) -> Iterator[tuple[Recorder, Recorder, ModelClient]]:
    """Two servers, `mine` (named by `home_var` in the environment, beside `secrets`) and a stranger's that a
    lineup names; a client without the response cache has asked each of them once."""
    monkeypatch.setenv("DEBATE_CACHE", "0")
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    with recorder() as mine, recorder() as stranger:
        where = (lambda srv: srv.host) if backend == "ollama" else (lambda srv: srv.url)
        monkeypatch.setenv(home_var, where(mine))
        client = default_client({})
        for srv in (mine, stranger):
            assert client.chat(f"{backend}:scripted@{where(srv)}", ASK, GenOptions(max_tokens=8)).result().text
        yield mine, stranger, client


def test_ollama_api_key_goes_only_to_ollama_host(monkeypatch):
    with asked_mine_and_a_stranger(monkeypatch, {"OLLAMA_API_KEY": "ollama-secret-key"}, "OLLAMA_HOST", "ollama") as (
        mine,
        stranger,
        client,
    ):
        for srv in (mine, stranger):
            make_backend(client_spec(f"ollama:scripted@{srv.host}"), {}).list_models()
        assert client.chat("ollama:scripted", ASK, GenOptions(max_tokens=8)).result().text  # no @host: OLLAMA_HOST
    assert set(mine.authorizations()) == {"Bearer ollama-secret-key"}
    assert stranger.requests and not any(stranger.authorizations()), stranger.authorizations()
    assert ollama_key_for("http://127.0.0.1:11434", {}, {"OLLAMA_API_KEY": "k"}) == "k"  # default host, unset
    assert ollama_key_for("http://evil:11434", {}, {"OLLAMA_API_KEY": "k"}) is None
    assert ollama_key_for("http://box:1", {"keys": {"http://box:1/": "saved"}}, {}) == "saved"


def client_spec(text: str):
    from debate.models.spec import ModelSpec

    return ModelSpec.parse(text)


def test_openai_org_and_project_go_only_to_openai_base_url(monkeypatch):
    secrets = {"OPENAI_ORG_ID": "org-secret", "OPENAI_PROJECT_ID": "proj-secret"}
    with asked_mine_and_a_stranger(monkeypatch, secrets, "OPENAI_BASE_URL", "openai") as (mine, stranger, _):
        pass
    for r in mine.requests:
        assert (r["headers"].get("openai-organization"), r["headers"].get("openai-project")) == (
            "org-secret",
            "proj-secret",
        )
    assert stranger.requests
    for r in stranger.requests:
        assert "openai-organization" not in r["headers"] and "openai-project" not in r["headers"], r["headers"]


# -- the response cache is keyed by the endpoint really asked -----------------------------------------------
def test_the_cache_never_answers_server_b_with_server_a(tmp_path, monkeypatch):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with recorder(reply="answer from A") as a, recorder(reply="answer from B") as b:
        got = []
        for srv in (a, b, a):
            monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
            client = ModelClient(backend_factory=lambda spec: make_backend(spec, {}), cache=cache)
            got.append(client.chat("openai:scripted", ASK, GenOptions(temperature=0, max_tokens=8)).result())
        chats = lambda s: sum(r["path"].endswith("/chat/completions") for r in s.requests)
        assert (chats(a), chats(b)) == (1, 1)
    assert [r.text.strip() for r in got] == ["answer from A", "answer from B", "answer from A"]
    assert [r.cached for r in got] == [False, False, True]


# -- a server's error text cannot drive the terminal -----------------------------------------------------
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31mboom\x1b[0m\rfake line"


@pytest.mark.parametrize("check", [True, False])
def test_server_error_text_reaches_the_terminal_without_control_sequences(tmp_path, check):
    with recorder("error", status=400, error_text=HOSTILE) as srv:
        member = {"name": "m1", "model": f"openai:scripted@{srv.url}"}
        lineup = tmp_path / "lineup.json"
        lineup.write_text(json.dumps({"name": "x", "members": [member], "judge": member, "chair": member}))
        r = cli(
            "run",
            *([] if check else ["--no-check"]),
            "--protocol",
            "baseline",
            "--category",
            "2",
            "--lineup",
            str(lineup),
            "--max-tokens",
            "8",
            "--color",
            "never",
            CLAIM,
        )
    shown = r.stdout + r.stderr
    assert r.returncode in (1, 2) and "boom" in shown, shown[-2000:]
    assert "\x1b" not in shown and "\x07" not in shown and "\r" not in shown


# -- the context window is sent (Ollama num_ctx) and reported, so the transcript rule works ----------------
# thirty different sentences: a turn that repeats itself is now cut before the repeat (debate/content), so a
# long answer that must stay long says something new in every sentence
LONG = " ".join(
    f"This argument, point {chr(65 + i % 26)}{chr(65 + i // 26)}, is long and cites the evidence." for i in range(30)
)


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_the_context_window_is_known_and_a_long_transcript_is_shortened_with_an_event(kind):
    with recorder(reply=LONG, context_length=1024) as srv:
        spec = f"ollama:scripted@{srv.host}" if kind == "ollama" else f"openai:scripted@{srv.url}"
        settings = {"ollama": {"num_ctx": 4096}}  # more than the model's own 1024: the model's wins
        client = default_client(settings, cache=False)
        backend = client.backend_for(client_spec(spec))
        assert backend.context_window("scripted") == 1024
        agent = {"name": "a", "model": spec}
        cfg = DebateConfig(
            claim=CLAIM,
            protocol="single",
            category=2,
            max_tokens=64,
            params={"rounds": 1},
            lineup={"name": "w", "members": [agent, agent], "judge": agent, "chair": agent},
        )
        events = list(run_debate(cfg, client))
        chats = [r["body"] for r in srv.requests if r["path"].startswith(("/api/chat", "/v1/chat"))]
    assert events[-1].status == "completed", [e for e in events if e.type == "error"]
    shortened = [e for e in events if e.type == "transcript_shortened"]
    assert shortened and all(e.final_chars <= e.budget_chars < e.original_chars for e in shortened)
    assert any(e.phase == "judge repair" for e in shortened)  # the judge's LONG answer is unreadable: repaired
    if kind == "ollama":
        assert chats and all(c["options"]["num_ctx"] == 1024 for c in chats)


def _judge_repaired(body: dict) -> str:
    """Debaters and the judge's first answer: LONG (no label in it); the repair: a readable verdict."""
    if "could not be read" in str(body["messages"][-1]["content"]):
        return '{"explanation": "repaired", "category": 1}'
    return LONG


def test_a_repair_on_a_tiny_window_refits_the_debate_and_says_so():
    """The repair after an unreadable judge answer adds that answer and the repair template to the judge's
    prompt, which already filled the window: the debate in it is condensed further, the prompt sent fits
    the window, the event says so, and a moderator's note is still in it."""
    from debate import moderation
    from debate.protocols.prompting import budget_chars

    with recorder(reply=_judge_repaired, context_length=1024) as srv:
        agent = {"name": "a", "model": f"openai:scripted@{srv.url}"}
        cfg = DebateConfig(
            claim=CLAIM,
            protocol="single",
            category=2,
            max_tokens=64,
            params={"rounds": 1},
            debate_id="tinyrepair01",
            lineup={"name": "w", "members": [agent, agent], "judge": agent, "chair": agent},
        )
        moderation.post(cfg.debate_id, "Weigh the sources named.")
        events = list(run_debate(cfg, default_client({}, cache=False)))
        chats = [r["body"]["messages"] for r in srv.requests if r["path"].startswith("/v1/chat")]
    assert events[-1].status == "completed", [e for e in events if e.type == "error"]
    size = lambda msgs: sum(len(m["content"]) for m in msgs)
    budget = budget_chars(1024, 64)
    judge, repair = chats[-2], chats[-1]
    assert "could not be read" in repair[-1]["content"] and repair[-2]["role"] == "assistant"
    assert size(judge) <= budget and size(repair) <= budget < size(judge) + len(LONG)
    # the debate in the repair prompt was condensed beyond the judge's own prompt, the note kept
    assert size(repair[:-2]) < size(judge)
    assert "Weigh the sources named." in repair[-3]["content"]
    cut = {e.phase: e for e in events if e.type == "transcript_shortened"}
    fix = cut["judge repair"]
    assert fix.prompt_id == "engine.repair" and fix.final_chars <= fix.budget_chars == budget < fix.original_chars
    # the echoed answer and more of the debate: more turns condensed or left out than for the judge's own prompt
    assert fix.condensed + fix.omitted > cut["judge"].condensed + cut["judge"].omitted
    turn = next(e for e in events if e.type == "turn_finished" and e.phase == "judge")
    assert turn.repaired and turn.label == "YES"


def test_ollama_num_ctx_setting_is_sent_when_the_model_reports_no_length():
    with recorder(reply="fine") as srv:
        backend = OllamaBackend(srv.host, num_ctx=3000)
        client = ModelClient({f"ollama@{srv.host}": backend})
        client.chat(f"ollama:scripted@{srv.host}", ASK, GenOptions(max_tokens=8, cache=False)).result()
        chats = [r["body"] for r in srv.requests if r["path"].startswith("/api/chat")]
    assert backend.context_window("scripted") == 3000 and chats[0]["options"]["num_ctx"] == 3000


@pytest.mark.timeout(300)
def test_the_ollama_standin_is_asked_for_the_window_it_reports(tmp_path, monkeypatch):
    """The real Ollama API over a real model: /api/show reports the model's length, every chat asks for it."""
    from debate.models import packaged
    from tests.support.servers import start_ollama_standin

    log = tmp_path / "prompts.jsonl"
    monkeypatch.setenv("OLLAMA_STANDIN_LOG", str(log))
    srv = start_ollama_standin({"smollm2:135m": packaged.ensure_model("smollm2-135m")}, tmp_path, n_ctx=1536)
    try:
        member = {"name": "m1", "model": f"ollama:smollm2:135m@{srv.url}"}
        cfg = DebateConfig(
            claim=CLAIM,
            protocol="baseline",
            category=2,
            max_tokens=8,
            lineup={"name": "o", "members": [member], "judge": member, "chair": member},
        )
        client = default_client({}, cache=False)
        events = list(run_debate(cfg, client))
        window = client.backend_for(client_spec(member["model"])).context_window("smollm2:135m")
    finally:
        srv.stop()
    assert events[-1].status == "completed", [e for e in events if e.type == "error"]
    sent = [json.loads(line)["options"] for line in log.read_text().splitlines()]
    assert window == 1536 and sent and all(o["num_ctx"] == 1536 for o in sent)


def test_radar_without_its_expert_stops_rather_than_judge_with_fewer_debaters():
    """RADAR never judges without its expert: the expert's backend is down, so the debate ends failed."""
    from tests.support.engine import FakeRetriever, lineup, run, scripted

    _, backend = scripted()
    client = ModelClient({"scripted": backend}, backend_factory=lambda spec: make_backend(spec, {}))
    expert = f"openai:expert@http://127.0.0.1:{closed_port()}/v1"
    lu = {**lineup(3), "roles": {"expert": {"name": "expert", "model": expert}}}
    events = run(
        client,
        "radar",
        task="halftruth",
        category=None,
        lineup=lu,
        retriever=FakeRetriever(),
        params={"debaters": 4, "rounds": 1},
    )
    err = next(e for e in events if e.type == "error")
    assert err.model == expert and err.backend == "openai" and err.error == "BackendUnavailable"
    assert "Cannot reach" in err.message and expert in err.message
    assert events[-1].status == "error" and not any(e.type == "verdict" for e in events)
