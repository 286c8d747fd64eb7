"""Every seat of a lineup on one server (`--server`, `--model-map`, the lineup's server box): the paper's
council against a real llama.cpp server on loopback serving two different packaged models under aliases,
the same council on Ollama's API (the stand-in, tests/support/paper_server.py, serving the same two models
under Ollama's tags, through the real `ollama` client), the refusals that name missing models before
anything runs, and the pure parts (server and map parsing, matching a server's names, keys scoped to their
URL).

The real server runs once for the module (`--config_file` multi-model mode: it loads one model and swaps
on demand), on a free port; the debate is the council's one round of votes (rounds=0: the majority decides),
a small token budget, four members on the 135M model and one on the 0.5B."""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from debate.errors import InvalidInput
from debate.lineup_server import Server, matches, on_server, parse_model_map, parse_server, point_at_server
from debate.lineups import ALIASES, PRESETS, load_lineup
from debate.models import packaged
from debate.models.registry import default_client
from debate.protocols import resolve_agents
from tests.support.hostile_servers import recorder
from tests.support.paper_server import CLAIM, MAP, MEMBERS, OLLAMA_MAP, PAPER, council_ran, map_text, start_paper_ollama
from tests.support.servers import REPO, closed_port, start_llama_multi_server


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "OLLAMA_"))}
    env.update(DEBATE_HOME=str(home), PYTHONPATH=str(REPO), DEBATE_CACHE="0")
    return subprocess.run(
        [sys.executable, "-m", "debate", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=1500
    )


# -- the pure parts -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, backend, url",
    [
        ("openai@http://gpu:8000/v1", "openai", "http://gpu:8000/v1"),
        ("ollama@http://gpu:11434/", "ollama", "http://gpu:11434"),
        ("http://10.0.0.5:8000/v1", "openai", "http://10.0.0.5:8000/v1"),
        ("http://10.0.0.5:11434", "ollama", "http://10.0.0.5:11434"),
        ("ollama", "ollama", None),
        ("openai", "openai", None),
    ],
)
def test_server_kinds(text, backend, url):
    assert parse_server(text) == Server(backend, url)


@pytest.mark.parametrize(
    "bad, says",
    [
        ("http://gpu:8000", "openai@http://gpu:8000"),
        ("vllm@http://x/v1", "ollama@URL"),
        ("openai@ftp://x", "http://HOST"),
        ("", "openai@"),
    ],
)
def test_a_server_that_cannot_be_read_says_how_to_write_it(bad, says):
    with pytest.raises(InvalidInput) as err:
        parse_server(bad)
    assert says in err.value.hint


def test_model_map_forms(tmp_path):
    assert parse_model_map("gemma3:12b=qwen, qwen3:8b = Qwen/Qwen3-8B") == {
        "gemma3:12b": "qwen",
        "qwen3:8b": "Qwen/Qwen3-8B",
    }
    assert parse_model_map("Gemma3=a\nPhi4=b\n") == {"Gemma3": "a", "Phi4": "b"}
    assert parse_model_map('{"mistral:7b": "m"}') == {"mistral:7b": "m"}
    f = tmp_path / "map.json"
    f.write_text(json.dumps(MAP))
    assert parse_model_map(str(f)) == MAP
    for bad in ("gemma3:12b", '{"a": 1}', '["a"]', "a=", str(tmp_path / "none.json")):
        with pytest.raises(InvalidInput) as err:
            parse_model_map(bad)
        assert err.value.hint
    with pytest.raises(InvalidInput):  # a page's box never reads a file of the machine the app runs on
        parse_model_map(str(f), files=False)


