"""run_debate: the single entry point that turns a DebateConfig into an event stream.

CONTRACT (owned by the engine; the UI, the store, the CLI and batch evaluation rely on it):
    run_debate(config, client, retriever=None, cancel=None) -> Iterator[Event]
- the first event is DebateStarted, the last is always DebateFinished (status completed|stopped|error);
- a failure becomes an ErrorEvent followed by DebateFinished(status="error"), never an exception
  escaping mid-stream (an invalid config raises InvalidInput *before* the first event);
- `seq` is assigned here, 0-based and gap-free; `t` is seconds since start;
- `cancel` is a threading.Event: when set, the debate stops between tokens with status "stopped".
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Iterator

from debate.events import Event


@dataclass
class DebateConfig:
    claim: str
    protocol: str = "council"  # single | team | council | baseline | radar | radar-single
    task: str = "checkthat"  # checkthat | halftruth | averitec | custom
    category: int | None = 1  # CheckThat category 1..3; None = all three (with the cat2=>cat3 rule)
    custom_title: str = ""
    custom_description: str = ""
    lineup: str | dict = "embedded"  # preset name, path to a lineup JSON file, or a lineup dict
    params: dict[str, Any] = field(default_factory=dict)  # protocol parameters overriding defaults
    evidence: bool | None = None  # None = protocol default (RADAR: on; others: off)
    top_k: int = 20
    max_tokens: int = 256
    seed: int = 0
    gold: str | None = None
    debate_id: str | None = None
    apply_cat2_rule: bool = True


def run_debate(config: DebateConfig, client, retriever=None,
               cancel: threading.Event | None = None) -> Iterator[Event]:
    raise NotImplementedError("engine not built yet")
