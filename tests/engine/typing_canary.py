"""Mistakes the type checker must report: `make lint` checks this file with debate/ (pyproject.toml, mypy
`files`). Each mistake carries `# type: ignore[code]`, and with `warn_unused_ignores` the lint fails when
one of them stops being an error, i.e. when a change to the types would let that mistake through again.
tests/engine/test_engine_typing.py checks the other side: with the ignores taken off, mypy reports each."""

from __future__ import annotations

from debate.lineups import Agent
from debate.protocols.base import DebateContext, Steps, TurnSpec


def prompt_without_yield_from(ctx: DebateContext, agent: Agent) -> Steps[TurnSpec]:
    """`ctx.prompt` is a step (Steps[list[Message]]): called without `yield from` it builds no prompt, and
    its generator is not the messages a TurnSpec needs."""
    msgs = ctx.prompt(agent, None, "engine.step", {})
    return TurnSpec(agent, "answer", 0, msgs, "engine.step")  # type: ignore[arg-type]
    yield  # a generator function, as every step is


def turn_without_yield_from(ctx: DebateContext, spec: TurnSpec) -> Steps[str | None]:
    """The same with `ctx.turn`: its generator has no label."""
    finished = ctx.turn(spec)
    return finished.label  # type: ignore[attr-defined]
    yield


def label_without_none_check(ctx: DebateContext, spec: TurnSpec) -> Steps[str]:
    """A turn's label is None when the answer could not be read: it must be checked before use."""
    finished = yield from ctx.turn(spec)
    return finished.label.upper()  # type: ignore[union-attr]