def test_unmapped_models_are_found_by_family_and_size_and_never_guessed():
    vllm = [
        "google/gemma-3-12b-it",
        "Qwen/Qwen3-8B",
        "deepseek-ai/DeepSeek-R1-0528-Qwen3-8B",
        "microsoft/phi-4",
        "mistralai/Mistral-7B-Instruct-v0.3",
        "meta-llama/Meta-Llama-3.1-8B-Instruct",
        "meta-llama/Meta-Llama-3-8B-Instruct",
        "mistralai/Mistral-Small-24B-Instruct",
    ]
    assert [matches(n, vllm) for n in PAPER + ("llama3.1:8b", "llama3:8b")] == [
        ["google/gemma-3-12b-it"],
        ["Qwen/Qwen3-8B"],
        ["deepseek-ai/DeepSeek-R1-0528-Qwen3-8B"],
        ["microsoft/phi-4"],
        ["mistralai/Mistral-7B-Instruct-v0.3"],
        ["meta-llama/Meta-Llama-3.1-8B-Instruct"],
        ["meta-llama/Meta-Llama-3-8B-Instruct"],
    ]
    assert matches("gemma3:12b", ["gemma3:4b", "gemma3:27b"]) == []  # another size is another model
    lu, rows = on_server(
        load_lineup("paper-council"), Server("openai", "http://h/v1"), {}, ["gemma-3-12b-a", "gemma-3-12b-b"] + vllm[1:]
    )
    gemma = next(r for r in rows if r["model"] == "gemma3:12b")
    assert gemma["server_model"] is None and gemma["how"] == "several fit"
    assert gemma["candidates"] == ["gemma-3-12b-a", "gemma-3-12b-b"]


def test_on_server_moves_every_seat_and_leaves_a_persons_seat():
    lineup = {
        "name": "mix",
        "members": [
            {"name": "a", "model": "local:qwen2.5-coder-0.5b"},
            {"name": "b", "model": "ollama:qwen3:8b@http://old:11434"},
        ],
        "judge": {"name": "j", "model": "openai:gpt-4o-mini"},
        "roles": {"opponent": {"name": "me", "model": "human:person"}},
    }
    lu, rows = on_server(
        lineup, Server("ollama", "http://gpu:11434"), {"a": "qwen2.5:0.5b"}, ["qwen2.5:0.5b", "qwen3:8b", "gpt-4o-mini"]
    )
    assert [m["model"] for m in lu["members"]] == [
        "ollama:qwen2.5:0.5b@http://gpu:11434",
        "ollama:qwen3:8b@http://gpu:11434",
    ]
    assert lu["judge"]["model"] == "ollama:gpt-4o-mini@http://gpu:11434"
    assert lu["roles"]["opponent"]["model"] == "human:person"
    assert {r["how"] for r in rows} == {"mapped", "same name"} and "gpu:11434" in lu["name"]
    assert load_lineup(lu)  # still a valid lineup
    fleet = {"members": [{"name": "f", "model": "ollama:x@http://a:11434|ollama:x@http://b:11434"}]}
    with pytest.raises(InvalidInput, match="several servers"):
        on_server(fleet, Server("ollama"), {}, ["x"])


def test_the_papers_council_has_five_distinct_models_on_either_server_kind():
    assert ALIASES["paper-council"] in PRESETS
    for name in ("paper-council", "paper-council-ollama", "paper-council-openai"):
        agents = resolve_agents(load_lineup(name), "council")
        members = [a for a in agents if a.role == "member"]
        assert [a.agent for a in members] == list(MEMBERS)
        assert len({a.model for a in members}) == 5 and [a.role for a in agents].count("chair") == 1
    assert {a.model.split(":")[0] for a in resolve_agents(load_lineup("paper-council-openai"), "council")} == {"openai"}


def test_model_map_without_a_server_is_refused(tmp_path):
    r = _cli(tmp_path, "run", "--model-map", "gemma3:12b=x", "--lineup", "paper-council", CLAIM)
    assert r.returncode == 2 and "--server" in r.stderr and "Traceback" not in r.stderr


def test_an_unreachable_server_is_told_with_how_to_start_it(tmp_path):
    port = closed_port()
    for server, says in (
        (f"openai@http://127.0.0.1:{port}/v1", "llama_cpp.server"),
        (f"ollama@http://127.0.0.1:{port}", "ollama serve"),
    ):
        r = _cli(tmp_path, "run", "--lineup", "paper-council", "--server", server, CLAIM)
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert "Cannot list the models of the " in r.stderr and f"127.0.0.1:{port}" in r.stderr and says in r.stderr


