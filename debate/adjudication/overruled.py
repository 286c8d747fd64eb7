"""Debates a person overruled, as an annotation queue: the hard cases a person and the judge disagree on.

The person's verdicts are stored beside the debates (debate.store.people); each case shows both verdicts and
replays its debate, like the cases built from evaluation runs (hardcases.py).
"""

from __future__ import annotations

from typing import Any

from debate import tasks
from debate.adjudication.hardcases import HardCase, QueueSpec
from debate.errors import InvalidInput
from debate.store.people import PeopleStore


def overruled_queue(debates: Any, people_store: PeopleStore, task: str, name: str = "") -> QueueSpec:
    """An annotation queue (QueueSpec) of the debates of `task` where a person's verdict
    differs from the judge's: each case shows both verdicts and replays its debate."""
    cases = []
    for did, o in people_store.disagreements().items():
        row = debates.get(did)
        if row is None or row.get("task") != task:
            continue
        case = HardCase(
            item_id=did,
            text=row.get("claim", ""),
            category=row.get("category"),
            gold=row.get("gold"),
            reasons=["a person overruled the judge"],
            debates=[{"debate_id": did}],
        )
        case.verdicts = [
            {
                "run": "judge",
                "protocol": row.get("protocol", ""),
                "label": o.get("judge_label"),
                "confidence": None,
                "consensus": None,
                "correct": None,
            },
            {
                "run": "person",
                "protocol": "person",
                "label": o["label"],
                "confidence": None,
                "consensus": None,
                "correct": None,
                "reason": o["reason"],
            },
        ]
        cases.append(case)
    if not cases:
        raise InvalidInput(
            f"No {task} debate has a person's verdict that differs from the judge's.",
            "Record one under “Your verdict” in the Library or after a debate, then build the queue.",
        )
    labels = list(tasks.get(task).labels)
    return QueueSpec(
        name=name or f"overruled · {task}", task=task, labels=labels, cases=cases, source={"kind": "overrules"}
    )
