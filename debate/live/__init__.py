"""The live path: debates that run while people watch.

worker.py runs each debate in a thread that writes every event to the store (its public names are
re-exported here, so `from debate import live; live.start_debate(...)` works); warmup.py reads a debate's
first prompts before Run; pace.py holds the live-demo settings (fewer rounds, shorter answers).
Services layer: may import the runner and everything below it; never the CLI, teaching or adjudication.
"""

from debate.live.worker import (
    TOKEN_FLUSH_N,
    TOKEN_FLUSH_S,
    WAIT_WORDS_S,
    LiveDebate,
    RunFn,
    is_running,
    new_debate_id,
    running,
    start_debate,
    stop,
    wait,
)

__all__ = [
    "TOKEN_FLUSH_N",
    "TOKEN_FLUSH_S",
    "WAIT_WORDS_S",
    "LiveDebate",
    "RunFn",
    "is_running",
    "new_debate_id",
    "running",
    "start_debate",
    "stop",
    "wait",
]
