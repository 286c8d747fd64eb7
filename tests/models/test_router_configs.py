"""The router configs the docs hand out (assets/router/) say what the docs claim of them, without a model:
the paper's council config names every model of the `paper-council` lineup by the lineup's own name (so
`--server openai@ROUTER` needs no model map) on two machines, and the two-server config is the one the
real-router test (tests/models/test_router.py) runs."""

from __future__ import annotations

from collections import defaultdict

import yaml

from debate.lineup_server import model_name
from debate.lineups import load_lineup
from debate.models.spec import ModelSpec
from tests.support.servers import REPO

ROUTER = REPO / "assets" / "router"


def _deployments(name: str) -> dict[str, list[dict]]:
    config = yaml.safe_load((ROUTER / name).read_text(encoding="utf-8"))
    by_name: dict[str, list[dict]] = defaultdict(list)
    for d in config["model_list"]:
        by_name[d["model_name"]].append(d["litellm_params"])
    assert config["router_settings"]["routing_strategy"] == "least-busy"
    assert config["general_settings"]["master_key"] == "os.environ/LITELLM_MASTER_KEY"  # no key in a file
    return by_name


def test_the_paper_council_config_serves_every_seat_by_its_own_name_on_two_machines():
    lineup = load_lineup("paper-council")
    wanted = {model_name(ModelSpec.parse(e["model"])) for e in (*lineup["members"], lineup["chair"])}
    by_name = _deployments("paper-council.yaml")
    assert set(by_name) == wanted and len(wanted) == 6
    for name, deps in by_name.items():
        assert len({d["api_base"] for d in deps}) == 2, name
        assert all(d["model"] == f"ollama_chat/{name}" for d in deps), name


def test_the_two_server_config_reads_its_servers_from_the_environment():
    by_name = _deployments("two-llama-servers.yaml")
    assert [d["api_base"] for d in by_name["smollm2"]] == ["os.environ/UPSTREAM_1", "os.environ/UPSTREAM_2"]
