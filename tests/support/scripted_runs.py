"""Debates and evaluation runs made by the real runner and stored by the real store, on scripted models:
a council lineup of three members, a judge and a chair, and the runs the Adjudicate page reads."""

from __future__ import annotations

from debate import live
from debate.evaluation.checkpoint import Checkpoint
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from debate.runner import DebateConfig, run_debate
from debate.store import DebateStore
from debate.teaching.flow import _reply_fn


def scripted_client(scenario: str = "flip", labels=("YES", "NO"), delay_s: float = 0.0) -> ModelClient:
    return ModelClient(backends={"scripted": ScriptedBackend(default=_reply_fn(scenario, labels), delay_s=delay_s)})


SCRIPTED_LINEUP = {
    "name": "scripted",
    "members": [
        {"name": n, "model": f"scripted:{n}", "temperature": 0.0, "seed": i}
        for i, n in enumerate(("ana", "ben", "cy"), 1)
    ],
    "judge": {"name": "judge", "model": "scripted:judge", "seed": 0},
    "chair": {"name": "chair", "model": "scripted:chair", "seed": 0},
}


def stored_council_debate(claim: str = "Coffee cures colds, a study says.") -> str:
    cfg = DebateConfig(
        claim=claim,
        protocol="council",
        task="checkthat",
        category=1,
        lineup=SCRIPTED_LINEUP,
        params={"rounds": 3},
        max_tokens=32,
    )
    did = live.start_debate(cfg, scripted_client("flip"), None, DebateStore(), run=run_debate)
    assert live.wait(did, 30)
    return did


def make_run(root, name: str, protocol: str, preds: dict) -> str:
    """A real evaluation checkpoint whose items carry real council event streams."""
    cp = Checkpoint(root / name)
    cp.set_meta(
        "dataset",
        {"name": "liar-valid", "task": "halftruth", "labels": ["TRUE", "HALF-TRUE", "FALSE"], "categories": []},
    )
    cp.set_meta("options", {"protocol": protocol, "category": None})
    cp.set_meta("created_at", 1.0)
    cp.add_items((iid, n, f"Claim number {iid}", "TRUE") for n, iid in enumerate(preds))
    for iid, pred in preds.items():
        cfg = DebateConfig(
            claim=f"Claim number {iid}",
            protocol="council",
            task="halftruth",
            lineup=SCRIPTED_LINEUP,
            params={"rounds": 2},
            max_tokens=32,
        )
        events = [
            e.to_dict() for e in run_debate(cfg, scripted_client("split", ("TRUE", "FALSE"))) if e.type != "token"
        ]
        for e in events:
            if e["type"] == "verdict":
                e["label"] = pred
        cp.finish(iid, status="done", prediction=pred, events=events, stats={})
    cp.close()
    return str(root / name)