def test_a_key_goes_only_to_the_url_it_was_saved_for(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    one_model = dict.fromkeys(MAP, "scripted")  # the recorders list one model: every seat on it
    with recorder() as a, recorder() as b:
        settings = {
            "openai": {
                "base_url": "https://api.example.org/v1",
                "api_key": "k-settings",
                "keys": {f"{a.host}/v1": "k-for-a"},
            }
        }
        for rec in (a, b):
            point_at_server(
                load_lineup("paper-council"),
                parse_server(f"openai@{rec.host}/v1"),
                one_model,
                default_client(settings, cache=False),
            )
        sent = [{r["headers"].get("authorization") for r in rec.requests} for rec in (a, b)]
    assert sent[0] == {"Bearer k-for-a"}
    assert sent[1] and sent[1] <= {None, "Bearer sk-no-key"}  # neither a's key nor the settings' one


# -- against a real llama.cpp server ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    srv = start_llama_multi_server(
        {"qwen": packaged.ensure_model("qwen2.5-coder-0.5b"), "smol": packaged.ensure_model("smollm2-135m")},
        tmp_path_factory.mktemp("llama-multi"),
        n_ctx=2048,
        n_threads=1,
    )  # on 2 busy cores one thread answered 3x sooner than two
    yield srv
    srv.stop()


@pytest.fixture()
def home(tmp_path) -> Path:
    # the members are asked at once and the server answers one after another: a turn may wait for four others
    slow = {"timeout_s": 900, "max_parallel": 1}
    (tmp_path / "settings.json").write_text(json.dumps({"openai": slow, "ollama": slow}))
    return tmp_path


@pytest.mark.real_model
@pytest.mark.timeout(300)
def test_missing_models_are_named_before_the_debate_starts(llama, home):
    r = _cli(
        home,
        "run",
        "--lineup",
        "paper-council",
        "--server",
        llama.url,
        "--model-map",
        "gemma3:12b=qwen,qwen3:8b=smol,Phi4=phi-4",
        "--events",
        str(home / "ev.jsonl"),
        CLAIM,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    err = r.stderr
    assert f"OpenAI-compatible server at {llama.url} lacks 4" in err
    for missing in (
        "deepseek-r1:8b (DeepSeek-R1)",
        "mistral:7b (Mistral)",
        "llama3.1:8b (Llama3.1)",
        "phi4:14b (Phi4): mapped to 'phi-4', which it does not list",
    ):
        assert missing in err
    assert "It has: qwen, smol." in err and "--model-map" in err and "model_alias" in err
    assert not (home / "ev.jsonl").exists()  # refused before the debate started: nothing to store


@pytest.mark.real_model
@pytest.mark.timeout(600)
def test_the_app_puts_the_lineup_on_the_server_and_names_what_is_missing(llama, home, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("DEBATE_HOME", str(home))
    at = AppTest.from_file("../../app.py", default_timeout=180)
    at.session_state["_client"] = default_client(cache=False)
    at.run()
    at.radio(key="cfg_protocol").set_value("council").run()
    at.selectbox(key="cfg_preset").set_value("paper-council-openai").run()
    at.selectbox(key="cfg_server_kind").set_value("openai").run()
    at.text_input(key="cfg_server_url").input(llama.url).run()
    assert not at.exception, [e.message for e in at.exception]
    said = html.unescape(" ".join(w.value for w in at.warning))
    assert f"OpenAI-compatible server at {llama.url} lacks 6" in said and "It has: qwen, smol." in said
    assert "gemma3:12b (Gemma3)" in said and "llama3.1:8b (Llama3.1)" in said
    at.text_area(key="claim").input(CLAIM)
    at.button(key="run").click().run()  # refused before anything starts, with the server's own words
    assert "debate_id" not in at.session_state
    assert any("not available" in html.unescape(e.value) and llama.url in html.unescape(e.value) for e in at.error)
    at.text_area(key="cfg_server_map").input(map_text(MAP)).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not any("lacks" in w.value for w in at.warning)
    assert any("gemma3:12b → qwen (mapped)" in html.unescape(c.value) for c in at.caption)
    seats = {s.key.rsplit("_", 1)[-1]: s.value for s in at.selectbox if s.key and s.key.startswith("lu_")}
    assert {m: seats[m] for m in MEMBERS} == {m: f"openai:{MAP[p]}@{llama.url}" for m, p in zip(MEMBERS, PAPER)}
    assert seats["chair"] == f"openai:qwen@{llama.url}"
    assert not any("Not available" in w.value for w in at.warning)


@pytest.mark.real_model
@pytest.mark.timeout(1500)
def test_the_papers_council_runs_on_a_llama_cpp_server_with_one_flag(llama, home):
    (home / "map.json").write_text(json.dumps(MAP))
    events = home / "ev.jsonl"
    r = _cli(
        home,
        "run",
        "--lineup",
        "paper-council",
        "--server",
        llama.url,
        "--model-map",
        str(home / "map.json"),
        "--rounds",
        "0",
        "--param",
        "examples=false",
        "--max-tokens",
        "24",
        "--color",
        "never",
        "--events",
        str(events),
        CLAIM,
    )
    assert r.returncode == 0, r.stderr[-2000:] + r.stdout[-2000:]
    assert "gemma3:12b -> openai:qwen@" in r.stderr  # the mapping used is said
    council_ran([json.loads(line) for line in events.read_text().splitlines()], llama.url, "openai", MAP)


# -- against Ollama's API (the stand-in: Ollama's REST API over the same embedded weights) ----------------
@pytest.fixture(scope="module")
def ollama(tmp_path_factory):
    srv = start_paper_ollama(tmp_path_factory.mktemp("ollama-standin"))
    yield srv
    srv.stop()


@pytest.mark.real_model
@pytest.mark.timeout(300)
def test_an_ollama_server_without_the_papers_models_says_which_to_pull(ollama, home):
    r = _cli(
        home,
        "run",
        "--lineup",
        "paper-council",
        "--server",
        f"ollama@{ollama.url}",
        "--events",
        str(home / "ev.jsonl"),
        CLAIM,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    err = r.stderr
    assert f"Ollama server at {ollama.url} lacks 6 of the lineup's models" in err
    for seat in (
        "gemma3:12b (Gemma3)",
        "qwen3:8b (Qwen3)",
        "deepseek-r1:8b (DeepSeek-R1)",
        "phi4:14b (Phi4)",
        "mistral:7b (Mistral)",
        "llama3.1:8b (Llama3.1)",
    ):
        assert seat in err
    assert "It has: qwen2.5:0.5b, smollm2:135m." in err
    assert "`ollama pull gemma3:12b`" in err and "`ollama pull mistral:7b`" in err and "--model-map" in err
    assert not (home / "ev.jsonl").exists()


@pytest.mark.real_model
@pytest.mark.timeout(1500)
def test_the_papers_council_runs_on_an_ollama_server_with_one_flag(ollama, home):
    """Through the real `ollama` client: /api/tags to map the names, /api/show for each model's window,
    /api/chat streamed as NDJSON with its done line and token counts."""
    events = home / "ev.jsonl"
    r = _cli(
        home,
        "run",
        "--lineup",
        "paper-council",
        "--server",
        f"ollama@{ollama.url}",
        "--model-map",
        ",".join(f"{k}={v}" for k, v in OLLAMA_MAP.items()),
        "--rounds",
        "0",
        "--param",
        "examples=false",
        "--max-tokens",
        "24",
        "--color",
        "never",
        "--events",
        str(events),
        CLAIM,
    )
    assert r.returncode == 0, r.stderr[-2000:] + r.stdout[-2000:] + ollama.tail()
    assert "gemma3:12b -> ollama:qwen2.5:0.5b@" in r.stderr and "qwen3:8b -> ollama:smollm2:135m@" in r.stderr
    evs = council_ran([json.loads(line) for line in events.read_text().splitlines()], ollama.url, "ollama", OLLAMA_MAP)
    calls = [e for e in evs if e["type"] == "turn_finished" and e.get("role") == "member"]
    # the server's own counters (prompt_eval_count / eval_count of the done line) reach the events
    # (a repaired turn counts its repair call's tokens too, so only the first vote is bounded by the budget)
    assert all(e["prompt_tokens"] > 50 and e["completion_tokens"] > 0 for e in calls), calls
    assert all(e["completion_tokens"] <= 24 for e in calls if not e["repaired"]), calls
    sent = [json.loads(line) for line in ollama.requests.read_text().splitlines()]
    assert {r["model"] for r in sent} == {"qwen2.5:0.5b", "smollm2:135m"}  # both models answered
    assert {r["options"]["num_ctx"] for r in sent} == {2048}  # the window /api/show reported, asked for
